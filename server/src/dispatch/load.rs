//! Reading the snapshot a cycle plans on from the records.

use std::collections::BTreeMap;

use sqlx::{AssertSqlSafe, Row};
use tidepool_core::*;

use crate::dispatch::DispatchError;
use crate::store::Store;

// Booleans are read as 0/1 integers: sqlx's Any driver cannot decode SQLite's BOOLEAN.

/// Record ids behind the snapshot's dense indices.
#[derive(Debug, Default)]
pub struct Ids {
    pub groups: Vec<i64>,
    pub nodes: Vec<i64>,
    /// Per running entry: its allocation rows (one per node).
    pub running: Vec<Vec<i64>>,
    /// Per pending job: what people see now (only changes are written).
    pub shown: Vec<Shown>,
    /// Per node: an agent runs its jobs, so a stop there is a request the agent confirms.
    pub agent_nodes: Vec<bool>,
}

/// A pending job's reason, queue rank, estimated start and open wait kind (D2) as recorded.
#[derive(Debug, Default)]
pub struct Shown {
    pub reason: Option<String>,
    /// Sorts like the queue; the place people see is counted from it (`dispatch::rank`).
    pub rank: Option<i64>,
    pub estimate: Option<i64>,
    pub wait_kind: Option<String>,
}

fn bad(what: &str, value: &str) -> DispatchError {
    DispatchError::Corrupt(format!("unknown {what} `{value}`"))
}

pub fn category(s: &str) -> Result<Category, DispatchError> {
    match s {
        "training" => Ok(Category::Training),
        "inference" => Ok(Category::Inference),
        "pretraining" => Ok(Category::Pretraining),
        _ => Err(bad("category", s)),
    }
}

pub fn class(s: &str) -> Result<PriorityClass, DispatchError> {
    match s {
        "batch" => Ok(PriorityClass::Batch),
        "experiment" => Ok(PriorityClass::Experiment),
        "normal" => Ok(PriorityClass::Normal),
        "critical" => Ok(PriorityClass::Critical),
        _ => Err(bad("class", s)),
    }
}

pub fn topology(s: &str) -> Result<Topology, DispatchError> {
    match s {
        "any" => Ok(Topology::Any),
        "same-node" => Ok(Topology::SameNode),
        "same-nvlink" => Ok(Topology::SameNvlink),
        _ => Err(bad("topology", s)),
    }
}

/// Interns model names in first-seen order.
#[derive(Default)]
struct Models(Vec<String>);

impl Models {
    fn id(&mut self, name: String) -> ModelId {
        match self.0.iter().position(|m| *m == name) {
            Some(i) => ModelId(i as u16),
            None => {
                self.0.push(name);
                ModelId((self.0.len() - 1) as u16)
            }
        }
    }
}

/// A job's class as planned: above `normal` only under an unexpired project grant (P2).
const PLANNED_CLASS: &str = "CASE WHEN j.class = 'critical' AND (p.id IS NULL OR p.expires_at <= $1) \
     THEN 'normal' ELSE j.class END";

