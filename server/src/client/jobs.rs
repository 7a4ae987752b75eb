//! `tidepool submit`, `sbatch`, `queue` (alias `jobs`) and `cancel`.

use std::collections::BTreeMap;
use std::path::Path;

use clap::Parser;
use tidepool_api::{Cancelled, DryRun, JobPage, JobState, Submit, Submitted};

use crate::cli::{ClientOpts, JobSpecArgs};
use crate::client::http::{Api, query};
use crate::client::table::{parse_duration, relative, shell_line, table};
use crate::client::{Failure, Outcome, print};

/// The submission a spec's flags and a command line make.
fn submission(
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

async fn send(opts: &ClientOpts, body: Submit, dry_run: bool) -> Outcome {
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

/// The `#TIDEPOOL` lines of a script, parsed as `submit`'s flags.
#[derive(Parser)]
#[command(name = "#TIDEPOOL", no_binary_name = true)]
struct Directives {
    #[command(flatten)]
    spec: JobSpecArgs,
}

/// The directives at the top of `text` (before its first command): their words, split
/// as a shell would for plain quoting.
fn directives(text: &str) -> Result<Vec<String>, String> {
    let mut words = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.trim();
        if let Some(rest) = line.strip_prefix("#TIDEPOOL") {
            words.extend(split_words(rest).map_err(|e| format!("line {}: {e}", n + 1))?);
        } else if !line.is_empty() && !line.starts_with('#') {
            break;
        }
    }
    Ok(words)
}

fn split_words(line: &str) -> Result<Vec<String>, String> {
    let (mut words, mut word, mut quote, mut started) = (Vec::new(), String::new(), None, false);
    for c in line.chars() {
        match (quote, c) {
            (Some(q), c) if c == q => quote = None,
            (Some(_), c) => word.push(c),
            (None, '\'' | '"') => (quote, started) = (Some(c), true),
            (None, c) if c.is_whitespace() => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            (None, c) => (word, started) = (word + &c.to_string(), true),
        }
    }
    if quote.is_some() {
        return Err("a quote is not closed".into());
    }
    if started {
        words.push(word);
    }
    Ok(words)
}

/// The command line's flags over the script's: a flag given on both wins from the
/// command line; repeated ones (`--env`, `--tag`) add up.
fn merged(cli: &JobSpecArgs, script: JobSpecArgs) -> JobSpecArgs {
    JobSpecArgs {
        name: cli.name.clone().or(script.name),
        gpus: cli.gpus.or(script.gpus),
        model: cli.model.clone().or(script.model),
        category: cli.category.clone().or(script.category),
        class: cli.class.clone().or(script.class),
        topology: cli.topology.clone().or(script.topology),
        time_limit: cli.time_limit.clone().or(script.time_limit),
        checkpointable: cli.checkpointable || script.checkpointable,
        image: cli.image.clone().or(script.image),
        env: script.env.into_iter().chain(cli.env.iter().cloned()).collect(),
        template: cli.template.or(script.template),
        project: cli.project.clone().or(script.project),
        tags: script.tags.into_iter().chain(cli.tags.iter().cloned()).collect(),
        group: cli.group.clone().or(script.group),
        wrap: None,
    }
}

pub async fn sbatch(opts: &ClientOpts, spec: &JobSpecArgs, dry_run: bool, script: &Path) -> Outcome {
    let shown = script.display();
    let text =
        std::fs::read_to_string(script).map_err(|e| Failure::Usage(format!("cannot read {shown}: {e}")))?;
    let words = directives(&text).map_err(|e| Failure::Usage(format!("{shown}: {e}")))?;
    let found = Directives::try_parse_from(&words).map_err(|e| {
        let first =
            e.to_string().lines().next().unwrap_or_default().trim_start_matches("error: ").to_string();
        Failure::Usage(format!("{shown}: in its #TIDEPOOL lines: {first}"))
    })?;
    if spec.wrap.is_some()
        || found.spec.wrap.is_some()
        || spec.template.is_some()
        || found.spec.template.is_some()
    {
        return Err(Failure::Usage(
            "sbatch runs the script: --wrap and --template belong to `submit`".into(),
        ));
    }
    let spec = merged(spec, found.spec);
    let name = script.file_name().map(|n| n.to_string_lossy().into_owned());
    send(opts, submission(&spec, Some(text), name)?, dry_run).await
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
    fn directives_are_read_until_the_first_command() {
        let script = "#!/bin/sh\n#TIDEPOOL --gpus 4 --model T4\n# a comment\n#TIDEPOOL --name 'my run' --tag a\necho hi\n#TIDEPOOL --gpus 8\n";
        assert_eq!(
            directives(script).unwrap(),
            ["--gpus", "4", "--model", "T4", "--name", "my run", "--tag", "a"]
        );
        assert!(directives("#TIDEPOOL --name 'open\n").is_err());
    }

    #[test]
    fn the_command_lines_flags_win_over_the_scripts() {
        let script = Directives::try_parse_from(["--gpus", "4", "--model", "T4", "--tag", "a"]).unwrap().spec;
        let cli = JobSpecArgs { gpus: Some(2), tags: vec!["b".into()], ..Default::default() };
        let m = merged(&cli, script);
        assert_eq!(
            (m.gpus, m.model.as_deref(), m.tags),
            (Some(2), Some("T4"), vec!["a".to_string(), "b".to_string()])
        );
    }

    #[test]
    fn a_job_needs_a_command_or_a_template() {
        assert!(matches!(submission(&JobSpecArgs::default(), None, None), Err(Failure::Usage(_))));
        let spec = JobSpecArgs { template: Some(3), ..Default::default() };
        let s = submission(&spec, None, Some("x".into())).unwrap();
        assert_eq!((s.template, s.name), (Some(3), None));
    }
}
