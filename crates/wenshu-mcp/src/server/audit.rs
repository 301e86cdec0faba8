//! The recorder the MCP server calls after each `ask`, so that an ask over `/mcp` is audited like one over the API:
//! the server that mounts `/mcp` hands one in (`wenshu_server::audit::mcp_recorder` writes the entry in the store).

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use wenshu_engine::answer::Answer;
use wenshu_engine::pipeline::AskRequest;

/// Records one answered `ask`: the HTTP request's extensions (`None` on stdio), the request and its answer. An
/// error (the entry could not be written) withholds the answer: the caller gets a tool error instead.
pub type AskRecorder = Arc<
    dyn Fn(Option<&http::Extensions>, &AskRequest, &Answer) -> Pin<Box<dyn Future<Output = Result<(), String>> + Send>>
        + Send
        + Sync,
>;
