//! `tidepool bench cycle`: times `plan()` on a synthetic cluster shaped like a real one
//! (Philly's job-size mix, a busy pool, a deep queue, groups with open loans).

use std::time::{Duration, Instant};

use serde::Serialize;
use tidepool_core::testkit::{alloc, cluster, job};
use tidepool_core::{NativePolicies, Plan, Policies, PriorityClass, Snapshot, plan};

use crate::cli::{BenchCycleArgs, Format};
use crate::sim::report::nearest_rank;

mod calls;
use calls::Timed;

/// A small deterministic generator (xorshift64*), so every run builds the same snapshot.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n.max(1)
    }
}

/// GPUs per job as in Philly: mostly single GPUs, a few whole nodes and gangs.
fn job_size(rng: &mut Rng, gpus_per_node: u32) -> u32 {
    let size = match rng.below(100) {
        0..70 => 1,
        70..80 => 2,
        80..90 => 4,
        90..98 => 8,
        _ => 16,
    };
    size.min(gpus_per_node * 2)
}

/// The benchmark's snapshot: `busy` of the GPUs held by running jobs, `pending` queued.
pub fn synthetic(nodes: u32, gpus_per_node: u8, pending: u32, groups: u32, busy: f64, seed: u64) -> Snapshot {
    let mut rng = Rng::new(seed);
    let g = u32::from(gpus_per_node);
    let domain = if g >= 4 { gpus_per_node / 2 } else { gpus_per_node };
    let share = nodes * g / groups;
    let mut b = cluster().nvlink_nodes(nodes as usize, gpus_per_node, domain);
    for k in 0..groups {
        b = b.group(&format!("group-{k:02}"), share);
    }
    b = b.open_loans();
    let now = 2 * 86_400;
    let mut id = 0u64;
    let mut used_by = vec![0u32; groups as usize];
    for n in 0..nodes {
        let target = (f64::from(g) * busy).round() as u32;
        let mut bit = 0u32;
        while bit < target {
            let size = job_size(&mut rng, g).min(target - bit).min(g);
            let group = (0..groups)
                .map(|k| (k + rng.below(u64::from(groups)) as u32) % groups)
                .find(|&k| used_by[k as usize] + size <= share);
            let Some(group) = group else { break };
            used_by[group as usize] += size;
            let mask = ((1u64 << size) - 1) << bit;
            id += 1;
            let started = now - rng.below(86_400) as i64;
            let mut a = alloc(id).group(group).on(n, mask).started(started).limit(86_400);
            // A quarter of the running work is borrowed, so lenders' queued jobs reclaim.
            if groups > 1 && rng.below(4) == 0 {
                let lender = (group + 1 + rng.below(u64::from(groups - 1)) as u32) % groups;
                a = a.borrowed(1000 + u64::from(lender), size);
            }
            b = b.running(a);
            bit += size;
        }
    }
    for _ in 0..pending {
        id += 1;
        let class = match rng.below(100) {
            0 => PriorityClass::Critical,
            1..10 => PriorityClass::Batch,
            10..20 => PriorityClass::Experiment,
            _ => PriorityClass::Normal,
        };
        let mut j = job(id)
            .group(rng.below(u64::from(groups)) as u32)
            .gpus(job_size(&mut rng, g))
            .class(class)
            .at(now - rng.below(2 * 86_400) as i64);
        if rng.below(2) == 0 {
            j = j.limit([3600, 4 * 3600, 24 * 3600][rng.below(3) as usize]);
        }
        if rng.below(10) == 0 {
            j = j.attained(rng.below(1_000_000));
        }
        b = b.pending(j);
    }
    b.build()
}

#[derive(Debug, Serialize)]
struct CycleReport {
    policies: &'static str,
    nodes: u32,
    gpus: u64,
    running: usize,
    pending: usize,
    groups: u32,
    cycles: u32,
    cycle_ms_median: f64,
    cycle_ms_p99: f64,
    cycle_ms_min: f64,
    placed: usize,
    preemptions: usize,
    placements_per_s: f64,
    /// With modules: the built-in policies timed on the same snapshot in the same run.
    #[serde(skip_serializing_if = "Option::is_none")]
    native_cycle_ms_median: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    wasm_native_ratio: Option<f64>,
    /// With modules: whether they planned exactly what the built-in policies planned.
    #[serde(skip_serializing_if = "Option::is_none")]
    same_plan_as_native: Option<bool>,
    /// Median time per plan in each kind of policy call (the rest is the core's own).
    calls_ms: CallsMs,
    #[serde(skip_serializing_if = "Option::is_none")]
    native_calls_ms: Option<CallsMs>,
    /// With modules: calls an instance answered before it was recreated.
    #[serde(skip_serializing_if = "Option::is_none")]
    reuse_calls: Option<u32>,
    /// Seconds to build the synthetic snapshot (not part of a cycle).
    setup_s: f64,
    /// The process's peak resident memory, snapshot and plans included (Linux only).
    #[serde(skip_serializing_if = "Option::is_none")]
    peak_rss_mib: Option<f64>,
}

