//! The built-in policies: the defaults the WASM modules reproduce, and the fallback that
//! answers whenever a module cannot.

use crate::model::{Allocation, Borrow, Job, PriorityClass, Time};
use crate::policy::{Policies, Verdict};
use crate::quota::{Ledger, QuotaRefusal};
use crate::reason::Reason;
use crate::snapshot::Snapshot;

/// Default priority, as a sort key packed into one integer:
/// 1. class (critical first), where a job that has waited `promote_after_s` climbs one
///    class at a time up to normal, so batch work is never starved for good;
/// 2. aging: whole `aging_step_s` steps waited, so no job waits behind newer ones forever;
/// 3. least attained service: GPU-minutes already received, fewest first, so a new
///    experiment starts ahead of a job that has already run for days (P1, Tiresias).
#[derive(Clone, Debug, PartialEq)]
pub struct NativePriority {
    pub aging_step_s: u64,
    pub promote_after_s: u64,
}

impl Default for NativePriority {
    fn default() -> Self {
        NativePriority { aging_step_s: 3600, promote_after_s: 12 * 3600 }
    }
}

impl NativePriority {
    pub fn score(&self, job: &Job, now: Time) -> i64 {
        let waited = (now - job.queued_at).max(0) as u64;
        let class = if job.class == PriorityClass::Critical {
            PriorityClass::Critical as u64
        } else {
            let promoted = job.class as u64 + waited / self.promote_after_s.max(1);
            promoted.min(PriorityClass::Normal as u64)
        };
        let level = (waited / self.aging_step_s.max(1)).min(0xFFFF);
        let attained_min = (job.attained_gpu_s / 60).min(0xFFFF_FFFF);
        ((class << 56) | (level << 40) | (0xFFFF_FFFF - attained_min)) as i64
    }
}

/// First come, first served: every job scores the same, so the cycle's tie-break
/// (submission time, then id) is the order. Today's practice, kept for comparison.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FifoPriority;

/// Default quota: in priority order, first every job that fits its group's own guarantee,
/// then the rest on idle GPUs of other groups under approved loans. Guarantees are
/// served first so a lender's own work is never refused because a borrower came earlier.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NativeQuota;

impl NativeQuota {
    pub fn verdicts(&self, snap: &Snapshot, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
        let mut ledger = ledger.clone();
        let mut verdicts: Vec<Option<Verdict>> = vec![None; order.len()];
        for (k, &i) in order.iter().enumerate() {
            let job = &snap.pending[i as usize];
            if ledger.own_headroom(job).is_some_and(|h| h >= job.gpus) {
                verdicts[k] = Some(admit(&mut ledger, snap, job, Vec::new()));
            }
        }
        for (k, &i) in order.iter().enumerate() {
            if verdicts[k].is_none() {
                verdicts[k] = Some(borrow(&mut ledger, snap, &snap.pending[i as usize]));
            }
        }
        verdicts.into_iter().map(|v| v.expect("both passes decide every job")).collect()
    }
}

fn expected_gpu_h(snap: &Snapshot, job: &Job) -> f64 {
    f64::from(job.gpus) * snap.time_limit_s(job) as f64 / 3600.0
}

fn admit(ledger: &mut Ledger, snap: &Snapshot, job: &Job, borrowed: Vec<Borrow>) -> Verdict {
    match ledger.admit(job, &borrowed, expected_gpu_h(snap, job)) {
        Ok(()) => Verdict::Admit { borrowed },
        Err(refusal) => Verdict::Hold(Reason::from_refusal(refusal, job.gpus)),
    }
}

fn borrow(ledger: &mut Ledger, snap: &Snapshot, job: &Job) -> Verdict {
    let Some(own) = ledger.own_headroom(job) else { return Verdict::Hold(Reason::NoQuota) };
    let mut need = job.gpus.saturating_sub(own);
    let headroom = ledger.borrow_headroom(job);
    if need > headroom {
        let quota = ledger.quota(job.group, job.model, job.category);
        let limit = quota.and_then(|q| q.borrow_limit).unwrap_or(0);
        let refusal = QuotaRefusal::BorrowLimit { limit, borrowed: limit.saturating_sub(headroom) };
        return Verdict::Hold(Reason::from_refusal(refusal, job.gpus));
    }
    let mut borrowed = Vec::new();
    for (i, loan) in ledger.loans().iter().enumerate() {
        if need == 0 {
            break;
        }
        if !loan.serves(job.group) || loan.model != job.model {
            continue;
        }
        // Two loans of one lender share its idle GPUs: subtract what this job already took.
        let taken: u32 = borrowed
            .iter()
            .filter(|b: &&Borrow| ledger.loans().iter().any(|l| l.id == b.loan && l.lender == loan.lender))
            .map(|b| b.gpus)
            .sum();
        let take = ledger.loan_available(i).saturating_sub(taken).min(need);
        if take > 0 {
            borrowed.push(Borrow { loan: loan.id, gpus: take });
            need -= take;
        }
    }
    if need > 0 {
        let quota = ledger.quota(job.group, job.model, job.category).expect("headroom implies a row");
        return Verdict::Hold(Reason::OverQuota {
            requested: job.gpus,
            guaranteed: quota.guaranteed,
            used: quota.guaranteed - own,
        });
    }
    admit(ledger, snap, job, borrowed)
}

/// Default reclaim order, lowest first: borrowers before jobs on their own guarantee,
/// then the lowest class, then the least work lost since the last checkpoint.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct NativeReclaim;

impl NativeReclaim {
    pub fn score(&self, a: &Allocation, now: Time) -> i64 {
        Self::score_parts(!a.borrowed.is_empty(), a.class, a.work_at_risk_gpu_s(now))
    }

    /// The score from the three facts it depends on (what a policy module receives).
    pub fn score_parts(borrowing: bool, class: PriorityClass, work_at_risk_gpu_s: u64) -> i64 {
        let own = u64::from(!borrowing);
        let at_risk = work_at_risk_gpu_s.min((1 << 58) - 1);
        ((own << 62) | ((class as u64) << 58) | at_risk) as i64
    }
}

/// Which priority rule [`NativePolicies`] uses.
#[derive(Clone, Debug, PartialEq)]
pub enum PriorityRule {
    Default(NativePriority),
    Fifo(FifoPriority),
}

/// The built-in policy set.
#[derive(Clone, Debug, PartialEq)]
pub struct NativePolicies {
    pub priority: PriorityRule,
    pub quota: NativeQuota,
    pub reclaim: NativeReclaim,
}

impl Default for NativePolicies {
    fn default() -> Self {
        NativePolicies {
            priority: PriorityRule::Default(NativePriority::default()),
            quota: NativeQuota,
            reclaim: NativeReclaim,
        }
    }
}

impl NativePolicies {
    pub fn fifo() -> Self {
        NativePolicies { priority: PriorityRule::Fifo(FifoPriority), ..Self::default() }
    }
}

impl Policies for NativePolicies {
    fn priority(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        match &self.priority {
            PriorityRule::Default(p) => snap.pending.iter().map(|j| p.score(j, now)).collect(),
            PriorityRule::Fifo(_) => vec![0; snap.pending.len()],
        }
    }

    fn quota(&self, snap: &Snapshot, _now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
        self.quota.verdicts(snap, order, ledger)
    }

    fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        snap.running.iter().map(|a| self.reclaim.score(a, now)).collect()
    }

    fn version(&self) -> String {
        match self.priority {
            PriorityRule::Default(_) => "native/default".into(),
            PriorityRule::Fifo(_) => "native/fifo".into(),
        }
    }
}
