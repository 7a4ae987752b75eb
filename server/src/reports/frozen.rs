//! Frozen weeks (A2): a finished week's report is stored once, as the API answers it,
//! and read back from here ever after; later edits to the records do not reach it.

use sqlx::Row;
use tidepool_api::reports::{FrozenWeek, FrozenWeeks, WeeklyReport};

use crate::store::{Store, StoreError};

/// The frozen report of `week` for group `group_id` (0: the organisation), if any.
pub async fn read(store: &Store, group_id: i64, week: &str) -> Result<Option<WeeklyReport>, StoreError> {
    let row = sqlx::query("SELECT body FROM weekly_reports WHERE group_id = $1 AND week = $2")
        .bind(group_id)
        .bind(week)
        .fetch_optional(&store.pool)
        .await?;
    let Some(row) = row else { return Ok(None) };
    let body: String = row.try_get(0)?;
    match serde_json::from_str(&body) {
        Ok(report) => Ok(Some(report)),
        Err(e) => {
            // A body that no longer reads is recomputed rather than failing every reader.
            tracing::error!(group_id, week, error = %e, "a frozen weekly report does not read back");
            Ok(None)
        }
    }
}

/// Stores `report` as frozen at `now`, unless a copy is there already; answers the copy
/// that is kept (the first one: two readers freezing at once agree).
pub async fn freeze(
    store: &Store,
    group_id: i64,
    mut report: WeeklyReport,
    now: i64,
) -> Result<WeeklyReport, StoreError> {
    report.frozen_at = Some(now);
    let body = serde_json::to_string(&report).unwrap_or_default();
    sqlx::query(
        "INSERT INTO weekly_reports (group_id, week, frozen_at, body) VALUES ($1, $2, $3, $4) \
         ON CONFLICT (group_id, week) DO NOTHING",
    )
    .bind(group_id)
    .bind(&report.week)
    .bind(now)
    .bind(body)
    .execute(&store.pool)
    .await?;
    Ok(read(store, group_id, &report.week).await?.unwrap_or(report))
}

/// Frozen weeks, newest first; `only`: the organisation's and this group's.
pub async fn list(store: &Store, only: Option<i64>) -> Result<FrozenWeeks, StoreError> {
    let rows = sqlx::query(
        "SELECT r.week, g.name, r.frozen_at, \
         (SELECT COUNT(*) FROM report_deliveries d WHERE d.report_id = r.id AND d.error IS NULL), \
         (SELECT COUNT(*) FROM report_deliveries d WHERE d.report_id = r.id AND d.error IS NOT NULL) \
         FROM weekly_reports r LEFT JOIN groups g ON g.id = r.group_id \
         WHERE ($1 < 0 OR r.group_id = 0 OR r.group_id = $1) ORDER BY r.week DESC, r.group_id LIMIT 1000",
    )
    .bind(only.unwrap_or(-1))
    .fetch_all(&store.pool)
    .await?;
    let weeks = rows
        .iter()
        .map(|r| {
            Ok(FrozenWeek {
                week: r.try_get(0)?,
                group: r.try_get(1)?,
                frozen_at: r.try_get(2)?,
                delivered: r.try_get(3)?,
                failed: r.try_get(4)?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(FrozenWeeks { weeks })
}
