//! `tidepool templates`, `quota` and `nodes`: what everyone may see, as compact tables.

use tidepool_api::{NodesView, QuotasView, TemplatePage};

use crate::cli::ClientOpts;
use crate::client::http::Api;
use crate::client::table::{relative, span, table};
use crate::client::{Outcome, print};

/// The first line of `text`, cut to `max` characters.
fn short(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() <= max && !text.contains('\n') {
        return line.to_string();
    }
    format!("{}…", line.chars().take(max).collect::<String>())
}

pub async fn templates(opts: &ClientOpts) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let mut page: TemplatePage = api.get("/api/templates?limit=500").await?;
    // Every page: a group keeps at most a few hundred, so the whole list is small.
    while let Some(after) = page.next {
        let more: TemplatePage = api.get(&format!("/api/templates?limit=500&after={after}")).await?;
        page.templates.extend(more.templates);
        page.next = more.next;
    }
    let now = crate::unix_now();
    print(opts, &page, |page| {
        let rows: Vec<Vec<String>> = page
            .templates
            .iter()
            .filter(|t| t.retired_at.is_none())
            .map(|t| {
                let limit = t.time_limit_s.map_or("-".into(), span);
                let last = t.last_used_at.map_or("never".into(), |at| relative(at, now));
                vec![
                    t.id.to_string(),
                    t.name.clone(),
                    t.group.clone(),
                    format!("{}×{}", t.gpus, t.model),
                    format!("{}/{}", t.category, t.class),
                    limit,
                    if t.usable { "yes".into() } else { "no".into() },
                    format!("{} (last {last})", t.uses),
                    short(&t.command, 60),
                ]
            })
            .collect();
        if rows.is_empty() {
            return "no templates".into();
        }
        let headers = ["ID", "NAME", "GROUP", "GPUS", "KIND", "LIMIT", "USABLE", "USES", "COMMAND"];
        format!("{}\nlaunch one: tidepool submit --template ID", table(&headers, &rows))
    })
}

pub async fn quota(opts: &ClientOpts, group: Option<&str>) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let mut view: QuotasView = api.get("/api/quotas").await?;
    view.quotas.retain(|q| group.is_none_or(|g| q.group == g));
    print(opts, &view, |v| {
        let limit = |l: Option<i64>| l.map_or("-".into(), |l| l.to_string());
        let rows: Vec<Vec<String>> = v
            .quotas
            .iter()
            .map(|q| {
                let budget = match (q.budget_gpu_h, q.budget_used) {
                    (Some(b), Some(used)) => {
                        format!("{:.1}/{b:.0} GPU-h ({:.0}%)", q.spent_gpu_h, used * 100.0)
                    }
                    _ => format!("{:.1} GPU-h", q.spent_gpu_h),
                };
                vec![
                    q.group.clone(),
                    q.model.clone(),
                    q.category.clone(),
                    q.guaranteed.to_string(),
                    q.running_gpus.to_string(),
                    q.over_guarantee.to_string(),
                    q.idle_guarantee.to_string(),
                    limit(q.borrow_limit),
                    limit(q.lend_limit),
                    budget,
                ]
            })
            .collect();
        if rows.is_empty() {
            return "no quotas".into();
        }
        let headers = [
            "GROUP",
            "MODEL",
            "CATEGORY",
            "GUARANTEED",
            "IN USE",
            "BORROWED",
            "IDLE",
            "BORROW≤",
            "LEND≤",
            "THIS MONTH",
        ];
        table(&headers, &rows)
    })
}

pub async fn nodes(opts: &ClientOpts) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let view: NodesView = api.get("/api/nodes").await?;
    let now = crate::unix_now();
    print(opts, &view, |v| {
        let rows: Vec<Vec<String>> = v
            .nodes
            .iter()
            .map(|n| {
                // One character per GPU: `.` free, a letter per job holding some.
                let mut jobs: Vec<i64> = Vec::new();
                let map: String = n
                    .gpus
                    .iter()
                    .map(|slot| match slot {
                        None => '.',
                        Some(h) => {
                            let k = jobs.iter().position(|j| *j == h.job).unwrap_or_else(|| {
                                jobs.push(h.job);
                                jobs.len() - 1
                            });
                            (b'A' + (k % 26) as u8) as char
                        }
                    })
                    .collect();
                let held: Vec<String> = jobs
                    .iter()
                    .enumerate()
                    .filter_map(|(k, id)| {
                        let h = n.gpus.iter().flatten().find(|h| h.job == *id)?;
                        let until = h.until.map_or(String::new(), |u| format!(", ends {}", relative(u, now)));
                        Some(format!(
                            "{}={} {} ({}{until})",
                            (b'A' + (k % 26) as u8) as char,
                            h.job,
                            h.name,
                            h.group
                        ))
                    })
                    .collect();
                vec![
                    n.pool.clone(),
                    n.name.clone(),
                    n.model.clone(),
                    if n.healthy { "up".into() } else { "OUT".into() },
                    format!("{}/{}", n.free, n.gpus.len()),
                    map,
                    held.join("; "),
                ]
            })
            .collect();
        if rows.is_empty() {
            return "no nodes".into();
        }
        let (free, total): (i64, usize) =
            v.nodes.iter().filter(|n| n.healthy).fold((0, 0), |(f, t), n| (f + n.free, t + n.gpus.len()));
        let summary = format!("{} nodes, {free} of {total} GPUs free on healthy nodes", v.nodes.len());
        format!("{}\n{summary}", table(&["POOL", "NODE", "MODEL", "STATE", "FREE", "GPUS", "HELD BY"], &rows))
    })
}
