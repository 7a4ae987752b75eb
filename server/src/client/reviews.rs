//! `tidepool report reviews quotas|idle|templates|rules`: the monthly quota (Q5) and
//! idle (R5) reviews, the quarterly template review (T3) and the yearly review of the
//! rules, as tables or the API's JSON.

use tidepool_api::reviews::{Effect, IdleReview, QuotaReview, RulesReview, TemplateReview};

use crate::cli::{ReviewFormat, ReviewKind};
use crate::client::http::{Api, query};
use crate::client::report::client_opts;
use crate::client::table::{span, table, utc};
use crate::client::{Failure, Outcome, print};

/// Which period flag `kind` takes, and the name of its query parameter.
fn period(kind: ReviewKind) -> &'static str {
    match kind {
        ReviewKind::Quotas | ReviewKind::Idle => "month",
        ReviewKind::Templates => "quarter",
        ReviewKind::Rules => "year",
    }
}

pub async fn reviews(
    server: &Option<String>,
    format: ReviewFormat,
    kind: ReviewKind,
    month: Option<&str>,
    quarter: Option<&str>,
    year: Option<i64>,
) -> Outcome {
    let given = [("month", month.map(str::to_string)), ("quarter", quarter.map(str::to_string))]
        .into_iter()
        .chain([("year", year.map(|y| y.to_string()))])
        .find_map(|(name, v)| v.map(|v| (name, v)));
    let wanted = period(kind);
    let q = match given {
        Some((name, _)) if name != wanted => {
            let kind = format!("{kind:?}").to_lowercase();
            return Err(Failure::Usage(format!("`report reviews {kind}` takes --{wanted}, not --{name}")));
        }
        Some((name, v)) => format!("?{}", query(&[(name, v)])),
        None => String::new(),
    };
    let opts = client_opts(server, format == ReviewFormat::Json);
    let mut api = Api::signed_in(&opts)?;
    match kind {
        ReviewKind::Quotas => {
            let r: QuotaReview = api.get(&format!("/api/reviews/quotas{q}")).await?;
            print(&opts, &r, quotas)
        }
        ReviewKind::Idle => {
            let r: IdleReview = api.get(&format!("/api/reviews/idle{q}")).await?;
            print(&opts, &r, idle)
        }
        ReviewKind::Templates => {
            let r: TemplateReview = api.get(&format!("/api/reviews/templates{q}")).await?;
            print(&opts, &r, templates)
        }
        ReviewKind::Rules => {
            let r: RulesReview = api.get(&format!("/api/reviews/rules{q}")).await?;
            print(&opts, &r, rules)
        }
    }
}

fn quotas(r: &QuotaReview) -> String {
    let rows: Vec<Vec<String>> = r
        .lines
        .iter()
        .map(|l| {
            vec![
                l.group.clone(),
                l.model.clone(),
                l.category.clone(),
                l.guaranteed.to_string(),
                format!("{:.1} / {:.1}", l.held_p50, l.held_p95),
                format!("{:.1}", l.borrowed_gpu_hours),
                format!("{:.1}", l.lent_gpu_hours),
                span(l.wait_p95_s.round() as i64),
                l.suggested.map_or("keep".into(), |s| s.to_string()),
                l.why.clone(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return format!("quota review {}: no quotas", r.month);
    }
    let headers = [
        "GROUP",
        "MODEL",
        "CATEGORY",
        "GUARANTEED",
        "HELD P50/P95",
        "BORROWED",
        "LENT",
        "WAIT P95",
        "SUGGESTED",
        "WHY",
    ];
    format!("quota review {}\n{}", r.month, table(&headers, &rows))
}

fn idle(r: &IdleReview) -> String {
    let rows: Vec<Vec<String>> = r
        .lines
        .iter()
        .map(|l| {
            vec![
                l.group.clone(),
                format!("{:.1}", l.held_gpu_hours),
                format!("{:.1}", l.idle_gpu_hours),
                format!("{:.0}%", l.idle_share * 100.0),
                l.idle_reclaims.to_string(),
                format!("{:.1}", l.unused_guarantee_avg),
                l.suggestion.clone(),
            ]
        })
        .collect();
    if rows.is_empty() {
        return format!("idle review {}: no groups held GPUs", r.month);
    }
    let headers = ["GROUP", "HELD GPU-H", "IDLE GPU-H", "IDLE", "RECLAIMS", "UNUSED GUARANTEE", "SUGGESTION"];
    format!("idle review {}\n{}", r.month, table(&headers, &rows))
}

fn templates(r: &TemplateReview) -> String {
    let rows: Vec<Vec<String>> = r
        .stale
        .iter()
        .map(|t| {
            vec![
                t.id.to_string(),
                t.name.clone(),
                t.group.clone(),
                t.created_by.clone(),
                t.launches.to_string(),
                t.last_launch.map_or("never".into(), utc),
            ]
        })
        .collect();
    if rows.is_empty() {
        return format!("template review {}: every template was launched", r.quarter);
    }
    let headers = ["ID", "NAME", "GROUP", "CREATED BY", "LAUNCHES", "LAST LAUNCH"];
    format!("template review {}: not launched this quarter\n{}", r.quarter, table(&headers, &rows))
}

fn effect(e: &Effect) -> String {
    format!(
        "{:.0} GPU-h, {:.0}% idle, p95 wait {}",
        e.gpu_hours,
        e.idle_share * 100.0,
        span(e.wait_p95_s.round() as i64)
    )
}

fn rules(r: &RulesReview) -> String {
    if r.entries.is_empty() {
        return format!("rules review {}: no policy or quota changed", r.year);
    }
    let mut out = vec![format!("rules review {}", r.year)];
    for e in &r.entries {
        let approved = e.approved_by.as_deref().map(|a| format!(", approved by {a}")).unwrap_or_default();
        out.push(String::new());
        out.push(format!("{} {}: {} (by {}{approved})", utc(e.at), e.kind, e.what, e.by));
        out.push(format!("  why: {}", e.why));
        out.push(format!("  4 weeks before: {}", effect(&e.before)));
        out.push(format!("  4 weeks after:  {}", effect(&e.after)));
    }
    out.join("\n")
}
