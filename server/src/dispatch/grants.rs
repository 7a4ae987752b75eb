//! Priority grants nearing expiry (P2): the owners are warned once, a week ahead, so a
//! critical job never loses its priority by surprise. A lapsed grant's jobs are planned
//! at `normal` (see `load`), never killed.

use sqlx::Row;

use crate::dispatch::DispatchError;
use crate::projects::REMIND_BEFORE_S;
use crate::store::Store;
use crate::store::events::{EventDetail, record};

/// Records a "grant-expiring" event for each grant entering its last week.
pub async fn remind(store: &Store, now: i64) -> Result<usize, DispatchError> {
    let mut tx = store.begin().await?;
    let due = sqlx::query(
        "UPDATE projects SET reminded_at = $1 WHERE reminded_at IS NULL AND expires_at > $1 \
         AND expires_at <= $2 RETURNING id, name, class, expires_at, group_id",
    )
    .bind(now)
    .bind(now + REMIND_BEFORE_S)
    .fetch_all(&mut *tx)
    .await?;
    for r in &due {
        let (id, name, class, expires, group): (i64, String, String, i64, i64) =
            (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?, r.try_get(3)?, r.try_get(4)?);
        let days = ((expires - now) as f64 / 86_400.0).ceil();
        let message = format!(
            "project {name}'s {class} grant expires in {days} days: its manager renews it, or its jobs run at normal"
        );
        let detail = EventDetail {
            project: Some(id),
            group: Some(group),
            expires_at: Some(expires),
            ..EventDetail::default()
        };
        record(&mut tx, now, "grant-expiring", None, "dispatcher", &message, &detail).await?;
    }
    tx.commit().await?;
    Ok(due.len())
}
