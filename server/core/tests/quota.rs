//! Quotas and loans, by example: a group runs above its guarantee only on GPUs an
//! approved loan lends it. (`quota_random.rs` checks the same rules on random
//! snapshots.) // Q1, B1

mod common;

use common::{placed, reason, run};
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{Borrow, LoanId, PriorityClass, Reason, Topology};

// Q1, B1: guarantees are served first, so a lender's own job is never refused because a
// borrower ranks ahead of it; the borrower waits.
#[test]
fn the_lender_is_served_before_a_borrower_that_ranks_ahead() {
    let snap = cluster()
        .nodes(1, 8)
        .group("a", 4)
        .group("b", 0)
        .loan(1, 0, Some(1), 4)
        .pending(job(1).group(1).gpus(4).class(PriorityClass::Critical))
        .pending(job(2).group(0).gpus(4).at(1))
        .build();
    let plan = run(&snap, 10);
    assert!(placed(&plan, 2).borrowed.is_empty());
    assert_eq!(reason(&plan, 1), &Reason::OverQuota { requested: 4, guaranteed: 0, used: 0 });
}

// Q1, T1: a job that can never run takes none of its group's quota, so it cannot keep
// the group's other jobs waiting as "over quota" on an idle pool.
#[test]
fn a_job_that_can_never_run_takes_no_quota() {
    let snap = cluster()
        .nodes(2, 8)
        .group("a", 16)
        .pending(job(1).gpus(9).topology(Topology::SameNode))
        .pending(job(2).gpus(8).at(1))
        .build();
    let plan = run(&snap, 10);
    assert_eq!(reason(&plan, 1), &Reason::Infeasible { requested: 9, largest: 8 });
    assert!(placed(&plan, 2).borrowed.is_empty());
}

// B1: what a borrower may take: only loans that serve it, of its GPU model, still
// running, within the lender's lending limit and idle guarantee.
#[test]
fn borrowing_needs_a_loan_that_serves_the_group() {
    // Group b (1) has no guarantee and wants 4 GPUs; group a (0) has 8 and runs `busy`.
    // (why, loan edit, lend limit, lender's running GPUs, expected borrowed GPUs or None)
    type Row = (&'static str, Option<Option<u32>>, Option<i64>, Option<u32>, u64, Option<u32>);
    let table: [Row; 7] = [
        ("a loan to b", Some(Some(1)), None, None, 0, Some(4)),
        ("a standing offer to every group", Some(None), None, None, 0, Some(4)),
        ("no loan at all", None, None, None, 0, None),
        ("a loan to another group", Some(Some(2)), None, None, 0, None),
        ("a loan that has ended", Some(Some(1)), Some(10), None, 0, None),
        ("the lender lends at most 2", Some(Some(1)), None, Some(2), 0, None),
        ("the lender uses 6 of its 8 itself", Some(Some(1)), None, None, 0b11_1111, None),
    ];
    for (why, borrower, ends_at, lend_limit, busy, expect) in table {
        let mut c = cluster().nodes(2, 8).group("a", 8).group("b", 0).group("c", 0);
        c = c.quota(0, |q| q.lend_limit = lend_limit);
        if let Some(borrower) = borrower {
            c = match ends_at {
                Some(t) => c.loan_until(1, 0, borrower, 8, t),
                None => c.loan(1, 0, borrower, 8),
            };
        }
        if busy != 0 {
            c = c.running(alloc(10).on(0, busy));
        }
        let plan = run(&c.pending(job(1).group(1).gpus(4)).build(), 100);
        match expect {
            Some(gpus) => {
                assert_eq!(placed(&plan, 1).borrowed, vec![Borrow { loan: LoanId(1), gpus }], "{why}")
            }
            None => assert!(matches!(reason(&plan, 1), Reason::OverQuota { .. }), "{why}: {plan:#?}"),
        }
    }
}
