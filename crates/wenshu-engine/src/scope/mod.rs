//! Who may see what, as the pipeline applies it. The viewer, the `[scope]` rules and the rules bound to a viewer live
//! in `wenshu-sql` ([`wenshu_sql::scope`]) and are re-exported here; this module adds what needs the question:
//!
//! - [`principal`]: parameters filled from the viewer's attributes (`x-principal`).
//! - [`named`]: a question naming a value of a scoped column outside the viewer's scope is refused.
//! - [`reach`]: the columns a value reaches through equal columns (joins), where the scope decides it.
//! - [`RefusalMessage`]: a scope refusal as a coded message in both languages.

pub mod named;
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

use crate::message::{Code, Message};

/// A scope refusal as the engine's coded message.
pub trait RefusalMessage {
    /// The refusal as a coded message in both languages (`scope.outside` for the user; `scope.denied` otherwise).
    fn message(&self) -> Message;
}

impl RefusalMessage for ScopeRefusal {
    fn message(&self) -> Message {
        let code = if self.code == OUTSIDE {
            Code::ScopeOutside
        } else {
            Code::ScopeDenied
        };
        self.params
            .iter()
            .fold(Message::new(code, self.zh.clone(), self.en.clone()), |m, (k, v)| {
                m.with(k, v.clone())
            })
    }
}
