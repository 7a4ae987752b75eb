//! The records' figures at scrape time, each from a few aggregate reads: the queue by
//! group and class (D1, P1), GPUs held, idle and free by pool and group (V1, V2, R2), and
//! each budget against this month's spend (Q3). Reads that grow with the cluster (nodes,
//! live allocations, GPUs), never with the number of jobs ever run, except the month's
//! spend, which the quota view computes the same way.

use std::collections::BTreeMap;

use sqlx::Row;

use crate::metrics::text::{Exposition, Type};
use crate::store::{Store, StoreError};

const CLASSES: [&str; 4] = ["critical", "normal", "batch", "experiment"];

/// Waiting jobs, the GPUs they ask for, and their waits, for every group × class (zero
/// where none wait, so a queue that empties reads 0 rather than vanishing).
pub async fn queue(store: &Store, now: i64, out: &mut Exposition) -> Result<(), StoreError> {
    let mut rows: BTreeMap<(String, String), [f64; 4]> = BTreeMap::new();
    for g in sqlx::query("SELECT name FROM groups").fetch_all(&store.pool).await? {
        for class in CLASSES {
            rows.insert((g.try_get(0)?, class.to_string()), [0.0; 4]);
        }
    }
    let waiting = sqlx::query(
        "SELECT g.name, j.class, CAST(COUNT(*) AS BIGINT), CAST(SUM(j.gpus) AS BIGINT), \
         CAST(MIN(j.queued_at) AS BIGINT), CAST(SUM(j.queued_at) AS BIGINT) \
         FROM jobs j JOIN groups g ON g.id = j.group_id WHERE j.state = 'pending' GROUP BY g.name, j.class",
    )
    .fetch_all(&store.pool)
    .await?;
    for r in waiting {
        let jobs: i64 = r.try_get(2)?;
        let oldest = (now - r.try_get::<i64, _>(4)?).max(0);
        let mean = (now as f64 - r.try_get::<i64, _>(5)? as f64 / jobs.max(1) as f64).max(0.0);
        let gpus: i64 = r.try_get(3)?;
        rows.insert((r.try_get(0)?, r.try_get(1)?), [jobs as f64, gpus as f64, oldest as f64, mean]);
    }
    let families = [
        ("tidepool_queue_jobs", "Jobs waiting in the queue, by group and class."),
        ("tidepool_queue_gpus", "GPUs the waiting jobs ask for, by group and class."),
        (
            "tidepool_queue_oldest_wait_seconds",
            "How long the longest-waiting job has waited, by group and class.",
        ),
        ("tidepool_queue_mean_wait_seconds", "Mean wait so far of the waiting jobs, by group and class."),
    ];
    for (k, (name, help)) in families.iter().enumerate() {
        out.family(name, help, Type::Gauge);
        for ((group, class), v) in &rows {
            out.sample(name, &[("group", group), ("class", class)], v[k]);
        }
    }
    Ok(())
}

