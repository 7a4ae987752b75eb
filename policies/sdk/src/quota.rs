//! The quota world: admit or hold the queue, with a ledger to account within the batch.

wit_bindgen::generate!({
    path: "../wit/v1",
    world: "quota-policy",
    pub_export_macro: true,
    export_macro_name: "export_quota",
    default_bindings_module: "tidepool_policy_sdk::quota",
});

pub use exports::tidepool::policy::quota::Guest;
pub use tidepool::policy::types::{
    BorrowLimit, Budget, Category, Context, Hold, Job, Loan, LoanShare, OverQuota, PriorityClass, Quota,
    Verdict,
};

crate::convert_enums!(tidepool::policy::types);
crate::convert_job!();

use crate::core as c;

/// The core's quota row.
pub fn quota(q: &t::Quota) -> c::Quota {
    c::Quota {
        group: c::GroupId(q.group),
        model: c::ModelId(q.model as u16),
        category: category(q.category),
        guaranteed: q.guaranteed,
        borrow_limit: q.borrow_limit,
        lend_limit: q.lend_limit,
        budget_gpu_h: q.budget_gpu_h,
        spent_gpu_h: q.spent_gpu_h,
    }
}

/// The core's loan (the host sends active loans only).
pub fn loan(l: &t::Loan) -> c::Loan {
    c::Loan {
        id: c::LoanId(l.id),
        lender: c::GroupId(l.lender),
        borrower: l.borrower.map(c::GroupId),
        model: c::ModelId(l.model as u16),
        gpus: l.gpus,
        ends_at: None,
    }
}

/// A snapshot holding the batch as its queue, in the order given, and the ledger of
/// what running jobs use: everything the core's quota logic needs.
pub fn batch(ctx: &Context, jobs: &[Job], quotas: &[Quota], loans: &[Loan]) -> (c::Snapshot, c::Ledger) {
    let snap = c::Snapshot {
        models: ctx.models.clone(),
        groups: ctx.groups.iter().map(|name| c::Group { name: name.clone() }).collect(),
        quotas: quotas.iter().map(quota).collect(),
        loans: loans.iter().map(loan).collect(),
        pending: jobs.iter().map(job).collect(),
        config: c::CycleConfig {
            default_time_limit_s: ctx.default_time_limit_s,
            ..c::CycleConfig::default()
        },
        ..c::Snapshot::default()
    };
    let usage: Vec<(u32, u32)> = quotas.iter().map(|q| (q.used_own, q.used_borrowed)).collect();
    let loan_used: Vec<u32> = loans.iter().map(|l| l.used).collect();
    let ledger = c::Ledger::from_usage(
        snap.groups.len(),
        snap.models.len(),
        &snap.quotas,
        &usage,
        &snap.loans,
        &loan_used,
    );
    (snap, ledger)
}

/// The interface verdict for a core verdict.
pub fn verdict(v: c::Verdict) -> Verdict {
    match v {
        c::Verdict::Admit { borrowed } => {
            Verdict::Admit(borrowed.into_iter().map(|b| LoanShare { loan: b.loan.0, gpus: b.gpus }).collect())
        }
        c::Verdict::Hold(reason) => Verdict::Hold(match reason {
            c::Reason::NoQuota => Hold::NoQuota,
            c::Reason::OverQuota { requested, guaranteed, used } => {
                Hold::OverQuota(OverQuota { requested, guaranteed, used })
            }
            c::Reason::BorrowLimit { limit, borrowed } => Hold::BorrowLimit(BorrowLimit { limit, borrowed }),
            c::Reason::BudgetExhausted { budget_gpu_h, spent_gpu_h, needed_gpu_h } => {
                Hold::Budget(Budget { budget_gpu_h, spent_gpu_h, needed_gpu_h })
            }
            other => Hold::Other(other.to_string()),
        }),
    }
}
