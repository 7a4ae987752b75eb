//! The HTTP API. `app(state)` builds the whole router, so tests drive it without a socket.
//! Every route is listed once in [`ROUTES`] with who may call it: the OpenAPI document
//! and the role-matrix test are generated from that table.

mod accounts;
pub mod auth;
mod error;
mod extract;
mod jobs;
mod openapi;
mod views;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, post};

pub use error::ApiError;
pub use extract::AppJson;

use crate::store::Store;

/// The largest request body accepted.
pub const MAX_BODY_BYTES: usize = 256 * 1024;

/// What every handler shares.
#[derive(Clone)]
pub struct AppState {
    pub store: Store,
    pub keys: Arc<auth::Keys>,
    /// The clock, injected so tests control time.
    pub clock: Arc<dyn Fn() -> i64 + Send + Sync>,
    /// Wakes the dispatcher (a job was submitted or cancelled) before its timer does.
    pub wake: Arc<tokio::sync::Notify>,
}

impl AppState {
    pub fn now(&self) -> i64 {
        (self.clock)()
    }
}

/// Who may call a route.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Access {
    /// Anyone, signed in or not.
    Public,
    /// Any signed-in user (V3: views are team-visible).
    SignedIn,
    /// Members act within their own group; managers within theirs; admins anywhere.
    OwnGroup,
    /// Admins only.
    Admin,
}

/// One route of the API.
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub access: Access,
}

/// Every route, with its access rule.
pub const ROUTES: &[Route] = &[
    Route { method: "get", path: "/api/openapi.json", summary: "This document", access: Access::Public },
    Route {
        method: "post",
        path: "/api/auth/login",
        summary: "Sign in: tokens for a username and password",
        access: Access::Public,
    },
    Route {
        method: "post",
        path: "/api/auth/refresh",
        summary: "A new access token for a refresh token",
        access: Access::Public,
    },
    Route { method: "get", path: "/api/me", summary: "The signed-in user", access: Access::SignedIn },
    Route { method: "get", path: "/api/groups", summary: "All groups", access: Access::SignedIn },
    Route { method: "post", path: "/api/groups", summary: "Create a group", access: Access::Admin },
    Route {
        method: "get",
        path: "/api/jobs",
        summary: "Jobs, newest first, with state and reason",
        access: Access::SignedIn,
    },
    Route { method: "post", path: "/api/jobs", summary: "Submit a job", access: Access::OwnGroup },
    Route {
        method: "get",
        path: "/api/jobs/{id}",
        summary: "A job's dispatch receipt: what ran where, when, by which policy and why",
        access: Access::SignedIn,
    },
    Route {
        method: "post",
        path: "/api/jobs/{id}/cancel",
        summary: "Cancel a job",
        access: Access::OwnGroup,
    },
    Route {
        method: "get",
        path: "/api/quotas",
        summary: "Quotas per group, model and category, with GPUs in use, over and under",
        access: Access::SignedIn,
    },
    Route {
        method: "get",
        path: "/api/nodes",
        summary: "Pools, nodes and GPUs: who holds each, since and until when",
        access: Access::SignedIn,
    },
];

/// The whole API.
pub fn app(state: AppState) -> Router {
    Router::new()
        .route("/api/openapi.json", get(openapi::document))
        .route("/api/auth/login", post(accounts::login))
        .route("/api/auth/refresh", post(accounts::refresh))
        .route("/api/me", get(accounts::me))
        .route("/api/groups", get(accounts::groups).post(accounts::create_group))
        .route("/api/jobs", get(jobs::list).post(jobs::submit))
        .route("/api/jobs/{id}", get(views::receipt))
        .route("/api/jobs/{id}/cancel", post(jobs::cancel))
        .route("/api/nodes", get(views::nodes))
        .route("/api/quotas", get(views::quotas))
        .fallback(|| async { ApiError::NotFound("no such route".into()) })
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .with_state(state)
}
