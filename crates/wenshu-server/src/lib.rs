//! The wenshu HTTP API and web page (axum): ask, conversations, traces, tools, health, metrics, OpenAPI, and the
//! page itself embedded in the binary. Other routes (the MCP endpoint, `/mcp`) are given by the caller to [`app`],
//! so that they sit behind the same layers: the principal, the rate limit, timeouts and the error contract.

pub mod api;
mod assets;
pub mod audit;
pub mod auth;
pub mod error;
pub mod guard;
pub mod jwt;
pub mod limits;
pub mod listen;
pub mod metrics;
pub mod principal;
pub mod retention;
pub mod state;
pub mod timeouts;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::middleware::from_fn_with_state;
use axum::routing::{get, patch, post, put};

pub use listen::{ListenSettings, serve_with};
pub use principal::{Principal, Role};
pub use state::{AppState, ServerSettings};

/// Every route of the server behind its layers (see [`app`]), with no extra routes.
pub fn router(state: AppState) -> Router {
    app(state, Router::new())
}

/// Every route of the server plus `extra` (e.g. `/mcp`), all behind one stack of layers, outermost first: the
/// error contract and security headers, the declared-length check, the request deadline, the auth layer that makes
/// the [`Principal`] and the rate limit; then, on the API's own routes, the JSON content type and the body-read
/// timeout (the MCP service checks its own content type and reads its body under the request deadline).
pub fn app(state: AppState, extra: Router) -> Router {
    let routes = Router::new()
        .route("/api/ask", post(api::ask::ask))
        .route("/api/conversations", get(api::library::list))
        .route(
            "/api/conversations/{id}",
            get(api::conversations::conversation)
                .patch(api::library::rename)
                .delete(api::library::delete),
        )
        .route("/api/turns/{id}/csv", get(api::export::csv))
        .route("/api/turns/{id}/feedback", put(api::feedback::put))
        .route("/api/feedback", get(api::feedback::list))
        .route("/api/audit", get(api::audit::list))
        .route("/api/traces/{id}", get(api::conversations::trace))
        .route("/api/catalog", get(api::catalog::catalog))
        .route("/api/tools", get(api::tools::list))
        .route("/api/tools/{name}", patch(api::tools::set_enabled))
        .route("/api/openapi.json", get(api::openapi))
        .route("/healthz", get(api::health))
        .route("/metrics", get(metrics::render))
        .route("/", get(assets::index))
        .route("/assets/{*file}", get(assets::file))
        .fallback(api::not_found)
        // Only on the routes: an unknown path stays 404.
        .route_layer(from_fn_with_state(state.clone(), timeouts::read_body))
        .route_layer(axum::middleware::from_fn(guard::json_only))
        .layer(DefaultBodyLimit::max(state.settings().max_body_bytes))
        .with_state(state.clone());
    let extra = if extra.has_routes() {
        extra.route_layer(from_fn_with_state(state.clone(), timeouts::read_body))
    } else {
        extra
    };
    routes
        .merge(extra)
        .layer(from_fn_with_state(state.clone(), limits::rate_limit))
        .layer(from_fn_with_state(state.clone(), auth::identify))
        .layer(from_fn_with_state(state.clone(), timeouts::deadline))
        .layer(from_fn_with_state(state, guard::declared_length))
        .layer(axum::middleware::from_fn(guard::contract))
}

/// Every route of the server plus one service nested at `path` (the MCP endpoint at `/mcp`), all behind the
/// layers of [`app`].
pub fn app_with<S>(state: AppState, path: &str, service: S) -> Router
where
    S: tower::Service<axum::extract::Request, Error = std::convert::Infallible> + Clone + Send + Sync + 'static,
    S::Response: axum::response::IntoResponse,
    S::Future: Send + 'static,
{
    app(state, Router::new().nest_service(path, service))
}

/// Serves `router` on `listener` with the default [`ListenSettings`] until the process ends.
pub async fn serve(listener: tokio::net::TcpListener, router: Router) -> std::io::Result<()> {
    serve_with(listener, router, ListenSettings::default()).await
}
