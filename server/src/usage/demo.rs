//! The demo's history (issue 12): three weeks of finished jobs on the demo's nodes, shaped
//! like the Philly trace (nine jobs in ten on one GPU, a few whole nodes; a median run of
//! about 20 minutes with a long tail; busy afternoons, quiet nights and weekends), written
//! as jobs, allocations and utilisation samples before `now` and rolled up, so a
//! newcomer's Reports page is full on the first run.

use sqlx::Row;
use tidepool_core::usage::{HOUR, hour_of, sample_by_hour, sample_rates};

use crate::bench::Rng;
use crate::store::Store;
use crate::usage::{UsageError, roll_up, synthetic::load};

const DAYS: i64 = 21;

/// GPUs per job, as in Philly.
fn size(rng: &mut Rng) -> u32 {
    match rng.below(100) {
        0..90 => 1,
        90..94 => 2,
        94..97 => 4,
        _ => 8,
    }
}

/// Seconds a job runs: Philly's percentiles (p25 2 min, p50 19 min, p75 49 min, p90 3 h),
/// the tail cut at 12 hours.
fn duration(rng: &mut Rng) -> i64 {
    let points = [60, 115, 1144, 2932, 11_265, 43_200];
    let k = rng.below(5) as usize;
    points[k] + rng.below((points[k + 1] - points[k]) as u64) as i64
}

/// A price for each GPU model the demo's nodes have (A5), in cents per GPU-hour, so its
/// reports show costs from the first run; an admin changes them in the settings.
async fn prices(store: &Store, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO gpu_prices (model, cents_per_gpu_hour, set_by, set_at) \
         SELECT DISTINCT model, CASE WHEN model LIKE 'H100%' THEN 400 WHEN model LIKE 'A100%' THEN 250 \
         WHEN model LIKE 'T4%' THEN 40 ELSE 150 END, 'demo', $1 FROM nodes \
         WHERE NOT EXISTS (SELECT 1 FROM gpu_prices)",
    )
    .bind(now)
    .execute(&store.pool)
    .await?;
    Ok(())
}

