//! Who may see what: the [`Viewer`] of a question — who asks, and the attributes a row scope and principal-filled
//! parameters read. The server makes a viewer from its principal; the engine never takes one from the question or
//! the model.
//!
//! - [`rule`]: row-scope rules, one per table (`region = :user.region`), parsed and checked at load.
//! - [`bound`]: the rules bound to a viewer ([`BoundScope`]): the values each scoped table's rows must have, or
//!   the table denied; the refusals (`scope.denied`, `scope.outside`).
//!
//! Where the scope is enforced: the guard's rewrite wraps every scoped table of generated SQL and of `x-sql`
//! templates in a scoped subquery ([`crate::guard::row_scope`]); the metric compiler adds the conditions to WHERE.
//! The engine fills principal parameters and refuses named values outside the scope (its `scope` module).

pub mod bound;
pub mod rule;

pub use bound::{BoundCondition, BoundScope, BoundTable, ScopeRefusal, TableAccess};
pub use rule::{Comparison, Condition, RULE_SYNTAX, ScopeError, ScopeRules, TableRule};

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

/// Who asks a question, as the engine sees it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Viewer {
    /// A stable identifier of the principal (a key fingerprint, a token's subject); `None` for the local operator.
    pub id: Option<String>,
    /// A display name, when the principal has one.
    pub name: Option<String>,
    /// Whether row scopes are lifted (an admin, the local operator of the CLI).
    pub unscoped: bool,
    /// The principal's attributes (`region`, `tenant_id`, …): strings, numbers, booleans or arrays of them.
    pub attributes: BTreeMap<String, Value>,
}

impl Viewer {
    /// The local operator (the CLI, a library caller that configured no principal): every row, no attributes.
    pub fn operator() -> Self {
        Self {
            id: None,
            name: None,
            unscoped: true,
            attributes: BTreeMap::new(),
        }
    }

    /// A scoped viewer with `attributes`.
    pub fn scoped(id: Option<String>, attributes: BTreeMap<String, Value>) -> Self {
        Self {
            id,
            name: None,
            unscoped: false,
            attributes,
        }
    }

    /// The value of attribute `name`, if the viewer has it.
    pub fn attribute(&self, name: &str) -> Option<&Value> {
        self.attributes.get(name)
    }
}

impl Default for Viewer {
    /// The local operator: see [`Viewer::operator`].
    fn default() -> Self {
        Self::operator()
    }
}
