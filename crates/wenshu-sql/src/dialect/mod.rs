//! SQL dialects: one [`Dialect`] type, and what each dialect does differently behind one trait, [`DialectRules`],
//! one file per dialect ([`sqlite`], [`postgres`], [`mysql`]), as sqlparser keeps its dialects.
//!
//! Everything that depends on the dialect when SQL text is read, checked, rewritten or written — the parser, how
//! names fold, which CTEs a body sees, the scoped subquery's fence, quoting, placeholders, date buckets — asks the
//! dialect's rules; nothing else in the crate matches on a dialect. A dialect with no driver here (one a test
//! defines, or one a caller adds for checking and compiling only) is a [`Dialect::Custom`]: one file implementing
//! [`DialectRules`], and its tests.

pub mod mysql;
pub mod postgres;
pub mod sqlite;

use std::fmt;
use std::hash::{Hash, Hasher};

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use sqlparser::ast::Ident;

/// What a one-part name in the body of one CTE means when it matches a CTE of the same WITH clause.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CteSight {
    /// The CTE.
    Cte,
    /// Not the CTE: the name is looked up outside the WITH clause (an enclosing CTE, else a table).
    Outside,
    /// The databases of the dialect disagree (MySQL reads a table, MariaDB the CTE): refused.
    Ambiguous,
}

/// What one SQL dialect does differently. Each method says one fact of the dialect; the guard, the row-scope
/// rewrite, the metric compiler and the placeholder rewrite read them.
pub trait DialectRules: Send + Sync + 'static {
    /// The dialect's name in messages, traces and configuration (`sqlite`, `postgres`, `mysql`).
    fn name(&self) -> &'static str;

    /// Other names configuration may use for it (`postgresql`, `pg`, `mariadb`, …).
    fn aliases(&self) -> &'static [&'static str] {
        &[]
    }

    /// The sqlparser dialect statements are tokenized and parsed with.
    fn parser(&self) -> Box<dyn sqlparser::dialect::Dialect>;

    /// A statement respelled before it is checked, so the parser reads what the database would (PostgreSQL's
    /// `TABLE x`, MySQL's `a MOD b`); `None` when nothing needs respelling. The respelled text is what runs.
    fn respell(&self, _sql: &str) -> Option<String> {
        None
    }

    /// A table or schema name as the database looks it up.
    fn fold(&self, ident: &Ident) -> String {
        ident.value.to_ascii_lowercase()
    }

    /// The key a CTE name is matched by; only a match the database is sure to make counts.
    fn cte_key(&self, ident: &Ident) -> String {
        self.fold(ident)
    }

    /// Whether an allow-list entry (as configured) names the table whose folded name is `folded`.
    fn table_matches(&self, entry: &str, folded: &str) -> bool {
        entry.eq_ignore_ascii_case(folded)
    }

    /// The connection's default schema, which a qualifier may name for the bare table (`main`, `public`); `None`
    /// when a qualifier always names something else.
    fn default_schema(&self) -> Option<&'static str>;

    /// The schema whose qualifier a built-in function may carry (`pg_catalog`), if any.
    fn builtin_function_schema(&self) -> Option<&'static str> {
        None
    }

    /// Whether an unquoted `DUAL` in FROM is no table.
    fn has_dual(&self) -> bool {
        false
    }

    /// Bare keywords (lower case) that read the session (`current_user`).
    fn session_keywords(&self) -> &'static [&'static str] {
        &[]
    }

    /// How the body of CTE `current` resolves a name matching CTE `target` of the same WITH clause, for a target
    /// not earlier than `current` (an earlier one is always the CTE).
    fn later_cte_sight(&self, recursive: bool, is_itself: bool) -> CteSight;

    /// Table-valued functions a FROM item may call by default: only ones that expand a value of the row.
    fn table_functions(&self) -> &'static [&'static str];

    /// Whether `format(fmt, …)` formats text by a pattern (else it formats a number, as MySQL's does).
    fn format_takes_pattern(&self) -> bool {
        true
    }

    /// Whether a negative LIMIT means no limit.
    fn negative_limit_is_none(&self) -> bool {
        false
    }

    /// Whether a reader of a recursive CTE bounded by a plain `LIMIT` bounds it.
    fn limit_bounds_recursion(&self) -> bool {
        true
    }

    /// The skeleton of a scoped subquery: `SELECT * FROM t WHERE 1 = 1` with a LIMIT or OFFSET that changes no row
    /// but keeps the optimizer from merging the subquery into the outer query or pushing the outer query's
    /// conditions into it.
    fn scope_fence(&self) -> &'static str;

    /// The character quoting an identifier.
    fn identifier_quote(&self) -> char {
        '"'
    }

    /// Whether a backslash in a string literal is an escape.
    fn backslash_escapes(&self) -> bool {
        false
    }

    /// The positional placeholder for the bind at `index` (0-based); the dialect's parser must read it as a
    /// placeholder (the row-scope check compares scoped subqueries with their placeholders set aside).
    fn placeholder(&self, _index: usize) -> String {
        "?".to_string()
    }

    /// Whether placeholders are numbered, so a name bound twice is one value (`$1` twice).
    fn numbered_placeholders(&self) -> bool {
        false
    }

    /// Whether a day bound to a `DATE` column is cast (`CAST(? AS DATE)`).
    fn casts_bound_days(&self) -> bool {
        false
    }

    /// A `DATE` column's day as ISO text (`2026-11-29`), given the column's SQL.
    fn date_text(&self, column: &str) -> String {
        column.to_string()
    }

    /// The quarter label `2026-Q4` from the year's and the month's text (SQL expressions).
    fn quarter_label(&self, year: &str, month: &str) -> String {
        format!("{year} || '-Q' || CAST((CAST({month} AS INTEGER) + 2) / 3 AS VARCHAR(1))")
    }

    /// The Monday of the week of a day (ISO text, an SQL expression), as ISO text.
    fn week_start(&self, day: &str) -> String;

    /// The ISO day of the week of a day (ISO text, an SQL expression): 1 for Monday to 7 for Sunday.
    fn day_of_week(&self, day: &str) -> String {
        format!("CAST(EXTRACT(ISODOW FROM CAST({day} AS DATE)) AS INTEGER)")
    }
}

