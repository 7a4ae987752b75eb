//! The checks every piece of text a person gives passes, whichever door it came in by
//! (the API, `tidepool admin`): names, commands, filters and choices from a fixed list.
//! Pure functions; an [`Invalid`] is always the caller's to fix (the API answers 422).

/// Input a rule refuses, with the rule in words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Invalid(pub String);

/// `value` must be one of `allowed`; the error names the field and the choices.
pub fn one_of(value: &str, allowed: &[&str], field: &str) -> Result<(), Invalid> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(Invalid(format!("{field} must be one of {allowed:?}, not `{value}`")))
    }
}

/// Characters that reorder or hide what a reader sees (bidirectional embeddings,
/// overrides, isolates and marks): a name or command holding one can show one thing and
/// run another.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// Refused when `value` holds NUL, another control character (C0, DEL, C1) other than
/// those in `allowed`, or a bidirectional control (finding 10). Every string stored or
/// looked up passes here, so PostgreSQL (which refuses NUL in text) never sees one: that
/// was a 500.
pub fn clean(value: &str, field: &str, allowed: &[char]) -> Result<(), Invalid> {
    match value.chars().find(|c| (c.is_control() && !allowed.contains(c)) || is_bidi(*c)) {
        None => Ok(()),
        Some(c) => Err(Invalid(format!(
            "{field} holds U+{:04X}: control and bidirectional-override characters are refused",
            u32::from(c)
        ))),
    }
}

/// A trimmed, non-empty text of at most `max` characters, without control or
/// bidirectional characters.
pub fn text<'a>(value: &'a str, field: &str, max: usize) -> Result<&'a str, Invalid> {
    let v = value.trim();
    clean(v, field, &[])?;
    if v.is_empty() || v.chars().count() > max {
        return Err(Invalid(format!("{field} must be 1 to {max} printable characters")));
    }
    Ok(v)
}

/// A command: 1 to `max` bytes; tabs and newlines allowed (scripts), no other control or
/// bidirectional character.
pub fn command<'a>(value: &'a str, field: &str, max: usize) -> Result<&'a str, Invalid> {
    clean(value, field, &['\t', '\n'])?;
    if value.trim().is_empty() || value.len() > max {
        return Err(Invalid(format!("{field} is 1 to {max} bytes")));
    }
    Ok(value)
}

/// A filter from a query string (a kind, an actor, a tag): at most 200 characters, clean.
pub fn filter<'a>(value: &'a str, field: &str) -> Result<&'a str, Invalid> {
    clean(value, field, &[])?;
    if value.chars().count() > 200 {
        return Err(Invalid(format!("{field} is at most 200 characters")));
    }
    Ok(value)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hidden_characters_are_refused_and_named() {
        assert_eq!(text(" ok ", "name", 10), Ok("ok"));
        let e = text("a\u{202E}b", "name", 10).unwrap_err();
        assert!(e.0.contains("U+202E"), "{e}");
        assert!(command("a\tb\nc", "command", 10).is_ok());
        assert!(command("a\0b", "command", 10).is_err());
        assert!(one_of("x", &["a", "b"], "kind").is_err());
    }
}
