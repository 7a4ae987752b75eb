//! `tidepool config show [serve|agent] [--config FILE] [FLAGS…]`: the configuration a
//! command would run with, as TOML that `--config` takes back, each value followed by
//! where it came from. Secrets (tokens, passwords, a password inside a URL) are masked
//! and their lines commented out, so the output can be kept or shared without them and
//! fed back as it is: the secret then comes from where it came from before.

use std::ffi::OsString;

use super::{Failure, Layered, Setting, Source, layer};
use crate::config::Kind;

const MASK: &str = "********";

pub fn show(args: &[OsString]) -> Result<String, String> {
    let (name, rest) = match args.first().and_then(|a| a.to_str()) {
        Some(name @ ("serve" | "agent")) => (name, &args[1..]),
        _ => ("serve", args),
    };
    let mut argv: Vec<OsString> = vec!["tidepool".into(), name.into()];
    argv.extend(rest.iter().cloned());
    let layered = layer(argv, true).map_err(|failure| match failure {
        Failure::Config(message) => message,
        Failure::Clap(e) => e.render().to_string().trim().trim_start_matches("error: ").to_string(),
    })?;
    Ok(render(name, &layered))
}

fn render(name: &str, layered: &Layered) -> String {
    let mut out = format!(
        "# The effective configuration of `tidepool {name}`: command line > environment\n\
         # (TIDEPOOL_<FLAG>) > file > default. Use it with `tidepool {name} --config FILE`.\n"
    );
    if let Some((path, _)) = &layered.file {
        out.push_str(&format!("# File: {}\n", path.display()));
    }
    out.push('\n');
    for setting in &layered.settings {
        out.push_str(&line(setting, layered));
        out.push('\n');
    }
    out
}

/// `key = value  # source`, or a commented line for a masked or missing value.
fn line(setting: &Setting, layered: &Layered) -> String {
    let source = layered.source(setting);
    let origin = match source {
        Source::Flag => format!("flag --{}", setting.long),
        Source::Env => format!("env {}", setting.env),
        Source::File => "file".to_string(),
        Source::Default => "default".to_string(),
        Source::Unset => {
            return format!("# {} =   (not set; flag --{}, env {})", setting.id, setting.long, setting.env);
        }
    };
    let values: Vec<String> = layered
        .sub()
        .and_then(|sub| sub.get_raw(&setting.id))
        .map(|raw| raw.map(|v| v.to_string_lossy().into_owned()).collect())
        .unwrap_or_default();
    if setting.secret {
        return format!("# {} = \"{MASK}\"  # {origin}; secret, not shown", setting.id);
    }
    let masked: Vec<String> = values.iter().map(|v| mask_url_password(v)).collect();
    let value = toml_value(setting.kind, &masked);
    if masked != values {
        return format!(
            "# {} = {value}  # {origin}; password masked, give it again to use this line",
            setting.id
        );
    }
    format!("{} = {value}  # {origin}", setting.id)
}

/// The values as TOML of the setting's type (they passed its parser, so numbers are numbers).
fn toml_value(kind: Kind, values: &[String]) -> String {
    let quoted = |v: &String| toml::Value::String(v.clone()).to_string();
    match kind {
        Kind::List => format!("[{}]", values.iter().map(quoted).collect::<Vec<_>>().join(", ")),
        Kind::Bool | Kind::Int | Kind::Float => values.first().cloned().unwrap_or_default(),
        Kind::Text => values.first().map(quoted).unwrap_or_default(),
    }
}

/// `postgres://app:s3cret@db/tidepool` → `postgres://app:********@db/tidepool`; any
/// other text as it is.
pub fn mask_url_password(value: &str) -> String {
    let Some(scheme_end) = value.find("://") else { return value.to_string() };
    let authority_start = scheme_end + 3;
    let rest = &value[authority_start..];
    let authority_len = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let Some(at) = rest[..authority_len].rfind('@') else { return value.to_string() };
    let Some(colon) = rest[..at].find(':') else { return value.to_string() };
    let password_start = authority_start + colon + 1;
    format!("{}{MASK}{}", &value[..password_start], &value[authority_start + at..])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn passwords_in_urls_are_masked_and_the_rest_kept() {
        assert_eq!(
            mask_url_password("postgres://app:s3cret@db:5432/tp"),
            "postgres://app:********@db:5432/tp"
        );
        assert_eq!(mask_url_password("postgres://a:b:c@db/x?x=@"), "postgres://a:********@db/x?x=@");
        assert_eq!(mask_url_password("postgres://app@db/tp"), "postgres://app@db/tp");
        assert_eq!(mask_url_password("sqlite:data/t.db"), "sqlite:data/t.db");
    }
}
