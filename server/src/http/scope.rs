//! Who acts for which group (Q6), and the checks every handler shares: members and
//! managers act within their own group, admins anywhere and name the group they act for.
//! The text checks are the domain's (`crate::input`), re-exported for the handlers.

use crate::http::{ApiError, AppState};
pub use crate::input::{clean, command, filter, one_of, text};
pub use crate::jobs::{CATEGORIES, CLASSES, TOPOLOGIES};
use crate::store::users::{Role, User};

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
