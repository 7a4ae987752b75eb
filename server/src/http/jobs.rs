//! Submitting, listing and cancelling jobs. Members act for their own group (and cancel
//! their own jobs), managers for their group, admins anywhere (Q6).

use axum::Json;
use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::{ApiError, AppJson, AppState};
use crate::store::jobs::NewJob;
use crate::store::users::Role;

const CANCELLED_EVENT: &str = "INSERT INTO events (at, kind, job_id, actor, policy, message, detail) \
     VALUES ($1, 'cancelled', $2, $3, NULL, $4, '{}')";

fn one_of(value: &str, allowed: &[&str], field: &str) -> Result<(), ApiError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(ApiError::Unprocessable(format!("{field} must be one of {allowed:?}, not `{value}`")))
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Submit {
    name: String,
    command: String,
    gpus: u32,
    /// Admins name the group; everyone else submits for their own.
    group: Option<String>,
    #[serde(default = "default_model")]
    model: String,
    #[serde(default = "default_category")]
    category: String,
    #[serde(default = "default_class")]
    class: String,
    #[serde(default = "default_topology")]
    topology: String,
    time_limit_s: Option<u64>,
    #[serde(default)]
    checkpointable: bool,
}

fn default_model() -> String {
    "A100-80G".into()
}
fn default_category() -> String {
    "training".into()
}
fn default_class() -> String {
    "normal".into()
}
fn default_topology() -> String {
    "any".into()
}

pub async fn submit(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<Submit>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    let group_id = match (&body.group, user.role, user.group_id) {
        (Some(name), Role::Admin, _) => state
            .store
            .group_id(name)
            .await?
            .ok_or_else(|| ApiError::Unprocessable(format!("no group `{name}`")))?,
        (None, Role::Admin, _) => {
            return Err(ApiError::Unprocessable("an admin names the job's group".into()));
        }
        (Some(name), _, Some(own)) => {
            let id = state.store.group_id(name).await?;
            if id != Some(own) {
                return Err(ApiError::Forbidden("you submit for your own group only".into()));
            }
            own
        }
        (None, _, Some(own)) => own,
        (_, _, None) => return Err(ApiError::Forbidden("your account belongs to no group".into())),
    };
    if body.name.trim().is_empty()
        || body.name.len() > 200
        || body.command.is_empty()
        || body.command.len() > 10_000
    {
        return Err(ApiError::Unprocessable(
            "a job needs a name (≤ 200 characters) and a command (≤ 10,000)".into(),
        ));
    }
    if !(1..=4096).contains(&body.gpus) {
        return Err(ApiError::Unprocessable("gpus must be between 1 and 4096".into()));
    }
    if body.time_limit_s.is_some_and(|t| t == 0 || t > 365 * 86_400) {
        return Err(ApiError::Unprocessable("time_limit_s must be between 1 s and a year".into()));
    }
    one_of(&body.category, &["training", "inference", "pretraining"], "category")?;
    one_of(&body.class, &["batch", "experiment", "normal", "critical"], "class")?;
    one_of(&body.topology, &["any", "same-node", "same-nvlink"], "topology")?;
    let now = state.now();
    let job = NewJob {
        group_id,
        submitted_by: user.id,
        actor: &user.username,
        name: body.name.trim(),
        category: &body.category,
        class: &body.class,
        gpus: i64::from(body.gpus),
        model: &body.model,
        topology: &body.topology,
        time_limit_s: body.time_limit_s.map(|t| t as i64),
        checkpointable: body.checkpointable,
        command: &body.command,
    };
    let id = state.store.submit_job(&job, now).await?;
    state.wake.notify_one();
    Ok((StatusCode::CREATED, Json(json!({ "id": id, "state": "pending" }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListQuery {
    state: Option<String>,
    #[serde(default = "default_limit")]
    limit: i64,
}

fn default_limit() -> i64 {
    100
}

pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Query(q): Query<ListQuery>,
) -> Result<Json<Value>, ApiError> {
    if let Some(s) = &q.state {
        one_of(s, &["pending", "running", "succeeded", "failed", "timed-out", "cancelled"], "state")?;
    }
    let limit = q.limit.clamp(1, 1000);
    let rows = sqlx::query(
        "SELECT j.id, j.name, g.name, j.gpus, j.state, j.reason, j.position, j.submitted_at, j.class \
         FROM jobs j JOIN groups g ON g.id = j.group_id \
         WHERE ($1 IS NULL OR j.state = $1) ORDER BY j.id DESC LIMIT $2",
    )
    .bind(q.state.as_deref())
    .bind(limit)
    .fetch_all(&state.store.pool)
    .await?;
    let jobs = rows
        .iter()
        .map(|r| {
            Ok(json!({
                "id": r.try_get::<i64, _>(0)?,
                "name": r.try_get::<String, _>(1)?,
                "group": r.try_get::<String, _>(2)?,
                "gpus": r.try_get::<i64, _>(3)?,
                "state": r.try_get::<String, _>(4)?,
                "reason": r.try_get::<Option<String>, _>(5)?,
                "position": r.try_get::<Option<i64>, _>(6)?,
                "submitted_at": r.try_get::<i64, _>(7)?,
                "class": r.try_get::<String, _>(8)?,
            }))
        })
        .collect::<Result<Vec<Value>, sqlx::Error>>()?;
    Ok(Json(json!({ "jobs": jobs })))
}

pub async fn cancel(
    State(state): State<AppState>,
    Caller(user): Caller,
    Path(id): Path<i64>,
) -> Result<Json<Value>, ApiError> {
    let row = sqlx::query("SELECT group_id, submitted_by, state FROM jobs WHERE id = $1")
        .bind(id)
        .fetch_optional(&state.store.pool)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no job {id}")))?;
    let (group, by, job_state): (i64, i64, String) = (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    let allowed = match user.role {
        Role::Admin => true,
        Role::Manager => user.group_id == Some(group),
        Role::Member => user.id == by,
    };
    if !allowed {
        return Err(ApiError::Forbidden("members cancel their own jobs; managers their group's".into()));
    }
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    // Conditional on the state, so a job that finished meanwhile is not "cancelled".
    let done = sqlx::query(
        "UPDATE jobs SET state = 'cancelled', reason = NULL, position = NULL \
         WHERE id = $1 AND state IN ('pending', 'running')",
    )
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(ApiError::Conflict(format!("job {id} is already {job_state}")));
    }
    // A cancelled running job's GPUs go back to the pool at once (R1).
    sqlx::query("UPDATE allocations SET ended_at = $1 WHERE job_id = $2 AND ended_at IS NULL")
        .bind(now)
        .bind(id)
        .execute(&mut *tx)
        .await?;
    sqlx::query(CANCELLED_EVENT)
        .bind(now)
        .bind(id)
        .bind(&user.username)
        .bind(format!("{} cancelled job {id}", user.username))
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    state.wake.notify_one();
    Ok(Json(json!({ "id": id, "state": "cancelled" })))
}
