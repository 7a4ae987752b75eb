//! A span per request (issue 14): every log line written while a request is answered
//! carries its method and route template (never the raw path: ids and tokens stay out),
//! and the answer is logged with its status and latency — 5xx as warnings, 4xx at info,
//! the rest at debug (`RUST_LOG=info,tidepool::http::trace=debug` gives a full access log).

use std::time::Instant;

use axum::extract::{MatchedPath, Request};
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument;

pub async fn span(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map_or("fallback", |p| p.as_str()).to_string();
    let method = request.method().to_string();
    let span = tracing::info_span!(
        "request",
        %method,
        %route,
        status = tracing::field::Empty,
        latency_ms = tracing::field::Empty
    );
    let started = Instant::now();
    let response = next.run(request).instrument(span.clone()).await;
    let status = response.status().as_u16();
    let latency_ms = (started.elapsed().as_secs_f64() * 1000.0 * 1000.0).round() / 1000.0;
    span.record("status", status);
    span.record("latency_ms", latency_ms);
    let _in = span.enter();
    match status {
        500.. => tracing::warn!(%method, %route, status, latency_ms, "answered"),
        400..=499 => tracing::info!(%method, %route, status, latency_ms, "answered"),
        _ => tracing::debug!(%method, %route, status, latency_ms, "answered"),
    }
    response
}