pub async fn snapshot(store: &Store, now: i64) -> Result<(Snapshot, Ids), DispatchError> {
    let pool = &store.pool;
    let mut ids = Ids::default();
    let mut models = Models::default();
    let mut snap = Snapshot::default();

    for r in sqlx::query("SELECT id, name FROM groups ORDER BY id").fetch_all(pool).await? {
        ids.groups.push(r.try_get(0)?);
        snap.groups.push(Group::named(r.try_get::<String, _>(1)?));
    }
    let group = |ids: &Ids, id: i64| -> Result<GroupId, DispatchError> {
        let i = ids.groups.iter().position(|g| *g == id).ok_or_else(|| bad("group", &id.to_string()))?;
        Ok(GroupId(i as u32))
    };
    for r in sqlx::query("SELECT id, name, pool, model, gpus, nvlink_group, CAST(CASE WHEN healthy THEN 1 ELSE 0 END AS BIGINT), \
         CAST(CASE WHEN agent THEN 1 ELSE 0 END AS BIGINT) FROM nodes ORDER BY id")
        .fetch_all(pool)
        .await?
    {
        ids.nodes.push(r.try_get(0)?);
        ids.agent_nodes.push(r.try_get::<i64, _>(7)? != 0);
        let gpus = r.try_get::<i64, _>(4)?.clamp(1, 64) as u8;
        let domain = r.try_get::<i64, _>(5)?.clamp(1, i64::from(gpus)) as u8;
        let nvlink_domains = if domain >= gpus {
            Vec::new()
        } else {
            (0..gpus / domain).map(|d| ((1u64 << domain) - 1) << (d * domain)).collect()
        };
        snap.nodes.push(Node {
            name: r.try_get(1)?,
            pool: r.try_get(2)?,
            model: models.id(r.try_get(3)?),
            gpus,
            nvlink_domains,
            healthy: r.try_get::<i64, _>(6)? != 0,
        });
    }
    for r in sqlx::query(
        "SELECT group_id, model, category, guaranteed, borrow_limit, lend_limit, budget_gpu_h FROM quotas ORDER BY id",
    )
    .fetch_all(pool)
    .await?
    {
        snap.quotas.push(Quota {
            group: group(&ids, r.try_get(0)?)?,
            model: models.id(r.try_get(1)?),
            category: category(&r.try_get::<String, _>(2)?)?,
            guaranteed: r.try_get::<i64, _>(3)?.max(0) as u32,
            borrow_limit: r.try_get::<Option<i64>, _>(4)?.map(|v| v.max(0) as u32),
            lend_limit: r.try_get::<Option<i64>, _>(5)?.map(|v| v.max(0) as u32),
            budget_gpu_h: r.try_get(6)?,
            spent_gpu_h: 0.0,
        });
    }
    // Loans the lenders approved and that have not ended (B1).
    for r in sqlx::query(
        "SELECT id, lender_id, borrower_id, model, gpus, ends_at FROM loans \
         WHERE state = 'active' AND ends_at > $1 ORDER BY id",
    )
    .bind(now)
    .fetch_all(pool)
    .await?
    {
        snap.loans.push(Loan {
            id: LoanId(r.try_get::<i64, _>(0)? as u64),
            lender: group(&ids, r.try_get(1)?)?,
            borrower: r.try_get::<Option<i64>, _>(2)?.map(|b| group(&ids, b)).transpose()?,
            model: models.id(r.try_get(3)?),
            gpus: r.try_get::<i64, _>(4)?.max(0) as u32,
            ends_at: Some(r.try_get(5)?),
        });
    }
    // Budgets (Q3): what each quota spent this month.
    let spent = store.spent_this_month(now, true).await?;
    for ((group_id, model, cat), hours) in spent {
        let Some(g) = ids.groups.iter().position(|g| *g == group_id) else { continue };
        let (model, cat) = (models.id(model), category(&cat)?);
        if let Some(q) = snap
            .quotas
            .iter_mut()
            .find(|q| q.group == GroupId(g as u32) && q.model == model && q.category == cat)
        {
            q.spent_gpu_h += hours;
        }
    }
    // One allocation row per node; a gang spans several rows of one job.
    let mut by_job: BTreeMap<i64, usize> = BTreeMap::new();
    let sql = format!(
        "SELECT a.id, a.job_id, a.node_id, a.gpu_mask, a.borrowed, a.started_at, j.group_id, j.category, \
         {PLANNED_CLASS}, j.model, j.time_limit_s, CAST(CASE WHEN j.checkpointable THEN 1 ELSE 0 END AS BIGINT), \
         a.stop_requested_at, a.drain_for, j.attained_gpu_s FROM allocations a JOIN jobs j ON j.id = a.job_id LEFT JOIN projects p ON p.id = j.project_id \
         WHERE a.ended_at IS NULL ORDER BY a.id"
    );
    for r in sqlx::query(AssertSqlSafe(sql)).bind(now).fetch_all(pool).await? {
        let job: i64 = r.try_get(1)?;
        let node_id: i64 = r.try_get(2)?;
        let node =
            ids.nodes.iter().position(|n| *n == node_id).ok_or_else(|| bad("node", &node_id.to_string()))?;
        let slot = Slot { node: NodeId(node as u32), gpus: r.try_get::<i64, _>(3)? as u64 };
        if let Some(&k) = by_job.get(&job) {
            snap.running[k].slots.push(slot);
            ids.running[k].push(r.try_get(0)?);
            continue;
        }
        let borrowed: Vec<Borrow> = serde_json::from_str(&r.try_get::<String, _>(4)?)
            .map_err(|e| DispatchError::Corrupt(format!("allocation of job {job}: {e}")))?;
        by_job.insert(job, snap.running.len());
        ids.running.push(vec![r.try_get(0)?]);
        snap.running.push(Allocation {
            job: JobId(job as u64),
            group: group(&ids, r.try_get(6)?)?,
            category: category(&r.try_get::<String, _>(7)?)?,
            class: class(&r.try_get::<String, _>(8)?)?,
            model: models.id(r.try_get(9)?),
            slots: vec![slot],
            started_at: r.try_get(5)?,
            time_limit_s: r.try_get::<Option<i64>, _>(10)?.map(|t| t as u64),
            checkpointable: r.try_get::<i64, _>(11)? != 0,
            last_checkpoint_at: None,
            borrowed,
            // Asked to stop, not yet stopped: its GPUs stay held, and its preemptor waits.
            draining_for: r
                .try_get::<Option<i64>, _>(12)?
                .map(|_| r.try_get::<Option<i64>, _>(13).map(|f| JobId(f.unwrap_or(job) as u64)))
                .transpose()?,
            attained_gpu_s: r.try_get::<i64, _>(14)?.max(0) as u64,
            preemptions_today: 0,
        });
    }
    // Time-sharing stops a job at most so often a day: count each running job's recent
    // preemptions (their events, through the index by job).
    if !snap.running.is_empty() {
        let sql = "SELECT e.job_id, COUNT(*) FROM events e WHERE e.kind = 'preempted' AND e.at > $1 \
                   AND e.job_id IN (SELECT a.job_id FROM allocations a WHERE a.ended_at IS NULL) GROUP BY e.job_id";
        for r in sqlx::query(sql).bind(now - 86_400).fetch_all(pool).await? {
            let job: i64 = r.try_get(0)?;
            if let Some(&k) = by_job.get(&job) {
                snap.running[k].preemptions_today = r.try_get::<i64, _>(1)?.max(0) as u32;
            }
        }
    }
    let sql = format!(
        "SELECT j.id, j.group_id, j.category, {PLANNED_CLASS}, j.gpus, j.model, j.topology, j.time_limit_s, \
         CAST(CASE WHEN j.checkpointable THEN 1 ELSE 0 END AS BIGINT), j.submitted_at, j.queued_at, \
         j.attained_gpu_s, j.reason, j.queue_rank, j.estimated_start, j.wait_kind FROM jobs j \
         LEFT JOIN projects p ON p.id = j.project_id WHERE j.state = 'pending' ORDER BY j.id"
    );
    for r in sqlx::query(AssertSqlSafe(sql)).bind(now).fetch_all(pool).await? {
        snap.pending.push(Job {
            id: JobId(r.try_get::<i64, _>(0)? as u64),
            group: group(&ids, r.try_get(1)?)?,
            category: category(&r.try_get::<String, _>(2)?)?,
            class: class(&r.try_get::<String, _>(3)?)?,
            gpus: r.try_get::<i64, _>(4)?.max(0) as u32,
            model: models.id(r.try_get(5)?),
            topology: topology(&r.try_get::<String, _>(6)?)?,
            time_limit_s: r.try_get::<Option<i64>, _>(7)?.map(|t| t as u64),
            checkpointable: r.try_get::<i64, _>(8)? != 0,
            submitted_at: r.try_get(9)?,
            queued_at: r.try_get(10)?,
            attained_gpu_s: r.try_get::<i64, _>(11)?.max(0) as u64,
        });
        ids.shown.push(Shown {
            reason: r.try_get(12)?,
            rank: r.try_get(13)?,
            estimate: r.try_get(14)?,
            wait_kind: r.try_get(15)?,
        });
    }
    snap.models = models.0;
    Ok((snap, ids))
}
