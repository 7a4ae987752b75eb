//! The records anyone may search (A1, A2, D2): the event log, and the archive of finished
//! jobs by group × year × tag.

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use serde::Deserialize;
use serde_json::{Value, json};
use sqlx::Row;

use crate::calendar::year_bounds;
use crate::http::auth::Caller;
use crate::http::rows::{Col, objects};
use crate::http::scope::group_named;
use crate::http::{ApiError, AppQuery, AppState};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    kind: Option<String>,
    job: Option<i64>,
    actor: Option<String>,
    /// Only events with a smaller id: the next page.
    before: Option<i64>,
    #[serde(default = "hundred")]
    limit: i64,
}

fn hundred() -> i64 {
    100
}

/// The event log, newest first (D2, A4).
pub async fn events(
    State(state): State<AppState>,
    _caller: Caller,
    AppQuery(q): AppQuery<EventQuery>,
) -> Result<Json<Value>, ApiError> {
    let rows = sqlx::query(
        "SELECT id, at, kind, job_id, actor, policy, message, detail FROM events \
         WHERE ($1 IS NULL OR kind = $1) AND ($2 IS NULL OR job_id = $2) AND ($3 IS NULL OR actor = $3) \
         AND ($4 IS NULL OR id < $4) ORDER BY id DESC LIMIT $5",
    )
    .bind(q.kind.as_deref())
    .bind(q.job)
    .bind(q.actor.as_deref())
    .bind(q.before)
    .bind(q.limit.clamp(1, 1000))
    .fetch_all(&state.store.pool)
    .await?;
    let events = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("at", Col::Int),
            ("kind", Col::Text),
            ("job", Col::OptInt),
            ("actor", Col::OptText),
            ("policy", Col::OptText),
            ("message", Col::Text),
            ("detail", Col::Json),
        ],
    )?;
    Ok(Json(json!({ "events": events })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveQuery {
    group: Option<String>,
    /// Calendar year (UTC) the job was submitted in.
    year: Option<i64>,
    tag: Option<String>,
    #[serde(default = "hundred")]
    limit: i64,
}

/// Finished jobs with their tags, by group × year × tag (A2).
pub async fn archive(
    State(state): State<AppState>,
    _caller: Caller,
    AppQuery(q): AppQuery<ArchiveQuery>,
) -> Result<Json<Value>, ApiError> {
    let group = match &q.group {
        Some(name) => Some(group_named(&state, name).await?),
        None => None,
    };
    if q.year.is_some_and(|y| !(1900..=9999).contains(&y)) {
        return Err(ApiError::Unprocessable("year must be between 1900 and 9999".into()));
    }
    let (from, to) = q.year.map_or((None, None), |y| {
        let (a, b) = year_bounds(y);
        (Some(a), Some(b))
    });
    let tag = q.tag.as_deref().map(str::to_lowercase);
    let pool = &state.store.pool;
    let rows = sqlx::query(
        "SELECT j.id, j.name, g.name, j.state, j.class, j.category, j.gpus, j.model, j.submitted_at, \
         j.finished_at, j.attained_gpu_s FROM jobs j JOIN groups g ON g.id = j.group_id \
         WHERE j.state NOT IN ('pending', 'running') AND ($1 IS NULL OR j.group_id = $1) \
         AND ($2 IS NULL OR j.submitted_at >= $2) AND ($3 IS NULL OR j.submitted_at < $3) \
         AND ($4 IS NULL OR EXISTS (SELECT 1 FROM job_tags t WHERE t.job_id = j.id AND t.tag = $4)) \
         ORDER BY j.id DESC LIMIT $5",
    )
    .bind(group)
    .bind(from)
    .bind(to)
    .bind(tag.as_deref())
    .bind(q.limit.clamp(1, 1000))
    .fetch_all(pool)
    .await?;
    let mut jobs = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("name", Col::Text),
            ("group", Col::Text),
            ("state", Col::Text),
            ("class", Col::Text),
            ("category", Col::Text),
            ("gpus", Col::Int),
            ("model", Col::Text),
            ("submitted_at", Col::Int),
            ("finished_at", Col::OptInt),
            ("gpu_s", Col::Int),
        ],
    )?;
    // The tags of the jobs found, in one query.
    let ids: Vec<i64> = jobs.iter().filter_map(|j| j["id"].as_i64()).collect();
    let mut tags: BTreeMap<i64, Vec<String>> = BTreeMap::new();
    if let (Some(lo), Some(hi)) = (ids.iter().min(), ids.iter().max()) {
        for r in sqlx::query("SELECT job_id, tag FROM job_tags WHERE job_id BETWEEN $1 AND $2 ORDER BY tag")
            .bind(lo)
            .bind(hi)
            .fetch_all(pool)
            .await?
        {
            tags.entry(r.try_get(0)?).or_default().push(r.try_get(1)?);
        }
    }
    for j in &mut jobs {
        let id = j["id"].as_i64().unwrap_or_default();
        j["tags"] = json!(tags.remove(&id).unwrap_or_default());
    }
    Ok(Json(json!({ "jobs": jobs })))
}
