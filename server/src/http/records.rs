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
use crate::http::page::{Arg, Filters, Listing, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{filter, group_named};
use crate::http::{ApiError, AppState};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventQuery {
    kind: Option<String>,
    job: Option<i64>,
    actor: Option<String>,
}

/// The event log, newest first (D2, A4), a page at a time (`next` goes in `before`).
pub async fn events(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(q, page): Listing<EventQuery>,
) -> Result<Json<Value>, ApiError> {
    let mut filters = Filters::default();
    if let Some(kind) = &q.kind {
        filters.and("kind = ?", Arg::Text(filter(kind, "kind")?.to_string()));
    }
    if let Some(job) = q.job {
        filters.and("job_id = ?", Arg::Int(job));
    }
    if let Some(actor) = &q.actor {
        filters.and("actor = ?", Arg::Text(filter(actor, "actor")?.to_string()));
    }
    filters.page("id", &page);
    let sql = format!(
        "SELECT id, at, kind, job_id, actor, policy, message, detail FROM events{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&state.store.pool).await?;
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
    let (events, next) = page.finish(events);
    Ok(Json(json!({ "events": events, "next": next })))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ArchiveQuery {
    group: Option<String>,
    /// Calendar year (UTC) the job was submitted in.
    year: Option<i64>,
    tag: Option<String>,
}

/// Finished jobs with their tags, by group × year × tag (A2), newest first, a page at a
/// time (`next` goes in `before`).
pub async fn archive(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(q, page): Listing<ArchiveQuery>,
) -> Result<Json<Value>, ApiError> {
    let mut filters = Filters::default();
    filters.and_fixed("j.state NOT IN ('pending', 'running')");
    if let Some(name) = &q.group {
        filters.and("j.group_id = ?", Arg::Int(group_named(&state.store, name).await?));
    }
    if let Some(y) = q.year {
        if !(1900..=9999).contains(&y) {
            return Err(ApiError::Unprocessable("year must be between 1900 and 9999".into()));
        }
        let (from, to) = year_bounds(y);
        filters.and("j.submitted_at >= ?", Arg::Int(from)).and("j.submitted_at < ?", Arg::Int(to));
    }
    if let Some(tag) = &q.tag {
        let tag = filter(tag, "tag")?.to_lowercase();
        filters.and("EXISTS (SELECT 1 FROM job_tags t WHERE t.job_id = j.id AND t.tag = ?)", Arg::Text(tag));
    }
    filters.page("j.id", &page);
    let pool = &state.store.pool;
    let sql = format!(
        "SELECT j.id, j.name, g.name, j.state, j.class, j.category, j.gpus, j.model, j.submitted_at, \
         j.finished_at, j.attained_gpu_s FROM jobs j JOIN groups g ON g.id = j.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("j.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(pool).await?;
    let jobs = objects(
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
    let (mut jobs, next) = page.finish(jobs);
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
    Ok(Json(json!({ "jobs": jobs, "next": next })))
}
