//! The web page, embedded in the binary (no CDN, works offline).

use axum::extract::Path;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use rust_embed::RustEmbed;

/// The files of `assets/`.
#[derive(RustEmbed)]
#[folder = "assets/"]
struct Assets;

/// `GET /`: the page.
pub async fn index() -> Response {
    serve("index.html")
}

/// `GET /assets/{file}`.
pub async fn file(Path(file): Path<String>) -> Response {
    serve(&file)
}

fn serve(name: &str) -> Response {
    match Assets::get(name) {
        Some(content) => {
            let mime = match name.rsplit('.').next() {
                Some("html") => "text/html; charset=utf-8",
                Some("js" | "mjs") => "text/javascript; charset=utf-8",
                Some("css") => "text/css; charset=utf-8",
                Some("svg") => "image/svg+xml",
                Some("png") => "image/png",
                Some("json") => "application/json",
                _ => "application/octet-stream",
            };
            (
                [(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, "no-cache")],
                content.data.into_owned(),
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, "not found").into_response(),
    }
}
