//! `tidepool admin`: users and groups from the shell, on the same records the server uses.

use crate::cli::{AdminArgs, AdminCommand};
use crate::fleet::tokens;
use crate::input::text;
use crate::store::Store;
use crate::store::users::{Role, random_b64};
use crate::unix_now;

/// A store error in words; a duplicate name says so.
fn friendly(e: crate::store::StoreError, what: &str) -> String {
    match e {
        crate::store::StoreError::Sqlx(sqlx::Error::Database(db)) if db.is_unique_violation() => {
            format!("{what} already exists")
        }
        other => other.to_string(),
    }
}

pub fn run(args: &AdminArgs) -> Result<String, String> {
    let runtime =
        tokio::runtime::Builder::new_current_thread().enable_all().build().map_err(|e| e.to_string())?;
    runtime.block_on(async {
        let url = args
            .database_url
            .clone()
            .unwrap_or_else(|| format!("sqlite:{}", args.data_dir.join("tidepool.db").display()));
        // Neither may create or migrate the records before it has looked at them.
        match &args.command {
            AdminCommand::Backup { file } => return crate::backup::backup(&url, file).await,
            AdminCommand::Restore { file, force } => return crate::backup::restore(&url, file, *force).await,
            _ => {}
        }
        std::fs::create_dir_all(&args.data_dir).map_err(|e| format!("{}: {e}", args.data_dir.display()))?;
        let store = Store::open(&url).await.map_err(|e| e.to_string())?;
        let now = unix_now();
        match &args.command {
            AdminCommand::AddGroup { name } => {
                let id = store
                    .create_group(name, now)
                    .await
                    .map_err(|e| friendly(e, &format!("a group `{name}`")))?;
                Ok(format!("group `{name}` created (id {id})"))
            }
            AdminCommand::NodeToken { node, pool, expires_in_s } => {
                let new = tokens::Issue {
                    node: text(node, "node", 128).map_err(|e| e.to_string())?.to_string(),
                    pool: pool
                        .as_deref()
                        .map(|p| text(p, "pool", 64).map(str::to_string))
                        .transpose()
                        .map_err(|e| e.to_string())?,
                    expires_at: expires_in_s.map(|s| now + s),
                };
                let issued =
                    tokens::issue_as(&store, &new, "tidepool admin", now).await.map_err(|e| e.to_string())?;
                Ok(format!("node token {} for `{}` (shown once): {}", issued.id, issued.node, issued.token))
            }
            AdminCommand::NodeTokens => {
                let all = tokens::all(&store).await.map_err(|e| e.to_string())?;
                let mut out = String::from(
                    "id\tnode\tpool\tcreated_by\tcreated_at\texpires_at\tlast_used_at\trevoked_at",
                );
                let or_dash = |v: Option<i64>| v.map_or("-".to_string(), |v| v.to_string());
                for t in all {
                    out += &format!(
                        "\n{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
                        t.id,
                        t.node,
                        t.pool.as_deref().unwrap_or("-"),
                        t.created_by,
                        t.created_at,
                        or_dash(t.expires_at),
                        or_dash(t.last_used_at),
                        or_dash(t.revoked_at)
                    );
                }
                Ok(out)
            }
            AdminCommand::RevokeNodeToken { id } => {
                match tokens::revoke_as(&store, *id, "tidepool admin", now)
                    .await
                    .map_err(|e| e.to_string())?
                {
                    Some(t) => Ok(format!("node token {id} of `{}` revoked", t.node)),
                    None => Err(format!("no node token {id}")),
                }
            }
            AdminCommand::AddUser { username, role, group } => {
                let role = Role::parse(role)
                    .ok_or(format!("--role must be admin, manager or member, not `{role}`"))?;
                let group_id = match (role, group) {
                    (Role::Admin, None) => None,
                    (Role::Admin, Some(_)) => return Err("an admin belongs to no group".into()),
                    (_, None) => return Err("managers and members need --group".into()),
                    (_, Some(g)) => Some(
                        store
                            .group_id(g)
                            .await
                            .map_err(|e| e.to_string())?
                            .ok_or(format!("no group `{g}`"))?,
                    ),
                };
                let (password, shown) = match std::env::var("TIDEPOOL_NEW_PASSWORD") {
                    Ok(p) if !p.is_empty() => (p, false),
                    _ => (random_b64(18), true),
                };
                store
                    .create_user(username, &password, role, group_id, now)
                    .await
                    .map_err(|e| friendly(e, &format!("a user `{username}`")))?;
                Ok(if shown {
                    format!(
                        "user `{username}` ({}) created; password `{password}` (shown once)",
                        role.as_str()
                    )
                } else {
                    format!(
                        "user `{username}` ({}) created with the password from TIDEPOOL_NEW_PASSWORD",
                        role.as_str()
                    )
                })
            }
            AdminCommand::SetEmail { username, address, clear: _ } => {
                crate::settings::set_email(&store, "tidepool admin", username, address.as_deref(), now)
                    .await
                    .map_err(|e| e.to_string())?;
                Ok(match address {
                    Some(a) => format!("`{username}` now receives reports at {a}"),
                    None => format!("`{username}` has no email address now"),
                })
            }
            AdminCommand::Backup { .. } | AdminCommand::Restore { .. } => unreachable!("answered above"),
        }
    })
}
