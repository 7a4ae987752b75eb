//! The default modules decide exactly as the built-in policies: on thousands of random
//! snapshots, and on the Philly simulations (byte-identical reports). MISSION O1, D3.

mod common;

use std::thread;
use std::time::Duration;

use common::policies::{load, runtime};
use tidepool::policy::WasmPolicies;
use tidepool_core::{NativePolicies, PriorityClass, Snapshot, plan};

/// Deterministic xorshift, so a failing seed can be replayed.
struct Rng(u64);

impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n.max(1)
    }
}

/// A random small pool: the benchmark's generator, then budgets, limits, ended loans,
/// critical work and checkpoints sprinkled over it.
fn random_snapshot(seed: u64) -> (Snapshot, i64) {
    let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
    let nodes = 1 + rng.below(12) as u32;
    let gpus = [4u8, 8][rng.below(2) as usize];
    let groups = 1 + rng.below(5) as u32;
    let pending = rng.below(40) as u32;
    let busy = rng.below(100) as f64 / 100.0;
    let mut snap = tidepool::bench::synthetic(nodes, gpus, pending, groups, busy, seed + 1);
    let now = 2 * 86_400;
    for q in &mut snap.quotas {
        match rng.below(6) {
            0 => {
                q.budget_gpu_h = Some(rng.below(500) as f64);
                q.spent_gpu_h = rng.below(500) as f64;
            }
            1 => q.borrow_limit = Some(rng.below(16) as u32),
            2 => q.lend_limit = Some(rng.below(u64::from(q.guaranteed) + 1) as u32),
            _ => {}
        }
    }
    for l in &mut snap.loans {
        if rng.below(8) == 0 {
            l.ends_at = Some(now - 1);
        }
    }
    for j in &mut snap.pending {
        if rng.below(10) == 0 {
            j.class = PriorityClass::Critical;
        }
    }
    for a in &mut snap.running {
        if rng.below(3) == 0 {
            a.last_checkpoint_at = Some(a.started_at + rng.below(3600) as i64);
        }
    }
    snap.config.min_runtime_s = rng.below(1200);
    (snap, now)
}

#[test]
fn default_modules_plan_exactly_as_the_built_in_policies() {
    let rt = runtime(Duration::from_secs(5));
    let wasm = WasmPolicies::new(rt.clone());
    for kind in ["priority", "quota", "reclaim"] {
        wasm.activate(load(&rt, kind));
    }
    let native = NativePolicies::default();
    let mut placed = 0;
    let mut preempted = 0;
    for seed in 0..2_000 {
        let (snap, now) = random_snapshot(seed);
        let mut expected = plan(&snap, now, &native);
        let got = plan(&snap, now, &wasm);
        expected.policy.clone_from(&got.policy);
        assert_eq!(got, expected, "seed {seed}");
        placed += got.placements.len();
        preempted += got.preemptions.len();
    }
    assert!(wasm.events().is_empty(), "no faults: {:?}", wasm.events());
    assert!(
        placed > 1000 && preempted > 20,
        "the snapshots exercise the rules: {placed} placed, {preempted} preempted"
    );
}

// The Philly runs of the simulator print byte-identical JSON whoever decides.
#[test]
fn simulations_are_byte_identical_with_the_default_modules() {
    let (trace, groups) = common::philly();
    let dir = common::policies::dir();
    let runs: Vec<_> = ["silo", "pooled"]
        .into_iter()
        .flat_map(|mode| ["native", "wasm"].map(|policies| (mode, policies)))
        .map(|(mode, policies)| {
            let (trace, groups, dir) = (trace.clone(), groups.clone(), dir.clone());
            thread::spawn(move || {
                let out = std::process::Command::new(env!("CARGO_BIN_EXE_tidepool"))
                    .args(["simulate", "--trace", &trace, "--groups", &groups, "--from", "2017-10-01"])
                    .args([
                        "--to",
                        "2017-11-30",
                        "--capacity-scale",
                        "0.25",
                        "--mode",
                        mode,
                        "--policies",
                        policies,
                    ])
                    .env("TIDEPOOL_POLICY_DIR", &dir)
                    .output()
                    .expect("runs");
                assert!(out.status.success(), "{mode}/{policies}: {}", String::from_utf8_lossy(&out.stderr));
                (mode, policies, out.stdout)
            })
        })
        .collect();
    let runs: Vec<_> = runs.into_iter().map(|h| h.join().expect("simulation")).collect();
    for pair in runs.chunks(2) {
        let ((mode, _, native), (_, _, wasm)) = (&pair[0], &pair[1]);
        assert!(native.len() > 100, "{mode}: a report");
        assert_eq!(String::from_utf8_lossy(native), String::from_utf8_lossy(wasm), "{mode}: reports differ");
    }
}
