//! Conformance vectors: snapshots every module must answer well before it is accepted
//! (shipped with the tooling, run by upload validation and `tidepool policy test`).
//! They check the contract, not taste: an answer for every input, the same answer
//! twice, and for quota modules no admission that breaks a quota rule.

use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{PriorityClass, Snapshot, Time};

use crate::policy::runtime::{Module, Runtime};
use crate::policy::{Kind, convert};

const NOW: Time = 200_000;

/// The vectors: name and snapshot.
pub fn vectors() -> Vec<(&'static str, Snapshot)> {
    let small = cluster()
        .nvlink_nodes(4, 8, 4)
        .group("vision", 16)
        .group("speech", 8)
        .group("robotics", 8)
        .open_loans()
        .running(alloc(1).group(0).on(0, 0xFF).started(NOW - 7200).limit(86_400))
        .running(alloc(2).group(1).on(1, 0x0F).started(NOW - 60).checkpoint(NOW - 30))
        .running(
            alloc(3).group(2).class(PriorityClass::Batch).on(1, 0xF0).started(NOW - 9000).borrowed(1000, 4),
        )
        .pending(job(10).group(0).gpus(8).at(NOW - 600))
        .pending(job(11).group(1).gpus(2).class(PriorityClass::Critical).at(NOW - 5))
        .pending(job(12).group(2).gpus(16).at(NOW - 86_400).attained(3_600_000))
        .pending(job(13).group(2).gpus(1).class(PriorityClass::Experiment).limit(600).at(NOW - 100))
        .pending(job(14).group(0).gpus(4).class(PriorityClass::Batch).at(NOW - 40_000))
        .build();
    let budgets = cluster()
        .nodes(2, 8)
        .group("a", 8)
        .group("b", 8)
        .quota(0, |q| {
            q.budget_gpu_h = Some(100.0);
            q.spent_gpu_h = 95.0;
        })
        .quota(1, |q| q.borrow_limit = Some(2))
        .loan(7, 0, Some(1), 4)
        .pending(job(20).group(0).gpus(1).limit(3600).at(NOW - 10))
        .pending(job(21).group(1).gpus(12).at(NOW - 10))
        .pending(job(22).group(1).gpus(9).at(NOW - 20))
        .build();
    vec![
        ("empty", cluster().nodes(1, 8).group("a", 8).build()),
        ("small", small),
        ("budgets-and-limits", budgets),
        ("large", crate::bench::synthetic(200, 8, 5_000, 8, 0.75, 7)),
    ]
}

/// One result per vector and check: `None` passed, `Some(why)` failed.
pub fn results(runtime: &Runtime, module: &Module) -> Vec<(String, Option<String>)> {
    let mut out = Vec::new();
    for (name, snap) in vectors() {
        let first = answer(runtime, module, &snap);
        let check = |r: &Result<String, String>| r.as_ref().err().cloned();
        out.push((format!("{name}: answers"), check(&first)));
        if let Ok(a) = &first {
            let again = answer(runtime, module, &snap);
            let same = match again {
                Ok(b) if &b == a => None,
                Ok(_) => Some("a second call on the same input gave a different answer".into()),
                Err(e) => Some(e),
            };
            out.push((format!("{name}: deterministic"), same));
        }
    }
    out
}

/// The failures only.
pub fn run(runtime: &Runtime, module: &Module) -> Vec<String> {
    results(runtime, module)
        .into_iter()
        .filter_map(|(name, why)| why.map(|w| format!("{name}: {w}")))
        .collect()
}

/// The module's answer on `snap`, rendered for comparison, or why it is unacceptable.
fn answer(runtime: &Runtime, module: &Module, snap: &Snapshot) -> Result<String, String> {
    let ctx = convert::context(snap, NOW);
    let fault = |f: crate::policy::Fault| format!("the module {f}");
    match module.kind {
        Kind::Priority => {
            let jobs = convert::jobs(&snap.pending);
            runtime.priority(module, &ctx, &jobs).map(|s| format!("{s:?}")).map_err(fault)
        }
        Kind::Reclaim => {
            let allocations = convert::allocations(&snap.running, NOW);
            runtime.reclaim(module, &ctx, &allocations).map(|s| format!("{s:?}")).map_err(fault)
        }
        Kind::Quota => {
            let ledger = snap.ledger(NOW);
            let jobs = convert::jobs(&snap.pending);
            let (quotas, loans) = convert::quotas_and_loans(snap, &ledger);
            let order: Vec<u32> = (0..jobs.id.len() as u32).rev().collect();
            let verdicts = runtime.quota(module, &ctx, &jobs, &order, &quotas, &loans).map_err(fault)?;
            let mut check = ledger.clone();
            for (job, verdict) in order.iter().map(|&i| &snap.pending[i as usize]).zip(&verdicts) {
                if let tidepool_core::Verdict::Admit { borrowed } = verdict {
                    let expected = snap.expected_gpu_h(job);
                    check.admit(job, borrowed, expected).map_err(|r| {
                        format!("job {} is admitted against the quota rules ({r:?})", job.id.0)
                    })?;
                }
            }
            Ok(format!("{verdicts:?}"))
        }
    }
}
