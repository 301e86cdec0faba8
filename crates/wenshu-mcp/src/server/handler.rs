//! wenshu as an MCP server: `tools/list` gives `ask` and `extract`, `tools/call` runs them on the engine.

use std::future::Future;
use std::sync::Arc;

use jiff::civil::Date;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool as McpTool,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};
use wenshu_contract::Catalog;
use wenshu_engine::{AskOutcome, AskRequest, Engine, ExtractRequest, Extractor, Viewer, principal_params};

use super::audit::{AskRecorder, ExtractRecorder};
use super::render::{ask_content, ask_text, extract_content, extract_text};
use super::tools::{ASK, EXTRACT, served_tool, served_tools};

/// What the served tools run on: the engine (for `ask`), the extractor and catalog (for `extract`).
#[derive(Clone)]
pub struct WenshuMcpServer {
    engine: Arc<Engine>,
    extractor: Arc<dyn Extractor>,
    catalog: Arc<Catalog>,
    today: Option<Date>,
    recorder: Option<AskRecorder>,
    extract_recorder: Option<ExtractRecorder>,
}

impl std::fmt::Debug for WenshuMcpServer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WenshuMcpServer")
            .field("tools", &self.catalog.names())
            .field("today", &self.today)
            .finish_non_exhaustive()
    }
}

impl WenshuMcpServer {
    /// A server over `engine`, with `extractor` and `catalog` for `extract`; "today" is the day in the planner's
    /// time zone at each call.
    pub fn new(engine: Arc<Engine>, extractor: Arc<dyn Extractor>, catalog: Arc<Catalog>) -> Self {
        Self {
            engine,
            extractor,
            catalog,
            today: None,
            recorder: None,
            extract_recorder: None,
        }
    }

    /// The same server recording each `ask` with `recorder` (the audit log); an answer whose entry cannot be
    /// written is not given.
    pub fn with_recorder(mut self, recorder: AskRecorder) -> Self {
        self.recorder = Some(recorder);
        self
    }

    /// The same server recording each `extract` with `recorder` (the audit log); an extraction whose entry cannot be
    /// written is not given.
    pub fn with_extract_recorder(mut self, recorder: ExtractRecorder) -> Self {
        self.extract_recorder = Some(recorder);
        self
    }

    /// The same server with a fixed "today" (for tests and reproducible demos).
    pub fn with_today(mut self, today: Date) -> Self {
        self.today = Some(today);
        self
    }

    /// The day questions are asked on.
    fn today(&self) -> Result<Date, String> {
        match self.today {
            Some(day) => Ok(day),
            None => wenshu_lexicon::time::today_in(self.engine.planner().timezone()).map_err(|e| e.to_string()),
        }
    }

    /// Runs one served tool as the local operator (stdio); a bad argument or an unknown catalog tool is a tool
    /// error the caller can read.
    pub async fn run_tool(&self, name: &str, arguments: &Map<String, Value>) -> Result<CallToolResult, ErrorData> {
        self.run_tool_with(name, arguments, None).await
    }

