//! PostgreSQL: unquoted names fold to lower case and quoted ones keep theirs, `public` is the default schema,
//! `pg_catalog.` may qualify a built-in, placeholders are numbered, `TABLE x` is a statement.

use sqlparser::ast::Ident;
use sqlparser::dialect::PostgreSqlDialect;
use sqlparser::keywords::Keyword;
use sqlparser::tokenizer::{Token, Tokenizer};

use super::{CteSight, DialectRules};

/// PostgreSQL's rules.
#[derive(Debug, Clone, Copy)]
pub struct Postgres;

impl DialectRules for Postgres {
    fn name(&self) -> &'static str {
        "postgres"
    }

    fn aliases(&self) -> &'static [&'static str] {
        &["postgresql", "pg"]
    }

    fn parser(&self) -> Box<dyn sqlparser::dialect::Dialect> {
        Box::new(PostgreSqlDialect {})
    }

    /// The statement `TABLE x` (which the parser takes only inside a query) as `SELECT * FROM (TABLE x)`.
    fn respell(&self, sql: &str) -> Option<String> {
        let tokens = Tokenizer::new(&PostgreSqlDialect {}, sql).tokenize().ok()?;
        let first = tokens.iter().find(|t| !matches!(t, Token::Whitespace(_)))?;
        let Token::Word(word) = first else { return None };
        if word.keyword != Keyword::TABLE {
            return None;
        }
        let body = sql.trim_end().trim_end_matches(';');
        Some(format!("SELECT * FROM ({body}\n) AS wenshu_table"))
    }

    fn fold(&self, ident: &Ident) -> String {
        match ident.quote_style {
            Some(_) => ident.value.clone(),
            None => ident.value.to_ascii_lowercase(),
        }
    }

    /// An entry allows its exact spelling and its lower-case fold (what an unquoted mention of it means), so a
    /// quoted `"SALES"` is not `sales`.
    fn table_matches(&self, entry: &str, folded: &str) -> bool {
        entry == folded || entry.to_ascii_lowercase() == folded
    }

    fn default_schema(&self) -> Option<&'static str> {
        Some("public")
    }

    fn builtin_function_schema(&self) -> Option<&'static str> {
        Some("pg_catalog")
    }

    /// The SQL-standard ones, where `user` is one.
    fn session_keywords(&self) -> &'static [&'static str] {
        &[
            "current_user",
            "session_user",
            "current_role",
            "user",
            "current_catalog",
            "current_schema",
        ]
    }

    /// Without RECURSIVE only earlier CTEs; with it every CTE.
    fn later_cte_sight(&self, recursive: bool, _is_itself: bool) -> CteSight {
        if recursive { CteSight::Cte } else { CteSight::Outside }
    }

    fn table_functions(&self) -> &'static [&'static str] {
        POSTGRES_SET_RETURNING_FUNCTIONS
    }

    /// `OFFSET 0` stops the subquery pull-up and qual pushdown.
    fn scope_fence(&self) -> &'static str {
        "SELECT * FROM t WHERE 1 = 1 OFFSET 0"
    }

    fn placeholder(&self, index: usize) -> String {
        format!("${}", index + 1)
    }

    fn numbered_placeholders(&self) -> bool {
        true
    }

    fn casts_bound_days(&self) -> bool {
        true
    }

    fn date_text(&self, column: &str) -> String {
        format!("TO_CHAR({column}, 'YYYY-MM-DD')")
    }

    fn week_start(&self, day: &str) -> String {
        format!("TO_CHAR(DATE_TRUNC('week', CAST({day} AS DATE)), 'YYYY-MM-DD')")
    }
}

/// PostgreSQL's set-returning functions over a value of the row (JSON, arrays, split text) that read no table: on
/// the allow list (`GuardPolicy::new` adds them) and the table functions a PostgreSQL FROM item may call.
pub const POSTGRES_SET_RETURNING_FUNCTIONS: &[&str] = &[
    "unnest",
    "json_each",
    "jsonb_each",
    "json_each_text",
    "jsonb_each_text",
    "json_array_elements",
    "jsonb_array_elements",
    "json_array_elements_text",
    "jsonb_array_elements_text",
    "json_object_keys",
    "jsonb_object_keys",
    "json_to_recordset",
    "jsonb_to_recordset",
    "regexp_split_to_table",
    "string_to_table",
];
