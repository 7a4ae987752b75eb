//! The HTTP API. `app(state)` builds the whole router, so tests drive it without a socket.
//! Every route is listed once in [`ROUTES`] with who may call it: the OpenAPI document
//! and the role-matrix test are generated from that table.

mod accounts;
pub mod agent;
mod alerts;
pub mod auth;
mod changes;
mod cluster;
mod domain_errors;
mod drills;
mod error;
mod extract;
mod health;
pub mod jobs;
mod limits;
pub mod listen;
mod loans;
mod logs;
mod metrics;
mod openapi;
mod page;
mod policies;
pub mod projects;
mod records;
mod replays;
mod reports;
mod reviews;
mod run_to_end;
pub mod scope;
mod settings;
mod signin;
mod templates;
mod tls;
mod trace;
mod usage;
mod views;
pub mod web;

use std::sync::Arc;

use axum::Router;
use axum::extract::DefaultBodyLimit;
use axum::routing::{get, patch, post};

pub use crate::limits::Bounds;
pub use auth::Keys;
pub use error::ApiError;
pub use extract::{AppBytes, AppJson, AppPath, AppQuery};
pub use listen::{Limits, serve, serve_tls};
pub use tls::ClientCertificate;
pub use web::default_dir as default_web_dir;

use crate::fleet::Fleet;
use crate::policy::desk::PolicyDesk;
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
    /// Wakes the dispatcher before its timer does (a submission, a cancellation, changed
    /// capacity or quotas), once the write has committed.
    pub wake: Arc<crate::dispatch::wake::Wake>,
    /// Policy modules: the runtime, the dispatcher's policies and their registry.
    pub policies: Arc<PolicyDesk>,
    /// Node agents: their settings, and the news their syncs wait for.
    pub fleet: Arc<Fleet>,
    /// The built web app's folder.
    pub web_dir: std::path::PathBuf,
    /// Caps on what one caller may ask of the server (finding 8).
    pub bounds: Arc<Bounds>,
    /// The bearer token `GET /metrics` asks for (`serve --metrics-token`); none: only
    /// callers on loopback may scrape.
    pub metrics_token: Option<Arc<str>>,
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
    /// The group's manager, or an admin (approvals, grants, renewals).
    GroupManager,
    /// Admins only.
    Admin,
    /// A node agent, with its node token.
    Node,
    /// A metrics scraper (Prometheus): the `serve --metrics-token` bearer when one is
    /// set, else any caller on loopback.
    Scraper,
}

/// What a route's request body is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Body {
    None,
    /// A JSON object (unknown fields refused).
    Json,
    /// A WebAssembly component's bytes.
    Wasm,
}

/// One route of the API.
pub struct Route {
    pub method: &'static str,
    pub path: &'static str,
    pub summary: &'static str,
    pub access: Access,
    pub body: Body,
}

const fn route(method: &'static str, path: &'static str, access: Access, summary: &'static str) -> Route {
    // GET and the body-less actions take no body; the table marks the rest.
    Route { method, path, summary, access, body: Body::None }
}

const fn json(r: Route) -> Route {
    Route { body: Body::Json, ..r }
}

const fn wasm(r: Route) -> Route {
    Route { body: Body::Wasm, ..r }
}

use Access::{Admin, GroupManager, Node, OwnGroup, Public, Scraper, SignedIn};

