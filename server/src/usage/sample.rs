//! Sampling at each agent sync (R2, V4): every live allocation on the node gets the
//! GPU-seconds since its previous sample, with the utilisation the agent reports for its
//! GPUs, added to its whole-life totals and to `usage_samples` (per UTC hour, split where
//! the interval crosses one). One read for the node, then one update and one upsert per
//! hour touched per allocation, inside the sync's transaction.

use std::collections::HashMap;

use sqlx::{AnyConnection, Row};
use tidepool_core::usage::{sample_by_hour, sample_rates, sample_since};

/// Records the samples of node `node_id`'s live allocations at `now`. `util` maps a GPU
/// index to its reported utilisation (%); GPUs the report leaves out are not sampled.
/// A silence longer than `cap_s` (the time after which a node counts as lost) counts
/// only `cap_s`.
pub async fn record(
    tx: &mut AnyConnection,
    node_id: i64,
    util: &HashMap<u8, i64>,
    idle_threshold_pct: i64,
    cap_s: i64,
    now: i64,
) -> Result<(), sqlx::Error> {
    let rows = sqlx::query(
        "SELECT id, gpu_mask, started_at, acked_at, sampled_at FROM allocations \
         WHERE node_id = $1 AND ended_at IS NULL AND acked_at IS NOT NULL",
    )
    .bind(node_id)
    .fetch_all(&mut *tx)
    .await?;
    for r in rows {
        let id: i64 = r.try_get(0)?;
        let mask = r.try_get::<i64, _>(1)? as u64;
        let since = sample_since(r.try_get(4)?, r.try_get(3)?, r.try_get(2)?, now, cap_s.max(1));
        if since >= now {
            continue;
        }
        let utils: Vec<i64> =
            crate::fleet::indices(mask).iter().filter_map(|i| util.get(i).copied()).collect();
        let rates = sample_rates(&utils, idle_threshold_pct);
        let secs = now - since;
        sqlx::query(
            "UPDATE allocations SET sampled_at = $1, sampled_gpu_s = sampled_gpu_s + $2, \
             util_pct_gpu_s = util_pct_gpu_s + $3, idle_gpu_s = idle_gpu_s + $4 WHERE id = $5",
        )
        .bind(now)
        .bind(rates.sampled_gpu_s * secs)
        .bind(rates.util_pct_gpu_s * secs)
        .bind(rates.idle_gpu_s * secs)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        if utils.is_empty() {
            continue;
        }
        for (hour, f) in sample_by_hour(rates, since, now) {
            sqlx::query(
                "INSERT INTO usage_samples (hour, allocation_id, sampled_gpu_s, util_pct_gpu_s, idle_gpu_s) \
                 VALUES ($1, $2, $3, $4, $5) ON CONFLICT (hour, allocation_id) DO UPDATE SET \
                 sampled_gpu_s = usage_samples.sampled_gpu_s + excluded.sampled_gpu_s, \
                 util_pct_gpu_s = usage_samples.util_pct_gpu_s + excluded.util_pct_gpu_s, \
                 idle_gpu_s = usage_samples.idle_gpu_s + excluded.idle_gpu_s",
            )
            .bind(hour)
            .bind(id)
            .bind(f.sampled_gpu_s)
            .bind(f.util_pct_gpu_s)
            .bind(f.idle_gpu_s)
            .execute(&mut *tx)
            .await?;
        }
    }
    Ok(())
}
