//! The leader lease: one row, a holder, an epoch that grows on every takeover.

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

impl Lease {
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
        let mut tx = store.pool.begin().await?;
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
