//! What the guard lets through: the allowed tables, the function deny and allow lists, and the row limit.

use serde::{Deserialize, Serialize};

use crate::dialect::Dialect;
pub use crate::dialect::postgres::POSTGRES_SET_RETURNING_FUNCTIONS;

/// Functions that read files, sleep, load code, run SQL text, probe the server or reach outside the database:
/// never allowed, also when the allow list is emptied.
pub const DEFAULT_DENIED_FUNCTIONS: &[&str] = &[
    // SQLite
    "load_extension",
    "readfile",
    "writefile",
    "edit",
    "fts3_tokenizer",
    "randomblob",
    "zeroblob",
    "sqlite_version",
    "sqlite_source_id",
    "sqlite_compileoption_get",
    "sqlite_compileoption_used",
    "sqlite_offset",
    "pragma_table_info",
    "pragma_table_list",
    "pragma_database_list",
    // PostgreSQL: files, sleeping, settings, large objects, SQL run from text, other servers, probes
    "pg_read_file",
    "pg_read_binary_file",
    "pg_ls_dir",
    "pg_ls_logdir",
    "pg_ls_waldir",
    "pg_ls_tmpdir",
    "pg_stat_file",
    "pg_sleep",
    "pg_sleep_for",
    "pg_sleep_until",
    "pg_terminate_backend",
    "pg_cancel_backend",
    "pg_reload_conf",
    "pg_rotate_logfile",
    "pg_advisory_lock",
    "pg_advisory_xact_lock",
    "pg_try_advisory_lock",
    "pg_logical_emit_message",
    "pg_get_viewdef",
    "pg_get_functiondef",
    "pg_table_size",
    "pg_relation_size",
    "pg_total_relation_size",
    "has_table_privilege",
    "has_column_privilege",
    "has_schema_privilege",
    "to_regclass",
    "set_config",
    "current_setting",
    "lo_import",
    "lo_export",
    "lo_get",
    "lo_put",
    "lo_open",
    "loread",
    "lo_from_bytea",
    "dblink",
    "dblink_exec",
    "dblink_connect",
    "dblink_send_query",
    "query_to_xml",
    "query_to_xmlschema",
    "query_to_xml_and_xmlschema",
    "table_to_xml",
    "table_to_xmlschema",
    "table_to_xml_and_xmlschema",
    "cursor_to_xml",
    "schema_to_xml",
    "database_to_xml",
    "database_to_xml_and_xmlschema",
    "xpath_table",
    "ts_stat",
    "current_query",
    "pg_execute_server_program",
    "generate_series",
    "generate_subscripts",
    "txid_current",
    "inet_server_addr",
    "inet_server_port",
    "pg_backend_pid",
    "current_database",
    "current_schema",
    "current_schemas",
    "current_user",
    "session_user",
    "current_role",
    "current_catalog",
    // MySQL and MariaDB
    "sleep",
    "benchmark",
    "load_file",
    "get_lock",
    "release_lock",
    "is_free_lock",
    "master_pos_wait",
    "source_pos_wait",
    "extractvalue",
    "updatexml",
    "sys_exec",
    "sys_eval",
    "xp_cmdshell",
    "version",
    "user",
    "system_user",
    "database",
    "schema",
    "connection_id",
    "found_rows",
    "last_insert_id",
    "gtid_subset",
    "gtid_subtract",
    "name_const",
    "make_set",
    "json_keys",
    "nextval",
    "setval",
];

/// Aggregate and statistical functions: a `SELECT` of them without GROUP BY returns one row. Allowed by default
/// ([`GuardPolicy::new`]) beside [`DEFAULT_ALLOWED_FUNCTIONS`].
pub const AGGREGATE_FUNCTIONS: &[&str] = &[
    "count",
    "sum",
    "avg",
    "min",
    "max",
    "total",
    "group_concat",
    "string_agg",
    "array_agg",
    "listagg",
    "json_group_array",
    "json_agg",
    "jsonb_agg",
    "json_arrayagg",
    "json_object_agg",
    "jsonb_object_agg",
    "json_objectagg",
    "json_group_object",
    "bool_and",
    "bool_or",
    "every",
    "stddev",
    "stddev_pop",
    "stddev_samp",
    "std",
    "variance",
    "var_pop",
    "var_samp",
    "corr",
    "covar_pop",
    "covar_samp",
    "regr_slope",
    "regr_intercept",
    "regr_r2",
    "regr_count",
    "percentile_cont",
    "percentile_disc",
    "mode",
    "median",
    "any_value",
];

