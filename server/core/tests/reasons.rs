//! Every pending job carries a reason a person can act on ("why is my job pending").
//! One snapshot per `Reason` variant, each checked for its exact value and for words
//! that name its key figures. // D1, D2, D3, Q1, Q3, B1, P1

mod common;

use common::reason;
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{
    Borrow, Category, Ledger, LoanId, NativePolicies, Policies, Reason, Snapshot, Time, Topology, Verdict,
    plan,
};

/// The quota policy holds every job of one group with its own message (a maintenance
/// window, say); everything else is the built-in answer.
struct HoldGroup {
    group: u32,
    message: &'static str,
    inner: NativePolicies,
}

impl Policies for HoldGroup {
    fn priority(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        self.inner.priority(snap, now)
    }
    fn quota(&self, snap: &Snapshot, now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
        let mut verdicts = self.inner.quota(snap, now, order, ledger);
        for (v, &i) in verdicts.iter_mut().zip(order) {
            if snap.pending[i as usize].group.0 == self.group {
                *v = Verdict::Hold(Reason::PolicyHold { message: self.message.into() });
            }
        }
        verdicts
    }
    fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        self.inner.reclaim(snap, now)
    }
    fn version(&self) -> String {
        "test/hold-group".into()
    }
}

/// A faulty quota policy: admits every job with one GPU on a loan that does not exist.
struct BogusLoan;

impl Policies for BogusLoan {
    fn priority(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        NativePolicies::default().priority(snap, now)
    }
    fn quota(&self, _: &Snapshot, _: Time, order: &[u32], _: &Ledger) -> Vec<Verdict> {
        order
            .iter()
            .map(|_| Verdict::Admit { borrowed: vec![Borrow { loan: LoanId(999), gpus: 1 }] })
            .collect()
    }
    fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        NativePolicies::default().reclaim(snap, now)
    }
    fn version(&self) -> String {
        "test/bogus-loan".into()
    }
}

struct Case {
    ids: &'static str,
    rule: &'static str,
    snap: Snapshot,
    now: Time,
    policies: Box<dyn Policies>,
    job: u64,
    expect: Reason,
    /// Words the reason's text must contain: its key figures.
    figures: &'static [&'static str],
}

fn native() -> Box<dyn Policies> {
    Box::new(NativePolicies::default())
}