/// Every route, with its access rule.
pub const ROUTES: &[Route] = &[
    route("get", "/api/openapi.json", Public, "This document"),
    json(route("post", "/api/auth/login", Public, "Sign in: tokens for a username and password")),
    json(route("post", "/api/auth/refresh", Public, "A new access token for a refresh token")),
    json(route(
        "post",
        "/api/auth/logout",
        Public,
        "Sign out: revoke the sign-in of a refresh or access token",
    )),
    json(route("post", "/api/auth/password", SignedIn, "Change one's own password; other sign-ins end")),
    route("get", "/api/me", SignedIn, "The signed-in user"),
    route("get", "/api/users", SignedIn, "Every account's username, role and group"),
    json(route("post", "/api/users", Admin, "Create an account")),
    route("get", "/api/groups", SignedIn, "All groups, oldest first, a page at a time"),
    json(route("post", "/api/groups", Admin, "Create a group")),
    route("get", "/api/jobs", SignedIn, "Jobs, newest first, with state and reason"),
    json(route(
        "post",
        "/api/jobs",
        OwnGroup,
        "Submit a job from a spec or a template, under a project's grant",
    )),
    json(route(
        "post",
        "/api/jobs/dry-run",
        OwnGroup,
        "What would happen to a job submitted now; nothing is written",
    )),
    route(
        "get",
        "/api/jobs/{id}",
        SignedIn,
        "A job's dispatch receipt: what ran where, when, by which policy and why",
    ),
    route("post", "/api/jobs/{id}/cancel", OwnGroup, "Cancel a job (members: their own)"),
    route(
        "get",
        "/api/jobs/{id}/log",
        OwnGroup,
        "What the job's command printed, in byte ranges (?offset=&limit=), followable (?follow_s=); its group and admins",
    ),
    route("get", "/api/projects", SignedIn, "Projects and their priority grants, with expiry warnings"),
    json(route(
        "post",
        "/api/projects",
        GroupManager,
        "Grant a project priority until an expiry, up to a GPU cap",
    )),
    json(route("post", "/api/projects/{id}/renew", GroupManager, "Renew a project's priority grant")),
    route(
        "get",
        "/api/templates",
        SignedIn,
        "Templates with grants and usage; ?stale_days=N for the retirement review",
    ),
    json(route("post", "/api/templates", OwnGroup, "Create a template for the group")),
    json(route("post", "/api/templates/{id}/grants", GroupManager, "Let another group use a template")),
    json(route("post", "/api/templates/{id}/retire", GroupManager, "Retire a template")),
    route("get", "/api/loans", SignedIn, "Loans between groups and their decisions"),
    json(route(
        "post",
        "/api/loans",
        OwnGroup,
        "Ask another group for GPUs, or (lender's manager) offer them",
    )),
    json(route(
        "post",
        "/api/loans/{id}/approve",
        GroupManager,
        "The lender's manager (or an admin, not the one who asked) approves a request",
    )),
    json(route("post", "/api/loans/{id}/reject", GroupManager, "The lender's manager rejects a request")),
    route("post", "/api/loans/{id}/return", OwnGroup, "The borrower gives a loan back early"),
    json(route("post", "/api/loans/{id}/reclaim", GroupManager, "The lender takes a loan back early")),
    route(
        "get",
        "/api/quotas",
        SignedIn,
        "Quotas per group, model and category, with GPUs in use, over and under",
    ),
    json(route("put", "/api/quotas", Admin, "Propose a quota change; a second admin applies it")),
    route("get", "/api/changes", SignedIn, "Configuration changes and their reviews"),
    json(route("post", "/api/changes/{id}/approve", Admin, "Apply a proposed change (not its proposer)")),
    json(route("post", "/api/changes/{id}/reject", Admin, "Reject or withdraw a proposed change")),
    route("get", "/api/nodes", SignedIn, "Pools, nodes and GPUs: who holds each, since and until when"),
    json(route("post", "/api/nodes", Admin, "Add a node")),
    json(route("patch", "/api/nodes/{id}", Admin, "Move a node to a pool, or take it out of service")),
    route("get", "/api/pools", SignedIn, "Capacity per pool: surplus or tight"),
    json(route("post", "/api/nodes/tokens", Admin, "Issue a node token for an agent (shown once)")),
    route("get", "/api/nodes/tokens", Admin, "Node tokens: node, pool, expiry, last use; never the token"),
    route(
        "post",
        "/api/nodes/tokens/{id}/revoke",
        Admin,
        "Revoke a node token: its agent is refused at once",
    ),
    json(route("post", "/api/agent/register", Node, "An agent registers its node and GPUs")),
    json(route("post", "/api/agent/sync", Node, "An agent reports and is told what to start and stop")),
    route("get", "/api/events", SignedIn, "The event log, newest first"),
    route("get", "/api/archive", SignedIn, "Finished jobs by group, year and tag"),
    route("get", "/api/policies", SignedIn, "Policy versions per kind with their history"),
    wasm(route(
        "post",
        "/api/policies",
        Admin,
        "Upload a policy module (the body is the component); ?note= the change",
    )),
    route("post", "/api/policies/{sha256}/shadow", Admin, "Run a version in shadow beside the active one"),
    json(route(
        "post",
        "/api/policies/{sha256}/canary",
        Admin,
        "Ask for a version to decide for chosen groups (a second admin approves)",
    )),
    route("post", "/api/policies/{sha256}/promote", Admin, "Ask for a version's promotion"),
    json(route(
        "post",
        "/api/policies/{sha256}/approve",
        Admin,
        "Approve a canary or a promotion (an admin who neither asked nor wrote it)",
    )),
    json(route(
        "post",
        "/api/policies/{sha256}/replays",
        Admin,
        "Replay a version over a recorded period beside the active one and what happened; stored with it",
    )),
    route("get", "/api/policies/{sha256}/replays", Admin, "A version's stored replays, newest first"),
    json(route(
        "post",
        "/api/policies/rollback",
        Admin,
        "Go back to the previously active version of a kind",
    )),
    route(
        "get",
        "/api/usage",
        SignedIn,
        "Busy and idle curves: hour x weekday heatmap and GPU-hours by day (own group or organisation)",
    ),
    route(
        "get",
        "/api/settings",
        SignedIn,
        "The organisation's time zone, currency, GPU prices and report webhook",
    ),
    json(route(
        "put",
        "/api/settings",
        Admin,
        "Replace the organisation's settings (each change is an event)",
    )),
    route("get", "/api/settings/limits", SignedIn, "Each priority class's default and maximum time limit"),
    json(route(
        "put",
        "/api/settings/limits",
        Admin,
        "Change classes' default and maximum time limits (each change is an event)",
    )),
    route("get", "/api/reports", SignedIn, "Frozen weekly reports: one's group's and the organisation's"),
    route(
        "get",
        "/api/reports/weekly",
        SignedIn,
        "One week's report of a group (one's own) or the organisation",
    ),
    route("get", "/api/reports/weekly.csv", SignedIn, "The weekly report's tables as CSV sections"),
    route(
        "get",
        "/api/alerts",
        SignedIn,
        "One's alerts, newest first, and how many are unread (?unread=true)",
    ),
    route("post", "/api/alerts/{id}/read", SignedIn, "Mark one of one's alerts read"),
    route(
        "post",
        "/api/alerts/{id}/ack",
        SignedIn,
        "Acknowledge one of one's alerts: read, and no more reminders to anyone",
    ),
    route("get", "/api/alerts/settings", Admin, "The alert webhook: its URL and body shape"),
    route("get", "/api/drills", Admin, "Failover drills and what they measured, newest first"),
    json(route(
        "put",
        "/api/alerts/settings",
        Admin,
        "Set the alert webhook (JSON notices or chat messages)",
    )),
    route("get", "/api/reviews/quotas", SignedIn, "The monthly quota review with suggested guarantees"),
    json(route(
        "post",
        "/api/reviews/quotas/propose",
        Admin,
        "Turn a review's suggestions into quota proposals",
    )),
    route("get", "/api/reviews/idle", SignedIn, "The monthly idle review: GPUs held but idle, per group"),
    route("get", "/api/reviews/templates", SignedIn, "The quarterly review of templates nobody launched"),
    route(
        "get",
        "/api/reviews/rules",
        SignedIn,
        "The year's policy and quota changes with their measured effect",
    ),
    route(
        "get",
        "/metrics",
        Scraper,
        "Prometheus metrics (text format 0.0.4): queue, GPUs, budgets, dispatch, policy, sync and API timings",
    ),
    route("get", "/healthz", Public, "Alive: the process answers (the database is not touched)"),
    route(
        "get",
        "/readyz",
        Public,
        "Ready: the database answers and its migrations are this binary's (else 503, the failing check named); leader or standby",
    ),
];

