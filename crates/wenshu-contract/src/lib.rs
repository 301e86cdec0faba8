//! Tool contracts for wenshu: how wenshu knows its tools and turns raw values into one validated call.
//!
//! A [`Catalog`] is loaded once from MCP Tool objects (plus wenshu's `x-` extensions). Loading checks every tool
//! and compiles each `inputSchema` into a validator and a [`ParamTable`], so a call never compiles a schema and a
//! broken catalog fails at load, never at call time. [`bind`] turns a raw parameter map into one validated
//! [`BoundCall`] following the required/default matrix; [`http`] binds and builds HTTP requests for tools with
//! `x-http`; [`render`] writes a tool as readable text for a prompt.

pub mod answers;
pub mod bind;
pub mod catalog;
pub mod coerce;
pub mod columns;
pub mod enum_index;
pub mod error;
pub mod extensions;
pub mod http;
pub mod metric;
pub mod param;
pub mod render;
mod schema;
pub mod tool;

pub use bind::{BindError, BoundCall, Coercion, bind};
pub use catalog::{Catalog, CatalogError, demo_catalog};
pub use error::{ErrorBody, ErrorDetail};
pub use param::{Location, ParamSpec, ParamTable, ParamType};
pub use tool::Tool;
