//! `tidepool report weekly`: one ISO week of a group or the organisation (A5, O4), as a
//! table for people, the API's JSON, or the server's CSV sections; `report reviews` is
//! in `reviews.rs`.

use tidepool_api::reports::{WaitStats, WeeklyReport};

use crate::cli::{ClientOpts, Format, ReportFormat};
use crate::client::http::{Api, query};
use crate::client::table::{span, table, utc};
use crate::client::{Outcome, print};
use crate::org_time::OrgZone;

/// The options every client command takes, from `report`'s own `--server` and `--format`.
pub fn client_opts(server: &Option<String>, json: bool) -> ClientOpts {
    ClientOpts {
        server: server.clone(),
        format: if json { Format::Json } else { Format::Text },
        ca_cert: None,
    }
}

pub async fn weekly(
    server: &Option<String>,
    format: ReportFormat,
    group: Option<&str>,
    week: Option<&str>,
) -> Outcome {
    let opts = client_opts(server, format == ReportFormat::Json);
    let mut api = Api::signed_in(&opts)?;
    let mut pairs = Vec::new();
    if let Some(g) = group {
        pairs.push(("group", g.to_string()));
    }
    if let Some(w) = week {
        pairs.push(("week", w.to_string()));
    }
    let q = if pairs.is_empty() { String::new() } else { format!("?{}", query(&pairs)) };
    if format == ReportFormat::Csv {
        let csv = api.get_text(&format!("/api/reports/weekly.csv{q}")).await?;
        use std::io::Write;
        // A closed pipe (`| head`) is the reader's choice, not a failure.
        let _ = std::io::stdout().write_all(csv.as_bytes());
        return Ok(());
    }
    let report: WeeklyReport = api.get(&format!("/api/reports/weekly{q}")).await?;
    print(&opts, &report, render)
}

fn hours(v: f64) -> String {
    format!("{:.1}", v + 0.0)
}

fn money(v: f64, currency: &str) -> String {
    // + 0.0: a sum of nothing can be -0.0, which would print as `-0.00`.
    format!("{:.2} {currency}", v + 0.0)
}

fn secs(v: f64) -> String {
    span(v.round() as i64)
}

/// `+12.5%`, or `new` when there was nothing before.
fn change(before: f64, now: f64) -> String {
    if before.abs() < 1e-9 {
        return if now.abs() < 1e-9 { "same".into() } else { "new".into() };
    }
    format!("{:+.1}%", (now - before) / before * 100.0)
}

/// The first line says what the report covers; the tables follow, one blank line apart.
pub fn render(r: &WeeklyReport) -> String {
    let scope = r.group.clone().unwrap_or_else(|| "organisation".into());
    let days = match OrgZone::named(&r.time_zone) {
        Ok(zone) => format!("{} to {}", zone.date_of(r.starts_at), zone.date_of(r.ends_at - 1)),
        Err(_) => format!("{} to {}", utc(r.starts_at), utc(r.ends_at)),
    };
    let state = match r.frozen_at {
        Some(at) => format!("frozen {}", utc(at)),
        None => "under way".into(),
    };
    let mut out = vec![format!("{scope} · {} ({days}, {}) · {state}", r.week, r.time_zone)];
    let t = &r.totals;
    out.push(format!(
        "totals: {} GPU-h, {} busy, {} idle, cost {}, jobs {} started / {} finished",
        hours(t.gpu_hours),
        hours(t.busy_gpu_hours),
        hours(t.idle_gpu_hours),
        money(t.cost, &r.currency),
        t.jobs_started,
        t.jobs_finished
    ));

    let usage: Vec<Vec<String>> = r
        .usage
        .iter()
        .map(|u| {
            vec![
                u.model.clone(),
                u.category.clone(),
                hours(u.gpu_hours),
                hours(u.busy_gpu_hours),
                hours(u.idle_gpu_hours),
                u.price_per_gpu_hour.map_or("-".into(), |p| money(p, &r.currency)),
                money(u.cost, &r.currency),
            ]
        })
        .collect();
    out.push(String::new());
    out.push(if usage.is_empty() {
        "usage: none".into()
    } else {
        table(&["MODEL", "CATEGORY", "GPU-H", "BUSY", "IDLE", "PRICE/GPU-H", "COST"], &usage)
    });

    out.push(String::new());
    out.push(waits(&r.waits));
    if !r.wait_reasons.is_empty() {
        let reasons: Vec<String> = r
            .wait_reasons
            .iter()
            .map(|w| format!("{} ({} jobs, {:.1} h)", w.reason, w.jobs, w.wait_s as f64 / 3600.0))
            .collect();
        out.push(format!("waited for: {}", reasons.join("; ")));
    }

    out.push(String::new());
    let l = &r.loans;
    out.push(format!(
        "loans: lent {} GPU-h, borrowed {} GPU-h",
        hours(l.lent_gpu_hours),
        hours(l.borrowed_gpu_hours)
    ));
    for loan in &l.loans {
        let borrower = loan.borrower.clone().unwrap_or_else(|| "(open offer)".into());
        out.push(format!(
            "  loan {}: {} -> {borrower}, {}×{}, {} GPU-h",
            loan.id,
            loan.lender,
            loan.gpus,
            loan.model,
            hours(loan.gpu_hours)
        ));
    }
    let o = &r.outcomes;
    out.push(format!(
        "outcomes: {} succeeded, {} failed, {} timed out, {} cancelled",
        o.succeeded, o.failed, o.timed_out, o.cancelled
    ));
    let i = &r.interruptions;
    out.push(format!(
        "interruptions: {} preempted, {} reclaimed while idle ({} GPU-h freed)",
        i.preemptions,
        i.idle_reclaims,
        hours(i.reclaimed_gpu_hours)
    ));

    out.push(String::new());
    out.push(match &r.previous {
        None => "against the previous week: no previous week".into(),
        Some(p) => format!(
            "against {}{}: GPU-h {} -> {} ({}), cost {} -> {} ({}), idle {} -> {} GPU-h, p95 wait {} -> {}",
            p.week,
            if p.elapsed_only { " (its first hours, as many as this week has had)" } else { "" },
            hours(p.gpu_hours),
            hours(t.gpu_hours),
            change(p.gpu_hours, t.gpu_hours),
            money(p.cost, &r.currency),
            money(t.cost, &r.currency),
            change(p.cost, t.cost),
            hours(p.idle_gpu_hours),
            hours(t.idle_gpu_hours),
            secs(p.wait_p95_s),
            secs(p.this_wait_p95_s),
        ),
    });
    out.join("\n")
}

fn waits(waits: &[WaitStats]) -> String {
    if waits.is_empty() {
        return "waits: no job was placed this week".into();
    }
    let rows: Vec<Vec<String>> = waits
        .iter()
        .map(|w| vec![w.class.clone(), w.jobs.to_string(), secs(w.avg_s), secs(w.p50_s), secs(w.p95_s)])
        .collect();
    table(&["CLASS", "JOBS", "AVG WAIT", "P50", "P95"], &rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_a_signed_percentage_or_says_there_was_nothing_before() {
        assert_eq!(change(80.0, 100.0), "+25.0%");
        assert_eq!(change(100.0, 75.0), "-25.0%");
        assert_eq!(change(0.0, 3.0), "new");
        assert_eq!(change(0.0, 0.0), "same");
    }
}
