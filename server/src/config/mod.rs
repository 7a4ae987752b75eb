//! Configuration of `tidepool serve` and `tidepool agent` from three places besides the
//! defaults: a TOML file (`--config FILE`), the environment (`TIDEPOOL_<FLAG>`) and the
//! command line. Precedence: command line > environment > file > default.
//!
//! Nothing here lists the flags: the keys are read off clap's definition of the command
//! ([`keys`]), so a new flag is in the file, the environment and `tidepool config show`
//! as soon as it is in `ServeArgs` or `AgentArgs`. clap itself does the layering: each
//! flag gets its variable (`Arg::env`) and the file's values become its defaults, so
//! clap's parsers, ranges and `requires` hold for every source. Values from the file and
//! the environment are checked first, one by one, so that an error names its source.

mod file;
mod keys;
mod show;

use std::ffi::OsString;
use std::path::PathBuf;

use clap::parser::ValueSource;
use clap::{Arg, ArgMatches, CommandFactory, FromArgMatches};

use crate::cli::Cli;
pub use keys::{Kind, Setting, env_name, is_secret};
pub use show::show;

/// The subcommands that read a configuration file and the environment.
const LAYERED: [&str; 2] = ["serve", "agent"];

/// The settings of `serve` or `agent` (empty for any other name), as the file and
/// `config show` know them.
pub fn settings_of(name: &str) -> Vec<Setting> {
    Cli::command().find_subcommand(name).map(|sub| keys::settings(&with_env(sub.clone()))).unwrap_or_default()
}

/// Why the command line could not be read: clap's own error (usage, `--help`), or a
/// configuration file or variable at fault.
pub enum Failure {
    Clap(clap::Error),
    Config(String),
}

/// The process's command line with its file and environment. Usage errors and `--help`
/// end the process as clap does; a bad file or variable is an `Err` with its message.
/// Also returns warnings to log once logging is set up.
pub fn parse_args() -> Result<(Cli, Vec<String>), String> {
    let parsed = layer(std::env::args_os().collect(), false).and_then(|layered| {
        let cli = Cli::from_arg_matches(&layered.matches).map_err(Failure::Clap)?;
        Ok((cli, layered.warnings()))
    });
    match parsed {
        Ok(done) => Ok(done),
        Err(Failure::Clap(e)) => e.exit(),
        Err(Failure::Config(message)) => Err(message),
    }
}

/// A parsed command line with what is needed to say where each value came from.
pub struct Layered {
    /// `serve` or `agent`, when the command is one of them.
    pub name: Option<String>,
    pub settings: Vec<Setting>,
    /// The configuration file, and the keys it set.
    pub file: Option<(PathBuf, Vec<String>)>,
    /// The whole command line's matches.
    pub matches: ArgMatches,
}

/// Where an effective value came from.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Source {
    Flag,
    Env,
    File,
    Default,
    /// No value (an optional flag nobody gave).
    Unset,
}

impl Layered {
    /// The subcommand's own matches.
    pub fn sub(&self) -> Option<&ArgMatches> {
        self.name.as_deref().and_then(|name| self.matches.subcommand_matches(name))
    }

    pub fn source(&self, setting: &Setting) -> Source {
        let Some(sub) = self.sub() else { return Source::Unset };
        match sub.value_source(&setting.id) {
            Some(ValueSource::CommandLine) => Source::Flag,
            Some(ValueSource::EnvVariable) => Source::Env,
            Some(ValueSource::DefaultValue) if self.set_by_file(setting) => Source::File,
            Some(_) => Source::Default,
            None => Source::Unset,
        }
    }

    fn set_by_file(&self, setting: &Setting) -> bool {
        self.file.as_ref().is_some_and(|(_, keys)| keys.contains(&setting.id))
    }

    /// A secret on the command line is in every process listing of the machine.
    pub fn warnings(&self) -> Vec<String> {
        self.settings
            .iter()
            .filter(|s| s.secret && self.source(s) == Source::Flag)
            .map(|s| {
                format!(
                    "--{} is visible to every process on the machine; prefer {} or the configuration file",
                    s.long, s.env
                )
            })
            .collect()
    }
}

