//! Drills as the records keep them (O3): written by `tidepool drill failover`, read by
//! admins (`GET /api/drills`) and operators (`tidepool drill list`), newest first.

use sqlx::Row;
use tidepool_api::drills::{Drill, DrillRound};

use crate::store::users::{Role, User};
use crate::store::{Store, StoreError};

#[derive(Debug, thiserror::Error)]
pub enum DrillError {
    #[error("only admins see the drills")]
    Denied,
    #[error("a drill's figures cannot be read: {0}")]
    Corrupt(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(DrillError);

/// Stores a drill; its id.
pub async fn insert(store: &Store, d: &Drill) -> Result<i64, DrillError> {
    let detail = serde_json::to_string(&d.rounds).map_err(|e| DrillError::Corrupt(e.to_string()))?;
    let row = sqlx::query(
        "INSERT INTO drills (kind, started_at, finished_at, servers, rounds, passed, takeover_median_ms, \
         takeover_max_ms, detail) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING id",
    )
    .bind(&d.kind)
    .bind(d.started_at)
    .bind(d.finished_at)
    .bind(i64::from(d.servers))
    .bind(d.rounds.len() as i64)
    .bind(d.passed)
    .bind(d.takeover_median_ms)
    .bind(d.takeover_max_ms)
    .bind(detail)
    .fetch_one(&store.pool)
    .await?;
    Ok(row.try_get(0)?)
}

/// The last `limit` drills, newest first (no caller check: the command line's own use).
pub async fn recent(store: &Store, limit: i64) -> Result<Vec<Drill>, DrillError> {
    let rows = sqlx::query(
        "SELECT id, kind, started_at, finished_at, servers, \
         CAST(CASE WHEN passed THEN 1 ELSE 0 END AS BIGINT), takeover_median_ms, takeover_max_ms, \
         detail FROM drills ORDER BY id DESC LIMIT $1",
    )
    .bind(limit)
    .fetch_all(&store.pool)
    .await?;
    rows.iter()
        .map(|r| {
            let detail: String = r.try_get(8)?;
            let rounds: Vec<DrillRound> =
                serde_json::from_str(&detail).map_err(|e| DrillError::Corrupt(e.to_string()))?;
            Ok(Drill {
                id: r.try_get(0)?,
                kind: r.try_get(1)?,
                started_at: r.try_get(2)?,
                finished_at: r.try_get(3)?,
                servers: u32::try_from(r.try_get::<i64, _>(4)?).unwrap_or(0),
                passed: r.try_get::<i64, _>(5)? != 0,
                takeover_median_ms: r.try_get(6)?,
                takeover_max_ms: r.try_get(7)?,
                rounds,
            })
        })
        .collect()
}

/// The drills for an admin.
pub async fn list(store: &Store, user: &User) -> Result<Vec<Drill>, DrillError> {
    if user.role != Role::Admin {
        return Err(DrillError::Denied);
    }
    recent(store, 100).await
}
