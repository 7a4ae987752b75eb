//! The weekly report's tables, as text: what the page shows and what "Download CSV"
//! saves are the same rows, built here from the typed report (`WeeklyReport`).

use tidepool_api::reports::WeeklyReport;

use crate::csv;

/// One table of the report.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    /// Names the table in the page (`report-usage`) and its file.
    pub id: &'static str,
    pub title: &'static str,
    pub header: Vec<String>,
    pub rows: Vec<Vec<String>>,
}

impl Table {
    pub fn csv(&self) -> String {
        csv::write(&self.header, &self.rows)
    }

    /// `tidepool-vision-2026-W48-usage.csv`; `organisation` for the whole organisation.
    pub fn file_name(&self, report: &WeeklyReport) -> String {
        let who = report.group.as_deref().unwrap_or("organisation");
        format!("tidepool-{who}-{}-{}.csv", report.week, self.id)
    }

    /// A review's file: `tidepool-review-quotas-2026-11.csv`.
    pub fn review_file_name(&self, period: &str) -> String {
        format!("tidepool-review-{}-{period}.csv", self.id)
    }
}

fn table(id: &'static str, title: &'static str, header: &[&str], rows: Vec<Vec<String>>) -> Table {
    Table { id, title, header: header.iter().map(|h| h.to_string()).collect(), rows }
}

/// GPU-hours, to a tenth.
pub fn hours(v: f64) -> String {
    format!("{v:.1}")
}

/// Money, to the cent.
pub fn money(v: f64) -> String {
    format!("{v:.2}")
}

fn whole(v: f64) -> String {
    format!("{v:.0}")
}