    /// Runs one served tool for the HTTP request whose extensions are `http` (what the server's auth layer put
    /// there: the principal and its [`Viewer`]); `None` on stdio, where the caller is the local operator.
    pub async fn run_tool_with(
        &self,
        name: &str,
        arguments: &Map<String, Value>,
        http: Option<&http::Extensions>,
    ) -> Result<CallToolResult, ErrorData> {
        let viewer = viewer_of(http);
        let outcome = match name {
            ASK => self.ask(arguments, viewer, http).await,
            EXTRACT => self.extract(arguments, &viewer, http).await,
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool `{other}`; this server has `{ASK}` and `{EXTRACT}`"),
                    None,
                ));
            }
        };
        Ok(outcome.unwrap_or_else(|message| CallToolResult::error(vec![ContentBlock::text(message)])))
    }

    async fn ask(
        &self,
        arguments: &Map<String, Value>,
        viewer: Viewer,
        http: Option<&http::Extensions>,
    ) -> Result<CallToolResult, String> {
        let question = required_string(arguments, "question")?;
        let conversation_id = optional_string(arguments, "conversationId")?;
        let subject_id = optional_string(arguments, "subjectId")?;
        let mut request = AskRequest::new(question, self.today()?);
        request.subject_id = subject_id.map(str::to_string);
        request.viewer = viewer;
        let answer = self.engine.ask(&request).await;
        if let Some(record) = &self.recorder {
            record(http, &request, &answer).await?;
        }
        // A subject ID the question cannot mean is the caller's error, as a 422 is over HTTP.
        if let AskOutcome::Rejected { error, .. } = &answer.outcome {
            return Err(error.to_string());
        }
        let content = ask_content(&answer, conversation_id);
        Ok(with_text(content.clone(), ask_text(&content)))
    }

    async fn extract(
        &self,
        arguments: &Map<String, Value>,
        viewer: &Viewer,
        http: Option<&http::Extensions>,
    ) -> Result<CallToolResult, String> {
        let tool_name = required_string(arguments, "tool")?;
        let question = required_string(arguments, "question")?;
        let tool = self.catalog.get(tool_name).ok_or_else(|| {
            format!(
                "unknown tool `{tool_name}`; known tools: {}",
                self.catalog.names().join(", ")
            )
        })?;
        // Parameters that come from the principal (`x-principal`) are filled by code, hidden from the model.
        let fixed = principal_params(tool, viewer).map_err(|refusal| format!("{} ({})", refusal.en, refusal.zh))?;
        let request = ExtractRequest {
            tool,
            question,
            today: self.today()?,
            timezone: self.engine.planner().timezone(),
            fixed,
        };
        let extraction = self.extractor.extract(&request).await;
        if let Some(record) = &self.extract_recorder {
            record(http, tool_name, question, &extraction).await?;
        }
        let content = extract_content(tool_name, &extraction);
        Ok(with_text(content.clone(), extract_text(&content)))
    }
}

impl ServerHandler for WenshuMcpServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("wenshu", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "wenshu (问数) answers data questions with business tools: `ask` answers a question end to end; \
                 `extract` shows the parameters a question gives one catalog tool.",
            )
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(served_tools())))
    }

    fn get_tool(&self, name: &str) -> Option<McpTool> {
        served_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        // Over streamable HTTP rmcp hands the request's parts in the context's extensions; on stdio there are none.
        let http = context
            .extensions
            .get::<http::request::Parts>()
            .map(|parts| &parts.extensions);
        self.run_tool_with(&request.name, &arguments, http)
            .await
            .map(CallToolResponse::from)
    }
}

/// Who asks over `http`'s request: the viewer the server's auth layer put there; on stdio (`None`) the local
/// operator. An HTTP request without one (a service mounted without the auth layer) is scoped with no attributes,
/// so that a row scope refuses it rather than widening.
fn viewer_of(http: Option<&http::Extensions>) -> Viewer {
    match http {
        None => Viewer::operator(),
        Some(extensions) => extensions
            .get::<Viewer>()
            .cloned()
            .unwrap_or_else(|| Viewer::scoped(None, Default::default())),
    }
}

/// A successful result: the structured content and its text rendering.
fn with_text(content: Value, text: String) -> CallToolResult {
    let mut result = CallToolResult::structured(content);
    result.content = vec![ContentBlock::text(text)];
    result
}

fn required_string<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<&'a str, String> {
    match optional_string(arguments, key)? {
        Some(text) if !text.trim().is_empty() => Ok(text),
        _ => Err(format!("`{key}` is required: a non-empty string")),
    }
}

fn optional_string<'a>(arguments: &'a Map<String, Value>, key: &str) -> Result<Option<&'a str>, String> {
    match arguments.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(text)) => Ok(Some(text)),
        Some(other) => Err(format!("`{key}` must be a string, got {other}")),
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;

    #[test]
    fn the_viewer_is_the_http_requests_else_scoped_and_on_stdio_the_operator() {
        assert_eq!(viewer_of(None), Viewer::operator());
        let bare = viewer_of(Some(&http::Extensions::new()));
        assert!(!bare.unscoped && bare.attributes.is_empty() && bare.id.is_none());
        let alice = Viewer::scoped(
            Some("k-1".into()),
            BTreeMap::from([("region".to_string(), Value::from("华东"))]),
        );
        let mut extensions = http::Extensions::new();
        extensions.insert(alice.clone());
        assert_eq!(viewer_of(Some(&extensions)), alice);
    }
}
