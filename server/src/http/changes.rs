//! Cross-group configuration changes wait for a second person's review (B2): an admin
//! proposes a quota change; a different admin applies or rejects it, with a reason that
//! is kept (A4).

use axum::Json;
use axum::extract::State;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};
use sqlx::Row;

use crate::http::auth::Caller;
use crate::http::page::{Filters, Listing, NoFilters, Order};
use crate::http::rows::{Col, objects};
use crate::http::scope::{CATEGORIES, group_named, one_of, require_admin, text};
use crate::http::{ApiError, AppJson, AppPath, AppState};
use crate::store::events::record;

/// A quota row as proposed: group × model × category (Q1–Q3).
#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct QuotaChange {
    group: String,
    #[serde(default = "a100")]
    model: String,
    category: String,
    guaranteed: u32,
    borrow_limit: Option<u32>,
    lend_limit: Option<u32>,
    budget_gpu_h: Option<f64>,
    /// Why (not part of the applied change; kept in the summary).
    #[serde(default, skip_serializing)]
    why: String,
}

fn a100() -> String {
    "A100-80G".into()
}

/// Changes, newest first, a page at a time (`next` goes in `before`).
pub async fn list(
    State(state): State<AppState>,
    _caller: Caller,
    Listing(NoFilters {}, page): Listing<NoFilters>,
) -> Result<Json<Value>, ApiError> {
    let mut filters = Filters::default();
    filters.page("id", &page);
    let sql = format!(
        "SELECT id, kind, summary, payload, state, proposed_by, proposed_at, reviewed_by, reviewed_at, review_note \
         FROM changes{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&state.store.pool).await?;
    let changes = objects(
        &rows,
        &[
            ("id", Col::Int),
            ("kind", Col::Text),
            ("summary", Col::Text),
            ("change", Col::Json),
            ("state", Col::Text),
            ("proposed_by", Col::Text),
            ("proposed_at", Col::Int),
            ("reviewed_by", Col::OptText),
            ("reviewed_at", Col::OptInt),
            ("review_note", Col::OptText),
        ],
    )?;
    let (changes, next) = page.finish(changes);
    Ok(Json(json!({ "changes": changes, "next": next })))
}

/// `PUT /api/quotas`: proposes a quota change; nothing changes until a second admin applies it.
pub async fn propose_quota(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppJson(body): AppJson<QuotaChange>,
) -> Result<(StatusCode, Json<Value>), ApiError> {
    require_admin(&user, "change quotas")?;
    group_named(&state.store, &body.group).await?;
    text(&body.model, "model", 64)?;
    one_of(&body.category, CATEGORIES, "category")?;
    let why = text(&body.why, "why", 500)?;
    if body.budget_gpu_h.is_some_and(|b| !b.is_finite() || b < 0.0) {
        return Err(ApiError::Unprocessable("budget_gpu_h must be a non-negative number".into()));
    }
    let summary = format!(
        "{} {} {}: guarantee {} GPUs, budget {} GPU-h ({why})",
        body.group,
        body.model,
        body.category,
        body.guaranteed,
        body.budget_gpu_h.map_or("none".into(), |b| format!("{b:.0}"))
    );
    let payload = serde_json::to_string(&body).map_err(|e| ApiError::Internal(e.to_string()))?;
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    let row = sqlx::query(
        "INSERT INTO changes (kind, summary, payload, state, proposed_by, proposed_at) \
         VALUES ('quota', $1, $2, 'proposed', $3, $4) RETURNING id",
    )
    .bind(&summary)
    .bind(&payload)
    .bind(&user.username)
    .bind(now)
    .fetch_one(&mut *tx)
    .await?;
    let id: i64 = row.try_get(0)?;
    let message = format!("{} proposed change {id}: {summary}", user.username);
    record(&mut tx, now, "change-proposed", None, &user.username, &message, &json!({ "change": id })).await?;
    tx.commit().await?;
    Ok((StatusCode::ACCEPTED, Json(json!({ "change": id, "state": "proposed", "summary": summary }))))
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Review {
    note: String,
}

/// Marks change `id` reviewed by `by` and records the decision with its reason (A4);
/// refuses the proposer (B2) unless `allow_proposer`.
async fn claim(
    tx: &mut sqlx::AnyConnection,
    id: i64,
    by: &str,
    to: &str,
    note: &str,
    now: i64,
    allow_proposer: bool,
) -> Result<(), ApiError> {
    let row = sqlx::query("SELECT proposed_by, state FROM changes WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no change {id}")))?;
    let (proposer, current): (String, String) = (row.try_get(0)?, row.try_get(1)?);
    if !allow_proposer && proposer == by {
        return Err(ApiError::Forbidden(format!(
            "{by} proposed change {id}; a second admin reviews it (B2)"
        )));
    }
    let done = sqlx::query(
        "UPDATE changes SET state = $1, reviewed_by = $2, reviewed_at = $3, review_note = $4 \
         WHERE id = $5 AND state = 'proposed'",
    )
    .bind(to)
    .bind(by)
    .bind(now)
    .bind(note)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(ApiError::Conflict(format!("change {id} is already {current}")));
    }
    let message = format!("{by} {to} change {id}: {note}");
    record(tx, now, &format!("change-{to}"), None, by, &message, &json!({ "change": id })).await?;
    Ok(())
}

pub async fn approve(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Review>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "review configuration changes")?;
    let note = text(&body.note, "note", 500)?;
    let now = state.now();
    // Read before the transaction: SQLite's pool has one connection, which the transaction holds.
    let row = sqlx::query("SELECT payload FROM changes WHERE id = $1")
        .bind(id)
        .fetch_optional(&state.store.pool)
        .await?
        .ok_or_else(|| ApiError::NotFound(format!("no change {id}")))?;
    let q: QuotaChange = serde_json::from_str(&row.try_get::<String, _>(0)?)
        .map_err(|e| ApiError::Internal(format!("change {id} holds an unreadable quota: {e}")))?;
    let group = group_named(&state.store, &q.group).await?;
    let mut tx = state.store.pool.begin().await?;
    claim(&mut tx, id, &user.username, "applied", note, now, false).await?;
    sqlx::query(
        "INSERT INTO quotas (group_id, model, category, guaranteed, borrow_limit, lend_limit, budget_gpu_h) \
         VALUES ($1, $2, $3, $4, $5, $6, $7) ON CONFLICT (group_id, model, category) DO UPDATE SET \
         guaranteed = excluded.guaranteed, borrow_limit = excluded.borrow_limit, \
         lend_limit = excluded.lend_limit, budget_gpu_h = excluded.budget_gpu_h",
    )
    .bind(group)
    .bind(&q.model)
    .bind(&q.category)
    .bind(i64::from(q.guaranteed))
    .bind(q.borrow_limit.map(i64::from))
    .bind(q.lend_limit.map(i64::from))
    .bind(q.budget_gpu_h)
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    state.wake.notify_one();
    Ok(Json(json!({ "change": id, "state": "applied" })))
}

pub async fn reject(
    State(state): State<AppState>,
    Caller(user): Caller,
    AppPath(id): AppPath<i64>,
    AppJson(body): AppJson<Review>,
) -> Result<Json<Value>, ApiError> {
    require_admin(&user, "review configuration changes")?;
    let note = text(&body.note, "note", 500)?;
    let now = state.now();
    let mut tx = state.store.pool.begin().await?;
    // The proposer may withdraw their own change.
    claim(&mut tx, id, &user.username, "rejected", note, now, true).await?;
    tx.commit().await?;
    Ok(Json(json!({ "change": id, "state": "rejected" })))
}
