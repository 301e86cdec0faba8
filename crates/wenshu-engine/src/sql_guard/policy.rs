//! What the guard lets through: the allowed tables, the function deny and allow lists, and the row limit.

use serde::{Deserialize, Serialize};

/// The SQL dialect a statement is parsed in (the connection's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum SqlDialect {
    /// SQLite.
    Sqlite,
    /// PostgreSQL.
    Postgres,
    /// MySQL or MariaDB.
    Mysql,
}

impl SqlDialect {
    /// Reads `sqlite`, `postgres`/`postgresql`/`pg`, `mysql`/`mariadb`.
    pub fn from_name(name: &str) -> Option<Self> {
        match name.trim().to_ascii_lowercase().as_str() {
            "sqlite" | "sqlite3" => Some(Self::Sqlite),
            "postgres" | "postgresql" | "pg" => Some(Self::Postgres),
            "mysql" | "mariadb" => Some(Self::Mysql),
            _ => None,
        }
    }

    /// The name used in messages and prompts.
    pub fn name(self) -> &'static str {
        match self {
            Self::Sqlite => "sqlite",
            Self::Postgres => "postgres",
            Self::Mysql => "mysql",
        }
    }
}

/// Functions that read files, sleep, load code or reach outside the database: never allowed.
pub const DEFAULT_DENIED_FUNCTIONS: &[&str] = &[
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "randomblob",
    "zeroblob",
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_stat_file",
    "pg_sleep",
    "pg_sleep_for",
    "pg_sleep_until",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "set_config",
    "current_setting",
    "lo_import",
    "lo_export",
    "lo_get",
    "lo_put",
    "dblink",
    "dblink_exec",
    "dblink_connect",
    "query_to_xml",
    "table_to_xml",
    "pg_advisory_lock",
    "pg_advisory_xact_lock",
    "pg_logical_emit_message",
    "sleep",
    "benchmark",
    "load_file",
    "get_lock",
    "release_lock",
    "master_pos_wait",
    "sys_exec",
    "sys_eval",
    "xp_cmdshell",
    "version",
];

/// Functions a generated query may call when no allow list is configured: aggregates, arithmetic, text, dates.
pub const DEFAULT_ALLOWED_FUNCTIONS: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "total",
    "group_concat",
    "string_agg",
    "array_agg",
    "json_group_array",
    "round",
    "abs",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "mod",
    "power",
    "sqrt",
    "ln",
    "log",
    "exp",
    "sign",
    "coalesce",
    "ifnull",
    "nullif",
    "isnull",
    "greatest",
    "least",
    "iif",
    "if",
    "lower",
    "upper",
    "length",
    "char_length",
    "character_length",
    "substr",
    "substring",
    "trim",
    "ltrim",
    "rtrim",
    "replace",
    "concat",
    "concat_ws",
    "instr",
    "position",
    "left",
    "right",
    "lpad",
    "rpad",
    "printf",
    "format",
    "date",
    "time",
    "datetime",
    "julianday",
    "strftime",
    "date_trunc",
    "date_part",
    "extract",
    "to_char",
    "to_date",
    "date_format",
    "year",
    "month",
    "day",
    "week",
    "quarter",
    "dayofweek",
    "weekday",
    "now",
    "current_date",
    "current_timestamp",
    "date_add",
    "date_sub",
    "datediff",
    "interval",
    "cast",
    "row_number",
    "rank",
    "dense_rank",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "ntile",
    "percent_rank",
    "cume_dist",
];

/// Schemas and tables that describe the database itself: never readable by generated SQL.
pub const SYSTEM_SCHEMAS: &[&str] = &[
    "pg_catalog",
    "information_schema",
    "mysql",
    "performance_schema",
    "sys",
    "pg_toast",
];

/// The guard's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuardPolicy {
    /// The tables a query may read (case-insensitive).
    pub allowed_tables: Vec<String>,
    /// Functions never allowed (case-insensitive).
    pub denied_functions: Vec<String>,
    /// When not empty, the only functions allowed.
    pub allowed_functions: Vec<String>,
    /// The LIMIT added when there is none, and the cap of a larger one.
    pub max_rows: u64,
}

impl GuardPolicy {
    /// The default policy over `tables`: the default deny and allow lists, at most 1000 rows.
    pub fn new<S: AsRef<str>>(tables: &[S]) -> Self {
        Self {
            allowed_tables: tables.iter().map(|t| t.as_ref().to_ascii_lowercase()).collect(),
            denied_functions: DEFAULT_DENIED_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            allowed_functions: DEFAULT_ALLOWED_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            max_rows: 1000,
        }
    }

    /// Whether a table (lower case) may be read.
    pub fn table_allowed(&self, name: &str) -> bool {
        self.allowed_tables.iter().any(|t| t.eq_ignore_ascii_case(name))
    }

    /// Why a function (lower case) may not be called, if it may not.
    pub fn function_refusal(&self, name: &str) -> Option<String> {
        if self.denied_functions.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            return Some(format!("function `{name}` is on the deny list"));
        }
        if !self.allowed_functions.is_empty() && !self.allowed_functions.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            return Some(format!("function `{name}` is not on the allow list"));
        }
        None
    }
}
