//! Who acts for which group (Q6): members and managers act within their own group,
//! admins anywhere and name the group they act for. Every domain service asks here, so
//! the rule is written once; the HTTP layer maps an [`AccessError`] to 403 or 422.

use crate::input::{Invalid, filter};
use crate::store::users::{Role, User};
use crate::store::{Store, StoreError};

/// Why a caller may not act, or named something that does not exist.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// A group named in the request does not exist: the caller's input to fix.
    #[error("no group `{0}`")]
    NoSuchGroup(String),
    /// An admin acts for no group of their own and must name one.
    #[error("an admin names the group to act for")]
    GroupNeeded,
    /// The caller's role or group does not allow it; the text says what would.
    #[error("{0}")]
    Denied(String),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

/// The id of the group called `name`.
pub async fn group_named(store: &Store, name: &str) -> Result<i64, AccessError> {
    filter(name, "group")?;
    store.group_id(name).await?.ok_or_else(|| AccessError::NoSuchGroup(name.to_string()))
}

/// The group `user` acts for: the one named (admins: any; others: only their own), else
/// their own.
pub async fn acting_group(store: &Store, user: &User, named: Option<&str>) -> Result<i64, AccessError> {
    match (named, user.role, user.group_id) {
        (Some(name), Role::Admin, _) => group_named(store, name).await,
        (None, Role::Admin, _) => Err(AccessError::GroupNeeded),
        (Some(name), _, Some(own)) => {
            filter(name, "group")?;
            if store.group_id(name).await? != Some(own) {
                return Err(AccessError::Denied("you act for your own group only".into()));
            }
            Ok(own)
        }
        (None, _, Some(own)) => Ok(own),
        (_, _, None) => Err(AccessError::Denied("your account belongs to no group".into())),
    }
}

/// Whether `user` manages `group`: its manager, or any admin.
pub fn manages(user: &User, group: i64) -> bool {
    user.role == Role::Admin || (user.role == Role::Manager && user.group_id == Some(group))
}

/// Refused unless `user` manages `group`; `what` completes "only the group's manager or
/// an admin may …".
pub fn require_manager(user: &User, group: i64, what: &str) -> Result<(), AccessError> {
    if manages(user, group) {
        Ok(())
    } else {
        Err(AccessError::Denied(format!("only the group's manager or an admin may {what}")))
    }
}

/// Refused unless `user` is an admin.
pub fn require_admin(user: &User, what: &str) -> Result<(), AccessError> {
    if user.role == Role::Admin {
        Ok(())
    } else {
        Err(AccessError::Denied(format!("only an admin may {what}")))
    }
}

/// Whether `user` belongs to `group` (admins belong everywhere).
pub fn belongs(user: &User, group: i64) -> bool {
    user.role == Role::Admin || user.group_id == Some(group)
}