fn cases() -> Vec<Case> {
    vec![
        Case {
            ids: "Q1, Q2",
            rule: "no quota row for the job's category",
            snap: cluster().nodes(1, 8).group("a", 8).pending(job(1).category(Category::Inference)).build(),
            now: 0,
            policies: native(),
            job: 1,
            expect: Reason::NoQuota,
            figures: &["no quota"],
        },
        Case {
            ids: "Q1, B1",
            rule: "above the guarantee with no loan",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 4)
                .running(alloc(10).on(0, 0x0F))
                .pending(job(1).gpus(2))
                .build(),
            now: 1000,
            policies: native(),
            job: 1,
            expect: Reason::OverQuota { requested: 2, guaranteed: 4, used: 4 },
            figures: &["needs 2", "4 of the group's 4 guaranteed"],
        },
        Case {
            ids: "B1",
            rule: "borrowing past the group's borrowing limit",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 0)
                .group("b", 8)
                .quota(0, |q| q.borrow_limit = Some(2))
                .loan(1, 1, Some(0), 8)
                .pending(job(1).gpus(4))
                .build(),
            now: 0,
            policies: native(),
            job: 1,
            expect: Reason::BorrowLimit { limit: 2, borrowed: 0 },
            figures: &["0 of 2"],
        },
        Case {
            ids: "Q3",
            rule: "a run that could overspend the monthly budget",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 8)
                .quota(0, |q| {
                    q.budget_gpu_h = Some(10.0);
                    q.spent_gpu_h = 9.0;
                })
                .pending(job(1).gpus(2).limit(3600))
                .build(),
            now: 0,
            policies: native(),
            job: 1,
            expect: Reason::BudgetExhausted { budget_gpu_h: 10.0, spent_gpu_h: 9.0, needed_gpu_h: 2.0 },
            figures: &["9.0 of 10.0", "need 2.0"],
        },
        Case {
            ids: "T1",
            rule: "more GPUs than the pool has",
            snap: cluster().nodes(2, 8).group("a", 32).pending(job(1).gpus(17)).build(),
            now: 0,
            policies: native(),
            job: 1,
            expect: Reason::Infeasible { requested: 17, largest: 16 },
            figures: &["17", "16"],
        },
        Case {
            ids: "T1",
            rule: "a same-NVLink job larger than any NVLink domain",
            snap: cluster()
                .nvlink_nodes(2, 8, 4)
                .group("a", 16)
                .pending(job(1).gpus(5).topology(Topology::SameNvlink))
                .build(),
            now: 0,
            policies: native(),
            job: 1,
            expect: Reason::Infeasible { requested: 5, largest: 4 },
            figures: &["needs 5", "is 4"],
        },
        Case {
            ids: "D1",
            rule: "every GPU taken by a job placed earlier in the cycle",
            snap: cluster().nodes(1, 4).group("a", 8).pending(job(1).gpus(4)).pending(job(2).at(1)).build(),
            now: 10,
            policies: native(),
            job: 2,
            expect: Reason::NoCapacity { requested: 1, free: 0 },
            figures: &["needs 1", "0 free"],
        },
        Case {
            ids: "T1",
            rule: "enough free GPUs, but on different nodes (strict FIFO, so no reservation)",
            snap: cluster()
                .nodes(2, 4)
                .group("a", 8)
                .config(|c| c.backfill = false)
                .running(alloc(10).on(0, 0b0111))
                .running(alloc(11).on(1, 0b0111))
                .pending(job(1).gpus(2).topology(Topology::SameNode))
                .build(),
            now: 1000,
            policies: native(),
            job: 1,
            expect: Reason::Fragmented { requested: 2, free: 2 },
            figures: &["needs 2", "2 free"],
        },
        Case {
            ids: "D1, P1",
            rule: "the highest blocked job gets GPUs from the end of a running job's time limit",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 16)
                .running(alloc(10).on(0, 0xFF).limit(3600))
                .pending(job(1).gpus(8))
                .build(),
            now: 1000,
            policies: native(),
            job: 1,
            expect: Reason::Reserved { start_at: 3600 },
            figures: &["t=3600"],
        },
        Case {
            ids: "D1, D5",
            rule: "a long lower job that would use reserved GPUs",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 16)
                .running(alloc(10).on(0, 0x0F).limit(3600))
                .pending(job(1).gpus(8))
                .pending(job(2).gpus(4).limit(7200).at(1))
                .build(),
            now: 1000,
            policies: native(),
            job: 2,
            expect: Reason::WouldDelay { job: tidepool_core::JobId(1), start_at: 3600 },
            figures: &["job 1", "t=3600"],
        },
        Case {
            ids: "D1",
            rule: "strict first-come-first-served when backfill is off",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 16)
                .config(|c| c.backfill = false)
                .running(alloc(10).on(0, 0x0F).limit(3600))
                .pending(job(1).gpus(8))
                .pending(job(2).limit(60).at(1))
                .build(),
            now: 1000,
            policies: native(),
            job: 2,
            expect: Reason::QueuedBehind { job: tidepool_core::JobId(1) },
            figures: &["job 1"],
        },
        Case {
            ids: "B1, Q4",
            rule: "a lender's job within its guarantee reclaims its lent GPUs this cycle",
            snap: cluster()
                .config(|c| c.min_runtime_s = 120)
                .nodes(1, 8)
                .group("a", 8)
                .group("b", 0)
                .loan(1, 0, Some(1), 8)
                .running(alloc(10).group(1).on(0, 0xFF).borrowed(1, 8))
                .pending(job(1).gpus(8))
                .build(),
            now: 1000,
            policies: native(),
            job: 1,
            expect: Reason::AwaitingPreemption { victims: 1 },
            figures: &["(1 jobs"],
        },
        Case {
            ids: "B1, D4",
            rule: "victims chosen in an earlier cycle are still stopping",
            snap: cluster()
                .nodes(1, 8)
                .group("a", 8)
                .group("b", 0)
                .loan(1, 0, Some(1), 8)
                .running(alloc(10).group(1).on(0, 0x0F).borrowed(1, 4).draining_for(1))
                .running(alloc(11).group(1).on(0, 0xF0).borrowed(1, 4).draining_for(1))
                .pending(job(1).gpus(8))
                .build(),
            now: 1000,
            policies: native(),
            job: 1,
            expect: Reason::AwaitingPreemption { victims: 2 },
            figures: &["(2 jobs"],
        },
        Case {
            ids: "Q1, D3",
            rule: "the quota policy holds the job with its own words",
            snap: cluster().nodes(1, 8).group("a", 8).pending(job(1)).build(),
            now: 0,
            policies: Box::new(HoldGroup {
                group: 0,
                message: "maintenance window",
                inner: NativePolicies::default(),
            }),
            job: 1,
            expect: Reason::PolicyHold { message: "maintenance window".into() },
            figures: &["maintenance window"],
        },
        Case {
            ids: "B1, D3",
            rule: "a policy admission on a loan that does not exist is refused",
            snap: cluster().nodes(1, 8).group("a", 8).pending(job(1)).build(),
            now: 0,
            policies: Box::new(BogusLoan),
            job: 1,
            expect: Reason::PolicyRejected {
                message: "loan 999 is not active for this group and model".into(),
            },
            figures: &["loan 999"],
        },
    ]
}

