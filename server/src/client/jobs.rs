//! `tidepool submit`, `sbatch`, `queue` (alias `jobs`) and `cancel`.

use std::collections::BTreeMap;
use tidepool_api::{Cancelled, DryRun, JobPage, JobState, Submit, Submitted};

use crate::cli::{ClientOpts, JobSpecArgs};
use crate::client::http::{Api, query};
use crate::client::table::{parse_duration, relative, shell_line, span, table};
use crate::client::{Failure, Outcome, print};

/// The submission a spec's flags and a command line make.
pub(super) fn submission(
    spec: &JobSpecArgs,
    command: Option<String>,
    default_name: Option<String>,
) -> Result<Submit, Failure> {
    let usage = |m: String| Failure::Usage(m);
    if command.is_none() && spec.template.is_none() {
        return Err(usage("give the command after `--` (or --wrap 'LINE', or --template ID)".into()));
    }
    let mut env = BTreeMap::new();
    for pair in &spec.env {
        let Some((k, v)) = pair.split_once('=') else {
            return Err(usage(format!("--env takes KEY=VALUE, not `{pair}`")));
        };
        env.insert(k.to_string(), v.to_string());
    }
    let time_limit_s = spec.time_limit.as_deref().map(parse_duration).transpose().map_err(usage)?;
    // With a template the server names the job after it unless a name is given.
    let name = spec.name.clone().or(if spec.template.is_some() { None } else { default_name });
    Ok(Submit {
        name,
        command,
        gpus: spec.gpus,
        group: spec.group.clone(),
        model: spec.model.clone(),
        category: spec.category.clone(),
        class: spec.class.clone(),
        topology: spec.topology.clone(),
        time_limit_s,
        checkpointable: spec.checkpointable.then_some(true),
        image: spec.image.clone(),
        env: (!env.is_empty()).then_some(env),
        template: spec.template,
        project: spec.project.clone(),
        tags: spec.tags.clone(),
    })
}

/// A job's default name: its program's file name.
fn program_name(args: &[String]) -> Option<String> {
    let first = args.first()?;
    Some(first.rsplit('/').next().unwrap_or(first).chars().take(200).collect())
}

pub(super) async fn send(opts: &ClientOpts, body: Submit, dry_run: bool) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    if dry_run {
        let r: DryRun = api.post("/api/jobs/dry-run", Some(&body)).await?;
        let now = crate::unix_now();
        return print(opts, &r, |r| {
            let mut out = if r.would == "start" {
                let at: Vec<String> = r.nodes.iter().map(|(n, gpus)| format!("{n} GPUs {gpus:?}")).collect();
                format!("would start now on {}", at.join(", "))
            } else {
                let eta = r.estimated_start.map(|t| format!(", estimated start {}", relative(t, now)));
                format!("would wait, #{} in the queue{}", r.position + 1, eta.unwrap_or_default())
            };
            out.push_str(&format!("\nwhy: {}", r.why));
            if r.preemptions > 0 {
                out.push_str(&format!("\nrunning jobs stopped to make room: {}", r.preemptions));
            }
            out
        });
    }
    let s: Submitted = api.post("/api/jobs", Some(&body)).await?;
    print(opts, &s, |s| {
        format!("submitted job {} ({}): `tidepool show {}` says where and why", s.id, s.state, s.id)
    })
}

pub async fn submit(opts: &ClientOpts, spec: &JobSpecArgs, dry_run: bool, command: &[String]) -> Outcome {
    let line = match (&spec.wrap, command.is_empty()) {
        (Some(_), false) => {
            return Err(Failure::Usage("give the command after `--` or with --wrap, not both".into()));
        }
        (Some(w), true) => Some(w.clone()),
        (None, false) => Some(shell_line(command)),
        (None, true) => None,
    };
    let default_name = match &spec.wrap {
        Some(w) => program_name(&w.split_whitespace().map(String::from).collect::<Vec<_>>()),
        None => program_name(command),
    };
    send(opts, submission(spec, line, default_name)?, dry_run).await
}

/// What `queue` lists.
pub struct QueueFilter<'a> {
    pub mine: bool,
    pub group: &'a Option<String>,
    pub state: &'a Option<String>,
    pub limit: u32,
    pub before: Option<i64>,
}

pub async fn queue(opts: &ClientOpts, f: &QueueFilter<'_>) -> Outcome {
    let mut pairs = vec![("limit", f.limit.to_string())];
    pairs.extend(f.before.map(|b| ("before", b.to_string())));
    pairs.extend(f.mine.then(|| ("mine", "true".to_string())));
    pairs.extend(f.group.clone().map(|g| ("group", g)));
    pairs.extend(f.state.clone().map(|s| ("state", s)));
    let mut api = Api::signed_in(opts)?;
    let page: JobPage = api.get(&format!("/api/jobs?{}", query(&pairs))).await?;
    let now = crate::unix_now();
    print(opts, &page, |page| {
        let rows: Vec<Vec<String>> = page
            .jobs
            .iter()
            .map(|j| {
                let why = match j.state {
                    JobState::Pending => {
                        let mut parts = Vec::new();
                        parts.extend(j.position.map(|p| format!("#{}", p + 1)));
                        parts.extend(j.estimated_start.map(|t| format!("start ~{}", relative(t, now))));
                        parts.extend(j.reason.clone());
                        parts.join(" · ")
                    }
                    _ => j.reason.clone().unwrap_or_default(),
                };
                vec![
                    j.id.to_string(),
                    j.state.to_string(),
                    j.name.clone(),
                    j.group.clone(),
                    j.submitted_by.clone(),
                    format!("{}×{}", j.gpus, j.model),
                    span(j.time_limit_s),
                    relative(j.submitted_at, now),
                    why,
                ]
            })
            .collect();
        let mut out = if rows.is_empty() {
            "no jobs".to_string()
        } else {
            table(
                &[
                    "ID",
                    "STATE",
                    "NAME",
                    "GROUP",
                    "USER",
                    "GPUS",
                    "LIMIT",
                    "SUBMITTED",
                    "WAITING: PLACE · START · WHY",
                ],
                &rows,
            )
        };
        if let Some(next) = page.next {
            out.push_str(&format!("\n… more: tidepool queue --before {next}"));
        }
        out
    })
}

pub async fn cancel(opts: &ClientOpts, job: i64) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let c: Cancelled = api.post::<(), _>(&format!("/api/jobs/{job}/cancel"), None).await?;
    print(opts, &c, |c| format!("cancelled job {}", c.id))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_job_needs_a_command_or_a_template() {
        assert!(matches!(submission(&JobSpecArgs::default(), None, None), Err(Failure::Usage(_))));
        let spec = JobSpecArgs { template: Some(3), ..Default::default() };
        let s = submission(&spec, None, Some("x".into())).unwrap();
        assert_eq!((s.template, s.name), (Some(3), None));
    }
}
