//! The CTEs in sight while a statement is walked: one frame per query block (the names its WITH defines, and
//! whose body is being visited), and what a one-part name is there — a CTE, as [`names::cte_sight`] says the
//! dialect's database resolves it, or not one. The guard's name resolution ([`super::scope`]) and the row-scope
//! rewrite and its check ([`super::row_scope`]) walk with the same frames, so the two never disagree on what is a
//! CTE and what is a table.

use sqlparser::ast::{Ident, Query};

use super::names;
use crate::dialect::{CteSight, Dialect};

/// One query block being visited: its CTEs, whether its WITH is RECURSIVE, and whose body is being visited.
struct Frame {
    owner: *const Query,
    ctes: Vec<String>,
    cte_queries: Vec<*const Query>,
    recursive: bool,
    current: Option<usize>,
}

/// What a one-part relation name is where it is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum CteLookup {
    /// CTE `to` of the WITH of the query block `owner`, read from the body of CTE `from` (`None`: the block's own
    /// body).
    Cte {
        owner: *const Query,
        from: Option<usize>,
        to: usize,
    },
    /// A later CTE of the same WITH RECURSIVE, which MySQL reads as a table and MariaDB as the CTE.
    Ambiguous,
    /// No CTE in sight: a table.
    NotCte,
}

/// The frames of the query blocks entered and not yet left, innermost last.
#[derive(Default)]
pub(super) struct CteFrames {
    frames: Vec<Frame>,
}

impl CteFrames {
    /// Enters `query`: when it is the body of a CTE of the enclosing block, that CTE is the one being visited.
    pub(super) fn enter(&mut self, query: &Query, dialect: Dialect) {
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && let Some(i) = parent.cte_queries.iter().position(|q| *q == ptr)
        {
            parent.current = Some(i);
        }
        let (ctes, cte_queries) = match &query.with {
            None => (Vec::new(), Vec::new()),
            Some(with) => with
                .cte_tables
                .iter()
                .map(|cte| (names::cte_key(&cte.alias.name, dialect), &*cte.query as *const Query))
                .unzip(),
        };
        self.frames.push(Frame {
            owner: ptr,
            ctes,
            cte_queries,
            recursive: query.with.as_ref().is_some_and(|w| w.recursive),
            current: None,
        });
    }

    /// Leaves `query`: the enclosing block's body is visited again when it was one of its CTEs.
    pub(super) fn leave(&mut self, query: &Query) {
        self.frames.pop();
        let ptr = query as *const Query;
        if let Some(parent) = self.frames.last_mut()
            && parent.cte_queries.contains(&ptr)
        {
            parent.current = None;
        }
    }

    /// What the one-part name `ident` is here: the innermost CTE of that name in sight, else not a CTE.
    pub(super) fn lookup(&self, ident: &Ident, dialect: Dialect) -> CteLookup {
        let key = names::cte_key(ident, dialect);
        for frame in self.frames.iter().rev() {
            let Some(target) = frame.ctes.iter().position(|c| *c == key) else {
                continue;
            };
            let sight = match frame.current {
                None => CteSight::Cte,
                Some(current) => names::cte_sight(dialect, frame.recursive, current, target),
            };
            match sight {
                CteSight::Outside => continue,
                CteSight::Ambiguous => return CteLookup::Ambiguous,
                CteSight::Cte => {
                    return CteLookup::Cte {
                        owner: frame.owner,
                        from: frame.current,
                        to: target,
                    };
                }
            }
        }
        CteLookup::NotCte
    }
}
