//! Name resolution with real scopes, and every check that applies at every depth.
//!
//! Each query block resolves a one-part name against its own CTEs as its database does (the block's body sees all
//! of them; a CTE's body sees what [`names::cte_sight`] says: on SQLite every CTE of its clause, itself included;
//! on PostgreSQL and MySQL the earlier ones, and with RECURSIVE itself too), then the enclosing blocks' in the same
//! way, then the allow list. A name the guard cannot prove to be a CTE is a table. A CTE that reads itself must be
//! bounded ([`recursion`]). Every FROM item (tables, `TABLE x`, table functions, LATERAL, VALUES, nested joins),
//! every function call, every data type (casts, typed literals, column definitions), every locking clause, `INTO`
//! and data-changing body is checked wherever it appears.

use std::collections::HashSet;
use std::ops::ControlFlow;

use serde::Serialize;
use sqlparser::ast::{
    DataType, Expr, FunctionArgumentClause, FunctionArguments, Ident, InTarget, JsonTableColumn, ObjectName,
    ObjectNamePart, Query, SetExpr, TableAlias, TableFactor, Visit, Visitor,
};

use super::ctes::{CteFrames, CteLookup};
use super::names;
use super::policy::GuardPolicy;
use super::recursion::{self, CteRef};
use crate::dialect::Dialect;

/// How one name of the statement was resolved, and whether the guard allows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Resolution {
    /// The name as written (parts joined with dots).
    pub name: String,
    /// What it names: `table`, `cte`, `function`, `table_function` or `clause`.
    pub kind: &'static str,
    /// Whether the guard allows it.
    pub allowed: bool,
    /// What it resolved to, or why it is refused.
    pub why: String,
}

/// What the walk found: problems, tables, functions and every resolution.
#[derive(Default)]
pub(super) struct Findings {
    /// Every problem, in the order found.
    pub reasons: Vec<String>,
    /// Tables read (CTE names excluded), folded.
    pub tables: Vec<String>,
    /// Functions called (scalar and table-valued), lower case.
    pub functions: Vec<String>,
    /// Each name resolved, in order.
    pub resolutions: Vec<Resolution>,
}

/// Walks `query` in `dialect` under `policy`.
pub(super) fn inspect(query: &Query, dialect: Dialect, policy: &GuardPolicy) -> Findings {
    let mut inspector = Inspector {
        dialect,
        policy,
        frames: CteFrames::default(),
        function_names: HashSet::new(),
        cte_refs: Vec::new(),
        findings: Findings::default(),
    };
    let _ = query.visit(&mut inspector);
    let mut findings = inspector.findings;
    for reason in recursion::refusals(query, dialect, &inspector.cte_refs) {
        findings.reasons.push(reason.clone());
        findings.resolutions.push(Resolution {
            name: "WITH RECURSIVE".into(),
            kind: "clause",
            allowed: false,
            why: reason,
        });
    }
    findings
}

struct Inspector<'a> {
    dialect: Dialect,
    policy: &'a GuardPolicy,
    frames: CteFrames,
    /// Names that are table-valued functions, not relations (`FROM f(…)`, SQLite `x IN f(…)`).
    function_names: HashSet<*const ObjectName>,
    /// Every name that resolved to a CTE: for the recursion rule.
    cte_refs: Vec<CteRef>,
    findings: Findings,
}

