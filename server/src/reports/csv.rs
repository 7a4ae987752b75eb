//! The weekly report as CSV: each table a section headed by its name on a line of its
//! own (`# usage`), then a header row and the rows, a blank line between sections.
//! Fields are quoted when they hold a comma, a quote or a line break (RFC 4180).

use std::fmt::Write;

use tidepool_api::reports::WeeklyReport;

fn field(v: &str) -> String {
    // A leading = + - @ would run as a formula in a spreadsheet: quoted and prefixed.
    let v = if v.starts_with(['=', '+', '-', '@']) && v.parse::<f64>().is_err() {
        format!("'{v}")
    } else {
        v.to_string()
    };
    if v.contains([',', '"', '\n', '\r']) { format!("\"{}\"", v.replace('"', "\"\"")) } else { v }
}

struct Csv(String);

impl Csv {
    fn section(&mut self, name: &str, header: &[&str]) {
        if !self.0.is_empty() {
            self.0.push('\n');
        }
        let _ = writeln!(self.0, "# {name}");
        self.row(header.iter().map(|h| h.to_string()).collect());
    }
    fn row(&mut self, cells: Vec<String>) {
        let _ = writeln!(self.0, "{}", cells.iter().map(|c| field(c)).collect::<Vec<_>>().join(","));
    }
}

fn opt<T: ToString>(v: Option<T>) -> String {
    v.map(|v| v.to_string()).unwrap_or_default()
}

/// Every table of `r`.
pub fn to_csv(r: &WeeklyReport) -> String {
    let mut c = Csv(String::new());
    c.section("report", &["week", "group", "time_zone", "starts_at", "ends_at", "frozen_at", "currency"]);
    c.row(vec![
        r.week.clone(),
        r.group.clone().unwrap_or_else(|| "organisation".into()),
        r.time_zone.clone(),
        r.starts_at.to_string(),
        r.ends_at.to_string(),
        opt(r.frozen_at),
        r.currency.clone(),
    ]);
    let t = &r.totals;
    c.section(
        "totals",
        &["gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "cost", "jobs_started", "jobs_finished"],
    );
    c.row(vec![
        t.gpu_hours.to_string(),
        t.busy_gpu_hours.to_string(),
        t.idle_gpu_hours.to_string(),
        t.cost.to_string(),
        t.jobs_started.to_string(),
        t.jobs_finished.to_string(),
    ]);
    c.section(
        "usage",
        &["model", "category", "gpu_hours", "busy_gpu_hours", "idle_gpu_hours", "price_per_gpu_hour", "cost"],
    );
    for u in &r.usage {
        c.row(vec![
            u.model.clone(),
            u.category.clone(),
            u.gpu_hours.to_string(),
            u.busy_gpu_hours.to_string(),
            u.idle_gpu_hours.to_string(),
            opt(u.price_per_gpu_hour),
            u.cost.to_string(),
        ]);
    }
    c.section("days", &["date", "training", "inference", "pretraining"]);
    for d in &r.days {
        c.row(vec![
            d.date.clone(),
            d.training.to_string(),
            d.inference.to_string(),
            d.pretraining.to_string(),
        ]);
    }
    c.section(
        "guarantees",
        &[
            "group",
            "model",
            "category",
            "guaranteed",
            "guaranteed_gpu_hours",
            "used_gpu_hours",
            "use_ratio",
            "held_avg",
            "held_p50",
            "held_p95",
        ],
    );
    for g in &r.guarantees {
        c.row(vec![
            g.group.clone(),
            g.model.clone(),
            g.category.clone(),
            g.guaranteed.to_string(),
            g.guaranteed_gpu_hours.to_string(),
            g.used_gpu_hours.to_string(),
            opt(g.use_ratio),
            g.held_avg.to_string(),
            g.held_p50.to_string(),
            g.held_p95.to_string(),
        ]);
    }
    c.section("waits", &["class", "jobs", "avg_s", "p50_s", "p95_s"]);
    for w in &r.waits {
        c.row(vec![
            w.class.clone(),
            w.jobs.to_string(),
            w.avg_s.to_string(),
            w.p50_s.to_string(),
            w.p95_s.to_string(),
        ]);
    }
    c.section("wait_reasons", &["reason", "jobs", "wait_s"]);
    for w in &r.wait_reasons {
        c.row(vec![w.reason.clone(), w.jobs.to_string(), w.wait_s.to_string()]);
    }
    c.section("loans", &["id", "lender", "borrower", "model", "gpus", "gpu_hours"]);
    for l in &r.loans.loans {
        c.row(vec![
            l.id.to_string(),
            l.lender.clone(),
            opt(l.borrower.clone()),
            l.model.clone(),
            l.gpus.to_string(),
            l.gpu_hours.to_string(),
        ]);
    }
    c.section("loan_totals", &["lent_gpu_hours", "borrowed_gpu_hours"]);
    c.row(vec![r.loans.lent_gpu_hours.to_string(), r.loans.borrowed_gpu_hours.to_string()]);
    let i = &r.interruptions;
    c.section("interruptions", &["preemptions", "idle_reclaims", "reclaimed_gpu_hours"]);
    c.row(vec![i.preemptions.to_string(), i.idle_reclaims.to_string(), i.reclaimed_gpu_hours.to_string()]);
    let o = &r.outcomes;
    c.section("outcomes", &["succeeded", "failed", "timed_out", "cancelled"]);
    c.row(vec![
        o.succeeded.to_string(),
        o.failed.to_string(),
        o.timed_out.to_string(),
        o.cancelled.to_string(),
    ]);
    c.section(
        "budgets",
        &["group", "model", "category", "month", "budget_gpu_hours", "spent_gpu_hours", "forecast_gpu_hours"],
    );
    for b in &r.budgets {
        c.row(vec![
            b.group.clone(),
            b.model.clone(),
            b.category.clone(),
            b.month.clone(),
            b.budget_gpu_hours.to_string(),
            b.spent_gpu_hours.to_string(),
            b.forecast_gpu_hours.to_string(),
        ]);
    }
    for (name, hours) in [("busiest_hours", &r.busiest_hours), ("idlest_hours", &r.idlest_hours)] {
        c.section(name, &["local", "gpus_held", "util_pct"]);
        for h in hours {
            c.row(vec![h.local.clone(), h.gpus_held.to_string(), h.util_pct.to_string()]);
        }
    }
    c.section("previous", &["week", "gpu_hours", "cost", "idle_gpu_hours", "wait_p95_s", "this_wait_p95_s"]);
    if let Some(p) = &r.previous {
        c.row(vec![
            p.week.clone(),
            p.gpu_hours.to_string(),
            p.cost.to_string(),
            p.idle_gpu_hours.to_string(),
            p.wait_p95_s.to_string(),
            p.this_wait_p95_s.to_string(),
        ]);
    }
    c.0
}

#[cfg(test)]
mod tests {
    use super::field;

    #[test]
    fn fields_are_quoted_and_formulas_defused() {
        assert_eq!(field("plain"), "plain");
        assert_eq!(field("a,b"), "\"a,b\"");
        assert_eq!(field("say \"hi\""), "\"say \"\"hi\"\"\"");
        assert_eq!(field("=cmd()"), "'=cmd()");
        assert_eq!(field("-1.5"), "-1.5");
    }
}
