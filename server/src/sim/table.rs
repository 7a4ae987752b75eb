//! `tidepool simulate --table`: the comparison behind the default policy's settings.
//! Three policy sets (first come first served; the default without time-sharing; the
//! default with it) on each group alone on its own nodes, then on the pooled cluster at
//! capacity scales 1, 0.5 and 0.25: avg JCT, p50/p99 wait, makespan, preemptions.

use serde::Serialize;

use crate::cli::{Format, SimulateArgs};
use crate::sim::trace::load_groups;
use crate::sim::{Mode, PolicyChoice, Report};

const POLICIES: [PolicyChoice; 3] = [PolicyChoice::Fifo, PolicyChoice::Default, PolicyChoice::Timeshare];
const SCALES: [f64; 3] = [1.0, 0.5, 0.25];

/// One cell of the comparison: where, which policy set, and its figures.
#[derive(Serialize)]
pub struct Row {
    pub scope: String,
    pub policy: String,
    pub report: Report,
}

/// Runs the whole comparison; `Err` carries a message for the user.
pub fn run(base: &SimulateArgs) -> Result<String, String> {
    let file = base.groups.as_deref().ok_or("--table needs --groups (the pooled runs use it)")?;
    let groups = load_groups(file).map_err(|e| e.to_string())?;
    let nodes = base.nodes.unwrap_or(8);
    let mut scopes: Vec<(String, SimulateArgs)> = Vec::new();
    for (name, _) in &groups {
        let mut a = single(base);
        a.groups = None;
        a.nodes = Some(nodes);
        a.only_groups = vec![name.clone()];
        scopes.push((format!("{name} alone, {} GPUs", nodes * u32::from(base.gpus_per_node)), a));
    }
    for scale in SCALES {
        let mut a = single(base);
        a.capacity_scale = scale;
        scopes.push((format!("pooled ×{scale}"), a));
    }
    let mut rows = Vec::new();
    for (scope, args) in scopes {
        // The three policy sets of a scope run side by side.
        let reports: Vec<Result<Report, String>> = std::thread::scope(|s| {
            let runs: Vec<_> = POLICIES
                .map(|p| {
                    let mut a = args.clone();
                    a.policy = Some(p);
                    s.spawn(move || crate::simulate::report(&a))
                })
                .into_iter()
                .collect();
            runs.into_iter().map(|h| h.join().expect("simulation thread")).collect()
        });
        for report in reports {
            let report = report?;
            rows.push(Row { scope: scope.clone(), policy: report.policy.clone(), report });
        }
    }
    Ok(match base.format {
        Format::Json => serde_json::to_string(&rows).expect("rows always serialize"),
        Format::Text => markdown(&rows),
    })
}

/// `base` as one plain pooled run (the table sets policy, scope and scale).
fn single(base: &SimulateArgs) -> SimulateArgs {
    SimulateArgs {
        table: false,
        mode: Mode::Pooled,
        capacity_scale: 1.0,
        only_groups: Vec::new(),
        ..base.clone()
    }
}

fn markdown(rows: &[Row]) -> String {
    let mut out = String::from(
        "| scope | policy | jobs | avg JCT h | p50 wait h | p99 wait h | makespan d | preemptions |\n\
         |---|---|---:|---:|---:|---:|---:|---:|\n",
    );
    for Row { scope, policy, report: r } in rows {
        out += &format!(
            "| {scope} | {policy} | {} | {:.2} | {:.2} | {:.2} | {:.1} | {} |\n",
            r.jobs,
            r.avg_jct_s / 3600.0,
            r.p50_wait_s / 3600.0,
            r.p99_wait_s / 3600.0,
            r.makespan_s / 86_400.0,
            r.preemptions
        );
    }
    out
}