/// A SQL dialect: one of the three wenshu connects to, or one defined elsewhere for checking and compiling only.
#[derive(Clone, Copy)]
pub enum Dialect {
    /// SQLite (a file, or memory).
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL or MariaDB.
    MySql,
    /// A dialect without a driver here: the guard and the compilers read its rules; `db` cannot connect to it.
    Custom(&'static dyn DialectRules),
}

impl Dialect {
    /// The dialects wenshu connects to.
    pub const BUILT_IN: [Dialect; 3] = [Dialect::Sqlite, Dialect::Postgres, Dialect::MySql];

    /// What the dialect does differently.
    pub fn rules(self) -> &'static dyn DialectRules {
        match self {
            Self::Sqlite => &sqlite::Sqlite,
            Self::Postgres => &postgres::Postgres,
            Self::MySql => &mysql::MySql,
            Self::Custom(rules) => rules,
        }
    }

    /// The dialect's name in messages and traces (`sqlite`, `postgres`, `mysql`).
    pub fn name(self) -> &'static str {
        self.rules().name()
    }

    /// Reads a built-in dialect's name or alias (`sqlite`, `postgres`/`postgresql`/`pg`, `mysql`/`mariadb`).
    pub fn from_name(name: &str) -> Option<Self> {
        let wanted = name.trim().to_ascii_lowercase();
        Self::BUILT_IN.into_iter().find(|d| {
            let rules = d.rules();
            rules.name() == wanted || rules.aliases().contains(&wanted.as_str())
        })
    }

    /// The positional placeholder for the bind at `index` (0-based): `?`, or `$1`, `$2`, … on PostgreSQL.
    pub fn placeholder(self, index: usize) -> String {
        self.rules().placeholder(index)
    }

    /// `name` as a quoted identifier (the quote character doubled inside).
    pub fn quote_identifier(self, name: &str) -> String {
        let quote = self.rules().identifier_quote();
        let doubled: String = [quote, quote].iter().collect();
        format!("{quote}{}{quote}", name.replace(quote, &doubled))
    }

    /// The position in [`Dialect::BUILT_IN`], for per-dialect caches; `None` for a custom dialect.
    pub fn built_in_index(self) -> Option<usize> {
        match self {
            Self::Sqlite => Some(0),
            Self::Postgres => Some(1),
            Self::MySql => Some(2),
            Self::Custom(_) => None,
        }
    }
}

impl PartialEq for Dialect {
    fn eq(&self, other: &Self) -> bool {
        self.name() == other.name()
    }
}

impl Eq for Dialect {}

impl Hash for Dialect {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.name().hash(state);
    }
}

impl fmt::Debug for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Sqlite => f.write_str("Sqlite"),
            Self::Postgres => f.write_str("Postgres"),
            Self::MySql => f.write_str("MySql"),
            Self::Custom(rules) => write!(f, "Custom({})", rules.name()),
        }
    }
}

impl fmt::Display for Dialect {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl Serialize for Dialect {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.name())
    }
}

impl<'de> Deserialize<'de> for Dialect {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let name = String::deserialize(deserializer)?;
        Self::from_name(&name).ok_or_else(|| {
            serde::de::Error::custom(format!("`{name}` is not a dialect; use sqlite, postgres or mysql"))
        })
    }
}
