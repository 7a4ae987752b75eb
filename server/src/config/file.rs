//! The configuration file (`--config FILE`): a flat TOML table whose keys are the
//! command's flags with underscores (`dispatch_interval_s = 5`). Each value is checked
//! against the flag's type here, where the parser's spans give its line and column, and
//! against clap's own parser (ranges, choices), so a bad file fails as a bad flag would.

use std::collections::BTreeMap;
use std::path::Path;

use clap::{Arg, ArgAction};
use toml::{Spanned, Value};

use super::keys::{Kind, Setting, unknown_key_hint};

/// The file's values, by key, as the text clap parses (one entry per value of a list).
pub type FileValues = BTreeMap<String, Vec<String>>;

/// Reads and checks the file; the error names the file, and the line and column of the
/// key or value at fault.
pub fn read(path: &Path, settings: &[Setting]) -> Result<FileValues, String> {
    let where_ = path.display();
    let text = std::fs::read_to_string(path)
        .map_err(|e| format!("cannot read the configuration file {where_}: {e}"))?;
    let table: BTreeMap<Spanned<String>, Spanned<Value>> =
        toml::from_str(&text).map_err(|e| format!("{where_}: {}", e.to_string().trim_end()))?;
    let mut values = FileValues::new();
    for (key, value) in table {
        let at = |span: std::ops::Range<usize>| format!("{where_}: {}", position(&text, span.start));
        let Some(setting) = settings.iter().find(|s| &s.id == key.get_ref()) else {
            let hint = unknown_key_hint(key.get_ref(), settings);
            return Err(format!("{}: unknown key `{}`: {hint}", at(key.span()), key.get_ref()));
        };
        let raw = typed(setting, value.get_ref()).map_err(|wanted| {
            format!("{}: `{}` {wanted}, not {}", at(value.span()), setting.id, a(value.get_ref()))
        })?;
        for v in &raw {
            check_value(setting, v)
                .map_err(|why| format!("{}: `{}` is `{v}`: {why}", at(value.span()), setting.id))?;
        }
        values.insert(setting.id.clone(), raw);
    }
    Ok(values)
}

/// The value as clap's text, or what the key wanted instead.
fn typed(setting: &Setting, value: &Value) -> Result<Vec<String>, &'static str> {
    match (setting.kind, value) {
        (Kind::Bool, Value::Boolean(b)) => Ok(vec![b.to_string()]),
        (Kind::Bool, _) => Err("takes `true` or `false`"),
        (Kind::Int, Value::Integer(i)) => Ok(vec![i.to_string()]),
        (Kind::Int, _) => Err("takes a whole number"),
        (Kind::Float, Value::Integer(i)) => Ok(vec![i.to_string()]),
        (Kind::Float, Value::Float(f)) => Ok(vec![f.to_string()]),
        (Kind::Float, _) => Err("takes a number"),
        (Kind::List, Value::String(s)) | (Kind::Text, Value::String(s)) => Ok(vec![s.clone()]),
        (Kind::List, Value::Array(items)) => items
            .iter()
            .map(|item| item.as_str().map(str::to_string).ok_or("takes a list of strings"))
            .collect(),
        (Kind::List, _) => Err("takes a list of strings"),
        (Kind::Text, _) => Err("takes a string (in quotes)"),
    }
}

/// "a string", "an integer": TOML's name of what was written.
fn a(value: &Value) -> String {
    let name = value.type_str();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {name}")
}

/// "line 3, column 12" of a byte offset (columns count characters, from 1).
pub fn position(text: &str, offset: usize) -> String {
    let before = &text[..offset.min(text.len())];
    let line = before.matches('\n').count() + 1;
    let column = before.rsplit('\n').next().unwrap_or("").chars().count() + 1;
    format!("line {line}, column {column}")
}

/// Runs one value through the flag's own clap parser (its range, its choices), so a
/// value from the file or the environment is held to what the command line is.
pub fn check_value(setting: &Setting, value: &str) -> Result<(), String> {
    if setting.kind == Kind::Bool {
        return match value {
            "true" | "false" => Ok(()),
            _ => Err("it must be `true` or `false`".to_string()),
        };
    }
    let probe = Arg::new("value")
        .long(setting.long.clone())
        .action(ArgAction::Set)
        .value_parser(setting.arg.get_value_parser().clone());
    let outcome = clap::Command::new("tidepool")
        .no_binary_name(true)
        .arg(probe)
        .try_get_matches_from([format!("--{}={value}", setting.long)]);
    match outcome {
        Ok(_) => Ok(()),
        Err(_) if !setting.choices.is_empty() => Err(format!("it must be {}", one_of(&setting.choices))),
        Err(e) => {
            let text = e.to_string();
            let line = text.lines().next().unwrap_or("invalid value").trim_start_matches("error: ");
            // "invalid value '0' for '--grace-s <value>': 0 is not in 1..": the reason only.
            Err(line.split_once("': ").map_or(line, |(_, why)| why).to_string())
        }
    }
}

/// "`human` or `json`", "`auto`, `bwrap` or `none`".
fn one_of(choices: &[String]) -> String {
    let quoted: Vec<String> = choices.iter().map(|c| format!("`{c}`")).collect();
    match quoted.split_last() {
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_lines_and_characters_from_one() {
        let text = "a = 1\nbé = \"x\"\n";
        assert_eq!(position(text, 0), "line 1, column 1");
        assert_eq!(position(text, text.find('"').unwrap()), "line 2, column 6");
    }

    #[test]
    fn choices_read_as_a_sentence() {
        assert_eq!(one_of(&["human".into(), "json".into()]), "`human` or `json`");
        assert_eq!(one_of(&["a".into(), "b".into(), "c".into()]), "`a`, `b` or `c`");
    }
}