#[test]
fn every_pending_job_gets_the_reason_its_snapshot_implies() {
    for case in cases() {
        let plan = plan(&case.snap, case.now, case.policies.as_ref());
        let got = reason(&plan, case.job);
        assert_eq!(got, &case.expect, "[{}] {}", case.ids, case.rule);
        assert!(
            plan.placements.iter().all(|p| p.job.0 != case.job),
            "[{}] {}: a held job must not also be placed",
            case.ids,
            case.rule
        );
        let text = got.to_string();
        assert!(!text.trim().is_empty(), "[{}] {}: empty text", case.ids, case.rule);
        for figure in case.figures {
            assert!(
                text.contains(figure),
                "[{}] {}: {text:?} does not mention {figure:?}",
                case.ids,
                case.rule
            );
        }
    }
}

/// The variant's name; the match has no wildcard, so a new variant cannot be added
/// without this list (and so the coverage test) noticing.
fn variant(r: &Reason) -> &'static str {
    match r {
        Reason::NoQuota => "NoQuota",
        Reason::OverQuota { .. } => "OverQuota",
        Reason::BorrowLimit { .. } => "BorrowLimit",
        Reason::BudgetExhausted { .. } => "BudgetExhausted",
        Reason::Infeasible { .. } => "Infeasible",
        Reason::NoCapacity { .. } => "NoCapacity",
        Reason::Fragmented { .. } => "Fragmented",
        Reason::Reserved { .. } => "Reserved",
        Reason::WouldDelay { .. } => "WouldDelay",
        Reason::QueuedBehind { .. } => "QueuedBehind",
        Reason::AwaitingPreemption { .. } => "AwaitingPreemption",
        Reason::PolicyHold { .. } => "PolicyHold",
        Reason::PolicyRejected { .. } => "PolicyRejected",
    }
}

const ALL_VARIANTS: [&str; 13] = [
    "NoQuota",
    "OverQuota",
    "BorrowLimit",
    "BudgetExhausted",
    "Infeasible",
    "NoCapacity",
    "Fragmented",
    "Reserved",
    "WouldDelay",
    "QueuedBehind",
    "AwaitingPreemption",
    "PolicyHold",
    "PolicyRejected",
];

#[test]
fn every_reason_variant_is_produced_by_some_snapshot() {
    let produced: Vec<&str> = cases().iter().map(|c| variant(&c.expect)).collect();
    for name in ALL_VARIANTS {
        assert!(produced.contains(&name), "no snapshot produces Reason::{name}");
    }
}

// Q1: the cycle re-checks every admission, so a policy that admits everything still
// cannot run a job above its group's guarantee.
#[test]
fn a_policy_that_admits_everything_cannot_exceed_a_guarantee() {
    struct AdmitAll;
    impl Policies for AdmitAll {
        fn priority(&self, snap: &Snapshot, _: Time) -> Vec<i64> {
            vec![0; snap.pending.len()]
        }
        fn quota(&self, _: &Snapshot, _: Time, order: &[u32], _: &Ledger) -> Vec<Verdict> {
            order.iter().map(|_| Verdict::Admit { borrowed: Vec::new() }).collect()
        }
        fn reclaim(&self, snap: &Snapshot, _: Time) -> Vec<i64> {
            vec![0; snap.running.len()]
        }
        fn version(&self) -> String {
            "test/admit-all".into()
        }
    }
    let snap =
        cluster().nodes(1, 8).group("a", 3).pending(job(1).gpus(2)).pending(job(2).gpus(2).at(1)).build();
    let plan = plan(&snap, 10, &AdmitAll);
    assert!(common::is_placed(&plan, 1));
    assert_eq!(reason(&plan, 2), &Reason::OverQuota { requested: 2, guaranteed: 3, used: 2 });
}
