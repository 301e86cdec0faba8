//! Entity catalogs for wenshu: entity name → ID (exact, then fuzzy, with ranked candidates), and the names
//! inside a sentence. One job, no IO: the index is built once from JSON or from rows a caller read.
//!
//! A name is normalized (quotes and trailing 的/这部 stripped; width, case and traditional characters folded) and
//! looked up exactly among canonical names and aliases: one hit is used, several (the same name) are listed for
//! the user to pick. Only without an exact hit is it matched fuzzily — prefix, substring, subsequence, typo,
//! same pinyin — and a fuzzy match is used alone only when it is clearly ahead; otherwise the ranked, capped
//! candidates come back with their distinguishing attributes (year, genre). Nothing is ever silently picked.
//!
//! - [`catalog`] — [`EntityCatalogs`], entity type → [`EntityIndex`], loaded from JSON or inserted.
//! - [`index`] — [`EntityIndex`], built once; exact lookups and [`EntityIndex::resolve`].
//! - [`fuzzy`] — fuzzy candidates, scores and the unique-or-ambiguous decision.
//! - [`mentions`] — [`EntityIndex::find_mentions`], names inside a sentence; [`named`] — every type's, remembered.
//! - [`entity`] — [`Entity`], [`Candidate`], [`MatchMethod`], [`Resolution`].
//! - [`error`] — [`ResolveError`].

pub mod catalog;
pub mod entity;
pub mod error;
pub mod fuzzy;
pub mod index;
pub mod mentions;
pub mod named;
mod postings;
mod text;

pub use catalog::EntityCatalogs;
pub use entity::{Candidate, Entity, MatchMethod, Resolution, compare_ids};
pub use error::ResolveError;
pub use index::EntityIndex;
pub use mentions::Mention;
pub use named::{NamedEntity, entity_mentions, overlaps};

/// The cap on candidates when a caller passes a limit of 0.
pub const DEFAULT_LIMIT: usize = 5;
