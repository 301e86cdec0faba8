//! How each dialect folds names: what a table or CTE name written in a statement refers to.

use sqlparser::ast::{DataType, Ident, ObjectNamePart};

use super::policy::SYSTEM_SCHEMAS;
use crate::dialect::{CteSight, Dialect};

/// A table or schema name as the database looks it up: PostgreSQL folds unquoted names to lower case and keeps
/// quoted ones; SQLite ignores ASCII case; MySQL is compared ignoring ASCII case (its `lower_case_table_names`
/// decides on the server; a least-privilege account covers servers that tell `Sales` from `sales`).
pub(super) fn fold(ident: &Ident, dialect: Dialect) -> String {
    dialect.rules().fold(ident)
}

/// One part of a function's name, lower case (function names ignore ASCII case in every dialect).
pub(super) fn function_part(part: &ObjectNamePart) -> String {
    match part {
        ObjectNamePart::Identifier(ident) => ident.value.to_ascii_lowercase(),
        ObjectNamePart::Function(f) => f.name.value.to_ascii_lowercase(),
    }
}

/// The key a CTE name is matched by. Only a match the database is sure to make counts (a miss makes the name a
/// table, which the allow list then checks): PostgreSQL folds as for tables, SQLite ignores ASCII case, MySQL
/// compares as written.
pub(super) fn cte_key(ident: &Ident, dialect: Dialect) -> String {
    dialect.rules().cte_key(ident)
}

/// Whether a schema qualifier names the connection's own default schema (`main` on SQLite, `public` on
/// PostgreSQL); MySQL's qualifier names another database, never the default.
pub(super) fn is_default_schema(schema: &Ident, dialect: Dialect) -> bool {
    dialect.rules().default_schema() == Some(fold(schema, dialect).as_str())
}

/// Whether a (folded) table name is a system catalog of some dialect.
pub(super) fn is_system_table(table: &str) -> bool {
    let lower = table.to_ascii_lowercase();
    lower.starts_with("sqlite_") || lower.starts_with("pg_") || SYSTEM_SCHEMAS.contains(&lower.as_str())
}

/// Bare keywords that read the session (`SELECT current_user`): PostgreSQL's SQL-standard ones (where `user` is
/// one), MySQL's `current_user`.
pub(super) fn is_session_keyword(lower: &str, dialect: Dialect) -> bool {
    dialect.rules().session_keywords().contains(&lower)
}

/// The catalog lookup type a data type names, scalar or array, if it is one: PostgreSQL's object-identifier types
/// (`reg…`: `regclass`, `regrole`, `regnamespace`, …, also ones a later version adds), `aclitem` and `oid`, with
/// or without the array type's leading `_`, quoted, schema-qualified or with `[]`. Read from every word of the
/// type as written, so a nested or unfamiliar shape of the type still shows its name.
pub(super) fn catalog_type(data_type: &DataType) -> Option<String> {
    let text = data_type.to_string().to_ascii_lowercase();
    text.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
        .find(|word| is_catalog_type_name(word))
        .map(str::to_string)
}

/// Whether a (lower-case) type name is a catalog lookup type or its array type: `_?reg…`, `_?aclitem`, `_?oid`.
pub(super) fn is_catalog_type_name(word: &str) -> bool {
    let base = word.strip_prefix('_').unwrap_or(word);
    base.starts_with("reg") || base == "aclitem" || base == "oid"
}

/// Whether a (lower-case) function name is a catalog lookup type called as a function (`regclass('x')`, a cast in
/// PostgreSQL's function spelling): `_?reg…` without a further `_` (so not `regexp_match` or `regr_slope`),
/// `aclitem`, `oid`.
pub(super) fn is_catalog_type_function(function: &str) -> bool {
    let base = function.strip_prefix('_').unwrap_or(function);
    is_catalog_type_name(function) && !base.contains('_') && base != "regexp"
}

/// How each database resolves a name used in the body of CTE `current` that matches CTE `target` of the same WITH
/// clause. SQLite: a body sees every CTE of its clause, itself and later ones included, with or without RECURSIVE.
/// PostgreSQL: without RECURSIVE only earlier CTEs; with it every CTE. MySQL and MariaDB: without RECURSIVE only
/// earlier CTEs; with it also itself, while a later CTE is a table to MySQL and the CTE to MariaDB.
pub(super) fn cte_sight(dialect: Dialect, recursive: bool, current: usize, target: usize) -> CteSight {
    if target < current {
        return CteSight::Cte;
    }
    dialect.rules().later_cte_sight(recursive, target == current)
}
