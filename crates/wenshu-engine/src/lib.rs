//! The wenshu pipeline: from a sentence to a checked, bound call of a tool, with a trace of every step.
//!
//! The front door is the crate root: the doors (the server, MCP) use only the items re-exported here — an
//! [`Engine`] asked an [`AskRequest`] gives an [`Answer`] with its [`AskOutcome`] and [`Trace`]; the [`Viewer`] who
//! asks; the [`Executor`] seam a tool runs behind; the [`Extractor`] seam of a parameter extraction. The modules
//! below stay public for the binary's tools (eval, init) and the engine's own tests.
//!
//! - [`facts`]: what the language knowledge finds in a question (times, numerals, places, yes/no), computed once.
//! - [`fill`]: parameters code fills (subject IDs, date ranges), never the model.
//! - [`extract`]: parameters the question states directly — by a chat model, checked and grounded in the question.

// The answer step's async body nests deeply (plan, execute, fallback): its layout needs more than the default 128.
#![recursion_limit = "256"]

pub mod answer;
pub mod check;
pub mod coverage;
pub mod execute;
pub mod extract;
pub mod facts;
pub mod fallback;
pub mod fill;
pub mod lexicon;
pub mod list_size;
pub mod message;
pub mod metric;
pub mod model_call;
pub mod offer;
pub mod param_kinds;
pub mod pipeline;
pub mod plan;
pub mod resolve;
pub mod route;
pub mod scope;
pub mod series_total;
pub mod trace;
pub mod understood;

/// The SQL side (`wenshu-sql`) under the names the engine's callers know: connections and read-only runs, and the guard.
pub use wenshu_sql::{db, guard as sql_guard};

pub use answer::{Answer, AskOutcome, Engine, subject_of_answer};
pub use execute::{ExecContext, ExecError, ExecFuture, Executor, Executors, ToolResult, json_to_rows};
pub use extract::{ExtractOutcome, ExtractRequest, Extraction, Extractor};
pub use fallback::{FallbackRun, SqlAttempt};
pub use list_size::RowsWanted;
pub use message::{Code, Message};
pub use pipeline::AskRequest;
pub use plan::Audience;
pub use route::{MAX_HISTORY, Turn, TurnSubject};
pub use scope::{Viewer, principal_params};
pub use trace::{Trace, TraceStep};
pub use wenshu_sql::db::bytes::{check_rows, value_bytes};
pub use wenshu_sql::db::{ByteCap, ByteCaps};
