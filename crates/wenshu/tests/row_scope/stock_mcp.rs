//! A small MCP server of the test's own (rmcp, streamable HTTP on loopback): one tool, `warehouse_stock`, whose
//! `region` parameter wenshu fills from the principal. Like a real service it trusts the parameter: given a region it
//! answers that region's warehouses, without one every warehouse — so a parameter wenshu failed to fill shows as
//! other regions' rows. Each warehouse is one text block holding a JSON object (wenshu shows text blocks as rows of
//! one column, `text`). Every call's arguments are kept for the test to read.

use std::sync::{Arc, Mutex};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{MaybeSendFuture, RequestContext};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::{StreamableHttpServerConfig, StreamableHttpService};
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value, json};

/// The served tool's name (wenshu's catalog names it `stock.warehouse_stock`).
pub const TOOL: &str = "warehouse_stock";

/// The warehouses: name, region, units in stock.
pub const WAREHOUSES: [(&str, &str, i64); 5] = [
    ("上海一号仓", "华东", 1200),
    ("杭州二号仓", "华东", 800),
    ("广州三号仓", "华南", 950),
    ("北京四号仓", "华北", 700),
    ("成都五号仓", "西南", 400),
];

#[derive(Clone, Default)]
struct Stock {
    calls: Arc<Mutex<Vec<Map<String, Value>>>>,
}

fn tool() -> Tool {
    let schema = json!({
        "type": "object",
        "properties": {
            "region": {"type": "string", "description": "仓库所在的大区"}
        },
        "additionalProperties": false
    });
    let Value::Object(schema) = schema else { unreachable!() };
    Tool::new(TOOL, "查询仓库库存：各仓库现有的库存件数", Arc::new(schema))
}

impl ServerHandler for Stock {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("stock", "1"))
    }

    fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> impl Future<Output = Result<ListToolsResult, ErrorData>> + MaybeSendFuture + '_ {
        std::future::ready(Ok(ListToolsResult::with_all_items(vec![tool()])))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let arguments = request.arguments.unwrap_or_default();
        self.calls.lock().unwrap().push(arguments.clone());
        let region = arguments.get("region").and_then(Value::as_str);
        let blocks: Vec<ContentBlock> = WAREHOUSES
            .iter()
            .filter(|(_, r, _)| region.is_none_or(|wanted| wanted == *r))
            .map(|(name, r, units)| {
                ContentBlock::text(json!({"warehouse": name, "region": r, "units": units}).to_string())
            })
            .collect();
        Ok(CallToolResult::success(blocks).into())
    }
}

/// The server, running until the test's runtime ends.
pub struct StockServer {
    /// Its MCP endpoint (`http://127.0.0.1:PORT/mcp`).
    pub url: String,
    calls: Arc<Mutex<Vec<Map<String, Value>>>>,
}

impl StockServer {
    /// Binds a loopback port and serves the tool at `/mcp`.
    pub async fn start() -> Self {
        let handler = Stock::default();
        let calls = Arc::clone(&handler.calls);
        let service = StreamableHttpService::new(
            move || Ok(handler.clone()),
            Arc::new(LocalSessionManager::default()),
            StreamableHttpServerConfig::default(),
        );
        let app = axum::Router::new().nest_service("/mcp", service);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let address = listener.local_addr().unwrap();
        tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        Self {
            url: format!("http://{address}/mcp"),
            calls,
        }
    }

    /// The arguments of every call so far, in order.
    pub fn calls(&self) -> Vec<Map<String, Value>> {
        self.calls.lock().unwrap().clone()
    }
}
