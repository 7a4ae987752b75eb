//! Accounts and groups as the API manages them: an admin creates both; everyone reads
//! who holds which role in which group (V3: team-visible). Names are checked here, so a
//! name that passes is one every page and command line shows as typed.

use sqlx::Row;
use tidepool_api::groups::{Group, GroupPage};
use tidepool_api::users::{NewGroup, NewUser, UserCreated, UserPage, UserRow};

use crate::access::{AccessError, group_named, require_admin};
use crate::input::Invalid;
use crate::store::events::{EventDetail, record};
use crate::store::listing::{Keyed, Page};
use crate::store::users::{Role, User, password_problem};
use crate::store::{Store, StoreError};

/// Why an account or group was not created.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    /// A duplicate name is the store's unique violation (409).
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(AccountError);

impl Keyed for Group {
    fn key(&self) -> i64 {
        self.id
    }
}

impl Keyed for UserRow {
    fn key(&self) -> i64 {
        self.id
    }
}

/// Every group, oldest first, a page at a time (`next` goes in `after`).
pub async fn groups(store: &Store, page: &Page) -> Result<GroupPage, StoreError> {
    let rows = sqlx::query("SELECT id, name FROM groups WHERE id > $1 AND id < $2 ORDER BY id LIMIT $3")
        .bind(page.after.unwrap_or(i64::MIN))
        .bind(page.before.unwrap_or(i64::MAX))
        .bind(page.fetch())
        .fetch_all(&store.pool)
        .await?;
    let groups = rows
        .iter()
        .map(|r| Ok(Group { id: r.try_get(0)?, name: r.try_get(1)? }))
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    let (groups, next) = page.finish(groups);
    Ok(GroupPage { groups, next })
}

/// A group name: 1-64 letters, digits, '-' or '_' (it appears in paths and filters).
pub fn group_name(name: &str) -> Result<&str, Invalid> {
    let name = name.trim();
    if name.is_empty()
        || name.len() > 64
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
    {
        return Err(Invalid("a group name is 1-64 letters, digits, '-' or '_'".into()));
    }
    Ok(name)
}

/// A username: 1-64 letters, digits, '-', '_' or '.'.
pub fn username(name: &str) -> Result<&str, Invalid> {
    let name = name.trim();
    if name.is_empty()
        || name.len() > 64
        || !name.chars().all(|c| c.is_ascii_alphanumeric() || "-_.".contains(c))
    {
        return Err(Invalid("a username is 1-64 letters, digits, '-', '_' or '.'".into()));
    }
    Ok(name)
}

/// A new password: long enough to resist guessing, short enough to hash cheaply.
pub fn password(p: &str) -> Result<&str, Invalid> {
    password_problem(p).map_or(Ok(p), |problem| Err(Invalid(problem)))
}

/// Creates a group; only an admin may.
pub async fn create_group(
    store: &Store,
    user: &User,
    body: &NewGroup,
    now: i64,
) -> Result<Group, AccountError> {
    require_admin(user, "create groups")?;
    let name = group_name(&body.name)?;
    let id = store.create_group(name, now).await?;
    Ok(Group { id, name: name.to_string() })
}

/// Everyone's username, role and group, oldest first, a page at a time (`next` goes in
/// `after`).
pub async fn users(store: &Store, page: &Page) -> Result<UserPage, StoreError> {
    let rows = sqlx::query(
        "SELECT u.id, u.username, u.role, g.name FROM users u LEFT JOIN groups g ON g.id = u.group_id \
         WHERE u.id > $1 AND u.id < $2 ORDER BY u.id LIMIT $3",
    )
    .bind(page.after.unwrap_or(i64::MIN))
    .bind(page.before.unwrap_or(i64::MAX))
    .bind(page.fetch())
    .fetch_all(&store.pool)
    .await?;
    let mut users = Vec::with_capacity(rows.len());
    for r in &rows {
        let role: String = r.try_get(2)?;
        // Roles are written by this server only; an unknown one is a damaged record.
        let role =
            Role::parse(&role).ok_or_else(|| sqlx::Error::Decode(format!("unknown role `{role}`").into()))?;
        users.push(UserRow { id: r.try_get(0)?, username: r.try_get(1)?, role, group: r.try_get(3)? });
    }
    let (users, next) = page.finish(users);
    Ok(UserPage { users, next })
}

/// Creates an account; only an admin may. Managers and members belong to a group,
/// admins to none.
pub async fn create_user(
    store: &Store,
    user: &User,
    body: &NewUser,
    now: i64,
) -> Result<UserCreated, AccountError> {
    require_admin(user, "create accounts")?;
    let name = username(&body.username)?;
    password(&body.password)?;
    let group = match (&body.group, body.role) {
        (None, Role::Admin) => None,
        (Some(_), Role::Admin) => return Err(Invalid("admins belong to no group".into()).into()),
        (Some(g), _) => Some(group_named(store, g).await?),
        (None, _) => return Err(Invalid("managers and members belong to a group".into()).into()),
    };
    let id = store.create_user(name, &body.password, body.role, group, now).await?;
    Ok(UserCreated { id, username: name.to_string() })
}

/// Sets `user`'s new password and ends their other sign-ins (all but the family `keep`,
/// the sign-in that asked), with the event. The caller has checked the current password
/// under the sign-in throttle; returns how many sign-ins ended.
pub async fn set_password(
    store: &Store,
    user: &User,
    new_password: &str,
    keep: Option<&str>,
    now: i64,
) -> Result<u64, AccountError> {
    password(new_password)?;
    store.set_password(user.id, new_password).await?;
    let ended = store.revoke_families_of(user.id, keep.unwrap_or(""), now).await?;
    let mut conn = store.pool.acquire().await?;
    let message = format!("{} changed their password; {ended} other sign-in tokens revoked", user.username);
    record(&mut conn, now, "password-changed", None, &user.username, &message, &EventDetail::default())
        .await?;
    Ok(ended)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_paths_and_filters_carry_are_checked() {
        assert_eq!(group_name(" vision "), Ok("vision"));
        assert!(group_name("a b").is_err());
        assert!(group_name(&"g".repeat(65)).is_err());
        assert_eq!(username("ada.l"), Ok("ada.l"));
        assert!(username("ada/l").is_err());
        assert!(username("").is_err());
    }
}
