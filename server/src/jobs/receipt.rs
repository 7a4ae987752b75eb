//! A job's dispatch receipt (D3): what ran where, when, granted by which policy version
//! and why, read from the event log (D2) in three queries (the job, its events, its waits). The
//! job's env values reach only its own group and admins (finding 10).

use crate::jobs::PLACE_OF_JOB;
use std::collections::BTreeMap;

use sqlx::Row;
use tidepool_api::receipt::{Event, Receipt};

use crate::jobs::list::state_of;
use crate::jobs::sandbox;
use crate::store::users::User;
use crate::store::{Store, StoreError};
use crate::time_limits::LIMIT_OF_JOB;

/// Why there is no receipt.
#[derive(Debug, thiserror::Error)]
pub enum ReceiptError {
    #[error("no job {0}")]
    NoSuchJob(i64),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ReceiptError);

/// Job `id`'s receipt as `user` may read it.
pub async fn receipt(store: &Store, user: &User, id: i64) -> Result<Receipt, ReceiptError> {
    let pool = &store.pool;
    let sql = format!(
        "SELECT j.id, j.name, g.name, j.gpus, j.state, j.reason, {PLACE_OF_JOB}, j.submitted_at, j.estimated_start, \
         j.image, j.env, j.group_id, {LIMIT_OF_JOB} FROM jobs j JOIN groups g ON g.id = j.group_id WHERE j.id = $1"
    );
    let job = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(id)
        .fetch_optional(pool)
        .await?
        .ok_or(ReceiptError::NoSuchJob(id))?;
    let events =
        sqlx::query("SELECT at, kind, actor, policy, message FROM events WHERE job_id = $1 ORDER BY id")
            .bind(id)
            .fetch_all(pool)
            .await?
            .iter()
            .map(|e| {
                Ok(Event {
                    at: e.try_get(0)?,
                    kind: e.try_get(1)?,
                    actor: e.try_get(2)?,
                    policy: e.try_get(3)?,
                    message: e.try_get(4)?,
                })
            })
            .collect::<Result<_, sqlx::Error>>()?;
    // Stored as a JSON object of strings; none (or unreadable): no variables.
    let env: BTreeMap<String, String> =
        job.try_get::<Option<String>, _>(10)?.and_then(|e| serde_json::from_str(&e).ok()).unwrap_or_default();
    Ok(Receipt {
        id: job.try_get(0)?,
        name: job.try_get(1)?,
        group: job.try_get(2)?,
        gpus: job.try_get(3)?,
        state: state_of(&job.try_get::<String, _>(4)?)?,
        reason: job.try_get(5)?,
        position: job.try_get(6)?,
        submitted_at: job.try_get(7)?,
        estimated_start: job.try_get(8)?,
        time_limit_s: job.try_get(12)?,
        image: job.try_get(9)?,
        env: sandbox::shown(env, user, job.try_get(11)?),
        events,
        waits: super::waits::history(store, id).await?,
    })
}
