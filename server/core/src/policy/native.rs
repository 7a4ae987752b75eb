//! The built-in policies: the defaults the WASM modules reproduce, and the fallback that
//! answers whenever a module cannot.

use crate::model::{Allocation, Borrow, Job, PriorityClass, Time};
use crate::policy::{Policies, Verdict};
use crate::quota::{Ask, Demand, Ledger, QuotaRefusal};
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
        self.score_parts(job.class, now - job.queued_at, job.attained_gpu_s)
    }

    /// The score from the three facts it depends on (what a policy module receives).
    pub fn score_parts(&self, class: PriorityClass, waited_s: i64, attained_gpu_s: u64) -> i64 {
        let waited = waited_s.max(0) as u64;
        let class = if class == PriorityClass::Critical {
            PriorityClass::Critical as u64
        } else {
            let promoted = class as u64 + waited / self.promote_after_s.max(1);
            promoted.min(PriorityClass::Normal as u64)
        };
        let level = (waited / self.aging_step_s.max(1)).min(0xFFFF);
        let attained_min = (attained_gpu_s / 60).min(0xFFFF_FFFF);
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
        let asks: Vec<(Ask, f64)> = order
            .iter()
            .map(|&i| {
                let job = &snap.pending[i as usize];
                (job.ask(), snap.expected_gpu_h(job))
            })
            .collect();
        self.decide(&asks, snap.models.len(), ledger)
    }

    /// The rule on bare asks, in priority order, each with what its run may cost in
    /// GPU-hours (for the budget). `models` is the number of GPU models.
    pub fn decide(&self, asks: &[(Ask, f64)], models: usize, ledger: &Ledger) -> Vec<Verdict> {
        let mut ledger = ledger.clone();
        // Filled in place (no second vector): `decided` marks the first pass's answers.
        let mut verdicts: Vec<Verdict> = vec![Verdict::Hold(Reason::NoQuota); asks.len()];
        let mut decided = vec![false; asks.len()];
        for (k, (ask, cost)) in asks.iter().enumerate() {
            if ledger.own_headroom(ask).is_some_and(|h| h >= ask.gpus) {
                verdicts[k] = admit(&mut ledger, ask, *cost, Vec::new());
                decided[k] = true;
            }
        }
        // What all loans of a model could still lend is an upper bound on what any job can
        // borrow, and it only shrinks within a batch: a job needing more is held at once,
        // and the bound is recounted only after a job actually borrows.
        let mut lendable: Vec<Option<u32>> = vec![None; models];
        for (k, (ask, cost)) in asks.iter().enumerate() {
            if decided[k] {
                continue;
            }
            let m = ask.model.0 as usize;
            let need = ask.gpus.saturating_sub(ledger.own_headroom(ask).unwrap_or(0));
            let bound = match lendable.get_mut(m) {
                Some(b) => *b.get_or_insert_with(|| total_lendable(&ledger, ask.model)),
                None => 0,
            };
            let verdict = if need > bound && ledger.quota(ask.group, ask.model, ask.category).is_some() {
                over_quota(&ledger, ask)
            } else {
                let v = borrow(&mut ledger, ask, *cost);
                if matches!(&v, Verdict::Admit { borrowed } if !borrowed.is_empty()) {
                    lendable[m] = None;
                }
                v
            };
            verdicts[k] = verdict;
        }
        verdicts
    }
}

/// GPUs all active loans of `model` could still lend (two loans of one lender may count
/// the same idle GPUs twice: an upper bound, not an offer).
fn total_lendable(ledger: &Ledger, model: crate::model::ModelId) -> u32 {
    let loans = ledger.loans().iter().enumerate().filter(|(_, l)| l.model == model);
    loans.map(|(i, _)| ledger.loan_available(i)).sum()
}

fn admit(ledger: &mut Ledger, ask: &Ask, cost: f64, borrowed: Vec<Borrow>) -> Verdict {
    match ledger.admit(ask, &borrowed, cost) {
        Ok(()) => Verdict::Admit { borrowed },
        Err(refusal) => Verdict::Hold(Reason::from_refusal(refusal, ask.gpus)),
    }
}

fn borrow(ledger: &mut Ledger, ask: &Ask, cost: f64) -> Verdict {
    let Some(own) = ledger.own_headroom(ask) else { return Verdict::Hold(Reason::NoQuota) };
    let mut need = ask.gpus.saturating_sub(own);
    let headroom = ledger.borrow_headroom(ask);
    if need > headroom {
        let quota = ledger.quota(ask.group, ask.model, ask.category);
        let limit = quota.and_then(|q| q.borrow_limit).unwrap_or(0);
        let refusal = QuotaRefusal::BorrowLimit { limit, borrowed: limit.saturating_sub(headroom) };
        return Verdict::Hold(Reason::from_refusal(refusal, ask.gpus));
    }
    let mut borrowed = Vec::new();
    for (i, loan) in ledger.loans().iter().enumerate() {
        if need == 0 {
            break;
        }
        if !loan.serves(ask.group) || loan.model != ask.model {
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
        return over_quota(ledger, ask);
    }
    admit(ledger, ask, cost, borrowed)
}

/// Held over quota (the cycle fills in the figures from its own ledger).
fn over_quota(ledger: &Ledger, ask: &Ask) -> Verdict {
    match ledger.quota(ask.group, ask.model, ask.category) {
        None => Verdict::Hold(Reason::NoQuota),
        Some(q) => Verdict::Hold(Reason::OverQuota {
            requested: ask.gpus,
            guaranteed: q.guaranteed,
            used: q.guaranteed - ledger.own_headroom(ask).unwrap_or(0),
        }),
    }
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
