//! `GET /healthz` and `GET /readyz` (issue 14): public, so a load balancer probes without
//! a token; they reveal no records, only whether this server can serve and dispatch.

use axum::extract::State;
use axum::http::StatusCode;
use axum::{Extension, Json};
use tidepool_api::health::{Alive, Readiness};

use crate::health::LeaseName;
use crate::http::AppState;

pub async fn healthz() -> Json<Alive> {
    Json(crate::health::alive())
}

/// 200 when ready, 503 with the same body (the failing check named) when not.
pub async fn readyz(
    State(state): State<AppState>,
    name: Option<Extension<LeaseName>>,
) -> (StatusCode, Json<Readiness>) {
    let me = name.as_ref().map(|Extension(n)| &*n.0);
    let ready = crate::health::readiness(&state.store, me, state.now()).await;
    let status = if ready.ready { StatusCode::OK } else { StatusCode::SERVICE_UNAVAILABLE };
    (status, Json(ready))
}
