//! Hard boundaries (Q3, Q4): a group that holds more of its own guarantee than an admin
//! now allows (a cut guarantee), or whose running jobs would carry its spend past the
//! monthly budget, is brought back inside in one cycle. The reclaim policy orders who
//! leaves (by default: least work since a checkpoint first, then the newest); each leaves
//! through a graceful stop, is requeued, and waits with the reason of its boundary.
//!
//! Unlike preemption for a waiting job, no minimum runtime protects anyone here: the
//! boundary is the organisation's rule, not one job's claim against another.

use crate::cycle::Preemption;
use crate::quota::Ledger;
use crate::reason::PreemptReason;
use crate::snapshot::Snapshot;

/// Budgets are compared with this much slack, so rounding never stops a job.
const EPSILON_GPU_H: f64 = 1e-6;

/// What one quota row must shed: GPUs of its own guarantee, and GPU-hours of commitment.
struct Excess {
    gpus: u32,
    gpu_h: f64,
    reason: PreemptReason,
}

/// The rows outside their boundary, with what each must shed.
fn excesses(ledger: &Ledger) -> Vec<(usize, Excess)> {
    let mut out = Vec::new();
    for (row, q) in ledger.quota_rows().iter().enumerate() {
        let held = ledger.own_of_row(row);
        if held > q.guaranteed {
            let reason = PreemptReason::OverGuarantee { guaranteed: q.guaranteed, held };
            out.push((row, Excess { gpus: held - q.guaranteed, gpu_h: 0.0, reason }));
        } else if let Some((budget, committed)) = ledger.budget_of_row(row)
            && committed > budget + EPSILON_GPU_H
        {
            let reason = PreemptReason::OverBudget { budget_gpu_h: budget, committed_gpu_h: committed };
            out.push((row, Excess { gpus: 0, gpu_h: committed - budget, reason }));
        }
    }
    out
}

/// Adds to `out` the stops that bring every row inside its boundary. `order`: running
/// allocations in the reclaim policy's order (first leaves first); called only when some
/// row is outside, so the policy call is made only then.
pub(crate) fn bring_inside(
    snap: &Snapshot,
    now: crate::model::Time,
    ledger: &Ledger,
    order: impl FnOnce() -> Vec<u32>,
    out: &mut Vec<Preemption>,
) {
    let mut rows = excesses(ledger);
    if rows.is_empty() {
        return;
    }
    let mut taken: Vec<bool> = vec![false; snap.running.len()];
    for p in out.iter() {
        taken[p.running_index as usize] = true;
    }
    let default_limit = snap.config.default_time_limit_s;
    for i in order() {
        let a = &snap.running[i as usize];
        if taken[i as usize] || a.draining_for.is_some() {
            continue;
        }
        let Some((_, need)) = rows.iter_mut().find(|(row, _)| {
            let q = &ledger.quota_rows()[*row];
            q.group == a.group && q.model == a.model && q.category == a.category
        }) else {
            continue;
        };
        let own = a.gpu_count().saturating_sub(a.borrowed_gpus());
        let cost = a.remaining_gpu_h(now, default_limit);
        let helps = (need.gpus > 0 && own > 0) || (need.gpu_h > EPSILON_GPU_H && cost > 0.0);
        if !helps {
            continue;
        }
        need.gpus = need.gpus.saturating_sub(own);
        need.gpu_h -= cost;
        taken[i as usize] = true;
        out.push(Preemption { job: a.job, running_index: i, reason: need.reason.clone() });
        rows.retain(|(_, n)| n.gpus > 0 || n.gpu_h > EPSILON_GPU_H);
        if rows.is_empty() {
            break;
        }
    }
}