impl Inspector<'_> {
    fn record(&mut self, name: String, kind: &'static str, why: Option<String>, note: &str) {
        let allowed = why.is_none();
        if let Some(reason) = &why {
            self.findings.reasons.push(reason.clone());
        }
        self.findings.resolutions.push(Resolution {
            name,
            kind,
            allowed,
            why: why.unwrap_or_else(|| note.to_string()),
        });
    }

    fn refuse_clause(&mut self, clause: &str, why: &str) {
        self.record(clause.to_string(), "clause", Some(why.to_string()), "");
    }

    /// Resolves a relation name: a CTE the dialect makes visible here (see [`names::cte_sight`]), else an allowed
    /// table.
    fn resolve(&mut self, parts: &[&Ident], relation: Option<*const ObjectName>) {
        let written = parts.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".");
        if let [ident] = parts {
            match self.frames.lookup(ident, self.dialect) {
                CteLookup::NotCte => {}
                CteLookup::Ambiguous => {
                    let why = format!(
                        "`{written}` names a CTE defined later in the same WITH RECURSIVE: MySQL reads a table \
                         of that name there, MariaDB the CTE; define the CTE before its use"
                    );
                    return self.record(written, "cte", Some(why), "");
                }
                CteLookup::Cte { owner, from, to } => {
                    self.cte_refs.push(CteRef {
                        owner,
                        from,
                        to,
                        relation,
                    });
                    let note = match from {
                        Some(current) if current == to => "the CTE itself: recursion",
                        Some(current) if current < to => "a CTE defined later in the same WITH",
                        _ => "a CTE in scope",
                    };
                    return self.record(written, "cte", None, note);
                }
            }
            if self.dialect.rules().has_dual()
                && ident.quote_style.is_none()
                && names::cte_key(ident, self.dialect).eq_ignore_ascii_case("dual")
            {
                return self.record(written, "table", None, "MySQL's DUAL, no table");
            }
        }
        let refusal = match parts {
            [] => Some("an empty table name".to_string()),
            [table] => self.table_refusal(table, &written),
            [schema, table] if names::is_default_schema(schema, self.dialect) => self.table_refusal(table, &written),
            [schema, table] if self.qualified_allowed(schema, table) => None,
            [schema, ..] => Some(format!(
                "`{written}` is outside the allowed tables (schema `{}`)",
                names::fold(schema, self.dialect)
            )),
        };
        if refusal.is_none()
            && let Some(table) = parts.last()
        {
            let folded = names::fold(table, self.dialect);
            if !self.findings.tables.contains(&folded) {
                self.findings.tables.push(folded);
            }
        }
        self.record(written, "table", refusal, "on the allow list");
    }

    /// Whether `schema.table` is on the allow list as such (a table of another schema the configuration names).
    fn qualified_allowed(&self, schema: &Ident, table: &Ident) -> bool {
        let qualified = format!(
            "{}.{}",
            names::fold(schema, self.dialect),
            names::fold(table, self.dialect)
        );
        self.policy.table_allowed_in(self.dialect, &qualified)
    }

    fn table_refusal(&self, table: &Ident, written: &str) -> Option<String> {
        let folded = names::fold(table, self.dialect);
        if names::is_system_table(&folded) {
            Some(format!("`{written}` is a system catalog"))
        } else if !self.policy.table_allowed_in(self.dialect, &folded) {
            Some(format!(
                "table `{written}` is not on the allow list ({})",
                self.policy.allowed_tables.join(", ")
            ))
        } else {
            None
        }
    }

    /// A table-valued function in FROM (or SQLite's `x IN f(…)`).
    fn table_function(&mut self, name: &ObjectName) {
        let written = name.to_string();
        let refusal = match function_parts(name, self.dialect) {
            Err(why) => Some(why),
            Ok(function) => {
                self.note_function(&function);
                self.policy.table_function_refusal(self.dialect, &function)
            }
        };
        self.record(written, "table_function", refusal, "on the table-function allow list");
    }

    fn scalar_function(&mut self, name: &ObjectName) {
        let written = name.to_string();
        let refusal = match function_parts(name, self.dialect) {
            Err(why) => Some(why),
            Ok(function) if names::is_catalog_type_function(&function) => Some(format!(
                "`{written}` casts to a catalog lookup type (regclass, regrole, aclitem, oid, …): not allowed"
            )),
            Ok(function) => {
                self.note_function(&function);
                self.policy.function_refusal(&function)
            }
        };
        self.record(written, "function", refusal, "on the allow list");
    }

    fn note_function(&mut self, function: &str) {
        if !self.findings.functions.iter().any(|f| f == function) {
            self.findings.functions.push(function.to_string());
        }
    }

    /// The clauses of one query block that are refused at any depth.
    fn check_clauses(&mut self, query: &Query) {
        if !query.locks.is_empty() {
            self.refuse_clause("FOR UPDATE/SHARE", "locking clauses (FOR UPDATE/SHARE) are not allowed");
        }
        if query.for_clause.is_some() {
            self.refuse_clause("FOR", "FOR clauses are not allowed");
        }
        if query.settings.is_some() || query.format_clause.is_some() || !query.pipe_operators.is_empty() {
            self.refuse_clause("SETTINGS/FORMAT/|>", "this query clause is not allowed");
        }
        self.check_body(&query.body);
    }

    /// A query body and its set operations, down to the next nested query (checked when it is visited).
    fn check_body(&mut self, body: &SetExpr) {
        match body {
            SetExpr::Select(select) => {
                if select.into.is_some() {
                    self.refuse_clause("INTO", "SELECT … INTO writes a table or variable: not allowed");
                }
                if !select.optimizer_hints.is_empty() {
                    self.refuse_clause("/*+ */", "optimizer hints are not allowed");
                }
                if !select.lateral_views.is_empty() {
                    self.refuse_clause("LATERAL VIEW", "LATERAL VIEW is not allowed");
                }
            }
            SetExpr::Query(_) | SetExpr::Values(_) => {}
            SetExpr::SetOperation { left, right, .. } => {
                self.check_body(left);
                self.check_body(right);
            }
            SetExpr::Table(table) => match (&table.schema_name, &table.table_name) {
                (Some(schema), Some(name)) => self.resolve(&[schema, name], None),
                (None, Some(name)) => self.resolve(&[name], None),
                _ => self.refuse_clause("TABLE", "`TABLE` without a table name is not allowed"),
            },
            SetExpr::Insert(_) | SetExpr::Update(_) | SetExpr::Delete(_) | SetExpr::Merge(_) => self.refuse_clause(
                "INSERT/UPDATE/DELETE/MERGE",
                "a data-changing statement inside the query is not allowed",
            ),
            #[allow(unreachable_patterns)]
            _ => self.refuse_clause("query body", "this kind of query body is not allowed"),
        }
    }

    fn check_expr(&mut self, expr: &Expr) {
        match expr {
            Expr::Function(function) => {
                self.scalar_function(&function.name);
                if let FunctionArguments::List(list) = &function.args {
                    for clause in &list.clauses {
                        if let FunctionArgumentClause::JsonReturningClause(returning) = clause {
                            self.check_type(&returning.data_type);
                        }
                    }
                }
            }
            Expr::Cast { data_type, .. } => self.check_type(data_type),
            Expr::TypedString(typed) => self.check_type(&typed.data_type),
            Expr::Convert {
                data_type: Some(data_type),
                ..
            } => self.check_type(data_type),
            Expr::Struct { fields, .. } => {
                for field in fields {
                    self.check_type(&field.field_type);
                }
            }
            Expr::Lambda(lambda) => {
                for param in lambda.params.iter() {
                    if let Some(data_type) = &param.data_type {
                        self.check_type(data_type);
                    }
                }
            }
            Expr::Identifier(ident) => self.check_identifier(ident),
            Expr::CompoundIdentifier(parts) => {
                if let Some(first) = parts.first() {
                    self.check_identifier(first);
                }
            }
            Expr::In {
                target: InTarget::Table { name, args: Some(_) },
                ..
            } => {
                self.function_names.insert(name as *const ObjectName);
                self.table_function(name);
            }
            _ => {}
        }
    }

    /// A data type written anywhere (a cast, a typed string, `CONVERT`, a column definition of a table alias or
    /// of `JSON_TABLE`, a lambda parameter, a struct field, a `RETURNING` clause): PostgreSQL's object-identifier
    /// and ACL types (`regclass`, `_regrole`, `aclitem`, `oid`, …, scalar or array, in any spelling) look names up
    /// in the catalog, so none may appear.
    fn check_type(&mut self, data_type: &DataType) {
        if let Some(name) = names::catalog_type(data_type) {
            self.refuse_clause(
                &data_type.to_string(),
                &format!(
                    "the catalog lookup type `{name}` (regclass, regrole, aclitem, oid, … and their arrays) is not \
                     allowed in any cast, typed literal or column definition"
                ),
            );
        }
    }

    /// The data types of a table alias's column definitions (`AS t(a regclass)`).
    fn check_alias(&mut self, alias: Option<&TableAlias>) {
        for column in alias.into_iter().flat_map(|a| &a.columns) {
            if let Some(data_type) = &column.data_type {
                self.check_type(data_type);
            }
        }
    }

    /// The data types of `JSON_TABLE` columns, nested ones included.
    fn check_json_columns(&mut self, columns: &[JsonTableColumn]) {
        for column in columns {
            match column {
                JsonTableColumn::Named(named) => self.check_type(&named.r#type),
                JsonTableColumn::ForOrdinality(_) => {}
                JsonTableColumn::Nested(nested) => self.check_json_columns(&nested.columns),
            }
        }
    }

    /// Server variables (`@@version`, `@v`) and the keyword functions that read the session (`current_user`).
    fn check_identifier(&mut self, ident: &Ident) {
        if ident.quote_style.is_some() {
            return;
        }
        let lower = ident.value.to_ascii_lowercase();
        if lower.starts_with('@') {
            self.refuse_clause(
                &ident.value,
                "server and user variables (@@name, @name) are not allowed",
            );
        } else if names::is_session_keyword(&lower, self.dialect) {
            self.refuse_clause(&ident.value, "session information (current_user, …) is not allowed");
        }
    }
}

