//! Cancelling a job (Q6): members cancel their own jobs, managers their group's, admins
//! any. A running job's GPUs go back at once where no agent runs it; where one does,
//! once the agent has stopped it (SIGTERM, grace, SIGKILL).

use sqlx::Row;
use tidepool_api::jobs::{Cancelled, JobState};

use crate::store::events::{EventDetail, record};
use crate::store::users::{Role, User};
use crate::store::{Store, StoreError};

/// Why a job was not cancelled.
#[derive(Debug, thiserror::Error)]
pub enum CancelError {
    #[error("no job {0}")]
    NoSuchJob(i64),
    #[error("members cancel their own jobs; managers their group's")]
    NotYours,
    /// It finished (or was cancelled) before this request.
    #[error("job {id} is already {state}")]
    Over { id: i64, state: String },
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(CancelError);

/// Cancels job `id` for `user` at `now`, with its event. The caller wakes the dispatcher
/// and tells the agents: their stops are orders now.
pub async fn cancel(store: &Store, user: &User, id: i64, now: i64) -> Result<Cancelled, CancelError> {
    let row = sqlx::query("SELECT group_id, submitted_by, state FROM jobs WHERE id = $1")
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(CancelError::NoSuchJob(id))?;
    let (group, by, state): (i64, i64, String) = (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
    let allowed = match user.role {
        Role::Admin => true,
        Role::Manager => user.group_id == Some(group),
        Role::Member => user.id == by,
    };
    if !allowed {
        return Err(CancelError::NotYours);
    }
    let mut tx = store.begin().await?;
    // Conditional on the state, so a job that finished meanwhile is not "cancelled".
    let done = sqlx::query(
        "UPDATE jobs SET state = 'cancelled', reason = NULL, wait_kind = NULL, position = NULL, finished_at = $2 \
         WHERE id = $1 AND state IN ('pending', 'running')",
    )
    .bind(id)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    if done.rows_affected() != 1 {
        return Err(CancelError::Over { id, state });
    }
    super::waits::close(&mut tx, id, now).await?;
    // A cancelled running job's GPUs go back to the pool at once (R1); where an agent
    // runs it, once the agent has stopped it (SIGTERM, grace, SIGKILL).
    sqlx::query(
        "UPDATE allocations SET ended_at = $1 WHERE job_id = $2 AND ended_at IS NULL \
         AND node_id NOT IN (SELECT id FROM nodes WHERE agent)",
    )
    .bind(now)
    .bind(id)
    .execute(&mut *tx)
    .await?;
    sqlx::query(
        "UPDATE allocations SET stop_reason = 'cancelled', stop_requested_at = $1, stop_requested_ms = $2 \
         WHERE job_id = $3 AND ended_at IS NULL AND stop_requested_at IS NULL \
         AND node_id IN (SELECT id FROM nodes WHERE agent)",
    )
    .bind(now)
    .bind(crate::unix_now_ms())
    .bind(id)
    .execute(&mut *tx)
    .await?;
    let message = format!("{} cancelled job {id}", user.username);
    record(&mut tx, now, "cancelled", Some(id), &user.username, &message, &EventDetail::default()).await?;
    tx.commit().await?;
    Ok(Cancelled { id, state: JobState::Cancelled })
}
