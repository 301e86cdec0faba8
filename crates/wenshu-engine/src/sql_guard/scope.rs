//! Name resolution with real scopes, and every check that applies at every depth.
//!
//! Each query block resolves a one-part name against its own CTEs that are defined before the use (a CTE's body
//! sees only the CTEs before it; the block's body sees all of them), then the enclosing blocks' in the same way,
//! then the allow list. A name the guard cannot prove to be a CTE is a table. `WITH RECURSIVE` is refused (no
//! depth can be proven). Every FROM item (tables, `TABLE x`, table functions, LATERAL, VALUES, nested joins),
//! every function call, every locking clause, `INTO` and data-changing body is checked wherever it appears.

use std::collections::HashSet;
use std::ops::ControlFlow;

use serde::Serialize;
use sqlparser::ast::{
    DataType, Expr, Ident, InTarget, ObjectName, ObjectNamePart, Query, SetExpr, TableFactor, Visit, Visitor,
};

use super::names;
use super::policy::{GuardPolicy, SqlDialect};

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

/// One query block being visited: its CTEs and how many of them are visible now.
struct Frame {
    ctes: Vec<String>,
    cte_queries: Vec<*const Query>,
    visible: usize,
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
pub(super) fn inspect(query: &Query, dialect: SqlDialect, policy: &GuardPolicy) -> Findings {
    let mut inspector = Inspector {
        dialect,
        policy,
        frames: Vec::new(),
        function_names: HashSet::new(),
        findings: Findings::default(),
    };
    let _ = query.visit(&mut inspector);
    inspector.findings
}

struct Inspector<'a> {
    dialect: SqlDialect,
    policy: &'a GuardPolicy,
    frames: Vec<Frame>,
    /// Names that are table-valued functions, not relations (`FROM f(…)`, SQLite `x IN f(…)`).
    function_names: HashSet<*const ObjectName>,
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

    /// Resolves a relation name: a visible CTE, else an allowed table.
    fn resolve(&mut self, parts: &[&Ident]) {
        let written = parts.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".");
        if let [ident] = parts {
            let key = names::cte_key(ident, self.dialect);
            if self.frames.iter().rev().any(|f| f.ctes[..f.visible].contains(&key)) {
                return self.record(written, "cte", None, "a CTE defined before this use");
            }
            if self.dialect == SqlDialect::Mysql && ident.quote_style.is_none() && key.eq_ignore_ascii_case("dual") {
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
        if query.with.as_ref().is_some_and(|w| w.recursive) {
            self.refuse_clause(
                "WITH RECURSIVE",
                "WITH RECURSIVE is not allowed: its depth cannot be bounded by the guard",
            );
        }
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
                (Some(schema), Some(name)) => self.resolve(&[schema, name]),
                (None, Some(name)) => self.resolve(&[name]),
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
            Expr::Function(function) => self.scalar_function(&function.name),
            Expr::Cast { data_type, .. } => self.check_type(data_type),
            Expr::TypedString(typed) => self.check_type(&typed.data_type),
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

    /// Casts to PostgreSQL's object-identifier types (`'users'::regclass`, `::pg_catalog.regclass`) look names up
    /// in the catalog.
    fn check_type(&mut self, data_type: &DataType) {
        let text = data_type.to_string().to_ascii_lowercase();
        let last = text
            .rsplit('.')
            .next()
            .unwrap_or(&text)
            .trim_matches(|c| c == '"' || c == '`');
        if last.starts_with("reg") || last == "oid" {
            self.refuse_clause(
                &text,
                "casts to catalog lookup types (regclass, regproc, oid, …) are not allowed",
            );
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
fn function_parts(name: &ObjectName, dialect: SqlDialect) -> Result<String, String> {
    let parts: Vec<String> = name
        .0
        .iter()
        .map(|part| match part {
            ObjectNamePart::Identifier(ident) => ident.value.to_ascii_lowercase(),
            ObjectNamePart::Function(f) => f.name.value.to_ascii_lowercase(),
        })
        .collect();
    match parts.as_slice() {
        [function] => Ok(function.clone()),
        [schema, function] if dialect == SqlDialect::Postgres && schema == "pg_catalog" => Ok(function.clone()),
        _ => Err(format!("function `{name}` is outside the built-in functions")),
    }
}

impl Visitor for Inspector<'_> {
    type Break = ();

    fn pre_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && let Some(i) = parent.cte_queries.iter().position(|q| *q == ptr)
        {
            parent.visible = i;
        }
        let (ctes, cte_queries) = match &query.with {
            None => (Vec::new(), Vec::new()),
            Some(with) => with
                .cte_tables
                .iter()
                .map(|cte| {
                    (
                        names::cte_key(&cte.alias.name, self.dialect),
                        &*cte.query as *const Query,
                    )
                })
                .unzip(),
        };
        let visible = ctes.len();
        self.frames.push(Frame {
            ctes,
            cte_queries,
            visible,
        });
        self.check_clauses(query);
        ControlFlow::Continue(())
    }

    fn post_visit_query(&mut self, query: &Query) -> ControlFlow<()> {
        self.frames.pop();
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && parent.cte_queries.contains(&ptr)
        {
            parent.visible = parent.ctes.len();
        }
        ControlFlow::Continue(())
    }

    fn pre_visit_table_factor(&mut self, factor: &TableFactor) -> ControlFlow<()> {
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
        self.resolve(&parts);
        ControlFlow::Continue(())
    }

    fn pre_visit_expr(&mut self, expr: &Expr) -> ControlFlow<()> {
        self.check_expr(expr);
        ControlFlow::Continue(())
    }
}
