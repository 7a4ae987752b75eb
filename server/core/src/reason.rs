//! Why a job is not running, in words a person can act on ("why is my job pending").

use std::fmt;

use serde::{Deserialize, Serialize};

use crate::model::{JobId, LoanId, Time};
use crate::quota::QuotaRefusal;

/// The reason attached to every job a cycle leaves pending.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Reason {
    /// The group has no quota row for this GPU model and category.
    NoQuota,
    /// Above the group's guarantee and no loan has idle GPUs to cover it. `used` counts
    /// running jobs and the group's jobs admitted ahead in this cycle.
    OverQuota { requested: u32, guaranteed: u32, used: u32 },
    /// Borrowing more would pass the group's borrowing limit.
    BorrowLimit { limit: u32, borrowed: u32 },
    /// Running would overspend the monthly GPU-hour budget (Q3).
    BudgetExhausted { budget_gpu_h: f64, spent_gpu_h: f64, needed_gpu_h: f64 },
    /// Asks for more than the pool could ever offer in the required shape.
    Infeasible { requested: u32, largest: u32 },
    /// Not enough free GPUs of the model.
    NoCapacity { requested: u32, free: u32 },
    /// Enough free GPUs, but not in the shape the job needs (one node, one NVLink domain).
    Fragmented { requested: u32, free: u32 },
    /// The highest blocked job: GPUs are reserved for it from `start_at`.
    Reserved { start_at: Time },
    /// Would fit now, but would delay the reserved start of a higher job (backfill rule).
    WouldDelay { job: JobId, start_at: Time },
    /// Strict first-come-first-served: an earlier job is waiting.
    QueuedBehind { job: JobId },
    /// GPUs are being freed for this job by preempting `victims` allocations.
    AwaitingPreemption { victims: u32 },
    /// The quota policy held the job with its own explanation.
    PolicyHold { message: String },
    /// The quota policy admitted the job, but the admission broke a quota rule; refused.
    PolicyRejected { message: String },
}

impl Reason {
    pub(crate) fn from_refusal(refusal: QuotaRefusal, requested: u32) -> Reason {
        match refusal {
            QuotaRefusal::NoQuota => Reason::NoQuota,
            QuotaRefusal::OverGuarantee { guaranteed, used } => {
                Reason::OverQuota { requested, guaranteed, used }
            }
            QuotaRefusal::BorrowLimit { limit, borrowed } => Reason::BorrowLimit { limit, borrowed },
            QuotaRefusal::Budget { budget_gpu_h, spent_gpu_h, needed_gpu_h } => {
                Reason::BudgetExhausted { budget_gpu_h, spent_gpu_h, needed_gpu_h }
            }
            QuotaRefusal::BadLoan { loan } => Reason::PolicyRejected {
                message: format!("loan {} is not active for this group and model", loan.0),
            },
            QuotaRefusal::LoanExhausted { loan } => {
                Reason::PolicyRejected { message: format!("loan {} has no idle GPUs left", loan.0) }
            }
        }
    }
}

/// The kinds a job's wait history distinguishes (D2): coarse enough that a queue's
/// normal churn (reserved, then behind a reservation, then short of GPUs) stays one span,
/// fine enough to say what a person would change (quota, loan, budget, shape).
pub const WAIT_KINDS: [(&str, &str); 7] = [
    ("quota", "over the group's quota, no loan available"),
    ("borrowing", "at the group's borrowing limit"),
    ("budget", "the monthly budget"),
    ("capacity", "waiting for free GPUs"),
    ("order", "behind an earlier job (first come, first served)"),
    ("infeasible", "asks for more than the pool has"),
    ("policy", "held by the quota policy"),
];

impl Reason {
    /// This reason's kind in the wait history: one of [`WAIT_KINDS`].
    pub fn wait_kind(&self) -> &'static str {
        match self {
            Reason::NoQuota | Reason::OverQuota { .. } => "quota",
            Reason::BorrowLimit { .. } => "borrowing",
            Reason::BudgetExhausted { .. } => "budget",
            Reason::NoCapacity { .. }
            | Reason::Fragmented { .. }
            | Reason::Reserved { .. }
            | Reason::WouldDelay { .. }
            | Reason::AwaitingPreemption { .. } => "capacity",
            Reason::QueuedBehind { .. } => "order",
            Reason::Infeasible { .. } => "infeasible",
            Reason::PolicyHold { .. } | Reason::PolicyRejected { .. } => "policy",
        }
    }
}