/// Functions a generated query may call when no allow list is configured, besides [`AGGREGATE_FUNCTIONS`]: arithmetic,
/// text, dates, JSON values and window functions of the three dialects. Functions that injection payloads lean on
/// and analytic SQL does not (`elt`, `mid`, `ascii`, `char`, `hex`, `rand`, `md5`, `row`, `json_keys`, …) are left
/// out on purpose.
pub const DEFAULT_ALLOWED_FUNCTIONS: &[&str] = &[
    "grouping",
    // window functions
    "row_number",
    "rank",
    "dense_rank",
    "lag",
    "lead",
    "first_value",
    "last_value",
    "nth_value",
    "ntile",
    "percent_rank",
    "cume_dist",
    // arithmetic
    "round",
    "abs",
    "ceil",
    "ceiling",
    "floor",
    "trunc",
    "truncate",
    "mod",
    "div",
    "power",
    "pow",
    "sqrt",
    "cbrt",
    "ln",
    "log",
    "log10",
    "log2",
    "exp",
    "sign",
    "pi",
    "radians",
    "degrees",
    "width_bucket",
    "greatest",
    "least",
    // conditionals and NULLs
    "coalesce",
    "ifnull",
    "nullif",
    "isnull",
    "iif",
    "if",
    // text
    "lower",
    "upper",
    "lcase",
    "ucase",
    "initcap",
    "length",
    "char_length",
    "character_length",
    "octet_length",
    "substr",
    "substring",
    "substring_index",
    "trim",
    "ltrim",
    "rtrim",
    "btrim",
    "replace",
    "concat",
    "concat_ws",
    "instr",
    "locate",
    "position",
    "strpos",
    "left",
    "right",
    "lpad",
    "rpad",
    "printf",
    "format",
    "split_part",
    "starts_with",
    "regexp_replace",
    "string_to_array",
    "array_to_string",
    "array_length",
    "array_position",
    "array",
    "regexp_match",
    "regexp_substr",
    "field",
    "typeof",
    "cardinality",
    "to_number",
    // dates and times
    "date",
    "time",
    "datetime",
    "julianday",
    "unixepoch",
    "strftime",
    "date_trunc",
    "date_part",
    "date_bin",
    "extract",
    "to_char",
    "to_date",
    "to_timestamp",
    "date_format",
    "time_format",
    "str_to_date",
    "year",
    "month",
    "day",
    "week",
    "quarter",
    "hour",
    "minute",
    "second",
    "dayofweek",
    "dayofmonth",
    "dayofyear",
    "weekday",
    "weekofyear",
    "yearweek",
    "dayname",
    "monthname",
    "last_day",
    "makedate",
    "make_date",
    "make_timestamp",
    "make_interval",
    "age",
    "justify_days",
    "justify_hours",
    "justify_interval",
    "timezone",
    "now",
    "current_date",
    "current_time",
    "current_timestamp",
    "localtime",
    "localtimestamp",
    "curdate",
    "curtime",
    "sysdate",
    "utc_date",
    "utc_timestamp",
    "date_add",
    "date_sub",
    "adddate",
    "subdate",
    "datediff",
    "timestampdiff",
    "timestampadd",
    "period_diff",
    "to_days",
    "from_days",
    "unix_timestamp",
    "from_unixtime",
    "sec_to_time",
    "time_to_sec",
    "convert_tz",
    "interval",
    "cast",
    "convert",
    // JSON values
    "json",
    "json_extract",
    "json_unquote",
    "json_value",
    "json_object",
    "json_array",
    "json_length",
    "json_array_length",
    "json_type",
    "json_build_object",
    "json_build_array",
    "jsonb_build_object",
    "to_json",
    "to_jsonb",
    "json_extract_path_text",
    "jsonb_extract_path_text",
    "jsonb_array_length",
];