/// Parses `argv` with the file and the environment layered under it. `relaxed` (for
/// `config show`) lets required flags be missing.
pub fn layer(argv: Vec<OsString>, relaxed: bool) -> Result<Layered, Failure> {
    let mut cmd = Cli::command();
    for name in LAYERED {
        cmd = cmd.mut_subcommand(name, with_env);
    }
    let name = argv.get(1).and_then(|a| a.to_str()).filter(|a| LAYERED.contains(a)).map(str::to_string);
    let mut settings = Vec::new();
    let mut file = None;
    if let Some(name) = &name {
        let sub = cmd.find_subcommand(name).expect("a layered subcommand exists");
        settings = keys::settings(sub);
        check_env(&settings).map_err(Failure::Config)?;
        if relaxed {
            cmd = cmd.mut_subcommand(name, |sub| sub.mut_args(|a| a.required(false)));
        }
        if let Some(path) = config_path(&argv[2..]) {
            let values = file::read(&path, &settings).map_err(Failure::Config)?;
            file = Some((path, values));
        }
    }
    let Some((path, values)) = file else {
        let matches = cmd.try_get_matches_from(argv).map_err(Failure::Clap)?;
        return Ok(Layered { name, settings, file: None, matches });
    };
    let name = name.expect("a file only for a layered subcommand");
    let plain = cmd.clone();
    cmd = cmd.mut_subcommand(&name, |mut sub| {
        for (id, raw) in &values {
            sub = sub.mut_arg(id, |a| a.default_values(raw).required(false));
        }
        sub
    });
    let matches = cmd.try_get_matches_from(&argv).map_err(Failure::Clap)?;
    let layered =
        Layered { name: Some(name), settings, file: Some((path, values.keys().cloned().collect())), matches };
    // clap holds defaults to no `requires`: parse once more with the file's values that
    // took effect written as flags, so `smtp_server` without `smtp_from` fails here too.
    let mut as_flags = argv;
    for setting in layered.settings.iter().filter(|s| layered.source(s) == Source::File) {
        for value in &values[&setting.id] {
            match setting.kind {
                Kind::Bool if value == "true" => as_flags.push(format!("--{}", setting.long).into()),
                Kind::Bool => {}
                _ => as_flags.push(format!("--{}={value}", setting.long).into()),
            }
        }
    }
    plain.try_get_matches_from(as_flags).map_err(Failure::Clap)?;
    Ok(layered)
}

/// Every setting reads its variable; `--config` names the file. Secrets' values stay
/// out of `--help`.
fn with_env(mut sub: clap::Command) -> clap::Command {
    for setting in keys::settings(&sub) {
        let env = setting.env.clone();
        sub = sub.mut_arg(&setting.id, |a| a.env(env).hide_env_values(setting.secret));
    }
    sub.arg(
        Arg::new("config")
            .long("config")
            .value_name("FILE")
            .value_parser(clap::value_parser!(PathBuf))
            .help("A TOML file with any of these flags (keys with underscores: `grace_s = 30`); flags and TIDEPOOL_* variables win over it"),
    )
}

/// The variables that are set must hold what their flag takes.
fn check_env(settings: &[Setting]) -> Result<(), String> {
    for setting in settings {
        let Some(value) = std::env::var_os(&setting.env) else { continue };
        let value = value.into_string().map_err(|_| format!("{} is not valid UTF-8", setting.env))?;
        let parts: Vec<&str> = match setting.arg.get_value_delimiter() {
            Some(d) => value.split(d).collect(),
            None => vec![value.as_str()],
        };
        for part in parts {
            file::check_value(setting, part).map_err(|why| format!("{} is `{part}`: {why}", setting.env))?;
        }
    }
    Ok(())
}

/// The file named by `--config FILE` or `--config=FILE` (before a `--`). No variable
/// names it: the agents a server starts would inherit it and read the server's file.
fn config_path(args: &[OsString]) -> Option<PathBuf> {
    let mut args = args.iter().map(|a| a.to_string_lossy());
    while let Some(arg) = args.next() {
        if arg == "--" {
            return None;
        }
        if arg == "--config" {
            return args.next().map(|p| PathBuf::from(p.as_ref()));
        }
        if let Some(path) = arg.strip_prefix("--config=") {
            return Some(PathBuf::from(path));
        }
    }
    None
}
