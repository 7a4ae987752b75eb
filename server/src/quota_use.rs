//! Quotas as everyone sees them (Q1: over- and under-use visible to everyone; Q2 by
//! category; Q3 budget): every quota row with the GPUs its group runs on it now and the
//! GPU-hours it has spent this month. Three reads whatever the number of rows: the
//! quotas, the running jobs grouped, and the month's allocations.

use std::collections::BTreeMap;

use sqlx::Row;
use tidepool_api::quotas::{Quota, QuotasView};

use crate::store::{Store, StoreError};

/// What a group holds beyond its guarantee and leaves of it idle, from `used` GPUs.
fn over_and_idle(guaranteed: i64, used: i64) -> (i64, i64) {
    ((used - guaranteed).max(0), (guaranteed - used).max(0))
}

/// The share of a budget spent; none without a (positive) budget.
fn budget_used(budget_gpu_h: Option<f64>, spent_gpu_h: f64) -> Option<f64> {
    budget_gpu_h.filter(|b| *b > 0.0).map(|b| spent_gpu_h / b)
}

/// Every quota, by group, model and category, with its use at `now`.
pub async fn quotas(store: &Store, now: i64) -> Result<QuotasView, StoreError> {
    let rows = sqlx::query(
        "SELECT g.name, q.model, q.category, q.guaranteed, q.borrow_limit, q.lend_limit, q.budget_gpu_h, \
         q.group_id FROM quotas q JOIN groups g ON g.id = q.group_id ORDER BY g.name, q.model, q.category",
    )
    .fetch_all(&store.pool)
    .await?;
    // GPUs running per group × model × category, in one grouped read of the running jobs.
    let mut running: BTreeMap<(i64, String, String), i64> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT group_id, model, category, COALESCE(SUM(gpus), 0) FROM jobs WHERE state = 'running' \
         GROUP BY group_id, model, category",
    )
    .fetch_all(&store.pool)
    .await?
    {
        running.insert((r.try_get(0)?, r.try_get(1)?, r.try_get(2)?), r.try_get(3)?);
    }
    let spent = store.spent_this_month(now, false).await?;
    let mut quotas = Vec::with_capacity(rows.len());
    for r in &rows {
        let (model, category, group_id): (String, String, i64) =
            (r.try_get(1)?, r.try_get(2)?, r.try_get(7)?);
        let key = (group_id, model, category);
        let guaranteed: i64 = r.try_get(3)?;
        let used = running.get(&key).copied().unwrap_or(0);
        let (over_guarantee, idle_guarantee) = over_and_idle(guaranteed, used);
        let spent = spent.get(&key).copied().unwrap_or(0.0);
        let budget_gpu_h: Option<f64> = r.try_get(6)?;
        let (_, model, category) = key;
        quotas.push(Quota {
            group: r.try_get(0)?,
            group_id,
            model,
            category,
            guaranteed,
            borrow_limit: r.try_get(4)?,
            lend_limit: r.try_get(5)?,
            budget_gpu_h,
            running_gpus: used,
            over_guarantee,
            idle_guarantee,
            spent_gpu_h: (spent * 100.0).round() / 100.0,
            budget_used: budget_used(budget_gpu_h, spent),
        });
    }
    Ok(QuotasView { quotas })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn use_beyond_the_guarantee_is_borrowed_and_use_below_it_leaves_it_idle() {
        assert_eq!(over_and_idle(4, 6), (2, 0));
        assert_eq!(over_and_idle(4, 1), (0, 3));
        assert_eq!(over_and_idle(0, 0), (0, 0));
    }

    #[test]
    fn only_a_positive_budget_has_a_share_spent() {
        assert_eq!(budget_used(Some(100.0), 25.0), Some(0.25));
        assert_eq!(budget_used(Some(0.0), 25.0), None);
        assert_eq!(budget_used(None, 25.0), None);
    }
}
