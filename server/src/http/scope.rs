//! Who acts for which group (Q6), and the checks every handler shares: members and
//! managers act within their own group, admins anywhere and name the group they act for.

use crate::http::{ApiError, AppState};
use crate::store::users::{Role, User};

pub const CATEGORIES: &[&str] = &["training", "inference", "pretraining"];
pub const CLASSES: &[&str] = &["batch", "experiment", "normal", "critical"];
pub const TOPOLOGIES: &[&str] = &["any", "same-node", "same-nvlink"];

/// `value` must be one of `allowed`; the error names the field and the choices.
pub fn one_of(value: &str, allowed: &[&str], field: &str) -> Result<(), ApiError> {
    if allowed.contains(&value) {
        Ok(())
    } else {
        Err(ApiError::Unprocessable(format!("{field} must be one of {allowed:?}, not `{value}`")))
    }
}

/// Characters that reorder or hide what a reader sees (bidirectional embeddings,
/// overrides, isolates and marks): a name or command holding one can show one thing and
/// run another.
fn is_bidi(c: char) -> bool {
    matches!(c, '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{200E}' | '\u{200F}' | '\u{061C}')
}

/// 422 when `value` holds NUL, another control character (C0, DEL, C1) other than those
/// in `allowed`, or a bidirectional control (finding 10). Every string a handler stores or
/// looks up passes here, so PostgreSQL (which refuses NUL in text) never sees one: that
/// was a 500.
pub fn clean(value: &str, field: &str, allowed: &[char]) -> Result<(), ApiError> {
    match value.chars().find(|c| (c.is_control() && !allowed.contains(c)) || is_bidi(*c)) {
        None => Ok(()),
        Some(c) => Err(ApiError::Unprocessable(format!(
            "{field} holds U+{:04X}: control and bidirectional-override characters are refused",
            u32::from(c)
        ))),
    }
}

/// A trimmed, non-empty text of at most `max` characters, without control or
/// bidirectional characters.
pub fn text<'a>(value: &'a str, field: &str, max: usize) -> Result<&'a str, ApiError> {
    let v = value.trim();
    clean(v, field, &[])?;
    if v.is_empty() || v.chars().count() > max {
        return Err(ApiError::Unprocessable(format!("{field} must be 1 to {max} printable characters")));
    }
    Ok(v)
}

/// A command: 1 to `max` bytes; tabs and newlines allowed (scripts), no other control or
/// bidirectional character.
pub fn command<'a>(value: &'a str, field: &str, max: usize) -> Result<&'a str, ApiError> {
    clean(value, field, &['\t', '\n'])?;
    if value.trim().is_empty() || value.len() > max {
        return Err(ApiError::Unprocessable(format!("{field} is 1 to {max} bytes")));
    }
    Ok(value)
}

/// A filter from a query string (a kind, an actor, a tag): at most 200 characters, clean.
pub fn filter<'a>(value: &'a str, field: &str) -> Result<&'a str, ApiError> {
    clean(value, field, &[])?;
    if value.chars().count() > 200 {
        return Err(ApiError::Unprocessable(format!("{field} is at most 200 characters")));
    }
    Ok(value)
}

/// The id of the group called `name`, or a 422 naming it.
pub async fn group_named(state: &AppState, name: &str) -> Result<i64, ApiError> {
    filter(name, "group")?;
    state.store.group_id(name).await?.ok_or_else(|| ApiError::Unprocessable(format!("no group `{name}`")))
}

/// The group `user` acts for: the one named (admins: any; others: only their own), else
/// their own.
pub async fn acting_group(state: &AppState, user: &User, named: Option<&str>) -> Result<i64, ApiError> {
    match (named, user.role, user.group_id) {
        (Some(name), Role::Admin, _) => group_named(state, name).await,
        (None, Role::Admin, _) => Err(ApiError::Unprocessable("an admin names the group to act for".into())),
        (Some(name), _, Some(own)) => {
            filter(name, "group")?;
            if state.store.group_id(name).await? != Some(own) {
                return Err(ApiError::Forbidden("you act for your own group only".into()));
            }
            Ok(own)
        }
        (None, _, Some(own)) => Ok(own),
        (_, _, None) => Err(ApiError::Forbidden("your account belongs to no group".into())),
    }
}

/// Whether `user` manages `group`: its manager, or any admin.
pub fn manages(user: &User, group: i64) -> bool {
    user.role == Role::Admin || (user.role == Role::Manager && user.group_id == Some(group))
}

/// 403 unless `user` manages `group`.
pub fn require_manager(user: &User, group: i64, what: &str) -> Result<(), ApiError> {
    if manages(user, group) {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!("only the group's manager or an admin may {what}")))
    }
}

/// 403 unless `user` is an admin.
pub fn require_admin(user: &User, what: &str) -> Result<(), ApiError> {
    if user.role == Role::Admin {
        Ok(())
    } else {
        Err(ApiError::Forbidden(format!("only an admin may {what}")))
    }
}

/// Whether `user` belongs to `group` (admins belong everywhere).
pub fn belongs(user: &User, group: i64) -> bool {
    user.role == Role::Admin || user.group_id == Some(group)
}
