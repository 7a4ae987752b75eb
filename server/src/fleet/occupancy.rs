//! The global view everyone reads (V1, V2, V3): pools → nodes → GPUs with who holds each
//! GPU, since and until when, and the capacity of each pool — surplus or tight, with the
//! GPUs pending jobs ask for on its models. Each reads its tables once (no query per
//! node).

use std::collections::BTreeMap;

use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::nodes::{GpuHolder, Node, NodesView, Pool, PoolsView};

use crate::store::{Store, StoreError};
use crate::time_limits::LIMIT_OF_JOB;

/// A pool is tight when less than this share of its healthy GPUs is free.
const TIGHT_BELOW: f64 = 0.125;

/// Every node by pool and name, each GPU with its holder.
pub async fn nodes(store: &Store) -> Result<NodesView, StoreError> {
    let pool = &store.pool;
    let nodes = sqlx::query(
        "SELECT id, name, pool, model, gpus, CAST(CASE WHEN healthy THEN 1 ELSE 0 END AS BIGINT) FROM nodes ORDER BY pool, name",
    )
    .fetch_all(pool)
    .await?;
    let sql = format!(
        "SELECT a.node_id, a.gpu_mask, a.started_at, j.id, j.name, g.name, {LIMIT_OF_JOB} \
         FROM allocations a JOIN jobs j ON j.id = a.job_id JOIN groups g ON g.id = j.group_id \
         WHERE a.ended_at IS NULL"
    );
    let held = sqlx::query(sqlx::AssertSqlSafe(sql)).fetch_all(pool).await?;
    let mut by_node: BTreeMap<i64, Vec<&AnyRow>> = BTreeMap::new();
    for h in &held {
        by_node.entry(h.try_get(0)?).or_default().push(h);
    }
    let mut out = Vec::with_capacity(nodes.len());
    for n in &nodes {
        let id: i64 = n.try_get(0)?;
        let gpus: i64 = n.try_get(4)?;
        let mut slots: Vec<Option<GpuHolder>> = vec![None; gpus.clamp(0, 64) as usize];
        for h in by_node.get(&id).into_iter().flatten() {
            let mask = h.try_get::<i64, _>(1)? as u64;
            let since: i64 = h.try_get(2)?;
            let holder = GpuHolder {
                job: h.try_get(3)?,
                name: h.try_get(4)?,
                group: h.try_get(5)?,
                since,
                until: h.try_get::<Option<i64>, _>(6)?.map(|limit| since + limit),
            };
            for (i, slot) in slots.iter_mut().enumerate() {
                if mask & (1 << i) != 0 {
                    *slot = Some(holder.clone());
                }
            }
        }
        out.push(Node {
            id,
            name: n.try_get(1)?,
            pool: n.try_get(2)?,
            model: n.try_get(3)?,
            healthy: n.try_get::<i64, _>(5)? != 0,
            free: slots.iter().filter(|s| s.is_none()).count() as i64,
            gpus: slots,
        });
    }
    Ok(NodesView { nodes: out })
}

#[derive(Default)]
struct PoolFigures {
    nodes: i64,
    healthy_nodes: i64,
    gpus: i64,
    held: i64,
    models: Vec<String>,
}

/// Whether a pool with `gpus` healthy GPUs, `free` of them free, and `waiting` GPUs asked
/// for by pending jobs on its models is tight: little free, or less than is waited for.
fn tight(gpus: i64, free: i64, waiting: i64) -> bool {
    gpus == 0 || (free as f64) < TIGHT_BELOW * gpus as f64 || waiting > free
}

/// Capacity per pool: GPUs, held, free, and whether the pool has surplus or is tight (V2).
pub async fn pools(store: &Store) -> Result<PoolsView, StoreError> {
    let pool = &store.pool;
    let mut pools: BTreeMap<String, PoolFigures> = BTreeMap::new();
    for r in sqlx::query(
        "SELECT pool, model, gpus, CAST(CASE WHEN healthy THEN 1 ELSE 0 END AS BIGINT) FROM nodes",
    )
    .fetch_all(pool)
    .await?
    {
        let p = pools.entry(r.try_get(0)?).or_default();
        let model: String = r.try_get(1)?;
        p.nodes += 1;
        if r.try_get::<i64, _>(3)? != 0 {
            p.healthy_nodes += 1;
            p.gpus += r.try_get::<i64, _>(2)?;
        }
        if !p.models.contains(&model) {
            p.models.push(model);
        }
    }
    for r in sqlx::query(
        "SELECT n.pool, a.gpu_mask FROM allocations a JOIN nodes n ON n.id = a.node_id WHERE a.ended_at IS NULL",
    )
    .fetch_all(pool)
    .await?
    {
        let mask = r.try_get::<i64, _>(1)? as u64;
        pools.entry(r.try_get(0)?).or_default().held += i64::from(mask.count_ones());
    }
    let mut pending: BTreeMap<String, i64> = BTreeMap::new();
    for r in
        sqlx::query("SELECT model, COALESCE(SUM(gpus), 0) FROM jobs WHERE state = 'pending' GROUP BY model")
            .fetch_all(pool)
            .await?
    {
        pending.insert(r.try_get(0)?, r.try_get(1)?);
    }
    let pools = pools
        .into_iter()
        .map(|(name, p)| {
            let free = (p.gpus - p.held).max(0);
            let waiting: i64 = p.models.iter().filter_map(|m| pending.get(m)).sum();
            Pool {
                pool: name,
                nodes: p.nodes,
                healthy_nodes: p.healthy_nodes,
                models: p.models,
                gpus: p.gpus,
                held: p.held,
                free,
                pending_gpus: waiting,
                status: if tight(p.gpus, free, waiting) { "tight" } else { "surplus" }.into(),
            }
        })
        .collect();
    Ok(PoolsView { pools })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_is_tight_with_little_free_or_more_waited_for_than_free() {
        assert!(!tight(16, 8, 4));
        assert!(tight(16, 1, 0), "under an eighth free");
        assert!(tight(16, 8, 9), "more waited for than free");
        assert!(tight(0, 0, 0), "no healthy GPU at all");
    }
}