/// The lower-case name of a function, or why a qualified name is refused (only PostgreSQL's `pg_catalog.` may
/// qualify a built-in).
fn function_parts(name: &ObjectName, dialect: Dialect) -> Result<String, String> {
    let parts: Vec<String> = name.0.iter().map(names::function_part).collect();
    match parts.as_slice() {
        [function] => Ok(function.clone()),
        [schema, function] if dialect.rules().builtin_function_schema() == Some(schema.as_str()) => {
            Ok(function.clone())
        }
        _ => Err(format!("function `{name}` is outside the built-in functions")),
    }
}

impl Visitor for Inspector<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        if let Some(with) = &query.with {
            let keys: Vec<String> = with
                .cte_tables
                .iter()
                .map(|cte| names::cte_key(&cte.alias.name, self.dialect))
                .collect();
            for (i, key) in keys.iter().enumerate() {
                if keys[..i].contains(key) {
                    self.refuse_clause(key, "a WITH clause may not define the same CTE name twice");
                }
            }
            for cte in &with.cte_tables {
                self.check_alias(Some(&cte.alias));
            }
        }
        self.frames.enter(query, self.dialect);
        self.check_clauses(query);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.frames.leave(query);
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
        match factor {
            TableFactor::Table { alias, .. }
            | TableFactor::Derived { alias, .. }
            | TableFactor::Function { alias, .. }
            | TableFactor::UNNEST { alias, .. }
            | TableFactor::NestedJoin { alias, .. } => self.check_alias(alias.as_ref()),
            TableFactor::JsonTable { alias, columns, .. } => {
                self.check_alias(alias.as_ref());
                self.check_json_columns(columns);
            }
            _ => {}
        }
        match factor {
            TableFactor::Table {
                name, args: Some(_), ..
            } => {
                self.function_names.insert(name as *const ObjectName);
                self.table_function(name);
            }
            TableFactor::Table { args: None, .. } | TableFactor::Derived { .. } | TableFactor::NestedJoin { .. } => {}
            TableFactor::Function { name, .. } => self.table_function(name),
            TableFactor::UNNEST { .. } => self.table_function(&ObjectName::from(vec![Ident::new("unnest")])),
            TableFactor::JsonTable { .. } => self.table_function(&ObjectName::from(vec![Ident::new("json_table")])),
            other => {
                let text = other.to_string();
                let head: String = text.chars().take(40).collect();
                self.refuse_clause(&head, "this kind of FROM item is not allowed");
            }
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_relation(&mut self, relation: &ObjectName) -> ControlFlow<()> {
        if self.function_names.contains(&(relation as *const ObjectName)) {
            return ControlFlow::Continue(());
        }
        let mut parts = Vec::new();
        for part in &relation.0 {
            match part {
                ObjectNamePart::Identifier(ident) => parts.push(ident),
                ObjectNamePart::Function(_) => {
                    self.refuse_clause(&relation.to_string(), "a computed table name is not allowed");
                    return ControlFlow::Continue(());
                }
            }
        }
        self.resolve(&parts, Some(relation as *const ObjectName));
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        self.check_expr(expr);
        ControlFlow::Continue(())
    }
}
