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
                "monthly budget: {spent_gpu_h:.1} of {budget_gpu_h:.1} GPU-hours spent, \
                 this run may need {needed_gpu_h:.1}"
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
        }
    }
}
