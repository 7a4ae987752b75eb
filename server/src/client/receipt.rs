//! `tidepool show JOB`: the dispatch receipt — where and when the job ran, which policy
//! version decided, why it waits, and its timeline.

use tidepool_api::Receipt;

use crate::cli::ClientOpts;
use crate::client::http::Api;
use crate::client::table::{span, table, utc, when};
use crate::client::{Outcome, print};

/// The receipt for people: a header of facts, then every event.
fn text(r: &Receipt, now: i64) -> String {
    let mut facts: Vec<(&str, String)> = vec![
        ("group", r.group.clone()),
        ("gpus", r.gpus.to_string()),
        ("state", r.state.to_string()),
        ("submitted", when(r.submitted_at, now)),
        ("time limit", span(r.time_limit_s)),
    ];
    facts.extend(r.position.map(|p| ("place", format!("#{} in the queue", p + 1))));
    facts.extend(r.estimated_start.map(|t| ("estimated start", when(t, now))));
    facts.extend(r.reason.clone().map(|why| ("why", why)));
    // Where: the last placement (a preempted, requeued job may have had several).
    if let Some(placed) = r.events.iter().rev().find(|e| e.kind == "placed") {
        let place = placed.message.split_once(" placed on ").map_or(placed.message.as_str(), |(_, p)| p);
        facts.push(("where", format!("{place} (since {})", when(placed.at, now))));
    }
    if let Some(policy) = r.events.iter().rev().find_map(|e| e.policy.clone()) {
        facts.push(("policy", policy));
    }
    facts.push(("image", r.image.clone().unwrap_or_else(|| "none: the node's sandbox".into())));
    if !r.env.is_empty() {
        let env: Vec<String> = r.env.iter().map(|(k, v)| format!("{k}={v}")).collect();
        facts.push(("env", env.join(" ")));
    }
    let width = facts.iter().map(|(k, _)| k.len()).max().unwrap_or(0);
    let mut out = format!("job {}: {}\n", r.id, r.name);
    for (k, v) in &facts {
        out.push_str(&format!("  {k:<width$}  {v}\n"));
    }
    let rows: Vec<Vec<String>> = r
        .events
        .iter()
        .map(|e| {
            vec![
                utc(e.at),
                e.kind.clone(),
                e.actor.clone().unwrap_or_default(),
                e.policy.clone().unwrap_or_default(),
                e.message.clone(),
            ]
        })
        .collect();
    if !r.waits.is_empty() {
        // Why it waited, span by span (D2): "three hours on quota, then ten minutes for GPUs".
        let waits: Vec<Vec<String>> = r
            .waits
            .iter()
            .map(|w| {
                let (until, end) = match w.until {
                    Some(u) => (utc(u), u),
                    None => ("still waiting".into(), now),
                };
                vec![utc(w.since), until, span(end - w.since), w.label.clone(), w.reason.clone()]
            })
            .collect();
        out.push_str("\nwaited\n");
        out.push_str(&table(&["FROM", "TO", "FOR", "WHY", "FIRST GIVEN AS"], &waits));
    }
    out.push('\n');
    out.push_str(&table(&["AT", "EVENT", "BY", "POLICY", "WHAT"], &rows));
    out
}

pub async fn show(opts: &ClientOpts, job: i64) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let r: Receipt = api.get(&format!("/api/jobs/{job}")).await?;
    let now = crate::unix_now();
    print(opts, &r, |r| text(r, now))
}
