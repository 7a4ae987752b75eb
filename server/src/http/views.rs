//! What everyone may see (V1, V3, D2, D3): the global occupancy view and each job's
//! dispatch receipt. Each reads its tables once (no query per row), and a job's env
//! values only reach its own group and admins (finding 10).

use std::collections::BTreeMap;

use axum::Json;
use axum::extract::State;
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::rows::{Col, objects};
use crate::http::{ApiError, AppPath, AppState, runtime};

/// Pools → nodes → GPUs, with who holds each GPU, since when and until when (V1, V2).
pub async fn nodes(State(state): State<AppState>, _caller: Caller) -> Result<Json<Value>, ApiError> {
    let pool = &state.store.pool;
    let nodes = sqlx::query(
        "SELECT id, name, pool, model, gpus, CAST(CASE WHEN healthy THEN 1 ELSE 0 END AS BIGINT) FROM nodes ORDER BY pool, name",
    )
    .fetch_all(pool)
    .await?;
    let held = sqlx::query(
        "SELECT a.node_id, a.gpu_mask, a.started_at, j.id, j.name, g.name, j.time_limit_s \
         FROM allocations a JOIN jobs j ON j.id = a.job_id JOIN groups g ON g.id = j.group_id \
         WHERE a.ended_at IS NULL",
    )
    .fetch_all(pool)
    .await?;
    let mut by_node: BTreeMap<i64, Vec<&sqlx::any::AnyRow>> = BTreeMap::new();
    for h in &held {
        by_node.entry(h.try_get(0)?).or_default().push(h);
    }
    let mut out = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let id: i64 = n.try_get(0)?;
        let gpus: i64 = n.try_get(4)?;
        let mut slots = vec![Value::Null; gpus.clamp(0, 64) as usize];
        for h in by_node.get(&id).into_iter().flatten() {
            let mask = h.try_get::<i64, _>(1)? as u64;
            let started: i64 = h.try_get(2)?;
            let until = h.try_get::<Option<i64>, _>(6)?.map(|limit| started + limit);
            let holder = json!({
                "job": h.try_get::<i64, _>(3)?,
                "name": h.try_get::<String, _>(4)?,
                "group": h.try_get::<String, _>(5)?,
                "since": started,
                "until": until,
            });
            for (i, slot) in slots.iter_mut().enumerate() {
                if mask & (1 << i) != 0 {
                    *slot = holder.clone();
                }
            }
        }
        let free = slots.iter().filter(|s| s.is_null()).count();
        out.push(json!({
            "id": id,
            "name": n.try_get::<String, _>(1)?,
            "pool": n.try_get::<String, _>(2)?,
            "model": n.try_get::<String, _>(3)?,
            "healthy": n.try_get::<i64, _>(5)? != 0,
            "free": free,
            "gpus": slots,
        }));
    }
    Ok(Json(json!({ "nodes": out })))
}

/// A job's dispatch receipt (D3): what ran where, when, granted by which policy
/// version and why, from the event log (D2).
pub async fn receipt(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
) -> Result<Json<Value>, ApiError> {
    let pool = &state.store.pool;
    let job = sqlx::query(
        "SELECT j.id, j.name, g.name, j.gpus, j.state, j.reason, j.position, j.submitted_at, j.estimated_start, \
         j.image, j.env, j.group_id FROM jobs j JOIN groups g ON g.id = j.group_id WHERE j.id = $1",
    )
    .bind(id)
    .fetch_optional(pool)
    .await?
    .ok_or_else(|| ApiError::NotFound(format!("no job {id}")))?;
    let events =
        sqlx::query("SELECT at, kind, actor, policy, message FROM events WHERE job_id = $1 ORDER BY id")
            .bind(id)
            .fetch_all(pool)
            .await?;
    let events: Vec<Value> = events
        .iter()
        .map(|e| {
            Ok(json!({
                "at": e.try_get::<i64, _>(0)?,
                "kind": e.try_get::<String, _>(1)?,
                "actor": e.try_get::<Option<String>, _>(2)?,
                "policy": e.try_get::<Option<String>, _>(3)?,
                "message": e.try_get::<String, _>(4)?,
            }))
        })
        .collect::<Result<_, sqlx::Error>>()?;
    let env = job.try_get::<Option<String>, _>(10)?.and_then(|e| serde_json::from_str(&e).ok());
    let env = runtime::shown(env.unwrap_or_else(|| json!({})), &user, job.try_get(11)?);
    Ok(Json(json!({
        "id": job.try_get::<i64, _>(0)?,
        "name": job.try_get::<String, _>(1)?,
        "group": job.try_get::<String, _>(2)?,
        "gpus": job.try_get::<i64, _>(3)?,
        "state": job.try_get::<String, _>(4)?,
        "reason": job.try_get::<Option<String>, _>(5)?,
        "position": job.try_get::<Option<i64>, _>(6)?,
        "submitted_at": job.try_get::<i64, _>(7)?,
        "estimated_start": job.try_get::<Option<i64>, _>(8)?,
        "image": job.try_get::<Option<String>, _>(9)?,
        "env": env,
        "events": events,
    })))
}

/// Every quota row with what its group uses of it now and has spent this month (Q1:
/// over- and under-use visible to everyone; Q2 by category; Q3 budget).
pub async fn quotas(State(state): State<AppState>, _caller: Caller) -> Result<Json<Value>, ApiError> {
    let rows = sqlx::query(
        "SELECT g.name, q.model, q.category, q.guaranteed, q.borrow_limit, q.lend_limit, q.budget_gpu_h, \
         q.group_id FROM quotas q JOIN groups g ON g.id = q.group_id ORDER BY g.name, q.model, q.category",
    )
    .fetch_all(&state.store.pool)
    .await?;
    // GPUs running per group × model × category, in one grouped read of the running jobs.
    let mut running: BTreeMap<(i64, String, String), i64> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT group_id, model, category, COALESCE(SUM(gpus), 0) FROM jobs WHERE state = 'running' \
         GROUP BY group_id, model, category",
    )
    .fetch_all(&state.store.pool)
    .await?
    {
        running.insert((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?), r.try_get(3)?);
    }
    let spent = state.store.spent_this_month(state.now(), false).await?;
    let mut quotas = objects(
        &rows,
        &[
            ("group", Col::Text),
            ("model", Col::Text),
            ("category", Col::Text),
            ("guaranteed", Col::Int),
            ("borrow_limit", Col::OptInt),
            ("lend_limit", Col::OptInt),
            ("budget_gpu_h", Col::OptReal),
            ("group_id", Col::Int),
        ],
    )?;
    for q in &mut quotas {
        let key = (
            q["group_id"].as_i64().unwrap_or(0),
            q["model"].as_str().unwrap_or_default().to_string(),
            q["category"].as_str().unwrap_or_default().to_string(),
        );
        let (guaranteed, used) =
            (q["guaranteed"].as_i64().unwrap_or(0), running.get(&key).copied().unwrap_or(0));
        q["running_gpus"] = json!(used);
        let spent = spent.get(&key).copied().unwrap_or(0.0);
        q["over_guarantee"] = json!((used - guaranteed).max(0));
        q["idle_guarantee"] = json!((guaranteed - used).max(0));
        q["spent_gpu_h"] = json!((spent * 100.0).round() / 100.0);
        q["budget_used"] =
            q["budget_gpu_h"].as_f64().filter(|b| *b > 0.0).map_or(Value::Null, |b| json!(spent / b));
    }
    Ok(Json(json!({ "quotas": quotas })))
}
