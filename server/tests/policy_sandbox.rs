//! Hostile policy modules: each is refused at validation or contained at run time, with
//! the fallback answering in the same cycle; dispatch goes on, no job is lost, and the
//! fault is recorded. MISSION O1, A3, B2; DESIGN "Policy host".

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::policies::{bytes, load, runtime};
use tidepool::policy::{Kind, PolicyEvent, WasmPolicies};
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{NativePolicies, Plan, Policies, Snapshot, plan};

const NOW: i64 = 100_000;

/// A small busy pool whose first group's name tells the hostile module what to do.
fn snapshot(first_group: &str) -> Snapshot {
    cluster()
        .nodes(2, 8)
        .group(first_group, 8)
        .group("other", 8)
        .open_loans()
        .running(alloc(1).group(1).on(0, 0xFF).started(NOW - 5000).borrowed(1000, 8))
        .pending(job(10).gpus(8).at(NOW - 100))
        .pending(job(11).group(1).gpus(2).at(NOW - 50))
        .pending(job(12).gpus(1).at(NOW - 10))
        .build()
}

/// Every pending job is placed or held exactly once.
#[track_caller]
fn no_job_lost(snap: &Snapshot, p: &Plan) {
    let mut seen: Vec<u64> =
        p.placements.iter().map(|x| x.job.0).chain(p.holds.iter().map(|h| h.job.0)).collect();
    seen.sort_unstable();
    let mut want: Vec<u64> = snap.pending.iter().map(|j| j.id.0).collect();
    want.sort_unstable();
    assert_eq!(seen, want, "every job is placed or held once");
}

fn decisions(
    p: &Plan,
) -> (Vec<tidepool_core::Placement>, Vec<tidepool_core::Preemption>, Vec<tidepool_core::Hold>) {
    (p.placements.clone(), p.preemptions.clone(), p.holds.clone())
}

fn faults(events: &[PolicyEvent]) -> Vec<&'static str> {
    events
        .iter()
        .filter_map(|e| if let PolicyEvent::Fault { label, .. } = e { Some(*label) } else { None })
        .collect()
}

#[test]
fn runaway_modules_are_contained_and_the_built_in_policy_answers_in_the_same_cycle() {
    let deadline = Duration::from_millis(300);
    let rt = runtime(deadline);
    let hostile = load(&rt, "hostile");
    let table = [
        ("loop", "timeout"),
        ("bomb", "memory"),
        ("panic", "trap"),
        ("short", "malformed"),
        ("huge", "malformed"),
        ("error", "guest-error"),
    ];
    for (behaviour, label) in table {
        let policies = WasmPolicies::new(rt.clone());
        policies.activate(hostile.clone());
        let snap = snapshot(behaviour);
        let started = Instant::now();
        let got = plan(&snap, NOW, &policies);
        let took = started.elapsed();
        let native = plan(&snap, NOW, &NativePolicies::default());
        assert_eq!(decisions(&got), decisions(&native), "{behaviour}: the built-in policy decided");
        assert!(!got.placements.is_empty(), "{behaviour}: dispatch went on");
        no_job_lost(&snap, &got);
        let events = policies.events();
        assert_eq!(faults(&events), vec![label], "{behaviour}: {events:?}");
        assert!(
            events
                .iter()
                .any(|e| matches!(e, PolicyEvent::Fallback { answered_by, .. } if answered_by == "built-in")),
            "{behaviour}: the fallback is recorded"
        );
        if behaviour == "loop" {
            assert!(took < 2 * deadline, "a loop is cut within twice its deadline: took {took:?}");
        }
    }
}

