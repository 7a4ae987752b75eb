//! The figures a replay compares, computed the same way for what happened and for each
//! simulated run: average JCT, waits overall and by group and class (p50/p99),
//! preemptions, and each group's GPU-hours against its guarantee and budget.
//! Wait is as the simulator counts it: completion minus submission minus time holding GPUs.

use std::collections::BTreeMap;

use tidepool_api::replays::{ReplayFigures, ReplayShare, ReplayWaits};

use crate::replay::history::Recorded;
use crate::replay::run::Entitlement;
use crate::sim::report::nearest_rank;

/// How one job went, in one of the compared runs.
#[derive(Clone, Copy, Debug, Default)]
pub struct Went {
    pub finished_at: Option<i64>,
    pub run_s: u64,
    pub preemptions: u32,
}

fn round(x: f64, places: i32) -> f64 {
    let f = 10f64.powi(places);
    (x * f).round() / f
}

fn quantile(sorted: &[u64], q: f64) -> f64 {
    nearest_rank(sorted, q).map_or(0.0, |v| v as f64)
}

fn mean(values: &[u64]) -> f64 {
    if values.is_empty() {
        0.0
    } else {
        round(values.iter().map(|&v| v as f64).sum::<f64>() / values.len() as f64, 1)
    }
}

/// The figures of `went` (one entry per job of `jobs`), labelled `label`.
pub fn figures(
    label: String,
    jobs: &[Recorded],
    went: &[Went],
    entitled: &BTreeMap<String, Entitlement>,
) -> ReplayFigures {
    let mut jcts = Vec::new();
    let mut waits = Vec::new();
    let mut by_kind: BTreeMap<(&str, &str), Vec<u64>> = BTreeMap::new();
    let mut gpu_s: BTreeMap<&str, u128> = BTreeMap::new();
    let mut preemptions = 0u64;
    for (job, w) in jobs.iter().zip(went) {
        preemptions += u64::from(w.preemptions);
        *gpu_s.entry(job.group.as_str()).or_default() += u128::from(w.run_s) * u128::from(job.gpus);
        let Some(end) = w.finished_at else { continue };
        let jct = (end - job.submitted_at).max(0) as u64;
        let wait = jct.saturating_sub(w.run_s);
        jcts.push(jct);
        waits.push(wait);
        by_kind.entry((job.group.as_str(), job.class.as_str())).or_default().push(wait);
    }
    waits.sort_unstable();
    let total_gpu_s: u128 = gpu_s.values().sum();
    let total_guaranteed: u64 = entitled.values().map(|e| e.guaranteed).sum();
    let shares = entitled
        .iter()
        .filter(|(name, e)| gpu_s.contains_key(name.as_str()) || e.guaranteed > 0)
        .map(|(name, e)| {
            let used = gpu_s.get(name.as_str()).copied().unwrap_or(0);
            ReplayShare {
                group: name.clone(),
                gpu_h: round(used as f64 / 3600.0, 2),
                share: if total_gpu_s == 0 { 0.0 } else { round(used as f64 / total_gpu_s as f64, 3) },
                guaranteed_share: if total_guaranteed == 0 {
                    0.0
                } else {
                    round(e.guaranteed as f64 / total_guaranteed as f64, 3)
                },
                budget_gpu_h: e.budget_gpu_h,
            }
        })
        .collect();
    ReplayFigures {
        label,
        finished: jcts.len() as u64,
        avg_jct_s: mean(&jcts),
        avg_wait_s: mean(&waits),
        p50_wait_s: quantile(&waits, 0.5),
        p99_wait_s: quantile(&waits, 0.99),
        preemptions,
        waits: by_kind
            .into_iter()
            .map(|((group, class), mut w)| {
                w.sort_unstable();
                ReplayWaits {
                    group: group.into(),
                    class: class.into(),
                    finished: w.len() as u64,
                    p50_wait_s: quantile(&w, 0.5),
                    p99_wait_s: quantile(&w, 0.99),
                }
            })
            .collect(),
        shares,
    }
}

/// What really happened to each job, as the records tell it.
pub fn recorded(jobs: &[Recorded]) -> Vec<Went> {
    jobs.iter()
        .map(|j| Went { finished_at: j.finished_at, run_s: j.run_s, preemptions: j.preemptions })
        .collect()
}
