//! `GET /metrics` for Prometheus (O2), and the layer that times every API request by its
//! route template. Prometheus scrapes without a user's session, so the route asks for no
//! sign-in: with `serve --metrics-token` the scraper presents that token as a bearer
//! (from anywhere); without one, only callers on the server's own host (loopback) are
//! answered, as a node exporter's port is usually kept. The figures are `crate::metrics`.

use std::net::SocketAddr;
use std::time::Instant;

use axum::extract::{ConnectInfo, MatchedPath, Request, State};
use axum::http::{HeaderMap, Method, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use axum::{Extension, http::StatusCode};

use crate::http::{ApiError, AppState};

/// The scrape: the records' gauges and the in-memory timings, as text format 0.0.4.
pub async fn metrics(
    State(state): State<AppState>,
    connect: Option<Extension<ConnectInfo<SocketAddr>>>,
    headers: HeaderMap,
) -> Result<Response, ApiError> {
    let peer = connect.map(|Extension(ConnectInfo(a))| a);
    allowed(state.metrics_token.as_deref(), peer, &headers)?;
    let idle = state.fleet.config.idle_threshold_pct;
    let text = crate::metrics::scrape(&state.store, state.now(), idle).await?;
    Ok(([(header::CONTENT_TYPE, crate::metrics::CONTENT_TYPE)], text).into_response())
}

/// The token when one is set (compared in constant time), else a loopback caller.
fn allowed(token: Option<&str>, peer: Option<SocketAddr>, headers: &HeaderMap) -> Result<(), ApiError> {
    let Some(token) = token else {
        return match peer {
            Some(p) if p.ip().is_loopback() => Ok(()),
            _ => Err(ApiError::Forbidden(
                "metrics are served to callers on the server's host; start the server with \
                 --metrics-token to let a scraper elsewhere read them"
                    .into(),
            )),
        };
    };
    let given = headers
        .get(header::AUTHORIZATION)
        .and_then(|h| h.to_str().ok())
        .and_then(|h| h.strip_prefix("Bearer "))
        .unwrap_or("");
    let same = given.len() == token.len()
        && given.bytes().zip(token.bytes()).fold(0u8, |acc, (a, b)| acc | (a ^ b)) == 0;
    if same {
        Ok(())
    } else {
        Err(ApiError::Unauthorized("a scraper sends `Authorization: Bearer <the metrics token>`".into()))
    }
}

/// Times a request to its answer's head, labelled by the matched route template (the
/// web app and unknown paths: `fallback`), method and status class: a path's ids never
/// become labels, so the series stay few.
pub async fn track(request: Request, next: Next) -> Response {
    let route = request.extensions().get::<MatchedPath>().map(|p| p.as_str().to_string());
    let method = match *request.method() {
        Method::GET => "GET",
        Method::POST => "POST",
        Method::PUT => "PUT",
        Method::PATCH => "PATCH",
        Method::DELETE => "DELETE",
        Method::HEAD => "HEAD",
        _ => "other",
    };
    let started = Instant::now();
    let response = next.run(request).await;
    let status = status_class(response.status());
    let route = route.as_deref().unwrap_or("fallback");
    crate::metrics::API_REQUEST.observe(&[method, route, status], started.elapsed().as_secs_f64());
    response
}

fn status_class(s: StatusCode) -> &'static str {
    match s.as_u16() {
        100..=199 => "1xx",
        200..=299 => "2xx",
        300..=399 => "3xx",
        400..=499 => "4xx",
        _ => "5xx",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bearer(t: &str) -> HeaderMap {
        let mut h = HeaderMap::new();
        h.insert(header::AUTHORIZATION, format!("Bearer {t}").parse().unwrap());
        h
    }

    #[test]
    fn without_a_token_only_loopback_reads_and_with_one_only_its_bearer() {
        let local: SocketAddr = "127.0.0.1:9".parse().unwrap();
        let remote: SocketAddr = "10.0.0.7:9".parse().unwrap();
        let none = HeaderMap::new();
        assert!(allowed(None, Some(local), &none).is_ok());
        assert!(matches!(allowed(None, Some(remote), &none), Err(ApiError::Forbidden(_))));
        assert!(matches!(allowed(None, None, &none), Err(ApiError::Forbidden(_))));
        let token = Some("a-long-scrape-token");
        assert!(allowed(token, Some(remote), &bearer("a-long-scrape-token")).is_ok());
        assert!(matches!(allowed(token, Some(local), &none), Err(ApiError::Unauthorized(_))));
        assert!(matches!(
            allowed(token, Some(local), &bearer("a-long-scrape-tokeN")),
            Err(ApiError::Unauthorized(_))
        ));
        assert!(matches!(allowed(token, Some(local), &bearer("short")), Err(ApiError::Unauthorized(_))));
    }

    #[test]
    fn statuses_fall_in_their_class() {
        assert_eq!(status_class(StatusCode::OK), "2xx");
        assert_eq!(status_class(StatusCode::NOT_FOUND), "4xx");
        assert_eq!(status_class(StatusCode::SERVICE_UNAVAILABLE), "5xx");
    }
}
