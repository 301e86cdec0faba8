//! The wenshu demo: data the binary makes itself (movies, box office, ratings, sales) and the demo catalog with its SQL
//! templates (`x-sql`, run by the engine's SQL template executor).
//!
//! [`create`] drops and recreates the tables `movies`, `box_office`, `ratings`, `sales_people` and `sales` and
//! fills them deterministically for `today`; [`create_if_absent`] leaves an existing demo alone. Dates are ISO
//! strings (`YYYY-MM-DD`) in `VARCHAR(10)` columns, so the same templates run on SQLite, PostgreSQL and MariaDB.

mod data;
mod entities;
mod schema;

use jiff::civil::Date;
use serde::Serialize;
use serde_json::Value;

pub use data::{BOX_OFFICE_DAYS, DemoRows, PRODUCTS, REGIONS, SALES_DAYS, XorShift, demo_rows};
pub use entities::{DemoEntities, ENTITIES_JSON, Movie, SalesPerson, demo_entities};
pub use schema::TABLES;

use wenshu_sql::db::{Database, DbError, QueryLimits};

/// How many rows the demo holds, per table.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct DemoSummary {
    /// Rows of `movies`.
    pub movies: usize,
    /// Rows of `box_office`.
    pub box_office: usize,
    /// Rows of `ratings`.
    pub ratings: usize,
    /// Rows of `sales_people`.
    pub sales_people: usize,
    /// Rows of `sales`.
    pub sales: usize,
}

/// One table's name, columns and rows.
type TableRows<'a> = (&'a str, &'a [&'a str], &'a [Vec<Value>]);

/// Makes the demo in the database at `url` (a writable connection, closed afterwards), for `today`.
pub async fn create_at(url: &str, today: Date) -> Result<DemoSummary, DbError> {
    let db = Database::connect(url).await?;
    let summary = create(&db, today).await;
    db.close().await;
    summary
}

/// Drops and recreates the demo tables on a writable `db` and fills them for `today`, in one transaction.
pub async fn create(db: &Database, today: Date) -> Result<DemoSummary, DbError> {
    let entities = demo_entities().map_err(|e| DbError::Query {
        message: format!("the shipped entity catalog is broken: {e}"),
    })?;
    let rows = demo_rows(&entities, today);
    let dialect = db.dialect();
    let mut statements = schema::recreate(dialect);
    let tables: [TableRows<'_>; 5] = [
        ("movies", &["id", "name", "year", "genre"], &rows.movies),
        ("box_office", &["movie_id", "day", "revenue"], &rows.box_office),
        ("ratings", &["movie_id", "score", "votes"], &rows.ratings),
        ("sales_people", &["id", "name"], &rows.sales_people),
        (
            "sales",
            &["id", "day", "region", "product", "sales_person", "amount", "quantity"],
            &rows.sales,
        ),
    ];
    for (table, columns, table_rows) in tables {
        statements.extend(schema::inserts(dialect, table, columns, table_rows));
    }
    db.execute_all(&statements).await?;
    Ok(DemoSummary {
        movies: rows.movies.len(),
        box_office: rows.box_office.len(),
        ratings: rows.ratings.len(),
        sales_people: rows.sales_people.len(),
        sales: rows.sales.len(),
    })
}

/// Creates the demo unless its tables already hold data; returns what was created, or `None` when it was there.
pub async fn create_if_absent(db: &Database, today: Date) -> Result<Option<DemoSummary>, DbError> {
    let present = db
        .query("SELECT COUNT(*) AS n FROM sales", &[], QueryLimits::default())
        .await
        .ok()
        .and_then(|rows| rows.rows.first().and_then(|row| row.first()).and_then(Value::as_i64))
        .is_some_and(|n| n > 0);
    if present {
        return Ok(None);
    }
    create(db, today).await.map(Some)
}
