//! `tidepool simulate`: flags → validated inputs → simulation → one JSON object.

use std::collections::BTreeSet;

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::{CycleConfig, GroupId, TimeShare};

use crate::cli::{Format, SimulateArgs, TimeShareArgs};
use crate::sim::time::{parse_time, parse_until};
use crate::sim::trace::{load_groups, load_trace};
use crate::sim::{Mode, PolicyChoice, Report, SimConfig, SimJob, resolve_groups, simulate};

/// Runs the command; `Err` carries a message for the user.
pub fn run(args: &SimulateArgs) -> Result<String, String> {
    if args.table {
        return crate::sim::table::run(args);
    }
    let report = report(args)?;
    Ok(match args.format {
        Format::Json => serde_json::to_string(&report).expect("a report always serializes"),
        Format::Text => text(&report),
    })
}

/// One simulation run as `args` describe it.
pub fn report(args: &SimulateArgs) -> Result<Report, String> {
    if !(args.capacity_scale.is_finite() && args.capacity_scale > 0.0) {
        return Err(format!("--capacity-scale must be a positive number, not {}", args.capacity_scale));
    }
    let from = args
        .from
        .as_deref()
        .map(|s| parse_time(s).ok_or(format!("--from `{s}` is not a date")))
        .transpose()?;
    let to =
        args.to.as_deref().map(|s| parse_until(s).ok_or(format!("--to `{s}` is not a date"))).transpose()?;
    let file_groups = args.groups.as_deref().map(load_groups).transpose().map_err(|e| e.to_string())?;
    let mut trace = load_trace(&args.trace).map_err(|e| e.to_string())?;
    trace.retain(|j| from.is_none_or(|f| j.submitted_at >= f) && to.is_none_or(|t| j.submitted_at < t));
    if !args.only_groups.is_empty() {
        trace.retain(|j| args.only_groups.contains(&j.group));
    }
    let trace_groups: Vec<String> =
        trace.iter().map(|j| j.group.clone()).collect::<BTreeSet<_>>().into_iter().collect();
    let groups = resolve_groups(file_groups, args.nodes, args.capacity_scale, &trace_groups)?;

    let mut jobs = Vec::with_capacity(trace.len());
    let mut skipped = 0;
    for j in &trace {
        match groups.iter().position(|g| g.name == j.group) {
            Some(g) => jobs.push(SimJob {
                group: GroupId(g as u32),
                arrival: j.submitted_at,
                work_s: j.duration_s,
                gpus: j.gpus,
            }),
            None => skipped += 1,
        }
    }
    // Stable: equal arrivals keep trace order, so the same file gives the same run.
    jobs.sort_by_key(|j| j.arrival);

    let policy = args.policy.unwrap_or(match args.mode {
        Mode::Silo => PolicyChoice::Fifo,
        Mode::Pooled => PolicyChoice::Default,
    });
    let config = SimConfig {
        groups,
        gpus_per_node: args.gpus_per_node,
        mode: args.mode,
        policy,
        checkpointing: Checkpointing {
            interval_s: args.checkpoint_interval,
            restart_overhead_s: args.restart_overhead,
        },
        cycle: CycleConfig {
            // First come, first served means no job passes a blocked one.
            backfill: policy != PolicyChoice::Fifo,
            min_runtime_s: args.min_runtime,
            timeshare: (policy == PolicyChoice::Timeshare).then(|| timeshare(&args.timeshare)).transpose()?,
            ..CycleConfig::default()
        },
    };
    let policies = args.modules.files(policy == PolicyChoice::Fifo).load(policy.native())?;
    Ok(simulate(&config, policies.as_ref(), jobs, skipped))
}

/// The server's default time-sharing, with the knobs the command line sets.
fn timeshare(args: &TimeShareArgs) -> Result<TimeShare, String> {
    let mut ts = TimeShare::default();
    if !args.timeshare_thresholds.is_empty() {
        let ok = args.timeshare_thresholds.iter().all(|h| h.is_finite() && *h > 0.0)
            && args.timeshare_thresholds.is_sorted_by(|a, b| a < b);
        if !ok {
            return Err("--timeshare-thresholds must be positive GPU-hours in ascending order".into());
        }
        ts.thresholds_gpu_s = args.timeshare_thresholds.iter().map(|h| (h * 3600.0).round() as u64).collect();
    }
    ts.max_per_day = args.timeshare_max_per_day.unwrap_or(ts.max_per_day);
    ts.starve_after_s = args.timeshare_starve_after.unwrap_or(ts.starve_after_s);
    ts.quantum_s = args.timeshare_quantum.unwrap_or(ts.quantum_s);
    ts.starve_factor = args.timeshare_starve_factor.unwrap_or(ts.starve_factor);
    ts.order_by_queue = args.timeshare_order_by_queue.unwrap_or(ts.order_by_queue);
    if let Some(h) = args.timeshare_protect_after {
        if !(h.is_finite() && h >= 0.0) {
            return Err(format!("--timeshare-protect-after must be GPU-hours ≥ 0, not {h}"));
        }
        ts.protect_after_gpu_s = (h * 3600.0).round() as u64;
    }
    ts.fifo_in_later_queues = args.timeshare_fifo_in_later_queues.unwrap_or(ts.fifo_in_later_queues);
    Ok(ts)
}

fn text(r: &Report) -> String {
    let mut out = format!(
        "{} / {}: {} jobs ({} skipped, {} unschedulable), {} completed on {} GPUs\n\
         avg JCT {:.0} s, avg wait {:.0} s, p50 wait {:.0} s, p99 wait {:.0} s\n\
         makespan {:.0} s, utilization {:.1}%, {} preemptions\n\n{:<10} {:>7} {:>12} {:>12} {:>12}\n",
        r.mode,
        r.policy,
        r.jobs,
        r.skipped,
        r.unschedulable,
        r.completed,
        r.capacity_gpus,
        r.avg_jct_s,
        r.avg_wait_s,
        r.p50_wait_s,
        r.p99_wait_s,
        r.makespan_s,
        r.gpu_utilization * 100.0,
        r.preemptions,
        "group",
        "jobs",
        "avg JCT s",
        "avg wait s",
        "p99 wait s"
    );
    for (name, g) in &r.groups {
        out += &format!(
            "{:<10} {:>7} {:>12.0} {:>12.0} {:>12.0}\n",
            name, g.jobs, g.avg_jct_s, g.avg_wait_s, g.p99_wait_s
        );
    }
    out
}