/// Every table of `r`, in the page's order.
pub fn tables(r: &WeeklyReport) -> Vec<Table> {
    let t = &r.totals;
    let cost = format!("cost ({})", r.currency);
    let mut usage = table("usage", "Usage by model and category", &[], Vec::new());
    usage.header =
        ["model", "category", "GPU-hours", "busy GPU-hours", "idle GPU-hours", "price per GPU-hour", &cost]
            .map(String::from)
            .to_vec();
    usage.rows = r
        .usage
        .iter()
        .map(|u| {
            let price = u.price_per_gpu_hour.map(money).unwrap_or_default();
            vec![
                u.model.clone(),
                u.category.clone(),
                hours(u.gpu_hours),
                hours(u.busy_gpu_hours),
                hours(u.idle_gpu_hours),
                price,
                money(u.cost),
            ]
        })
        .collect();
    let mut totals = table(
        "totals",
        "Totals",
        &["GPU-hours", "busy GPU-hours", "idle GPU-hours", "cost", "jobs started", "jobs finished"],
        Vec::new(),
    );
    totals.rows = vec![vec![
        hours(t.gpu_hours),
        hours(t.busy_gpu_hours),
        hours(t.idle_gpu_hours),
        money(t.cost),
        t.jobs_started.to_string(),
        t.jobs_finished.to_string(),
    ]];
    totals.header[3] = cost;
    let days = table(
        "days",
        "GPU-hours by day",
        &["date", "training", "inference", "pretraining", "total"],
        r.days
            .iter()
            .map(|d| {
                vec![
                    d.date.clone(),
                    hours(d.training),
                    hours(d.inference),
                    hours(d.pretraining),
                    hours(d.training + d.inference + d.pretraining),
                ]
            })
            .collect(),
    );
    let guarantees = table(
        "guarantees",
        "Guarantees against use",
        &[
            "group",
            "model",
            "category",
            "guaranteed GPUs",
            "guaranteed GPU-hours",
            "used GPU-hours",
            "use %",
            "held avg",
            "held p50",
            "held p95",
        ],
        r.guarantees
            .iter()
            .map(|g| {
                let ratio = g.use_ratio.map(|x| whole(x * 100.0)).unwrap_or_default();
                let (group, model, category) = (g.group.clone(), g.model.clone(), g.category.clone());
                vec![
                    group,
                    model,
                    category,
                    g.guaranteed.to_string(),
                    hours(g.guaranteed_gpu_hours),
                    hours(g.used_gpu_hours),
                    ratio,
                    hours(g.held_avg),
                    hours(g.held_p50),
                    hours(g.held_p95),
                ]
            })
            .collect(),
    );
    let waits = table(
        "waits",
        "Waits by class (seconds)",
        &["class", "jobs", "avg", "p50", "p95"],
        r.waits
            .iter()
            .map(|w| {
                vec![w.class.clone(), w.jobs.to_string(), whole(w.avg_s), whole(w.p50_s), whole(w.p95_s)]
            })
            .collect(),
    );
    let reasons = table(
        "wait-reasons",
        "Why jobs waited",
        &["reason", "jobs", "hours waited"],
        r.wait_reasons
            .iter()
            .map(|w| vec![w.reason.clone(), w.jobs.to_string(), format!("{:.1}", w.wait_s as f64 / 3600.0)])
            .collect(),
    );
    let loans = table(
        "loans",
        "Loans",
        &["loan", "lender", "borrower", "model", "GPUs", "GPU-hours"],
        r.loans
            .loans
            .iter()
            .map(|l| {
                let borrower = l.borrower.clone().unwrap_or_else(|| "(open offer)".into());
                vec![
                    l.id.to_string(),
                    l.lender.clone(),
                    borrower,
                    l.model.clone(),
                    l.gpus.to_string(),
                    hours(l.gpu_hours),
                ]
            })
            .collect(),
    );
    let (o, i) = (&r.outcomes, &r.interruptions);
    let outcomes = table(
        "outcomes",
        "Outcomes and interruptions",
        &["what", "count"],
        [
            ("succeeded", o.succeeded.to_string()),
            ("failed", o.failed.to_string()),
            ("timed out", o.timed_out.to_string()),
            ("cancelled", o.cancelled.to_string()),
            ("preempted", i.preemptions.to_string()),
            ("reclaimed while idle", i.idle_reclaims.to_string()),
            ("GPU-hours freed by idle reclaims", hours(i.reclaimed_gpu_hours)),
            ("GPU-hours lent", hours(r.loans.lent_gpu_hours)),
            ("GPU-hours borrowed", hours(r.loans.borrowed_gpu_hours)),
        ]
        .into_iter()
        .map(|(k, v)| vec![k.to_string(), v])
        .collect(),
    );
    let budgets = table(
        "budgets",
        "Budget burn",
        &["group", "model", "category", "month", "budget GPU-hours", "spent GPU-hours", "forecast GPU-hours"],
        r.budgets
            .iter()
            .map(|b| {
                let (group, model, category, month) =
                    (b.group.clone(), b.model.clone(), b.category.clone(), b.month.clone());
                vec![
                    group,
                    model,
                    category,
                    month,
                    hours(b.budget_gpu_hours),
                    hours(b.spent_gpu_hours),
                    hours(b.forecast_gpu_hours),
                ]
            })
            .collect(),
    );
    let hour_rows = |kind: &str, hs: &[tidepool_api::reports::HourFigure]| -> Vec<Vec<String>> {
        hs.iter()
            .map(|h| vec![kind.to_string(), h.local.clone(), hours(h.gpus_held), whole(h.util_pct)])
            .collect()
    };
    let mut busy = hour_rows("busiest", &r.busiest_hours);
    busy.extend(hour_rows("idlest", &r.idlest_hours));
    let hours_table =
        table("hours", "Busiest and idlest hours", &["", "local hour", "GPUs held", "utilisation %"], busy);
    let mut change = table(
        "change",
        "Against the previous week",
        &["figure", "this week", "previous week", "change %"],
        change_rows(r),
    );
    if let Some(p) = &r.previous {
        // A week under way is compared with as much of the previous one.
        let part = if p.elapsed_only { ", same hours" } else { "" };
        change.header[2] = format!("previous week ({}{part})", p.week);
    }
    vec![totals, usage, days, guarantees, waits, reasons, loans, outcomes, budgets, hours_table, change]
}

