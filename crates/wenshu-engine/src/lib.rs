//! The wenshu pipeline: from a sentence to a checked, bound call of a tool, with a trace of every step.
//!
//! The front door is the crate root: the doors (the server, MCP) and the binary use only the items re-exported
//! here, never a module path. Asking: an [`Engine`] asked an [`AskRequest`] by a [`Viewer`] gives an [`Answer`] with
//! its [`AskOutcome`] and [`Trace`]. Assembling an engine: a [`Planner`] from a [`Router`] ([`LexiconRouter`],
//! [`ModelRouter`]), an [`Extractor`] ([`LexiconExtractor`], [`ModelExtractor`]), the [`Executors`] a tool runs
//! behind ([`SqlTemplateExecutor`], [`HttpExecutor`], [`MetricExecutor`]) and the [`SqlFallback`]. The binary's
//! tools (eval, init, tools check, extract) read a [`Plan`], a [`ToolChoice`] and [`QuestionFacts`]. The SQL side
//! is its own crate (`wenshu-sql`), the entity catalogs theirs (`wenshu-entity`).
//!
//! The modules stay public for the engine's own integration tests and benchmarks. No module imports a later stage
//! (the order and the rule are in ARCHITECTURE.md):
//!
//! - [`facts`]: what the language knowledge finds in a question (times, numerals, places, yes/no), computed once.
//! - [`route`] → [`check`] → [`resolve`] → [`extract`] (with [`fill`]) → [`coverage`] (reading [`offer`]) →
//!   [`execute`] → [`fallback`] → [`answer`]; [`pipeline`] is the planner's loop over them, [`plan`] its result.
//! - the engines beside the stages: [`lexicon`] (no model) and the model's parts of [`route`] and [`extract`]
//!   (calls recorded as [`model_call`]); [`metric`]: the metric tool kind (query building, execution, presentation).

// The answer step's async body nests deeply (plan, execute, fallback): its layout needs more than the default 128.
#![recursion_limit = "256"]

pub mod answer;
pub mod check;
pub mod coverage;
pub mod execute;
pub mod executed;
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

pub use answer::{Answer, AskOutcome, Engine};
pub use execute::{ExecContext, ExecError, ExecFuture, Executor, Executors, ToolResult, json_to_rows};
pub use executed::{Executed, SentSql};
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

// Assembling an engine (the binary's `engine_setup`) and the binary's tools.
pub use execute::{HttpExecutor, SqlTemplateExecutor};
pub use extract::{ModelExtractor, extract_messages};
pub use facts::QuestionFacts;
pub use fallback::schema::{SchemaNotes, ScopedSchema};
pub use fallback::{SqlFallback, read_scope};
pub use fill::{date_params, question_range, subject_param};
pub use lexicon::tool_choice::{ToolChoice, choose_tool};
pub use lexicon::tool_index::ToolIndex;
pub use lexicon::{LexiconExtractor, LexiconRouter};
pub use metric::execute::query_params;
pub use metric::{MetricBuild, MetricExecutor, MetricValues, SharedValues, build_query};
pub use pipeline::Planner;
pub use plan::Plan;
pub use resolve::sql::load_entities;
pub use route::Router;
pub use route::model::ModelRouter;
