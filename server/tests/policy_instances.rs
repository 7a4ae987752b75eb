//! A module's instance is kept between calls (issue 15) and must never change what is
//! decided: kept instances answer exactly as fresh ones over cycles whose queue changes;
//! a fault, a version becoming active and the reuse limit each start a fresh instance, so
//! no state survives a faulted call. MISSION O1, A3, B2; DESIGN "Policy host".

mod common;

use std::sync::Arc;
use std::time::Duration;

use common::policies::{bytes, load};
use tidepool::policy::{Kind, Limits, PolicyEvent, Runtime, WasmPolicies};
use tidepool_core::testkit::{cluster, job};
use tidepool_core::{NativePolicies, Plan, Policies, Snapshot, plan};

const NOW: i64 = 2 * 86_400;

fn runtime(reuse_calls: u32) -> Arc<Runtime> {
    let limits =
        Limits { deadline: Duration::from_secs(5), memory_bytes: 64 << 20, reuse_calls, ..Limits::default() };
    Arc::new(Runtime::new(limits, None).expect("runtime"))
}

fn decisions(
    p: &Plan,
) -> (Vec<tidepool_core::Placement>, Vec<tidepool_core::Preemption>, Vec<tidepool_core::Hold>) {
    (p.placements.clone(), p.preemptions.clone(), p.holds.clone())
}

/// Cycle `k` of a changing cluster: the queue grows and shrinks, jobs come and go.
fn cycle_snapshot(k: u64) -> Snapshot {
    let pending = [300, 40, 900, 0, 1, 500, 2_000, 120][k as usize % 8];
    tidepool::bench::synthetic(20 + (k % 5) as u32, 8, pending, 1 + (k % 4) as u32, 0.6, 100 + k)
}

#[test]
fn kept_instances_answer_as_fresh_ones_over_changing_queues() {
    // Every module answers 64 calls from one instance here, 1 there.
    let (kept_rt, fresh_rt) = (runtime(64), runtime(1));
    let (kept, fresh) = (WasmPolicies::new(kept_rt.clone()), WasmPolicies::new(fresh_rt.clone()));
    for name in ["priority", "quota", "reclaim"] {
        kept.activate(load(&kept_rt, name));
        fresh.activate(load(&fresh_rt, name));
    }
    let native = NativePolicies::default();
    for k in 0..40 {
        let snap = cycle_snapshot(k);
        let (a, b, n) = (plan(&snap, NOW, &kept), plan(&snap, NOW, &fresh), plan(&snap, NOW, &native));
        assert_eq!(decisions(&a), decisions(&b), "cycle {k}: kept and fresh instances differ");
        assert_eq!(decisions(&a), decisions(&n), "cycle {k}: the modules and the built-in policies differ");
        assert!(a.policy_faults.is_empty(), "cycle {k}: {:?}", a.policy_faults);
    }
    assert!(kept.events().is_empty(), "{:?}", kept.events());
    // The example modules (other guest code, other allocations) as well.
    for name in ["las2d", "fairshare", "fifo"] {
        let (kept, fresh) = (WasmPolicies::new(kept_rt.clone()), WasmPolicies::new(fresh_rt.clone()));
        kept.activate(load(&kept_rt, name));
        fresh.activate(load(&fresh_rt, name));
        for k in 0..12 {
            let snap = cycle_snapshot(k);
            assert_eq!(kept.priority(&snap, NOW), fresh.priority(&snap, NOW), "{name}, cycle {k}");
        }
    }
}

/// A one-group queue whose group name tells the hostile module what to do.
fn asking(behaviour: &str) -> Snapshot {
    cluster().nodes(1, 8).group(behaviour, 8).pending(job(1).gpus(1)).pending(job(2).gpus(2)).build()
}

/// The hostile module's `count`: the calls its instance has seen.
fn count(policies: &WasmPolicies) -> i64 {
    let scores = policies.priority(&asking("count"), NOW);
    assert_eq!(scores[0], scores[1], "{scores:?}");
    scores[0]
}

#[test]
fn a_fault_starts_a_fresh_instance_so_no_state_leaks_into_the_next_call() {
    let rt = runtime(64);
    let policies = WasmPolicies::new(rt.clone());
    policies.activate(load(&rt, "hostile"));
    assert_eq!((count(&policies), count(&policies)), (1, 2), "one instance answers call after call");
    // Adds 1,000 to its count, then traps: the built-in policy answers this call...
    let snap = asking("count-then-panic");
    assert_eq!(policies.priority(&snap, NOW), NativePolicies::default().priority(&snap, NOW));
    assert!(policies.events().iter().any(|e| matches!(e, PolicyEvent::Fault { label: "trap", .. })));
    // ...and the next call runs in a fresh instance: neither 3 nor 1,003.
    assert_eq!(count(&policies), 1, "state survived a faulted call");
    // A guest error and a malformed answer are faults too.
    for behaviour in ["error", "short"] {
        count(&policies);
        policies.priority(&asking(behaviour), NOW);
        assert_eq!(count(&policies), 1, "after `{behaviour}`");
    }
}

#[test]
fn a_version_becoming_active_and_the_reuse_limit_start_fresh_instances() {
    let rt = runtime(3);
    let policies = WasmPolicies::new(rt.clone());
    let hostile = load(&rt, "hostile");
    policies.activate(hostile.clone());
    let counts: Vec<i64> = (0..7).map(|_| count(&policies)).collect();
    assert_eq!(counts, vec![1, 2, 3, 1, 2, 3, 1], "recreated every 3 calls");
    count(&policies);
    // Another version, then this one again: it starts clean.
    policies.activate(load(&rt, "priority"));
    policies.activate(hostile.clone());
    assert_eq!(count(&policies), 1, "activated again");
    count(&policies);
    // A rollback to it starts it clean too.
    policies.activate(load(&rt, "fifo"));
    policies.rollback(Kind::Priority);
    assert_eq!(policies.active(Kind::Priority), Some(hostile.sha256.clone()));
    assert_eq!(count(&policies), 1, "rolled back to");
}

#[test]
fn modules_built_for_interface_1_0_0_load_and_answer() {
    // The shipped modules are 1.0.0 components; the host still serves that interface.
    let rt = runtime(64);
    for name in ["priority", "quota", "reclaim", "las2d"] {
        let module = rt.load(&bytes(name)).unwrap_or_else(|e| panic!("{name}: {e:?}"));
        assert_eq!(module.interface, "1.0.0", "{name}");
    }
    assert!(tidepool::policy::runtime::SUPPORTED_INTERFACES.contains(&"1.0.0"));
}