#[test]
fn the_previous_version_answers_when_the_active_one_faults() {
    let rt = runtime(Duration::from_millis(300));
    let policies = WasmPolicies::new(rt.clone());
    let good = load(&rt, "priority");
    policies.activate(good.clone());
    policies.activate(load(&rt, "hostile"));
    let snap = snapshot("panic");
    let got = plan(&snap, NOW, &policies);
    assert_eq!(decisions(&got), decisions(&plan(&snap, NOW, &NativePolicies::default())));
    let answered: Vec<String> = policies
        .events()
        .into_iter()
        .filter_map(
            |e| if let PolicyEvent::Fallback { answered_by, .. } = e { Some(answered_by) } else { None },
        )
        .collect();
    assert_eq!(answered, vec![good.sha256.clone()]);
}

#[test]
fn repeated_faults_take_the_version_out_of_service() {
    let rt = runtime(Duration::from_millis(300));
    let policies = WasmPolicies::new(rt.clone());
    let hostile = load(&rt, "hostile");
    policies.activate(hostile.clone());
    let snap = snapshot("error");
    for _ in 0..tidepool::policy::host::BREAKER_THRESHOLD {
        no_job_lost(&snap, &plan(&snap, NOW, &policies));
    }
    assert_eq!(policies.active(Kind::Priority), None, "taken out of service");
    assert!(policies.events().iter().any(
        |e| matches!(e, PolicyEvent::CircuitOpen { sha256, faults: 3, .. } if *sha256 == hostile.sha256)
    ));
    assert!(policies.version().contains("priority=built-in"), "{}", policies.version());
    let before = faults(&policies.events()).len();
    plan(&snap, NOW, &policies);
    assert_eq!(faults(&policies.events()).len(), before, "an open circuit is not called again");
}

/// Validation errors for `bytes`, or a panic if they load.
fn refused(rt: &tidepool::policy::Runtime, bytes: &[u8]) -> String {
    match rt.load(bytes) {
        Ok(m) => panic!("loaded a module that should be refused: {}", m.sha256),
        Err(errors) => errors.join("\n"),
    }
}

#[test]
fn modules_that_reach_for_the_host_are_refused_at_validation() {
    let rt = runtime(Duration::from_millis(300));
    let snoop = refused(&rt, &bytes("wasi-snoop"));
    for capability in ["wasi:filesystem/", "wasi:clocks/", "wasi:random/", "wasi:sockets/"] {
        assert!(snoop.contains(capability), "names {capability}: {snoop}");
    }
    let host_fn = wat::parse_str(
        r#"(component
            (import "tidepool:host/exec" (func))
            (instance $i)
            (export "tidepool:policy/priority@1.0.0" (instance $i)))"#,
    )
    .expect("wat");
    assert!(refused(&rt, &host_fn).contains("imports `tidepool:host/exec`"));
}

#[test]
fn modules_of_another_world_version_or_format_are_refused() {
    let rt = runtime(Duration::from_millis(300));
    let exporting = |name: &str| {
        wat::parse_str(format!(r#"(component (instance $i) (export "{name}" (instance $i)))"#)).expect("wat")
    };
    let cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("another world", exporting("tidepool:policy/scheduler@1.0.0"), "not a known policy kind"),
        ("another version", exporting("tidepool:policy/priority@0.9.0"), "version 0.9.0 is not supported"),
        ("another package", exporting("acme:sched/priority@1.0.0"), "not a tidepool:policy interface"),
        ("right name, wrong shape", exporting("tidepool:policy/priority@1.0.0"), "do not match the priority"),
        ("a core module", wat::parse_str("(module)").expect("wat"), "not a component"),
        (
            "random bytes",
            (0..4096u32).map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8).collect(),
            "not a WebAssembly",
        ),
        ("empty", Vec::new(), "not a WebAssembly"),
    ];
    for (what, module, says) in cases {
        let errors = refused(&rt, &module);
        assert!(errors.contains(says), "{what}: {errors}");
    }
    let limits = tidepool::policy::Limits { module_bytes: 1000, ..Default::default() };
    let small = tidepool::policy::Runtime::new(limits, None).expect("runtime");
    assert!(refused(&small, &bytes("priority")).contains("the limit is 1000 bytes"));
}

