//! The resolve stage: a subject's name to its ID over the entity catalogs (`wenshu-entity`, re-exported here:
//! exact, then fuzzy, with ranked candidates; nothing is ever silently picked), and what only the pipeline knows.
//!
//! - [`chosen`] — subjects the user chose: a request's ID checked, an earlier round's choice kept.
//! - [`sql`] — entity catalogs read from the database (`[entities]`), under the viewer's scope.

pub mod chosen;
pub mod sql;

pub use wenshu_entity::{
    Candidate, DEFAULT_LIMIT, Entity, EntityCatalogs, EntityIndex, MatchMethod, Mention, Resolution, ResolveError,
    catalog, compare_ids, entity, error, fuzzy, index, mentions, named,
};
