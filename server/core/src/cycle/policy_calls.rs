//! The cycle's three policy calls, each made once, checked, and answered by the built-in
//! policy when the answer has the wrong shape; a quota admission that breaks a quota
//! rule is refused whatever policy gave it.

use std::cmp::Reverse;

use crate::model::{JobId, PriorityClass, Time};
use crate::policy::{NativePolicies, Policies, Verdict};
use crate::quota::Ledger;
use crate::reason::Reason;
use crate::snapshot::Snapshot;

/// Step 2: the queue in priority order (indices into `pending`); ties by submission
/// time, then id, so any policy gives a deterministic order.
pub(crate) fn priority_order(
    snap: &Snapshot,
    now: Time,
    policies: &dyn Policies,
    faults: &mut Vec<String>,
) -> Vec<u32> {
    let mut scores = policies.priority(snap, now);
    if scores.len() != snap.pending.len() {
        faults.push(format!(
            "priority policy returned {} scores for {} jobs; the built-in policy answered",
            scores.len(),
            snap.pending.len()
        ));
        scores = NativePolicies::default().priority(snap, now);
    }
    let mut keys: Vec<(Reverse<i64>, Time, JobId, u32)> = snap
        .pending
        .iter()
        .zip(&scores)
        .enumerate()
        .map(|(i, (j, &s))| (Reverse(s), j.submitted_at, j.id, i as u32))
        .collect();
    keys.sort_unstable();
    let mut order: Vec<u32> = keys.into_iter().map(|k| k.3).collect();
    if let Some(ts) = snap.config.timeshare.as_ref().filter(|ts| ts.order_by_queue) {
        // Least attained service first (critical jobs still ahead of all); stable, so the
        // policy's order stands within a queue, except that the later queues may wait
        // first submitted first (a stop must not cost a job its place in line).
        order.sort_by_cached_key(|&i| {
            let job = &snap.pending[i as usize];
            let queue = ts.claim_queue(job, now);
            let fifo = if ts.fifo_in_later_queues && queue > 0 { job.submitted_at } else { 0 };
            (job.class != PriorityClass::Critical, queue, fifo)
        });
    }
    order
}

/// Step 3: one verdict per job of `order`, every admission re-checked on a copy of
/// the ledger in order.
pub(crate) fn checked_verdicts(
    snap: &Snapshot,
    now: Time,
    policies: &dyn Policies,
    order: &[u32],
    ledger: &Ledger,
    faults: &mut Vec<String>,
) -> Vec<Verdict> {
    let mut verdicts = policies.quota(snap, now, order, ledger);
    if verdicts.len() != order.len() {
        faults.push(format!(
            "quota policy returned {} verdicts for {} jobs; the built-in policy answered",
            verdicts.len(),
            order.len()
        ));
        verdicts = NativePolicies::default().quota(snap, now, order, ledger);
    }
    let mut check = ledger.clone();
    for (v, &i) in verdicts.iter_mut().zip(order) {
        let job = &snap.pending[i as usize];
        let expected_gpu_h = snap.expected_gpu_h(job);
        match v {
            Verdict::Admit { borrowed } => {
                if let Err(refusal) = check.admit(job, borrowed, expected_gpu_h) {
                    *v = Verdict::Hold(Reason::from_refusal(refusal, job.gpus));
                }
            }
            Verdict::Hold(reason) => {
                *reason = with_ledger_figures(reason.clone(), job, &check, expected_gpu_h)
            }
        }
    }
    verdicts
}

/// A quota hold with the figures of the cycle's own ledger at this point of the queue,
/// whatever the policy said: what users read must be true.
fn with_ledger_figures(reason: Reason, job: &crate::model::Job, check: &Ledger, needed_gpu_h: f64) -> Reason {
    let quota = check.quota(job.group, job.model, job.category);
    match (reason, quota) {
        (Reason::OverQuota { .. }, Some(q)) => {
            Reason::OverQuota { requested: job.gpus, guaranteed: q.guaranteed, used: check.own_used(job) }
        }
        (Reason::BorrowLimit { .. }, Some(q)) => {
            Reason::BorrowLimit { limit: q.borrow_limit.unwrap_or(0), borrowed: check.borrowed_used(job) }
        }
        (Reason::BudgetExhausted { .. }, Some(_)) => match check.budget(job) {
            Some((budget_gpu_h, spent_gpu_h)) => {
                Reason::BudgetExhausted { budget_gpu_h, spent_gpu_h, needed_gpu_h }
            }
            None => Reason::PolicyRejected { message: "held for budget, but the group has no budget".into() },
        },
        (Reason::OverQuota { .. } | Reason::BorrowLimit { .. } | Reason::BudgetExhausted { .. }, None) => {
            Reason::NoQuota
        }
        (other, _) => other,
    }
}

/// Step 5's one reclaim call: a score per running allocation, lowest preempted first.
pub(crate) fn reclaim_scores(
    snap: &Snapshot,
    now: Time,
    policies: &dyn Policies,
    faults: &mut Vec<String>,
) -> Vec<i64> {
    let scores = policies.reclaim(snap, now);
    if scores.len() == snap.running.len() {
        return scores;
    }
    faults.push(format!(
        "reclaim policy returned {} scores for {} allocations; the built-in policy answered",
        scores.len(),
        snap.running.len()
    ));
    NativePolicies::default().reclaim(snap, now)
}