/// Time per plan in each kind of policy call, medians over the timed cycles.
#[derive(Debug, Serialize)]
struct CallsMs {
    priority: f64,
    quota: f64,
    reclaim: f64,
}

fn ms(d: Duration) -> f64 {
    (d.as_secs_f64() * 1e5).round() / 100.0
}

struct Timing {
    median: Duration,
    p99: Duration,
    min: Duration,
    plan: Plan,
    calls: CallsMs,
}

/// Times `cycles` runs of plan() on the same snapshot for each policy set, alternating
/// between them cycle by cycle so both see the same machine (caches, frequency, other load).
fn time(snap: &Snapshot, sets: &[&dyn Policies], cycles: u32) -> Vec<Timing> {
    let now = 2 * 86_400;
    let sets: Vec<Timed> = sets.iter().map(|p| Timed::new(*p)).collect();
    // One untimed cycle each first: module compilation and warm-up are not the cycle's cost.
    let mut plans: Vec<Plan> = sets.iter().map(|p| plan(snap, now, p)).collect();
    for p in &sets {
        p.take_medians();
    }
    let mut times: Vec<Vec<Duration>> = vec![Vec::with_capacity(cycles as usize); sets.len()];
    for _ in 0..cycles {
        for (k, p) in sets.iter().enumerate() {
            let start = Instant::now();
            let out = plan(snap, now, p);
            times[k].push(start.elapsed());
            p.finish_plan();
            plans[k] = out;
        }
    }
    times
        .into_iter()
        .zip(plans)
        .zip(&sets)
        .map(|((mut t, plan), set)| {
            t.sort_unstable();
            let p99 = nearest_rank(&t, 0.99).expect("at least one cycle");
            let [priority, quota, reclaim] = set.take_medians().map(ms);
            let calls = CallsMs { priority, quota, reclaim };
            Timing { median: t[t.len() / 2], p99, min: t[0], plan, calls }
        })
        .collect()
}

/// Runs the benchmark and renders its figures.
pub fn cycle(args: &BenchCycleArgs) -> Result<String, String> {
    if !(0.0..=1.0).contains(&args.busy) {
        return Err(format!("--busy must be between 0 and 1, not {}", args.busy));
    }
    let started = Instant::now();
    let snap = synthetic(args.nodes, args.gpus_per_node, args.pending, args.groups, args.busy, 42);
    let setup_s = (started.elapsed().as_secs_f64() * 100.0).round() / 100.0;
    let files = args.modules.files(false);
    let mut limits = crate::policy::Limits::default();
    limits.reuse_calls = args.reuse_calls.unwrap_or(limits.reuse_calls);
    let policies = files.load_with(NativePolicies::default(), limits.clone())?;
    let builtin = NativePolicies::default();
    let mut timings = if files.is_empty() {
        time(&snap, &[policies.as_ref()], args.cycles)
    } else {
        time(&snap, &[policies.as_ref(), &builtin], args.cycles)
    };
    let native = (timings.len() == 2).then(|| timings.remove(1));
    let t = timings.remove(0);
    let comparable = |p: &Plan| (p.placements.clone(), p.preemptions.clone(), p.holds.clone());
    let report = CycleReport {
        policies: if files.is_empty() { "native" } else { "wasm" },
        nodes: args.nodes,
        gpus: u64::from(args.nodes) * u64::from(args.gpus_per_node),
        running: snap.running.len(),
        pending: snap.pending.len(),
        groups: args.groups,
        cycles: args.cycles,
        cycle_ms_median: ms(t.median),
        cycle_ms_p99: ms(t.p99),
        cycle_ms_min: ms(t.min),
        placed: t.plan.placements.len(),
        preemptions: t.plan.preemptions.len(),
        placements_per_s: (t.plan.placements.len() as f64 / t.median.as_secs_f64()).round(),
        native_cycle_ms_median: native.as_ref().map(|n| ms(n.median)),
        wasm_native_ratio: native
            .as_ref()
            .map(|n| (t.median.as_secs_f64() / n.median.as_secs_f64() * 1000.0).round() / 1000.0),
        same_plan_as_native: native.as_ref().map(|n| comparable(&n.plan) == comparable(&t.plan)),
        calls_ms: t.calls,
        native_calls_ms: native.map(|n| n.calls),
        reuse_calls: (!files.is_empty()).then_some(limits.reuse_calls),
        setup_s,
        peak_rss_mib: calls::peak_rss_mib(),
    };
    Ok(match args.format {
        Format::Json => serde_json::to_string(&report).expect("serializes"),
        Format::Text => format!("{report:#?}"),
    })
}
