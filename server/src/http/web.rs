//! The web app's files, from the same origin as the API: `/` and every path that is not
//! the API answer with `index.html` (the app routes in the browser); the app's script,
//! module and stylesheet are served by name from the web folder.

use std::path::PathBuf;

use axum::body::Body;
use axum::extract::Request;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};

use crate::http::ApiError;

/// Where the built app is: `TIDEPOOL_WEB_DIR`, else `web/` in the build's target folder
/// (beside `debug/` or `release/`, where the web build puts it).
pub fn default_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("TIDEPOOL_WEB_DIR") {
        return PathBuf::from(dir);
    }
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent()?.parent().map(|target| target.join("web")))
        .unwrap_or_else(|| PathBuf::from("web"))
}

fn content_type(name: &str) -> &'static str {
    match name.rsplit('.').next() {
        Some("html") => "text/html; charset=utf-8",
        Some("js") => "text/javascript",
        Some("wasm") => "application/wasm",
        Some("css") => "text/css",
        Some("svg") => "image/svg+xml",
        _ => "application/octet-stream",
    }
}

/// Serves a file of the app, or `index.html` for the app's own routes.
pub async fn serve(dir: PathBuf, request: Request) -> Response {
    let path = request.uri().path().trim_start_matches('/');
    if path.starts_with("api/") || path == "api" {
        return ApiError::NotFound("no such route".into()).into_response();
    }
    // Only plain file names: nothing can climb out of the folder.
    let plain = !path.is_empty() && path.chars().all(|c| c.is_ascii_alphanumeric() || "._-".contains(c));
    let name = if plain && path.contains('.') { path } else { "index.html" };
    match tokio::fs::read(dir.join(name)).await {
        Ok(bytes) => ([(header::CONTENT_TYPE, content_type(name))], Body::from(bytes)).into_response(),
        Err(_) if name == "index.html" => (
            StatusCode::SERVICE_UNAVAILABLE,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            "The web app is not built: run frontend/build.sh (the run command does).",
        )
            .into_response(),
        Err(_) => ApiError::NotFound(format!("no file {name}")).into_response(),
    }
}
