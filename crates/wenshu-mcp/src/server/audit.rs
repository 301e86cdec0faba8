//! The recorder the MCP server calls after each `ask`, so that an ask over `/mcp` is audited like one over the API:
//! the server that mounts `/mcp` hands one in (`wenshu_server::audit::mcp_recorder` writes the entry in the store).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use wenshu_engine::{Answer, AskRequest, Extraction};

/// Records one answered `ask`: the HTTP request's extensions (`None` on stdio), the request and its answer. An
/// error (the entry could not be written) withholds the answer: the caller gets a tool error instead.
pub type AskRecorder = Arc<
    dyn Fn(Option<&http::Extensions>, &AskRequest, &Answer) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>>
        + Send
        + Sync,
>;

/// Records one `extract`: the HTTP request's extensions (`None` on stdio), the catalog tool, the question and the
/// extraction. An error (the entry could not be written) withholds the extraction, as for `ask`.
pub type ExtractRecorder = Arc<
    dyn Fn(
            Option<&http::Extensions>,
            &str,
            &str,
            &Extraction,
        ) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>>
        + Send
        + Sync,
>;
