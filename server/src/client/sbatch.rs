//! `tidepool sbatch SCRIPT`: a script submitted as it is, its `#TIDEPOOL` lines (before
//! its first command, as Slurm reads `#SBATCH`) giving `submit`'s flags.

use std::path::Path;

use clap::Parser;

use crate::cli::{ClientOpts, JobSpecArgs};
use crate::client::jobs::{send, submission};
use crate::client::{Failure, Outcome};

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
}
