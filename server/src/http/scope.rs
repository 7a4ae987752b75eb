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

/// A trimmed, non-empty text of at most `max` characters.
pub fn text<'a>(value: &'a str, field: &str, max: usize) -> Result<&'a str, ApiError> {
    let v = value.trim();
    if v.is_empty() || v.chars().count() > max || v.chars().any(char::is_control) {
        return Err(ApiError::Unprocessable(format!("{field} must be 1 to {max} printable characters")));
    }
    Ok(v)
}

/// The id of the group called `name`, or a 422 naming it.
pub async fn group_named(state: &AppState, name: &str) -> Result<i64, ApiError> {
    state.store.group_id(name).await?.ok_or_else(|| ApiError::Unprocessable(format!("no group `{name}`")))
}

/// The group `user` acts for: the one named (admins: any; others: only their own), else
/// their own.
pub async fn acting_group(state: &AppState, user: &User, named: Option<&str>) -> Result<i64, ApiError> {
    match (named, user.role, user.group_id) {
        (Some(name), Role::Admin, _) => group_named(state, name).await,
        (None, Role::Admin, _) => Err(ApiError::Unprocessable("an admin names the group to act for".into())),
        (Some(name), _, Some(own)) => {
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
