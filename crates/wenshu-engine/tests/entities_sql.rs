//! Entity catalogs loaded by a SQL query from the demo database.

use jiff::civil::date;
use wenshu_engine::db::Database;
use wenshu_engine::resolve::sql::load_entities;
use wenshu_engine::resolve::{EntityCatalogs, Resolution, ResolveError};

#[tokio::test]
async fn a_query_loads_an_entity_type_with_attributes_and_aliases() {
    let path = std::env::temp_dir().join(format!("wenshu-entities-sql-{}.sqlite", std::process::id()));
    let _ = std::fs::remove_file(&path);
    let url = format!("sqlite://{}", path.display());
    wenshu_demo::create_at(&url, date(2026, 11, 29)).await.unwrap();
    let db = Database::connect_read_only(&url).await.unwrap();
    let movies = load_entities(&db, "movie", "SELECT id, name, year, genre FROM movies")
        .await
        .unwrap();
    assert_eq!(movies.len(), 22);
    let mut catalogs = EntityCatalogs::new();
    catalogs.insert("movie", movies);
    let index = catalogs.get("movie").unwrap();
    match index.resolve("英雄", 5) {
        Resolution::Ambiguous { candidates, .. } => {
            assert_eq!(candidates.len(), 2);
            assert!(candidates.iter().all(|c| c.entity.attributes.contains_key("year")));
        }
        other => panic!("expected candidates, got {other:?}"),
    }
    let aliased = load_entities(
        &db,
        "movie",
        "SELECT id, name, '唐探3,唐人街3' AS aliases FROM movies WHERE id = 9",
    )
    .await
    .unwrap();
    assert_eq!(aliased[0].aliases, ["唐探3", "唐人街3"]);
    let broken = load_entities(&db, "movie", "SELECT title FROM movies")
        .await
        .unwrap_err();
    assert!(matches!(broken, ResolveError::Query { .. }), "{broken}");
    let nameless = load_entities(&db, "movie", "SELECT id FROM movies").await.unwrap_err();
    assert!(nameless.to_string().contains("name"), "{nameless}");
    let _ = std::fs::remove_file(&path);
}