/// The words for a wait kind (the kind itself when unknown, e.g. from a newer release).
pub fn wait_kind_label(kind: &str) -> &str {
    WAIT_KINDS.iter().find(|(k, _)| *k == kind).map_or(kind, |(_, label)| label)
}

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::NoQuota => write!(f, "the group has no quota for this GPU model and category"),
            Reason::OverQuota { requested, guaranteed, used } => write!(
                f,
                "over quota: needs {requested} GPUs; {used} of the group's {guaranteed} guaranteed are in \
                 use or promised to its jobs ahead in the queue, and no approved loan has idle GPUs"
            ),
            Reason::BorrowLimit { limit, borrowed } => {
                write!(f, "borrowing limit reached: {borrowed} of {limit} GPUs borrowed")
            }
            Reason::BudgetExhausted { budget_gpu_h, spent_gpu_h, needed_gpu_h } => write!(
                f,
                "monthly budget: {spent_gpu_h:.1} of {budget_gpu_h:.1} GPU-hours spent or held by \
                 running jobs, this run may need {needed_gpu_h:.1}"
            ),
            Reason::Infeasible { requested, largest } => write!(
                f,
                "can never run: needs {requested} GPUs, the largest possible placement is {largest}"
            ),
            Reason::NoCapacity { requested, free } => {
                write!(f, "waiting for GPUs: needs {requested}, {free} free")
            }
            Reason::Fragmented { requested, free } => write!(
                f,
                "waiting for GPUs in one place: needs {requested} together, {free} free but scattered"
            ),
            Reason::Reserved { start_at } => {
                write!(f, "next in line: GPUs reserved from t={start_at}")
            }
            Reason::WouldDelay { job, start_at } => write!(
                f,
                "would delay job {} reserved to start at t={start_at}; a shorter time limit could backfill",
                job.0
            ),
            Reason::QueuedBehind { job } => write!(f, "first come, first served: behind job {}", job.0),
            Reason::AwaitingPreemption { victims } => {
                write!(f, "GPUs are being freed for this job ({victims} jobs yielding)")
            }
            Reason::PolicyHold { message } => write!(f, "held by the quota policy: {message}"),
            Reason::PolicyRejected { message } => {
                write!(f, "quota policy answer refused: {message}")
            }
        }
    }
}

/// Why a running job is stopped.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum PreemptReason {
    /// The lender's own job needs its guarantee back (B1, Q4).
    ReturnToLender { for_job: JobId },
    /// A higher class needs the GPUs (P1).
    HigherClass { for_job: JobId },
    /// The loan this job borrowed under has ended (B1).
    LoanEnded { loan: LoanId },
    /// Its group holds more of its own guarantee than the guarantee now allows (an
    /// admin cut it): the hard boundary (Q4).
    OverGuarantee { guaranteed: u32, held: u32 },
    /// Its group's running jobs would overrun the monthly budget: what is spent plus
    /// what they may still use passes it (Q3).
    OverBudget { budget_gpu_h: f64, committed_gpu_h: f64 },
    /// Time-sharing: a job of the same group and class that has received less GPU time
    /// takes a turn; this one resumes from its checkpoint later.
    TimeShare { for_job: JobId, attained_gpu_s: u64, for_attained_gpu_s: u64 },
}

impl fmt::Display for PreemptReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PreemptReason::ReturnToLender { for_job } => {
                write!(f, "borrowed GPUs returned to their owner for job {}", for_job.0)
            }
            PreemptReason::HigherClass { for_job } => {
                write!(f, "yielding to higher-priority job {}", for_job.0)
            }
            PreemptReason::LoanEnded { loan } => write!(f, "loan {} has ended", loan.0),
            PreemptReason::OverGuarantee { guaranteed, held } => {
                write!(f, "the group holds {held} GPUs of its own, above its guarantee of {guaranteed}")
            }
            PreemptReason::OverBudget { budget_gpu_h, committed_gpu_h } => write!(
                f,
                "the monthly budget of {budget_gpu_h:.1} GPU-hours would be passed: {committed_gpu_h:.1} \
                 spent or held by running jobs"
            ),
            PreemptReason::TimeShare { for_job, attained_gpu_s, for_attained_gpu_s } => write!(
                f,
                "taking turns: it has had {:.1} GPU-hours, job {} only {:.1}; it resumes from its checkpoint",
                *attained_gpu_s as f64 / 3600.0,
                for_job.0,
                *for_attained_gpu_s as f64 / 3600.0
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_reason_has_a_named_wait_kind_and_churn_stays_one_kind() {
        let reasons = [
            Reason::NoQuota,
            Reason::OverQuota { requested: 8, guaranteed: 8, used: 8 },
            Reason::BorrowLimit { limit: 4, borrowed: 4 },
            Reason::BudgetExhausted { budget_gpu_h: 1.0, spent_gpu_h: 1.0, needed_gpu_h: 2.0 },
            Reason::Infeasible { requested: 9, largest: 8 },
            Reason::NoCapacity { requested: 2, free: 1 },
            Reason::Fragmented { requested: 2, free: 2 },
            Reason::Reserved { start_at: 10 },
            Reason::WouldDelay { job: JobId(1), start_at: 10 },
            Reason::QueuedBehind { job: JobId(1) },
            Reason::AwaitingPreemption { victims: 1 },
            Reason::PolicyHold { message: "m".into() },
            Reason::PolicyRejected { message: "m".into() },
        ];
        for r in &reasons {
            assert_ne!(wait_kind_label(r.wait_kind()), r.wait_kind(), "{r}");
        }
        // A queue's churn at the head (short of GPUs, reserved, behind a reservation) is one span.
        assert_eq!(reasons[5].wait_kind(), reasons[7].wait_kind());
        assert_eq!(reasons[7].wait_kind(), reasons[8].wait_kind());
        assert_ne!(reasons[1].wait_kind(), reasons[5].wait_kind());
        assert_eq!(wait_kind_label("newer"), "newer");
    }
}
