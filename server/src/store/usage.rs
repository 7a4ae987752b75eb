//! GPU-hours spent this calendar month (UTC), per group × model × category (Q3): what the
//! dispatcher checks budgets against and what the quota view shows.

use std::collections::HashMap;

use sqlx::Row;

use crate::calendar::month_start;
use crate::store::{Store, StoreError};

/// (group id, model, category) → GPU-hours since the month began.
pub type Spent = HashMap<(i64, String, String), f64>;

impl Store {
    /// Every allocation overlapping this month, counted for the part inside it; with
    /// `budgeted_only`, only for quotas that have a budget (all the dispatcher needs:
    /// the month's allocations of unbudgeted groups are not read every cycle). The
    /// database sums the seconds per GPU mask, so a cycle or a scrape reads a few rows
    /// however many jobs ran this month (200,000 allocations: 1.5 s read row by row in a
    /// debug build).
    pub async fn spent_this_month(&self, now: i64, budgeted_only: bool) -> Result<Spent, StoreError> {
        let start = month_start(now);
        let rows = sqlx::query(
            "SELECT j.group_id, j.model, j.category, a.gpu_mask, \
             CAST(SUM((CASE WHEN a.ended_at IS NULL OR a.ended_at > $2 THEN $2 ELSE a.ended_at END) \
               - (CASE WHEN a.started_at < $1 THEN $1 ELSE a.started_at END)) AS BIGINT) \
             FROM allocations a JOIN jobs j ON j.id = a.job_id \
             WHERE (a.ended_at IS NULL OR a.ended_at > $1) AND a.started_at < $2 \
               AND ($3 = 0 OR EXISTS (SELECT 1 FROM quotas q WHERE q.group_id = j.group_id \
               AND q.model = j.model AND q.category = j.category AND q.budget_gpu_h IS NOT NULL)) \
             GROUP BY j.group_id, j.model, j.category, a.gpu_mask",
        )
        .bind(start)
        .bind(now)
        .bind(i64::from(budgeted_only))
        .fetch_all(&self.pool)
        .await?;
        let mut spent = Spent::new();
        for r in rows {
            let gpus = f64::from((r.try_get::<i64, _>(3)? as u64).count_ones());
            let key = (r.try_get(0)?, r.try_get(1)?, r.try_get(2)?);
            *spent.entry(key).or_default() += gpus * r.try_get::<i64, _>(4)?.max(0) as f64 / 3600.0;
        }
        Ok(spent)
    }
}
