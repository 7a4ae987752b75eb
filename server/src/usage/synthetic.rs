//! Synthetic usage history for benchmarks (`tidepool bench reports`): `days` of
//! `usage_hours` for a cluster of `gpus` GPUs, shared by one group per 500 GPUs, each
//! using two pools, two categories and one model, with a daily and weekly rhythm. The
//! weekly-report benchmark reuses [`write_history`].

use std::collections::BTreeMap;

use tidepool_core::usage::{Figures, HOUR};

use crate::bench::Rng;
use crate::store::Store;
use crate::usage::UsageError;
use crate::usage::rollup::{Key, write};

pub const POOLS: [&str; 4] = ["pool-a", "pool-b", "pool-c", "pool-d"];
pub const MODELS: [&str; 2] = ["A100-80G", "H100-80G"];

/// The ids of the benchmark's groups (`syn-00`…), made when missing.
pub async fn groups(store: &Store, gpus: i64, now: i64) -> Result<Vec<i64>, UsageError> {
    let n = (gpus / 500).clamp(2, 100);
    let mut ids = Vec::new();
    for k in 0..n {
        let name = format!("syn-{k:02}");
        let id = match store.group_id(&name).await? {
            Some(id) => id,
            None => store.create_group(&name, now).await?,
        };
        ids.push(id);
    }
    Ok(ids)
}

/// How busy the cluster is at `hour` (UTC): 0.35 at night to 0.95 in the afternoon,
/// less at weekends.
pub fn load(hour: i64) -> f64 {
    let h = (hour / HOUR).rem_euclid(24) as f64;
    let weekday = (hour / 86_400 + 3).rem_euclid(7); // 1970-01-01 was a Thursday
    let day = 0.65 + 0.3 * ((h - 9.0) / 24.0 * std::f64::consts::TAU).sin();
    if weekday >= 5 { day * 0.6 } else { day }
}

/// Writes `days` of hours from `start` (an hour's first second); the number of rows.
pub async fn write_history(
    store: &Store,
    start: i64,
    days: i64,
    gpus: i64,
    seed: u64,
) -> Result<u64, UsageError> {
    let groups = groups(store, gpus, start).await?;
    let share = gpus as f64 / groups.len() as f64;
    let mut rng = Rng::new(seed);
    let mut rows = 0u64;
    for day in 0..days {
        let mut batch: BTreeMap<Key, Figures> = BTreeMap::new();
        for h in 0..24 {
            let hour = start + (day * 24 + h) * HOUR;
            for (k, g) in groups.iter().enumerate() {
                let (home, other) = (POOLS[k % 4], POOLS[(k + 1) % 4]);
                let model = MODELS[k % 2];
                for (pool, category, part) in
                    [(home, "training", 0.7), (home, "inference", 0.2), (other, "training", 0.1)]
                {
                    let noise = 0.85 + rng.below(30) as f64 / 100.0;
                    let held = (share * part * load(hour) * noise * HOUR as f64) as i64;
                    let sampled = held * 95 / 100;
                    let util = sampled * (30 + rng.below(60) as i64);
                    let idle = sampled * rng.below(25) as i64 / 100;
                    let started = held / HOUR / 6;
                    let f = Figures {
                        held_gpu_s: held,
                        sampled_gpu_s: sampled,
                        util_pct_gpu_s: util,
                        idle_gpu_s: idle,
                        jobs_started: started,
                        jobs_finished: started,
                        wait_s: started * (60 + rng.below(1200) as i64),
                    };
                    batch.insert((hour, *g, pool.into(), model.into(), category.into()), f);
                }
            }
        }
        let mut tx = store.begin().await?;
        write(&mut tx, store.engine, &batch).await?;
        tx.commit().await?;
        rows += batch.len() as u64;
    }
    let end = start + days * 86_400;
    sqlx::query("UPDATE usage_rollup SET rolled_until = $1 WHERE id = 1 AND rolled_until < $1")
        .bind(end)
        .execute(&store.pool)
        .await?;
    Ok(rows)
}