/// GPUs by pool: in service and free; and by pool and group: held, and held but idle
/// (below `idle_below_pct` in its agent's last sample).
pub async fn gpus(store: &Store, idle_below_pct: i64, out: &mut Exposition) -> Result<(), StoreError> {
    // Per node: pool, GPU count, in service.
    let mut nodes: BTreeMap<i64, (String, i64, bool)> = BTreeMap::new();
    let mut pools: BTreeMap<String, [i64; 2]> = BTreeMap::new(); // [in service, free]
    for r in sqlx::query(
        "SELECT id, pool, CAST(gpus AS BIGINT), \
         CAST(CASE WHEN healthy AND lost_at IS NULL THEN 1 ELSE 0 END AS BIGINT) FROM nodes",
    )
    .fetch_all(&store.pool)
    .await?
    {
        let (pool, gpus, up): (String, i64, bool) =
            (r.try_get(1)?, r.try_get(2)?, r.try_get::<i64, _>(3)? == 1);
        pools.entry(pool.clone()).or_default()[0] += if up { gpus } else { 0 };
        nodes.insert(r.try_get(0)?, (pool, gpus, up));
    }
    let mut idle_gpus: BTreeMap<i64, u64> = BTreeMap::new(); // node → mask of GPUs sampled idle
    for r in sqlx::query("SELECT node_id, CAST(idx AS BIGINT) FROM node_gpus WHERE util_pct < $1")
        .bind(idle_below_pct)
        .fetch_all(&store.pool)
        .await?
    {
        let idx: i64 = r.try_get(1)?;
        if (0..64).contains(&idx) {
            *idle_gpus.entry(r.try_get(0)?).or_default() |= 1 << idx;
        }
    }
    let mut held_on: BTreeMap<i64, u64> = BTreeMap::new(); // node → mask of GPUs held
    let mut held: BTreeMap<(String, String), [u32; 2]> = BTreeMap::new(); // [held, idle]
    for r in sqlx::query(
        "SELECT a.node_id, a.gpu_mask, g.name FROM allocations a JOIN jobs j ON j.id = a.job_id \
         JOIN groups g ON g.id = j.group_id WHERE a.ended_at IS NULL",
    )
    .fetch_all(&store.pool)
    .await?
    {
        let (node, mask): (i64, u64) = (r.try_get(0)?, r.try_get::<i64, _>(1)? as u64);
        let Some((pool, _, _)) = nodes.get(&node) else { continue };
        *held_on.entry(node).or_default() |= mask;
        let idle = mask & idle_gpus.get(&node).copied().unwrap_or(0);
        let row = held.entry((pool.clone(), r.try_get(2)?)).or_default();
        row[0] += mask.count_ones();
        row[1] += idle.count_ones();
    }
    for (id, (pool, gpus, up)) in &nodes {
        if *up {
            let all = if *gpus >= 64 { u64::MAX } else { (1u64 << gpus) - 1 };
            let busy = held_on.get(id).copied().unwrap_or(0) & all;
            pools.entry(pool.clone()).or_default()[1] += gpus - i64::from(busy.count_ones());
        }
    }
    out.family("tidepool_pool_gpus", "GPUs of the nodes in service, by pool.", Type::Gauge);
    for (pool, v) in &pools {
        out.sample("tidepool_pool_gpus", &[("pool", pool)], v[0] as f64);
    }
    out.family("tidepool_gpus_free", "GPUs of the nodes in service that no job holds, by pool.", Type::Gauge);
    for (pool, v) in &pools {
        out.sample("tidepool_gpus_free", &[("pool", pool)], v[1] as f64);
    }
    let families = [
        (
            "tidepool_gpus_held",
            "GPUs held by running jobs (until their agents confirm a stop), by pool and group.",
        ),
        (
            "tidepool_gpus_idle",
            "Held GPUs below the idle threshold in their agent's last sample, by pool and group.",
        ),
    ];
    for (k, (name, help)) in families.iter().enumerate() {
        out.family(name, help, Type::Gauge);
        for ((pool, group), v) in &held {
            out.sample(name, &[("pool", pool), ("group", group)], f64::from(v[k]));
        }
    }
    Ok(())
}

/// This month's GPU-seconds spent by group, model and category (every quota, and any
/// spend without one), and the monthly budget where a quota has one (Q3). Seconds,
/// Prometheus' base unit: GPU-hours × 3600.
pub async fn budgets(store: &Store, now: i64, out: &mut Exposition) -> Result<(), StoreError> {
    let mut names: BTreeMap<i64, String> = BTreeMap::new();
    for r in sqlx::query("SELECT id, name FROM groups").fetch_all(&store.pool).await? {
        names.insert(r.try_get(0)?, r.try_get(1)?);
    }
    let mut rows: BTreeMap<(String, String, String), (f64, Option<f64>)> = BTreeMap::new();
    for r in sqlx::query("SELECT group_id, model, category, budget_gpu_h FROM quotas")
        .fetch_all(&store.pool)
        .await?
    {
        let Some(group) = names.get(&r.try_get::<i64, _>(0)?) else { continue };
        rows.insert((group.clone(), r.try_get(1)?, r.try_get(2)?), (0.0, r.try_get(3)?));
    }
    for ((group_id, model, category), gpu_h) in store.spent_this_month(now, false).await? {
        let Some(group) = names.get(&group_id) else { continue };
        rows.entry((group.clone(), model, category)).or_default().0 = gpu_h;
    }
    let name = "tidepool_budget_spent_gpu_seconds";
    out.family(name, "GPU-seconds spent this month by group, model and category.", Type::Gauge);
    for ((g, m, c), (spent, _)) in &rows {
        out.sample(name, &[("group", g), ("model", m), ("category", c)], (spent * 3600.0).round());
    }
    let name = "tidepool_budget_limit_gpu_seconds";
    out.family(
        name,
        "Monthly budget in GPU-seconds by group, model and category, where a quota sets one.",
        Type::Gauge,
    );
    for ((g, m, c), (_, budget)) in &rows {
        if let Some(budget) = budget {
            out.sample(name, &[("group", g), ("model", m), ("category", c)], (budget * 3600.0).round());
        }
    }
    Ok(())
}
