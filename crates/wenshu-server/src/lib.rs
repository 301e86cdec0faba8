//! The wenshu HTTP API and web page (axum): ask, conversations, traces, tools, health, metrics, OpenAPI, and the
//! page itself embedded in the binary. The MCP endpoint is mounted beside it by the caller (`/mcp`).

pub mod api;
mod assets;
pub mod auth;
pub mod error;
pub mod limits;
pub mod metrics;
pub mod state;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, patch, post};

pub use state::{AppState, ServerSettings};

/// Every route of the server, with auth, rate and size limits.
pub fn router(state: AppState) -> Router {
    let api = Router::new()
        .route("/api/ask", post(api::ask::ask))
        .route("/api/conversations/{id}", get(api::conversations::conversation))
        .route("/api/traces/{id}", get(api::conversations::trace))
        .route("/api/tools", get(api::tools::list))
        .route("/api/tools/{name}", patch(api::tools::set_enabled))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), limits::rate_limit))
        .route_layer(axum::middleware::from_fn_with_state(state.clone(), auth::require_user));
    Router::new()
        .merge(api)
        .route("/api/openapi.json", get(api::openapi))
        .route("/healthz", get(api::health))
        .route("/metrics", get(metrics::render))
        .route("/", get(assets::index))
        .route("/assets/{*file}", get(assets::file))
        .fallback(api::not_found)
        .layer(DefaultBodyLimit::max(state.settings().max_body_bytes))
        .with_state(state)
}

/// Serves `router` on `listener` until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    axum::serve(
        listener,
        router.into_make_service_with_connect_info::<std::net::SocketAddr>(),
    )
    .await
}
