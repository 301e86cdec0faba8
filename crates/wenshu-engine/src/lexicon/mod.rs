//! The lexicon engine: route and extract with no model, from the catalog's words (names, titles, descriptions,
//! enum values, `x-enum-synonyms`, `x-examples`), the entity catalogs, and the language knowledge (numerals, time
//! expressions, places, yes/no words). It is the default where no model is configured, and a cross-check of one.
//!
//! - [`tool_index`]: the tools as BM25 documents of character n-grams and ASCII words.
//! - [`tool_choice`]: BM25 plus evidence (entities, enum values, IDs, places) → the tool, or none.
//! - [`subject`]: the subject a question names for a tool, or a reference to an earlier one.
//! - [`names`]: words shaped like a person's name as evidence for a tool whose subjects are people (何勇).
//! - [`history`]: what the last three rounds give a follow-up (subject, tool, dates).
//! - [`rewrite`]: a follow-up made a complete question.
//! - [`router`]: [`LexiconRouter`], the [`crate::route::Router`].
//! - [`params`]: the parameters a question states, family by family; [`flags`]: yes/no parameters from their
//!   descriptions; [`legs`]: origin and destination cities.
//! - [`extractor`]: [`LexiconExtractor`], the [`crate::extract::Extractor`].
//! - the folded sentences with masks and the closed word lists it reads are `wenshu_lexicon::sentence` and
//!   `wenshu_lexicon::words::cues`.

pub mod extractor;
pub mod flags;
pub mod history;
pub mod legs;
pub mod names;
pub mod params;
pub mod rewrite;
pub mod router;
pub mod subject;
pub mod tool_choice;
pub mod tool_index;

pub use extractor::LexiconExtractor;
pub use router::LexiconRouter;