/// Table-valued functions a FROM item may call, per dialect: only ones that expand a value of the row (JSON,
/// arrays, split text) and read no table. Every other function in FROM (`generate_series`, `query_to_xml`,
/// `pragma_table_info`, `dblink`, …) is refused.
pub fn default_table_functions(dialect: Dialect) -> &'static [&'static str] {
    dialect.rules().table_functions()
}

/// Schemas and tables that describe the database itself: never readable by generated SQL.
pub const SYSTEM_SCHEMAS: &[&str] = &[
    "pg_catalog",
    "information_schema",
    "mysql",
    "performance_schema",
    "sys",
    "pg_toast",
];

/// An allow-list entry without the default schema's qualifier (`public.sales` on PostgreSQL, `main.sales` on
/// SQLite), which names the same table as the bare name.
fn without_default_schema(entry: &str, dialect: Dialect) -> &str {
    let Some(schema) = dialect.rules().default_schema() else {
        return entry;
    };
    match (entry.get(..schema.len()), entry.get(schema.len()..)) {
        (Some(head), Some(rest)) if head.eq_ignore_ascii_case(schema) && rest.starts_with('.') => &rest[1..],
        _ => entry,
    }
}

/// The guard's settings.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GuardPolicy {
    /// The tables a query may read, as configured (`name`, or `schema.name` for another schema); compared as the
    /// dialect folds names (see [`GuardPolicy::table_allowed_in`]).
    pub allowed_tables: Vec<String>,
    /// Functions never allowed (case-insensitive).
    pub denied_functions: Vec<String>,
    /// When not empty, the only functions allowed.
    pub allowed_functions: Vec<String>,
    /// The table-valued functions a FROM item may call; `None`: [`default_table_functions`] of the dialect.
    #[serde(default)]
    pub table_functions: Option<Vec<String>>,
    /// The LIMIT added when there is none, and the cap of a larger one.
    pub max_rows: u64,
}

impl GuardPolicy {
    /// The default policy over `tables`: the default deny and allow lists (with the set-returning functions), at
    /// most 1000 rows.
    pub fn new<S: AsRef<str>>(tables: &[S]) -> Self {
        Self {
            allowed_tables: tables.iter().map(|t| t.as_ref().trim().to_string()).collect(),
            denied_functions: DEFAULT_DENIED_FUNCTIONS.iter().map(|s| s.to_string()).collect(),
            allowed_functions: AGGREGATE_FUNCTIONS
                .iter()
                .chain(DEFAULT_ALLOWED_FUNCTIONS)
                .chain(POSTGRES_SET_RETURNING_FUNCTIONS)
                .map(|s| s.to_string())
                .collect(),
            table_functions: None,
            max_rows: 1000,
        }
    }

    /// Whether a table (lower case) may be read.
    pub fn table_allowed(&self, name: &str) -> bool {
        self.allowed_tables.iter().any(|t| t.eq_ignore_ascii_case(name))
    }

    /// Whether a table, its name folded as `dialect` folds it, may be read. PostgreSQL: an entry allows its exact
    /// spelling and its lower-case fold (what an unquoted mention of it means), so a quoted `"SALES"` is not
    /// `sales`; SQLite and MySQL ignore ASCII case.
    pub fn table_allowed_in(&self, dialect: Dialect, folded: &str) -> bool {
        self.allowed_tables.iter().any(|entry| {
            dialect
                .rules()
                .table_matches(without_default_schema(entry, dialect), folded)
        })
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

    /// Why a table-valued function in FROM may not be called in `dialect`, if it may not.
    pub fn table_function_refusal(&self, dialect: Dialect, name: &str) -> Option<String> {
        if self.denied_functions.iter().any(|f| f.eq_ignore_ascii_case(name)) {
            return Some(format!("table function `{name}` is on the deny list"));
        }
        let allowed = match &self.table_functions {
            Some(list) => list.iter().any(|f| f.eq_ignore_ascii_case(name)),
            None => default_table_functions(dialect)
                .iter()
                .any(|f| f.eq_ignore_ascii_case(name)),
        };
        (!allowed).then(|| {
            format!(
                "table function `{name}` in FROM is not on the {} allow list of table functions",
                dialect.name()
            )
        })
    }
}