/// Writes the history; the number of jobs written.
pub async fn seed(store: &Store, now: i64) -> Result<u64, UsageError> {
    let nodes: Vec<(i64, i64)> = sqlx::query("SELECT id, gpus FROM nodes ORDER BY id")
        .fetch_all(&store.pool)
        .await?
        .iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get::<i32, _>(1).map(i64::from).or_else(|_| r.try_get(1))?)))
        .collect::<Result<_, sqlx::Error>>()?;
    let users: Vec<(i64, i64)> = sqlx::query(
        "SELECT group_id, id FROM users WHERE group_id IS NOT NULL AND role = 'member' ORDER BY id",
    )
    .fetch_all(&store.pool)
    .await?
    .iter()
    .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
    .collect::<Result<_, sqlx::Error>>()?;
    if nodes.is_empty() || users.is_empty() {
        return Ok(0);
    }
    prices(store, now).await?;
    let mut rng = Rng::new(12);
    // When each GPU of each node is next free.
    let mut free: Vec<Vec<i64>> = nodes.iter().map(|(_, g)| vec![0; *g as usize]).collect();
    let start = hour_of(now) - DAYS * 86_400;
    let end = hour_of(now) - 2 * HOUR;
    let mut tx = store.begin().await?;
    let mut jobs = 0u64;
    let mut t = start;
    while t < end {
        // Arrivals follow the day: ~13 an hour on weekday afternoons, ~3 at night, enough
        // that afternoons fill the pool and jobs wait, as on a shared cluster.
        t += (3600.0 / (16.0 * load(hour_of(t)).powi(2))) as i64 / 2 + rng.below(300) as i64;
        let gpus = size(&mut rng) as usize;
        let (group, user) = users[rng.below(users.len() as u64) as usize];
        // The node whose `gpus` earliest-free GPUs free up first.
        let (n, at) = free
            .iter()
            .enumerate()
            .map(|(n, f)| {
                let mut sorted = f.clone();
                sorted.sort_unstable();
                (n, sorted[gpus.min(sorted.len()) - 1].max(t))
            })
            .min_by_key(|(_, at)| *at)
            .unwrap_or((0, t));
        let run = duration(&mut rng);
        let ended = at + run;
        if ended >= end {
            continue;
        }
        let mut idx: Vec<usize> = (0..free[n].len()).filter(|i| free[n][*i] <= at).collect();
        idx.truncate(gpus);
        let mask = idx.iter().fold(0i64, |m, i| m | (1 << i));
        for i in &idx {
            free[n][*i] = ended;
        }
        let failed = rng.below(10) == 0;
        let row = sqlx::query(
            "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, time_limit_s, \
             checkpointable, command, state, submitted_at, queued_at, attained_gpu_s, finished_at, segments) \
             VALUES ($1, $2, $3, $4, 'normal', $5, 'A100-80G', 'any', 86400, TRUE, 'python train.py', $6, $7, $7, $8, $9, 1) \
             RETURNING id",
        )
        .bind(group)
        .bind(user)
        .bind(format!("history-{jobs}"))
        .bind(if rng.below(5) == 0 { "inference" } else { "training" })
        .bind(idx.len() as i64)
        .bind(if failed { "failed" } else { "succeeded" })
        .bind(t)
        .bind(idx.len() as i64 * run)
        .bind(ended)
        .fetch_one(&mut *tx)
        .await?;
        let job: i64 = row.try_get(0)?;
        if at > t {
            // It waited for GPUs to free up (D2): its wait history says so.
            sqlx::query(
                "INSERT INTO job_waits (job_id, kind, reason, since, until) VALUES ($1, 'capacity', $2, $3, $4)",
            )
            .bind(job)
            .bind(format!("waiting for GPUs: needs {}, fewer free", idx.len()))
            .bind(t)
            .bind(at)
            .execute(&mut *tx)
            .await?;
        }
        // Utilisation: most jobs busy, one in eight left idle (R2).
        let utils: Vec<i64> = idx
            .iter()
            .map(|_| if rng.below(8) == 0 { rng.below(4) as i64 } else { 40 + rng.below(58) as i64 })
            .collect();
        let rates = sample_rates(&utils, 5);
        let row = sqlx::query(
            "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at, ended_at, acked_at, \
             sampled_at, sampled_gpu_s, util_pct_gpu_s, idle_gpu_s) VALUES ($1, $2, $3, '[]', 1, $4, $5, $4, $5, $6, $7, $8) \
             RETURNING id",
        )
        .bind(job)
        .bind(nodes[n].0)
        .bind(mask)
        .bind(at)
        .bind(ended)
        .bind(rates.sampled_gpu_s * run)
        .bind(rates.util_pct_gpu_s * run)
        .bind(rates.idle_gpu_s * run)
        .fetch_one(&mut *tx)
        .await?;
        let allocation: i64 = row.try_get(0)?;
        for (hour, f) in sample_by_hour(rates, at, ended) {
            sqlx::query(
                "INSERT INTO usage_samples (hour, allocation_id, sampled_gpu_s, util_pct_gpu_s, idle_gpu_s) \
                 VALUES ($1, $2, $3, $4, $5)",
            )
            .bind(hour)
            .bind(allocation)
            .bind(f.sampled_gpu_s)
            .bind(f.util_pct_gpu_s)
            .bind(f.idle_gpu_s)
            .execute(&mut *tx)
            .await?;
        }
        jobs += 1;
    }
    sqlx::query("UPDATE usage_rollup SET rolled_until = $1 WHERE id = 1 AND rolled_until = 0")
        .bind(start)
        .execute(&mut *tx)
        .await?;
    tx.commit().await?;
    roll_up(store, now).await?;
    Ok(jobs)
}
