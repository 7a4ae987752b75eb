//! Cross-group configuration changes wait for a second person's review (B2): an admin
//! proposes a quota (Q1–Q3); a different admin applies or rejects it, with a reason that
//! is kept (A4). The proposer may withdraw (reject) their own change. The caller wakes
//! the dispatcher once a quota is applied.

use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::changes::{Change, ChangePage, ChangeProposed, ChangeReviewed, QuotaChange, QuotaSetting};

use crate::access::{AccessError, group_named, require_admin};
use crate::input::{Invalid, one_of, text};
use crate::jobs::CATEGORIES;
use crate::jobs::spec::DEFAULT_MODEL;
use crate::store::events::{EventDetail, record};
use crate::store::listing::{Filters, Keyed, Order, Page};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Why a change was not proposed, applied or rejected.
#[derive(Debug, thiserror::Error)]
pub enum ChangeError {
    #[error("no change {0}")]
    NoSuchChange(i64),
    /// B2: the proposer does not apply their own change.
    #[error("{by} proposed change {id}; a second admin reviews it (B2)")]
    SecondAdmin { by: String, id: i64 },
    /// Reviewed already (by someone else, or a moment ago).
    #[error("change {id} is already {state}")]
    Reviewed { id: i64, state: String },
    /// The stored setting does not read back: the records, not the caller, are at fault.
    #[error("change {id} holds an unreadable quota: {cause}")]
    Unreadable { id: i64, cause: String },
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ChangeError);

impl Keyed for Change {
    fn key(&self) -> i64 {
        self.id
    }
}

/// The setting stored with change `id`.
fn setting(id: i64, payload: &str) -> Result<QuotaSetting, ChangeError> {
    serde_json::from_str(payload).map_err(|e| ChangeError::Unreadable { id, cause: e.to_string() })
}

fn change_of(row: &AnyRow) -> Result<Change, ChangeError> {
    let id = row.try_get(0)?;
    Ok(Change {
        id,
        kind: row.try_get(1)?,
        summary: row.try_get(2)?,
        change: setting(id, &row.try_get::<String, _>(3)?)?,
        state: row.try_get(4)?,
        proposed_by: row.try_get(5)?,
        proposed_at: row.try_get(6)?,
        reviewed_by: row.try_get(7)?,
        reviewed_at: row.try_get(8)?,
        review_note: row.try_get(9)?,
    })
}

/// Changes, newest first, a page at a time (`next` goes in `before`).
pub async fn list(store: &Store, page: &Page) -> Result<ChangePage, ChangeError> {
    let mut filters = Filters::default();
    filters.page("id", page);
    let sql = format!(
        "SELECT id, kind, summary, payload, state, proposed_by, proposed_at, reviewed_by, reviewed_at, review_note \
         FROM changes{} {} LIMIT {}",
        filters.sql(),
        Order::NewestFirst.sql("id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(&store.pool).await?;
    let changes = rows.iter().map(change_of).collect::<Result<Vec<_>, _>>()?;
    let (changes, next) = page.finish(changes);
    Ok(ChangePage { changes, next })
}

/// Proposes a quota change; nothing changes until a second admin applies it.
pub async fn propose_quota(
    store: &Store,
    user: &User,
    body: &QuotaChange,
    now: i64,
) -> Result<ChangeProposed, ChangeError> {
    require_admin(user, "change quotas")?;
    group_named(store, &body.group).await?;
    // Trimmed, so " A100-80G" sets the A100-80G quota rather than a row of its own.
    let model = text(body.model.as_deref().unwrap_or(DEFAULT_MODEL), "model", 64)?;
    one_of(&body.category, CATEGORIES, "category")?;
    let why = text(&body.why, "why", 500)?;
    if body.budget_gpu_h.is_some_and(|b| !b.is_finite() || b < 0.0) {
        return Err(Invalid("budget_gpu_h must be a non-negative number".into()).into());
    }
    let summary = format!(
        "{} {model} {}: guarantee {} GPUs, budget {} GPU-h ({why})",
        body.group,
        body.category,
        body.guaranteed,
        body.budget_gpu_h.map_or("none".into(), |b| format!("{b:.0}"))
    );
    // The setting alone is stored; the reason lives in the summary.
    let setting = QuotaSetting {
        group: body.group.clone(),
        model: model.to_string(),
        category: body.category.clone(),
        guaranteed: body.guaranteed,
        borrow_limit: body.borrow_limit,
        lend_limit: body.lend_limit,
        budget_gpu_h: body.budget_gpu_h,
    };
    let payload = serde_json::to_string(&setting).map_err(|e| Invalid(format!("the quota: {e}")))?;
    let mut tx = store.begin().await?;
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
    record(
        &mut tx,
        now,
        "change-proposed",
        None,
        &user.username,
        &message,
        &EventDetail { change: Some(id), ..EventDetail::default() },
    )
    .await?;
    tx.commit().await?;
    Ok(ChangeProposed { change: id, state: "proposed".into(), summary })
}

/// Applies change `id` as a second admin, with the review's note: the quota row is set.
pub async fn apply(
    store: &Store,
    user: &User,
    id: i64,
    note: &str,
    now: i64,
) -> Result<ChangeReviewed, ChangeError> {
    require_admin(user, "review configuration changes")?;
    let note = text(note, "note", 500)?;
    // Read before the transaction: SQLite's pool has one connection, which the transaction holds.
    let row = sqlx::query("SELECT payload FROM changes WHERE id = $1")
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(ChangeError::NoSuchChange(id))?;
    let q = setting(id, &row.try_get::<String, _>(0)?)?;
    let group = group_named(store, &q.group).await?;
    let mut tx = store.begin().await?;
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
    Ok(ChangeReviewed { change: id, state: "applied".into() })
}

/// Rejects change `id`, with the review's note; its proposer may withdraw it this way.
pub async fn reject(
    store: &Store,
    user: &User,
    id: i64,
    note: &str,
    now: i64,
) -> Result<ChangeReviewed, ChangeError> {
    require_admin(user, "review configuration changes")?;
    let note = text(note, "note", 500)?;
    let mut tx = store.begin().await?;
    claim(&mut tx, id, &user.username, "rejected", note, now, true).await?;
    tx.commit().await?;
    Ok(ChangeReviewed { change: id, state: "rejected".into() })
}

/// Marks change `id` reviewed by `by` and records the decision with its reason (A4);
/// refuses the proposer (B2) unless `allow_proposer`. Conditional on the change still
/// being proposed, so two reviewers cannot both decide it.
async fn claim(
    tx: &mut sqlx::AnyConnection,
    id: i64,
    by: &str,
    to: &str,
    note: &str,
    now: i64,
    allow_proposer: bool,
) -> Result<(), ChangeError> {
    let row = sqlx::query("SELECT proposed_by, state FROM changes WHERE id = $1")
        .bind(id)
        .fetch_optional(&mut *tx)
        .await?
        .ok_or(ChangeError::NoSuchChange(id))?;
    let (proposer, current): (String, String) = (row.try_get(0)?, row.try_get(1)?);
    if !allow_proposer && proposer == by {
        return Err(ChangeError::SecondAdmin { by: by.to_string(), id });
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
        return Err(ChangeError::Reviewed { id, state: current });
    }
    let message = format!("{by} {to} change {id}: {note}");
    record(
        tx,
        now,
        &format!("change-{to}"),
        None,
        by,
        &message,
        &EventDetail { change: Some(id), ..EventDetail::default() },
    )
    .await?;
    Ok(())
}
