//! The settings of a command, read off clap's definition of it: every long flag is a key
//! of the configuration file and a `TIDEPOOL_<FLAG>` variable, so a flag added to
//! `ServeArgs` or `AgentArgs` is configurable without touching this module.

use std::any::TypeId;

use clap::{Arg, ArgAction};

/// What a value looks like in the file (TOML's types), read from the flag's parser.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// A switch (`--no-demo`): `true` or `false`.
    Bool,
    /// A whole number: TOML integer.
    Int,
    /// A number with a fraction: TOML float (an integer is taken too).
    Float,
    /// A repeatable flag: an array of strings (or one string).
    List,
    /// Anything else (text, paths, choices): a string.
    Text,
}

/// One setting: a flag of the command, with its key and its variable.
#[derive(Clone, Debug)]
pub struct Setting {
    /// clap's id, which is also the key in the file (`dispatch_interval_s`).
    pub id: String,
    /// The flag without its dashes (`dispatch-interval-s`).
    pub long: String,
    /// The environment variable that sets it.
    pub env: String,
    pub kind: Kind,
    /// Tokens, passwords, secrets: never printed, and warned about on the command line.
    pub secret: bool,
    /// The choices of an enumerated flag (`human`, `json`), empty for free values.
    pub choices: Vec<String>,
    pub arg: Arg,
}

/// Flags that are about the command line itself, never settings.
const NOT_SETTINGS: [&str; 3] = ["help", "version", "config"];

/// The settings of a subcommand, in the order `--help` lists them.
pub fn settings(cmd: &clap::Command) -> Vec<Setting> {
    cmd.get_arguments().filter_map(setting).collect()
}

fn setting(arg: &Arg) -> Option<Setting> {
    let long = arg.get_long()?;
    let id = arg.get_id().as_str();
    if NOT_SETTINGS.contains(&id) || arg.is_hide_set() {
        return None;
    }
    let env = arg.get_env().map(|e| e.to_string_lossy().into_owned()).unwrap_or_else(|| env_name(id));
    let choices = arg.get_possible_values().iter().map(|p| p.get_name().to_string()).collect();
    Some(Setting {
        id: id.to_string(),
        long: long.to_string(),
        env,
        kind: kind(arg),
        secret: is_secret(id),
        choices,
        arg: arg.clone(),
    })
}

/// `TIDEPOOL_` and the key in capitals; a flag that names its own variable (the agent's
/// `--token`: TIDEPOOL_NODE_TOKEN) keeps it.
pub fn env_name(id: &str) -> String {
    format!("TIDEPOOL_{}", id.to_ascii_uppercase())
}

/// A rule on the name rather than a list, so a future `smtp_password` is covered too.
/// Paths to keys (`tls_key`) are not secret: the file they name is.
pub fn is_secret(id: &str) -> bool {
    ["token", "password", "secret"].iter().any(|word| id.contains(word))
}

fn kind(arg: &Arg) -> Kind {
    if matches!(arg.get_action(), ArgAction::SetTrue | ArgAction::SetFalse) {
        return Kind::Bool;
    }
    if matches!(arg.get_action(), ArgAction::Append) {
        return Kind::List;
    }
    let ty = arg.get_value_parser().type_id();
    let ints = [
        TypeId::of::<u8>(),
        TypeId::of::<u16>(),
        TypeId::of::<u32>(),
        TypeId::of::<u64>(),
        TypeId::of::<usize>(),
        TypeId::of::<i8>(),
        TypeId::of::<i16>(),
        TypeId::of::<i32>(),
        TypeId::of::<i64>(),
    ];
    if ints.iter().any(|t| ty == *t) {
        Kind::Int
    } else if ty == TypeId::of::<f64>() || ty == TypeId::of::<f32>() {
        Kind::Float
    } else {
        Kind::Text
    }
}

/// Why a key is not one: the same key with underscores, or the nearest known one.
pub fn unknown_key_hint(key: &str, settings: &[Setting]) -> String {
    let snake = key.replace('-', "_").to_ascii_lowercase();
    if let Some(s) = settings.iter().find(|s| s.id == snake) {
        return format!("keys use underscores: write `{}`", s.id);
    }
    let nearest = settings
        .iter()
        .map(|s| (distance(&snake, &s.id), &s.id))
        .min()
        .filter(|(d, id)| *d <= 1.max(id.len() / 3));
    match nearest {
        Some((_, id)) => format!("did you mean `{id}`?"),
        None => "see `tidepool config show` for the keys".to_string(),
    }
}

/// Edits (insert, delete, replace) between two names.
fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1).min(row[j] + 1).min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn near_names_are_suggested_and_far_ones_are_not() {
        assert_eq!(distance("grace_s", "grace_s"), 0);
        assert_eq!(distance("grase_s", "grace_s"), 1);
        assert_eq!(distance("lisen", "listen"), 1);
        let cmd = clap::Command::new("t")
            .arg(Arg::new("dispatch_interval_s").long("dispatch-interval-s"))
            .arg(Arg::new("listen").long("listen"));
        let s = settings(&cmd);
        assert_eq!(
            unknown_key_hint("dispatch-interval-s", &s),
            "keys use underscores: write `dispatch_interval_s`"
        );
        assert_eq!(unknown_key_hint("lisen", &s), "did you mean `listen`?");
        assert!(unknown_key_hint("colour", &s).starts_with("see "));
        let agent = clap::Command::new("t").arg(Arg::new("token").long("token"));
        assert!(unknown_key_hint("lisen", &settings(&agent)).starts_with("see "), "too far to suggest");
    }

    #[test]
    fn secrets_are_found_by_name() {
        assert!(is_secret("metrics_token") && is_secret("token") && is_secret("smtp_password"));
        assert!(!is_secret("tls_key") && !is_secret("database_url"));
    }
}