/// The change in whole percent, signed; blank from zero, and "0" (never "-0") when it rounds away.
fn percent_change(before: f64, now: f64) -> String {
    if before == 0.0 {
        return String::new();
    }
    match ((now - before) / before * 100.0).round() {
        0.0 => "0".into(),
        p => format!("{p:+.0}"),
    }
}

/// This week, the previous one and the change in percent (blank when the previous is 0).
fn change_rows(r: &WeeklyReport) -> Vec<Vec<String>> {
    let Some(p) = &r.previous else { return Vec::new() };
    let t = &r.totals;
    [
        ("GPU-hours", t.gpu_hours, p.gpu_hours, hours as fn(f64) -> String),
        ("cost", t.cost, p.cost, money),
        ("idle GPU-hours", t.idle_gpu_hours, p.idle_gpu_hours, hours),
        ("p95 wait (s)", p.this_wait_p95_s, p.wait_p95_s, whole),
    ]
    .into_iter()
    .map(|(name, now, before, f)| {
        let pct = percent_change(before, now);
        vec![name.to_string(), f(now), f(before), pct]
    })
    .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sample;

    fn find(r: &WeeklyReport, id: &str) -> Table {
        tables(r).into_iter().find(|t| t.id == id).unwrap()
    }

    #[test]
    fn usage_rows_carry_cost_and_price_and_quote_commas() {
        let r = sample::report();
        let t = find(&r, "usage");
        assert_eq!(t.header.last().unwrap(), "cost (EUR)");
        assert_eq!(t.rows[0], ["A100-80G", "training", "24.0", "16.0", "4.0", "2.50", "60.00"]);
        assert_eq!(t.rows[1][5], "", "no price: blank, not 0");
        let csv = t.csv();
        assert!(csv.starts_with(
            "model,category,GPU-hours,busy GPU-hours,idle GPU-hours,price per GPU-hour,cost (EUR)\r\n"
        ));
        assert!(csv.contains("\r\n\"H100, SXM\",inference,6.0,"), "{csv}");
        assert_eq!(t.file_name(&r), "tidepool-vision-2026-W48-usage.csv");
    }

    #[test]
    fn every_section_has_its_table() {
        let r = sample::report();
        let ids: Vec<_> = tables(&r).iter().map(|t| t.id).collect();
        assert_eq!(
            ids,
            [
                "totals",
                "usage",
                "days",
                "guarantees",
                "waits",
                "wait-reasons",
                "loans",
                "outcomes",
                "budgets",
                "hours",
                "change"
            ]
        );
        assert_eq!(find(&r, "days").rows[1], ["2026-11-24", "16.0", "4.0", "0.0", "20.0"]);
        assert_eq!(find(&r, "guarantees").rows[0][6], "1", "24 of 2688 GPU-hours is 0.9%, shown as 1");
        assert_eq!(find(&r, "hours").rows.len(), 2);
        assert_eq!(find(&r, "loans").rows[0], ["7", "speech", "vision", "A100-80G", "8", "16.0"]);
    }

    #[test]
    fn the_change_is_in_percent_and_blank_against_nothing() {
        let mut r = sample::report();
        let t = find(&r, "change");
        assert_eq!(t.header[2], "previous week (2026-W47)");
        assert_eq!(t.rows[0], ["GPU-hours", "30.0", "20.0", "+50"]);
        assert_eq!(t.rows[1], ["cost", "75.00", "0.00", ""]);
        assert_eq!(t.rows[2][3], "-50");
        assert_eq!(t.rows[3], ["p95 wait (s)", "200", "100", "+100"]);
        // A change that rounds away reads "0", never "-0".
        assert_eq!((percent_change(74.8, 74.7), percent_change(100.0, 100.4)), ("0".into(), "0".into()));
        r.previous = None;
        assert!(find(&r, "change").rows.is_empty());
        r.group = None;
        assert_eq!(find(&r, "change").file_name(&r), "tidepool-organisation-2026-W48-change.csv");
    }
}
