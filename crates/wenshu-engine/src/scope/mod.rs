//! Who may see what, as the pipeline applies it. The viewer, the `[scope]` rules and the rules bound to a viewer live
//! in `wenshu-sql` ([`wenshu_sql::scope`]) and are re-exported here; this module adds what needs the question:
//!
//! - [`principal`]: parameters filled from the viewer's attributes (`x-principal`).
//! - a question naming a value of a scoped column outside the viewer's scope is refused by
//!   the metric stage's `outside` check (the values come from the metric dimensions).
//! - [`reach`]: the columns a value reaches through equal columns (joins), where the scope decides it.

pub mod principal;
pub mod reach;

pub use principal::{apply_principal, principal_names, principal_params};
pub use wenshu_sql::read;
pub use wenshu_sql::scope::bound::{self, OUTSIDE};
pub use wenshu_sql::scope::rule::{self};
pub use wenshu_sql::scope::{
    BoundCondition, BoundScope, BoundTable, Comparison, Condition, RULE_SYNTAX, ScopeError, ScopeRefusal, ScopeRules,
    TableAccess, TableRule, Viewer,
};
