//! SQLite: names ignore ASCII case, a body sees every CTE of its WITH, `main` is the default schema, a negative
//! LIMIT means none, days are ISO text.

use sqlparser::dialect::SQLiteDialect;

use super::{CteSight, DialectRules};

/// SQLite's rules.
#[derive(Debug, Clone, Copy)]
pub struct Sqlite;

impl DialectRules for Sqlite {
    fn name(&self) -> &'static str {
        "sqlite"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["sqlite3"]
    }

    fn parser(&self) -> Box<dyn sqlparser::dialect::Dialect> {
        Box::new(SQLiteDialect {})
    }

    fn default_schema(&self) -> Option<&'static str> {
        Some("main")
    }

    /// A body sees every CTE of its clause, itself and later ones included, with or without RECURSIVE.
    fn later_cte_sight(&self, _recursive: bool, _is_itself: bool) -> CteSight {
        CteSight::Cte
    }

    fn table_functions(&self) -> &'static [&'static str] {
        &["json_each", "json_tree"]
    }

    fn negative_limit_is_none(&self) -> bool {
        true
    }

    /// An OFFSET stops the query flattener and WHERE-clause pushdown.
    fn scope_fence(&self) -> &'static str {
        "SELECT * FROM t WHERE 1 = 1 LIMIT -1 OFFSET 0"
    }

    fn week_start(&self, day: &str) -> String {
        format!("DATE({day}, '-' || ((CAST(STRFTIME('%w', {day}) AS INTEGER) + 6) % 7) || ' days')")
    }

    fn day_of_week(&self, day: &str) -> String {
        format!("((CAST(STRFTIME('%w', {day}) AS INTEGER) + 6) % 7 + 1)")
    }
}
