//! Core snapshot → interface records (once per call, strings sent once in the context),
//! and interface answers → core decisions.

use tidepool_core as core;
use tidepool_core::{Ledger, Reason, Snapshot, Time, Verdict};

use crate::policy::bindings::types as t;

pub fn context(snap: &Snapshot, now: Time) -> t::Context {
    t::Context {
        now,
        groups: snap.groups.iter().map(|g| g.name.clone()).collect(),
        models: snap.models.clone(),
        default_time_limit_s: snap.config.default_time_limit_s,
    }
}

fn class(c: core::PriorityClass) -> t::PriorityClass {
    match c {
        core::PriorityClass::Batch => t::PriorityClass::Batch,
        core::PriorityClass::Experiment => t::PriorityClass::Experiment,
        core::PriorityClass::Normal => t::PriorityClass::Normal,
        core::PriorityClass::Critical => t::PriorityClass::Critical,
    }
}

fn category(c: core::Category) -> t::Category {
    match c {
        core::Category::Training => t::Category::Training,
        core::Category::Inference => t::Category::Inference,
        core::Category::Pretraining => t::Category::Pretraining,
    }
}

pub fn job(j: &core::Job) -> t::Job {
    t::Job {
        id: j.id.0,
        group: j.group.0,
        category: category(j.category),
        class: class(j.class),
        gpus: j.gpus,
        model: u32::from(j.model.0),
        time_limit_s: j.time_limit_s,
        checkpointable: j.checkpointable,
        submitted_at: j.submitted_at,
        queued_at: j.queued_at,
        attained_gpu_s: j.attained_gpu_s,
    }
}

pub fn allocation(a: &core::Allocation, now: Time) -> t::Allocation {
    t::Allocation {
        job: a.job.0,
        group: a.group.0,
        category: category(a.category),
        class: class(a.class),
        model: u32::from(a.model.0),
        gpus: a.gpu_count(),
        borrowed_gpus: a.borrowed_gpus(),
        started_at: a.started_at,
        time_limit_s: a.time_limit_s,
        checkpointable: a.checkpointable,
        last_checkpoint_at: a.last_checkpoint_at,
        work_at_risk_gpu_s: a.work_at_risk_gpu_s(now),
    }
}

/// Quota rows and active loans with what running jobs use of them.
pub fn quotas_and_loans(snap: &Snapshot, ledger: &Ledger) -> (Vec<t::Quota>, Vec<t::Loan>) {
    let quotas = snap
        .quotas
        .iter()
        .zip(ledger.row_usage())
        .map(|(q, (own, borrowed))| t::Quota {
            group: q.group.0,
            model: u32::from(q.model.0),
            category: category(q.category),
            guaranteed: q.guaranteed,
            borrow_limit: q.borrow_limit,
            lend_limit: q.lend_limit,
            budget_gpu_h: q.budget_gpu_h,
            spent_gpu_h: q.spent_gpu_h,
            used_own: own,
            used_borrowed: borrowed,
        })
        .collect();
    let loans = ledger
        .loans()
        .iter()
        .zip(ledger.loan_usage())
        .map(|(l, &used)| t::Loan {
            id: l.id.0,
            lender: l.lender.0,
            borrower: l.borrower.map(|b| b.0),
            model: u32::from(l.model.0),
            gpus: l.gpus,
            used,
        })
        .collect();
    (quotas, loans)
}

/// A core verdict from an interface verdict; `None` if it names a loan that was not
/// offered (a malformed answer).
pub fn verdict(v: t::Verdict, loans: &[t::Loan]) -> Option<Verdict> {
    Some(match v {
        t::Verdict::Admit(shares) => {
            let mut borrowed = Vec::with_capacity(shares.len());
            for s in shares {
                if !loans.iter().any(|l| l.id == s.loan) {
                    return None;
                }
                borrowed.push(core::Borrow { loan: core::LoanId(s.loan), gpus: s.gpus });
            }
            Verdict::Admit { borrowed }
        }
        t::Verdict::Hold(hold) => Verdict::Hold(match hold {
            t::Hold::NoQuota => Reason::NoQuota,
            t::Hold::OverQuota(o) => {
                Reason::OverQuota { requested: o.requested, guaranteed: o.guaranteed, used: o.used }
            }
            t::Hold::BorrowLimit(b) => Reason::BorrowLimit { limit: b.limit, borrowed: b.borrowed },
            t::Hold::Budget(b) => Reason::BudgetExhausted {
                budget_gpu_h: b.budget_gpu_h,
                spent_gpu_h: b.spent_gpu_h,
                needed_gpu_h: b.needed_gpu_h,
            },
            t::Hold::Other(message) => Reason::PolicyHold { message },
        }),
    })
}
