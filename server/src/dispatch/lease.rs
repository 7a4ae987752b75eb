//! The leader lease: one row, a holder, an epoch that grows on every takeover, and the
//! marks that tie the servers on one database together (the holder's last cycle, its last
//! decision, a standby's nudge), in Unix milliseconds.

use sqlx::Row;

use crate::dispatch::DispatchError;
use crate::store::Store;

/// This instance's claim on the lease.
pub struct Lease {
    pub holder: String,
    pub ttl_s: i64,
}

/// Who holds an unexpired lease at `now`, with its epoch; read only, never taken (the
/// readiness check asks this, so probing a standby cannot move the lease).
pub async fn current(store: &Store, now: i64) -> Result<Option<(String, i64)>, DispatchError> {
    let row = sqlx::query("SELECT holder, epoch FROM leader_lease WHERE id = 1 AND expires_at > $1")
        .bind(now)
        .fetch_optional(&store.pool)
        .await?;
    match row {
        Some(row) => Ok(Some((row.try_get(0)?, row.try_get(1)?))),
        None => Ok(None),
    }
}

/// Unix milliseconds now (the marks are finer than the lease's seconds).
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// The lease row's marks: who holds it (expired or not), its epoch, and in Unix
/// milliseconds its last cycle, last cycle that decided something, and last nudge.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Marks {
    pub holder: String,
    pub epoch: i64,
    pub cycled_ms: i64,
    pub decided_ms: i64,
    pub nudged_ms: i64,
}

/// The lease row as it stands (`None` before any server took it).
pub async fn marks(store: &Store) -> Result<Option<Marks>, DispatchError> {
    let row = sqlx::query(
        "SELECT l.holder, l.epoch, m.cycled_ms, m.decided_ms, m.nudged_ms \
         FROM leader_lease l, lease_marks m WHERE l.id = 1 AND m.id = 1",
    )
    .fetch_optional(&store.pool)
    .await?;
    let Some(row) = row else { return Ok(None) };
    Ok(Some(Marks {
        holder: row.try_get(0)?,
        epoch: row.try_get(1)?,
        cycled_ms: row.try_get(2)?,
        decided_ms: row.try_get(3)?,
        nudged_ms: row.try_get(4)?,
    }))
}

/// A standby took a submission or a cancellation: the leader sees the nudge on its next
/// renewal and runs a cycle at once rather than at its interval.
pub async fn nudge(store: &Store) -> Result<(), DispatchError> {
    sqlx::query("UPDATE lease_marks SET nudged_ms = $1 WHERE id = 1")
        .bind(now_ms())
        .execute(&store.pool)
        .await?;
    Ok(())
}

impl Lease {
    /// Fencing, inside the transaction that writes a cycle's decisions: renews the lease
    /// only while this holder still has it at `epoch`, and stamps the cycle (and the
    /// decision, when it placed or preempted); false, writing nothing, when the epoch is
    /// stale. The row stays locked until the transaction ends, so no takeover interleaves.
    pub async fn fence(
        &self,
        tx: &mut sqlx::Transaction<'_, sqlx::Any>,
        epoch: i64,
        now: i64,
        decided: bool,
    ) -> Result<bool, DispatchError> {
        // Never shortened: a cycle longer than the TTL must not leave the lease looking
        // expired (the keeper's renewals run ahead of it).
        let done = sqlx::query(
            "UPDATE leader_lease SET expires_at = CASE WHEN expires_at > $1 THEN expires_at ELSE $1 END \
             WHERE id = 1 AND holder = $2 AND epoch = $3",
        )
        .bind(now + self.ttl_s)
        .bind(&self.holder)
        .bind(epoch)
        .execute(&mut **tx)
        .await?;
        if done.rows_affected() != 1 {
            return Ok(false);
        }
        let ms = now_ms();
        sqlx::query(
            "UPDATE lease_marks SET cycled_ms = $1, decided_ms = CASE WHEN $2 = 1 THEN $1 ELSE decided_ms END \
             WHERE id = 1",
        )
        .bind(ms)
        .bind(i64::from(decided))
        .execute(&mut **tx)
        .await?;
        Ok(true)
    }

    /// Whether a decision carrying `epoch` would be written now: the fence, in a
    /// transaction rolled back (a drill asks it of a fenced leader's old epoch).
    pub async fn would_write(&self, store: &Store, epoch: i64) -> Result<bool, DispatchError> {
        let mut tx = store.begin().await?;
        let ok = self.fence(&mut tx, epoch, crate::unix_now(), false).await?;
        tx.rollback().await?;
        Ok(ok)
    }

    /// Gives the lease up (on shutdown), so a standby takes over at once, not at expiry.
    pub async fn release(&self, store: &Store) -> Result<(), DispatchError> {
        sqlx::query("UPDATE leader_lease SET expires_at = 0 WHERE id = 1 AND holder = $1")
            .bind(&self.holder)
            .execute(&store.pool)
            .await?;
        Ok(())
    }

    /// Renews the lease if held, takes it if free or expired (a new epoch), else refuses.
    pub async fn acquire(&self, store: &Store, now: i64) -> Result<i64, DispatchError> {
        let mut tx = store.begin().await?;
        let row = sqlx::query("SELECT holder, epoch, expires_at FROM leader_lease WHERE id = 1")
            .fetch_optional(&mut *tx)
            .await?;
        let epoch = match row {
            None => {
                sqlx::query("INSERT INTO leader_lease (id, holder, epoch, expires_at) VALUES (1, $1, 1, $2)")
                    .bind(&self.holder)
                    .bind(now + self.ttl_s)
                    .execute(&mut *tx)
                    .await?;
                1
            }
            Some(row) => {
                let (holder, epoch, expires_at): (String, i64, i64) =
                    (row.try_get(0)?, row.try_get(1)?, row.try_get(2)?);
                let epoch = if holder == self.holder {
                    epoch
                } else if expires_at <= now {
                    epoch + 1
                } else {
                    return Err(DispatchError::NotLeader(format!(
                        "{holder} holds the lease (epoch {epoch})"
                    )));
                };
                // Conditional on what was read, so two takers cannot both win.
                let done = sqlx::query(
                    "UPDATE leader_lease SET holder = $1, epoch = $2, expires_at = $3 \
                     WHERE id = 1 AND holder = $4 AND expires_at = $5",
                )
                .bind(&self.holder)
                .bind(epoch)
                .bind(now + self.ttl_s)
                .bind(&holder)
                .bind(expires_at)
                .execute(&mut *tx)
                .await?;
                if done.rows_affected() != 1 {
                    return Err(DispatchError::NotLeader("another dispatcher took the lease".into()));
                }
                epoch
            }
        };
        tx.commit().await?;
        Ok(epoch)
    }

    /// Whether this instance holds the lease at `now` (work only the leader does, such as
    /// the weekly delivery, asks this rather than taking the lease itself).
    pub async fn holds(&self, store: &Store, now: i64) -> Result<bool, DispatchError> {
        let row = sqlx::query("SELECT 1 FROM leader_lease WHERE id = 1 AND holder = $1 AND expires_at > $2")
            .bind(&self.holder)
            .bind(now)
            .fetch_optional(&store.pool)
            .await?;
        Ok(row.is_some())
    }
}
