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
    Category, Context, Decisions, Jobs, Loan, LoanShare, Note, Outcome, PriorityClass, Quota,
};

pub use crate::{category, class};
use tidepool::policy::types as t;
crate::convert_job!();

use crate::core as c;

/// The core's quota row.
pub fn quota(q: &t::Quota) -> c::Quota {
    c::Quota {
        group: c::GroupId(q.group),
        model: c::ModelId(q.model as u16),
        category: match q.category {
            t::Category::Training => c::Category::Training,
            t::Category::Inference => c::Category::Inference,
            t::Category::Pretraining => c::Category::Pretraining,
        },
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

/// The ledger of what running jobs use, for accounting within the batch.
pub fn ledger(ctx: &Context, quotas: &[Quota], loans: &[Loan]) -> c::Ledger {
    let rows: Vec<c::Quota> = quotas.iter().map(quota).collect();
    let active: Vec<c::Loan> = loans.iter().map(loan).collect();
    let usage: Vec<(u32, u32)> = quotas.iter().map(|q| (q.used_own, q.used_borrowed)).collect();
    let loan_used: Vec<u32> = loans.iter().map(|l| l.used).collect();
    c::Ledger::from_usage(ctx.groups.len(), ctx.models.len(), &rows, &usage, &active, &loan_used)
}

/// The ask (group, model, category, GPUs) of each job of `order`, and what its run may
/// cost in GPU-hours (its limit, or the default, times its GPUs): what the core's quota
/// rule reads.
pub fn asks(ctx: &Context, jobs: &Jobs, order: &[u32]) -> Vec<(c::Ask, f64)> {
    order
        .iter()
        .map(|&i| {
            let i = i as usize;
            let ask = c::Ask {
                group: c::GroupId(jobs.group[i]),
                model: c::ModelId(jobs.model[i] as u16),
                category: category(jobs.category[i]),
                gpus: jobs.gpus[i],
            };
            let limit =
                if jobs.time_limit_s[i] > 0 { jobs.time_limit_s[i] } else { ctx.default_time_limit_s };
            (ask, f64::from(jobs.gpus[i]) * limit as f64 / 3600.0)
        })
        .collect()
}

/// A snapshot holding the batch as its queue, in the columns' order, and the ledger: for
/// policies that want whole jobs (index it with `order`).
pub fn batch(ctx: &Context, jobs: &Jobs, quotas: &[Quota], loans: &[Loan]) -> (c::Snapshot, c::Ledger) {
    let snap = c::Snapshot {
        models: ctx.models.clone(),
        groups: ctx
            .groups
            .iter()
            .zip(&ctx.group_recent_gpu_h)
            .map(|(name, &recent_gpu_h)| c::Group { name: name.clone(), recent_gpu_h })
            .collect(),
        quotas: quotas.iter().map(quota).collect(),
        loans: loans.iter().map(loan).collect(),
        pending: (0..jobs.id.len()).map(|i| job(jobs, i)).collect(),
        config: c::CycleConfig {
            default_time_limit_s: ctx.default_time_limit_s,
            ..c::CycleConfig::default()
        },
        ..c::Snapshot::default()
    };
    (snap, ledger(ctx, quotas, loans))
}

/// The interface's decisions for the core's verdicts, one per job in batch order.
pub fn decisions(verdicts: Vec<c::Verdict>) -> Decisions {
    let mut out =
        Decisions { outcomes: Vec::with_capacity(verdicts.len()), borrows: Vec::new(), notes: Vec::new() };
    for (i, v) in verdicts.into_iter().enumerate() {
        let job = i as u32;
        let outcome = match v {
            c::Verdict::Admit { borrowed } => {
                out.borrows.extend(borrowed.into_iter().map(|b| LoanShare {
                    job,
                    loan: b.loan.0,
                    gpus: b.gpus,
                }));
                Outcome::Admit
            }
            c::Verdict::Hold(c::Reason::NoQuota) => Outcome::NoQuota,
            c::Verdict::Hold(c::Reason::OverQuota { .. }) => Outcome::OverQuota,
            c::Verdict::Hold(c::Reason::BorrowLimit { .. }) => Outcome::BorrowLimit,
            c::Verdict::Hold(c::Reason::BudgetExhausted { .. }) => Outcome::Budget,
            c::Verdict::Hold(other) => {
                out.notes.push(Note { job, message: other.to_string() });
                Outcome::Other
            }
        };
        out.outcomes.push(outcome);
    }
    out
}
