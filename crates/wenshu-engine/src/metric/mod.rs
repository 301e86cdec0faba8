//! Metric tools: code composes the query. A tool's `x-metrics` model (checked at catalog load) and a metric query
//! by names ([`wenshu_contract::metric`]) become SQL here — identifiers only from the model, every value bound —
//! which then passes the SQL guard and runs read-only under the timeout and row cap.
//!
//! - [`values`]: dimension values read from the data at start (or an entity catalog), and where a question names
//!   them; [`dates`]: comparison periods and bucket counts.
//! - the compiler per dialect (SQLite, PostgreSQL, MySQL/MariaDB) is `wenshu_sql::metric`; [`execute`]: the executor;
//!   [`present`]: labels, headline and chart hint (`within`: those of the first rows of each group); [`describe`]:
//!   理解为 in words.
//! - [`build`]: the metric query of a question from its demands, values and times (the lexicon engine);
//!   [`extract`]: that query as the lexicon engine's extraction (what a metric call offers is
//!   [`crate::offer`]'s).
//! - [`outside`]: a question naming a scoped dimension's value outside the viewer's scope (for a tool the scope
//!   reaches by a principal parameter) is refused; [`reach`]: a filter value joined to a scoped column.

pub mod build;
pub mod dates;
pub mod describe;
pub mod execute;
pub mod extract;
pub mod outside;
pub mod present;
mod reach;
pub mod running;
pub mod values;
mod within;

pub use build::{MetricBuild, build_query};
pub use execute::{MetricExecutor, Prepared, model_scope, prepare, prepare_scoped};
pub use values::{MetricValues, SharedValues};
