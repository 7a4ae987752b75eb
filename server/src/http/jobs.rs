//! Submitting, listing and cancelling jobs. Members act for their own group (and cancel
//! their own jobs), managers for their group, admins anywhere (Q6).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::{Value, json};

use crate::http::auth::Caller;
use crate::http::page::{Arg, Filters, Listing, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{acting_group, group_named, one_of};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::input::Invalid;
use crate::jobs::{self, Prepared, Spec, spec, validate};
use crate::limits::{known_model, pending_cap};
use crate::{projects, templates};

/// A submission: a spec, or a template (T1) with at most a name of its own.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submit {
    name: Option<String>,
    command: Option<String>,
    gpus: Option<u32>,
    /// Admins name the group; everyone else submits for their own.
    group: Option<String>,
    model: Option<String>,
    category: Option<String>,
    class: Option<String>,
    topology: Option<String>,
    time_limit_s: Option<u64>,
    checkpointable: Option<bool>,
    /// The container image to run in; none: the node's sandbox.
    image: Option<String>,
    /// Environment variables for the job (no TIDEPOOL_*, no loader variables).
    env: Option<BTreeMap<String, String>>,
    /// Launch this template: its frozen shape, nothing overridden (T1).
    template: Option<i64>,
    /// The project whose priority grant the job runs under (P2).
    project: Option<String>,
    /// Archive tags (A2).
    #[serde(default)]
    tags: Vec<String>,
}

impl Submit {
    fn has_shape(&self) -> bool {
        self.command.is_some()
            || self.gpus.is_some()
            || self.model.is_some()
            || self.category.is_some()
            || self.class.is_some()
            || self.topology.is_some()
            || self.time_limit_s.is_some()
            || self.checkpointable.is_some()
            || self.image.is_some()
            || self.env.is_some()
    }

    fn spec(self) -> Result<Spec, Invalid> {
        let (Some(name), Some(command), Some(gpus)) = (self.name, self.command, self.gpus) else {
            return Err(Invalid("a job needs a name, a command and gpus, or a template".into()));
        };
        Ok(Spec {
            name,
            command,
            gpus: i64::from(gpus),
            model: self.model.unwrap_or_else(|| "A100-80G".into()),
            category: self.category.unwrap_or_else(|| "training".into()),
            class: self.class.unwrap_or_else(|| "normal".into()),
            topology: self.topology.unwrap_or_else(|| "any".into()),
            time_limit_s: self.time_limit_s.map(|t| t.min(i64::MAX as u64) as i64),
            checkpointable: self.checkpointable.unwrap_or(false),
            image: self.image,
            env: self.env.unwrap_or_default(),
        })
    }
}

/// Everything a submission is checked against, short of writing it.
pub async fn prepare(
    state: &AppState,
    user: &crate::store::users::User,
    body: Submit,
) -> Result<Prepared, ApiError> {
    let group_id = acting_group(&state.store, user, body.group.as_deref()).await?;
    let tags = spec::tags(&body.tags)?;
    let project = body.project.clone();
    let template_id = body.template;
    let spec = match body.template {
        Some(_) if body.has_shape() => {
            return Err(ApiError::Unprocessable(
                "a template fixes the job's shape: give only a name, project and tags with it".into(),
            ));
        }
        Some(id) => templates::launch_spec(&state.store, id, group_id, body.name.as_deref()).await?,
        None => body.spec()?,
    };
    validate(&spec)?;
    known_model(&state.store, &spec.model).await?;
    let project_id = projects::admit(&state.store, group_id, project.as_deref(), &spec, state.now()).await?;
    Ok(Prepared { group_id, spec, project_id, template_id, tags })
}

pub async fn submit(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Submit>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let prepared = prepare(&state, &user, body).await?;
    pending_cap(&state.store, &state.bounds, user.id).await?;
    let id = jobs::submit::submit(&state.store, &user, &prepared, state.now()).await?;
    state.wake.notify_one();
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "state": "pending" }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    state: Option<String>,
    /// Only this group's jobs.
    group: Option<String>,
    /// Only the caller's own submissions.
    #[serde(default)]
    mine: bool,
}

/// Jobs, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    Caller(user): Caller,
    Listing(q, page): Listing<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    let mut filters = Filters::default();
    if let Some(s) = &q.state {
        one_of(s, &["pending", "running", "succeeded", "failed", "timed-out", "cancelled"], "state")?;
        filters.and("j.state = ?", Arg::Text(s.clone()));
    }
    if let Some(name) = &q.group {
        filters.and("j.group_id = ?", Arg::Int(group_named(&state.store, name).await?));
    }
    if q.mine {
        filters.and("j.submitted_by = ?", Arg::Int(user.id));
    }
    filters.page("j.id", &page);
    let sql = format!(
        "SELECT j.id, j.name, g.name, j.gpus, j.state, j.reason, j.position, j.submitted_at, j.class, \
         j.category, j.model, u.username, j.template_id, p.name, j.estimated_start FROM jobs j \
         JOIN groups g ON g.id = j.group_id \
         JOIN users u ON u.id = j.submitted_by LEFT JOIN projects p ON p.id = j.project_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("j.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&state.store.pool).await?;
    let jobs = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("name", Col::Text),
            ("group", Col::Text),
            ("gpus", Col::Int),
            ("state", Col::Text),
            ("reason", Col::OptText),
            ("position", Col::OptInt),
            ("submitted_at", Col::Int),
            ("class", Col::Text),
            ("category", Col::Text),
            ("model", Col::Text),
            ("submitted_by", Col::Text),
            ("template", Col::OptInt),
            ("project", Col::OptText),
            ("estimated_start", Col::OptInt),
        ],
    )?;
    let (jobs, next) = page.finish(jobs);
    Ok(Json(json!({ "jobs": jobs, "next": next })))
}

pub async fn cancel(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Value>, ApiError> {
    jobs::cancel::cancel(&state.store, &user, id, state.now()).await?;
    state.wake.notify_one();
    state.fleet.bump();
    Ok(Json(json!({ "id": id, "state": "cancelled" })))
}

/// What would happen to this job if it were submitted now (O6); nothing is written.
/// Each plans the whole cluster, so each user may ask a few per window (finding 8).
pub async fn dry_run(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Submit>,
) -> Result<Response, ApiError> {
    if let Err(wait_s) = state.bounds.dry_run(user.id, state.now()) {
        let b = &state.bounds;
        let message =
            format!("at most {} dry runs per {} s: try again in {wait_s} s", b.dry_runs, b.dry_run_window_s);
        return Err(ApiError::TooMany { retry_after_s: wait_s, message });
    }
    let p = prepare(&state, &user, body).await?;
    let policies = state.policies.policies.clone();
    let r = crate::dispatch::rehearse::rehearse(&state.store, policies, p.group_id, &p.spec, state.now())
        .await
        .map_err(|e| ApiError::Internal(e.to_string()))?;
    Ok(Json(serde_json::to_value(r).map_err(|e| ApiError::Internal(e.to_string()))?).into_response())
}