/// Paths that are not API routes: the web app (unknown `/api/…` paths are 404s).
async fn web_fallback(
    axum::extract::State(state): axum::extract::State<AppState>,
    request: axum::extract::Request,
) -> axum::response::Response {
    web::serve(state.web_dir.clone(), request).await
}

/// The whole API.
pub fn app(state: AppState) -> Router {
    let upload = post(policies::upload).layer(DefaultBodyLimit::max(policies::MAX_MODULE_BYTES));
    Router::new()
        .route("/api/openapi.json", get(openapi::document))
        .route("/api/auth/login", post(signin::login))
        .route("/api/auth/refresh", post(signin::refresh))
        .route("/api/auth/logout", post(signin::logout))
        .route("/api/auth/password", post(signin::change_password))
        .route("/api/me", get(accounts::me))
        .route("/api/users", get(accounts::users).post(accounts::create_user))
        .route("/api/groups", get(accounts::groups).post(accounts::create_group))
        .route("/api/jobs", get(jobs::list).post(jobs::submit))
        .route("/api/jobs/dry-run", post(jobs::dry_run))
        .route("/api/jobs/{id}", get(views::receipt))
        .route("/api/jobs/{id}/cancel", post(jobs::cancel))
        .route("/api/jobs/{id}/log", get(logs::log))
        .route("/api/projects", get(projects::list).post(projects::create))
        .route("/api/projects/{id}/renew", post(projects::renew))
        .route("/api/templates", get(templates::list).post(templates::create))
        .route("/api/templates/{id}/grants", post(templates::grant))
        .route("/api/templates/{id}/retire", post(templates::retire))
        .route("/api/loans", get(loans::list).post(loans::create))
        .route("/api/loans/{id}/approve", post(loans::approve))
        .route("/api/loans/{id}/reject", post(loans::reject))
        .route("/api/loans/{id}/return", post(loans::give_back))
        .route("/api/loans/{id}/reclaim", post(loans::reclaim))
        .route("/api/quotas", get(views::quotas).put(changes::propose_quota))
        .route("/api/changes", get(changes::list))
        .route("/api/changes/{id}/approve", post(changes::approve))
        .route("/api/changes/{id}/reject", post(changes::reject))
        .route("/api/nodes", get(views::nodes).post(cluster::add_node))
        .route("/api/nodes/{id}", patch(cluster::edit_node))
        .route("/api/pools", get(cluster::pools))
        .route("/api/nodes/tokens", get(agent::list_tokens).post(agent::issue_token))
        .route("/api/nodes/tokens/{id}/revoke", post(agent::revoke_token))
        .route("/api/agent/register", post(agent::register))
        .route("/api/agent/sync", post(agent::sync).layer(DefaultBodyLimit::max(agent::MAX_REPORT_BYTES)))
        .route("/api/events", get(records::events))
        .route("/api/archive", get(records::archive))
        .route("/api/policies", get(policies::list).merge(upload))
        .route("/api/policies/rollback", post(policies::rollback))
        .route("/api/policies/{sha256}/shadow", post(policies::shadow))
        .route("/api/policies/{sha256}/canary", post(policies::canary))
        .route("/api/policies/{sha256}/promote", post(policies::promote))
        .route("/api/policies/{sha256}/approve", post(policies::approve))
        .route("/api/policies/{sha256}/replays", post(replays::start).get(replays::list))
        .route("/api/usage", get(usage::usage))
        .route("/api/settings", get(settings::get).put(settings::put))
        .route("/api/settings/limits", get(limits::get).put(limits::put))
        .route("/api/reports", get(reports::list))
        .route("/api/reports/weekly", get(reports::weekly))
        .route("/api/reports/weekly.csv", get(reports::weekly_csv))
        .route("/api/alerts", get(alerts::list))
        .route("/api/alerts/{id}/read", post(alerts::read))
        .route("/api/alerts/{id}/ack", post(alerts::acknowledge))
        .route("/api/alerts/settings", get(alerts::get_settings).put(alerts::put_settings))
        .route("/api/drills", get(drills::list))
        .route("/api/reviews/quotas", get(reviews::quotas))
        .route("/api/reviews/quotas/propose", post(reviews::propose))
        .route("/api/reviews/idle", get(reviews::idle))
        .route("/api/reviews/templates", get(reviews::templates))
        .route("/api/reviews/rules", get(reviews::rules))
        .route("/metrics", get(metrics::metrics))
        .route("/healthz", get(health::healthz))
        .route("/readyz", get(health::readyz))
        .fallback(web_fallback)
        .layer(DefaultBodyLimit::max(MAX_BODY_BYTES))
        .layer(axum::middleware::from_fn(metrics::track))
        .layer(axum::middleware::from_fn(trace::span))
        .with_state(state)
}
