//! The SQL side of wenshu, one job: SQL that reaches a database is guarded, scoped and run read-only here.
//!
//! - [`dialect`]: one [`Dialect`] type; what each dialect does differently, one file per dialect behind one trait.
//! - [`guard`]: the sqlparser guard — one read-only statement, allowed tables and functions, bounded cost and
//!   depth — and the row-scope rewrite every scoped table passes through.
//! - [`scope`]: who may see what ([`scope::Viewer`]), the `[scope]` rules and the rules bound to a viewer, and values
//!   of the data read through that scope.
//! - [`read`]: values of the data read through a viewer's scope, and a cache of them per scope;
//!   [`placeholder`]: `:name` placeholders as the dialect's positional ones.
//! - [`metric`]: a resolved metric query compiled to SQL per dialect (identifiers from the model, values bound).
//! - [`db`]: connections by URL (SQLite, PostgreSQL, MySQL/MariaDB), read-only queries under a timeout, a row cap
//!   and byte caps.
//!
//! Nothing here knows of questions, tools or the pipeline: the engine (`wenshu-engine`) calls in, never the other way.

pub mod db;
pub mod dialect;
pub mod guard;
pub mod metric;
pub mod placeholder;
pub mod read;
pub mod scope;

pub use dialect::Dialect;
