//! The simulator's figures, as one JSON object other tools parse (a stable contract).

use std::collections::BTreeMap;

use serde::Serialize;
use tidepool_core::GroupId;

use crate::sim::{JobOutcome, SimConfig, SimJob};

/// Per-group figures.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GroupReport {
    pub jobs: u64,
    pub avg_jct_s: f64,
    pub avg_wait_s: f64,
    pub p99_wait_s: f64,
}

/// Whole-run figures. Wait is time queued, including time requeued after preemption:
/// completion time minus arrival minus time holding GPUs.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Report {
    pub mode: String,
    pub policy: String,
    pub capacity_gpus: u64,
    pub jobs: u64,
    pub skipped: u64,
    pub unschedulable: u64,
    pub completed: u64,
    pub avg_jct_s: f64,
    pub avg_wait_s: f64,
    pub p50_wait_s: f64,
    pub p99_wait_s: f64,
    pub makespan_s: f64,
    pub gpu_utilization: f64,
    pub preemptions: u64,
    pub groups: BTreeMap<String, GroupReport>,
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

/// The nearest-rank `q` quantile of sorted values; `None` when there are none.
pub fn nearest_rank<T: Copy>(sorted: &[T], q: f64) -> Option<T> {
    let rank = ((q * sorted.len() as f64).ceil() as usize).clamp(1, sorted.len().max(1));
    sorted.get(rank - 1).copied()
}

fn percentile(sorted: &[u64], q: f64) -> f64 {
    nearest_rank(sorted, q).map_or(0.0, |v| v as f64)
}

fn mean(values: impl Iterator<Item = u64>) -> f64 {
    let (sum, n) = values.fold((0u128, 0u64), |(s, n), v| (s + u128::from(v), n + 1));
    if n == 0 { 0.0 } else { round(sum as f64 / n as f64, 1) }
}

struct Done {
    jct: u64,
    wait: u64,
}

pub(crate) fn build(
    config: &SimConfig,
    records: &[(GroupId, SimJob, JobOutcome)],
    skipped: u64,
    unschedulable: u64,
    busy_gpu_s: u128,
    preemptions: u64,
    capacity_gpus: u64,
) -> Report {
    let mut per_group: Vec<Vec<Done>> = config.groups.iter().map(|_| Vec::new()).collect();
    let (mut first, mut last) = (i64::MAX, i64::MIN);
    for (group, job, outcome) in records {
        first = first.min(job.arrival);
        if let Some(end) = outcome.finished_at {
            last = last.max(end);
            let jct = (end - job.arrival).max(0) as u64;
            per_group[group.0 as usize].push(Done { jct, wait: jct.saturating_sub(outcome.run_s) });
        }
    }
    let all: Vec<&Done> = per_group.iter().flatten().collect();
    let mut waits: Vec<u64> = all.iter().map(|d| d.wait).collect();
    waits.sort_unstable();
    let makespan = if last > first { (last - first) as f64 } else { 0.0 };
    let utilization = if makespan > 0.0 && capacity_gpus > 0 {
        round(busy_gpu_s as f64 / (capacity_gpus as f64 * makespan), 4)
    } else {
        0.0
    };
    let mut groups = BTreeMap::new();
    for (spec, done) in config.groups.iter().zip(&per_group) {
        let submitted =
            records.iter().filter(|(g, _, _)| config.groups[g.0 as usize].name == spec.name).count();
        if submitted == 0 {
            continue;
        }
        let mut w: Vec<u64> = done.iter().map(|d| d.wait).collect();
        w.sort_unstable();
        groups.insert(
            spec.name.clone(),
            GroupReport {
                jobs: submitted as u64,
                avg_jct_s: mean(done.iter().map(|d| d.jct)),
                avg_wait_s: mean(done.iter().map(|d| d.wait)),
                p99_wait_s: percentile(&w, 0.99),
            },
        );
    }
    Report {
        mode: format!("{:?}", config.mode).to_lowercase(),
        policy: format!("{:?}", config.policy).to_lowercase(),
        capacity_gpus,
        jobs: records.len() as u64 + unschedulable,
        skipped,
        unschedulable,
        completed: all.len() as u64,
        avg_jct_s: mean(all.iter().map(|d| d.jct)),
        avg_wait_s: mean(all.iter().map(|d| d.wait)),
        p50_wait_s: percentile(&waits, 0.5),
        p99_wait_s: percentile(&waits, 0.99),
        makespan_s: makespan,
        gpu_utilization: utilization,
        preemptions,
        groups,
    }
}