#[test]
fn a_shadow_version_records_its_differences_and_a_canary_decides_for_its_groups() {
    let rt = runtime(Duration::from_millis(300));
    let policies = WasmPolicies::new(rt.clone());
    policies.activate(load(&rt, "priority"));
    let fifo = load(&rt, "fifo");
    policies.set_shadow(Kind::Priority, Some(fifo.clone()));
    let snap = cluster()
        .nodes(1, 8)
        .group("a", 4)
        .group("b", 4)
        .pending(job(1).at(NOW - 10).attained(900_000))
        .pending(job(2).at(NOW - 20).attained(1_800_000))
        .pending(job(3).group(1).at(NOW - 30).attained(3_600_000))
        .pending(job(4).group(1).at(NOW - 40))
        .build();
    let native = NativePolicies::default();

    assert_eq!(policies.priority(&snap, NOW), native.priority(&snap, NOW), "the shadow never decides");
    let shadow = policies.events().into_iter().find_map(|e| match e {
        PolicyEvent::Shadow { sha256, difference, .. } => Some((sha256, difference)),
        _ => None,
    });
    let (sha, difference) = shadow.expect("a shadow event");
    assert_eq!(sha, fifo.sha256);
    // Native ranks by least attained service (4, 1, 2, 3); FIFO scores all alike (1, 2, 3, 4).
    assert!(
        matches!(difference, tidepool::policy::shadow::Difference::RankCorrelation { jobs: 4, rho, .. } if rho < 0.5),
        "{difference:?}"
    );

    policies.set_shadow(Kind::Priority, None);
    policies.set_canary(Kind::Priority, Some((fifo, vec![tidepool_core::GroupId(1)])));
    let scores = policies.priority(&snap, NOW);
    let own = native.priority(&snap, NOW);
    assert_eq!(&scores[..2], &own[..2], "group a keeps the active version's scores");
    assert_eq!(&scores[2..], &[0, 0], "group b is scored by the canary");
}

#[test]
fn modules_are_compiled_once_per_content() {
    let rt = runtime(Duration::from_millis(300));
    let a = load(&rt, "priority");
    let b = load(&rt, "priority");
    assert!(Arc::ptr_eq(&a, &b), "the same bytes load the same compiled module");
    assert_eq!(a.sha256.len(), 64);
    assert_eq!(a.interface, "1.0.0");
}

fn cache(dir: &std::path::Path) -> tidepool::policy::artifacts::ArtifactCache {
    tidepool::policy::artifacts::ArtifactCache::new(dir.to_path_buf(), b"the server's secret for these tests")
}

#[test]
fn compiled_modules_are_kept_as_precompiled_artifacts() {
    let dir = common::fresh_dir("artifacts");
    let first = tidepool::policy::Runtime::new(Default::default(), Some(cache(&dir))).expect("runtime");
    let module = first.load(&bytes("reclaim")).expect("loads");
    let artifact = dir.join(format!("{}.cwasm", module.sha256));
    assert!(artifact.is_file(), "precompiled once, keyed by sha256");
    // A new process (here: a new runtime) loads the artifact instead of compiling.
    let second = tidepool::policy::Runtime::new(Default::default(), Some(cache(&dir))).expect("runtime");
    let again = second.load(&bytes("reclaim")).expect("loads from the artifact");
    assert_eq!(again.sha256, module.sha256);
    // A damaged artifact is recompiled, not trusted. (Artifacts are memory-mapped: they
    // are only ever replaced by rename, never rewritten in place while in use.)
    drop((first, second, module, again));
    std::fs::write(&artifact, b"garbage").expect("write");
    let third = tidepool::policy::Runtime::new(Default::default(), Some(cache(&dir))).expect("runtime");
    assert!(third.load(&bytes("reclaim")).is_ok());
    let _ = std::fs::remove_dir_all(&dir);
}
