//! The in-app inbox: each person's alerts (those the core's rule says they receive:
//! admins every alert, a group's managers and members their group's as its audience
//! says), with the unread count the web app's badge shows; marking one read, and
//! acknowledging one (a recipient takes it on: no more repeats, an event of the log).
//! An alert someone may not receive answers as if it did not exist.

use sqlx::Row;
use tidepool_api::alerts::{Alert, Inbox, Severity};
use tidepool_core::alerts::{Audience, Tier, receives};

use super::AlertError;
use super::queue::tier;
use crate::store::Store;
use crate::store::events::{EventDetail, record};
use crate::store::users::User;

/// Alerts listed at most: the newest.
pub const MAX_LISTED: i64 = 200;

/// The SQL condition for the alerts `user` receives (on `alerts a`), binding the group as
/// `$2`: the audiences are the core's answer, so the rule lives in one place.
fn visible(user: &User) -> String {
    let t = tier(user.role);
    if t == Tier::Admin {
        // `$2` is named in every form, so each engine sees the same parameters.
        return "(1 = 1 OR a.group_id = $2)".into();
    }
    let own = Some(0);
    let audiences: Vec<String> = [Audience::Admins, Audience::Managers, Audience::Members]
        .into_iter()
        .filter(|a| receives(t, own, own, *a))
        .map(|a| format!("'{}'", a.as_str()))
        .collect();
    if audiences.is_empty() {
        return "(1 = 0 AND a.group_id = $2)".into();
    }
    format!("(a.group_id = $2 AND a.audience IN ({}))", audiences.join(", "))
}

const COLUMNS: &str = "a.id, a.rule, a.severity, g.name, a.subject, a.message, a.opened_at, a.last_seen_at, \
     a.resolved_at, a.acknowledged_at, a.acknowledged_by, \
     CAST(CASE WHEN r.user_id IS NULL AND a.acknowledged_at IS NULL THEN 0 ELSE 1 END AS BIGINT)";

const FROM: &str = "FROM alerts a LEFT JOIN groups g ON g.id = a.group_id \
     LEFT JOIN alert_reads r ON r.alert_id = a.id AND r.user_id = $1";

fn alert(r: &sqlx::any::AnyRow) -> Result<Alert, sqlx::Error> {
    let severity = match r.try_get::<String, _>(2)?.as_str() {
        "info" => Severity::Info,
        "critical" => Severity::Critical,
        _ => Severity::Warning,
    };
    Ok(Alert {
        id: r.try_get(0)?,
        rule: r.try_get(1)?,
        severity,
        group: r.try_get(3)?,
        subject: r.try_get(4)?,
        message: r.try_get(5)?,
        opened_at: r.try_get(6)?,
        last_seen_at: r.try_get(7)?,
        resolved_at: r.try_get(8)?,
        acknowledged_at: r.try_get(9)?,
        acknowledged_by: r.try_get(10)?,
        read: r.try_get::<i64, _>(11)? == 1,
    })
}

/// `user`'s alerts, newest first (with `unread_only`, only those not read yet), and how
/// many are unread.
pub async fn list(store: &Store, user: &User, unread_only: bool) -> Result<Inbox, AlertError> {
    let unread = "r.user_id IS NULL AND a.acknowledged_at IS NULL";
    let only = if unread_only { format!(" AND {unread}") } else { String::new() };
    let sql = format!(
        "SELECT {COLUMNS} {FROM} WHERE {}{only} ORDER BY a.id DESC LIMIT {MAX_LISTED}",
        visible(user)
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(user.id)
        .bind(user.group_id.unwrap_or(0))
        .fetch_all(&store.pool)
        .await?;
    let count = format!("SELECT COUNT(*) {FROM} WHERE {} AND {unread}", visible(user));
    let unread: i64 = sqlx::query(sqlx::AssertSqlSafe(count))
        .bind(user.id)
        .bind(user.group_id.unwrap_or(0))
        .fetch_one(&store.pool)
        .await?
        .try_get(0)?;
    Ok(Inbox { alerts: rows.iter().map(alert).collect::<Result<_, _>>()?, unread })
}

/// Alert `id`, if `user` receives it.
async fn one(store: &Store, user: &User, id: i64) -> Result<Alert, AlertError> {
    let sql = format!("SELECT {COLUMNS} {FROM} WHERE {} AND a.id = $3", visible(user));
    let row = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(user.id)
        .bind(user.group_id.unwrap_or(0))
        .bind(id)
        .fetch_optional(&store.pool)
        .await?
        .ok_or(AlertError::NotFound(id))?;
    Ok(alert(&row)?)
}

async fn mark_read(tx: &mut sqlx::AnyConnection, user: &User, id: i64, now: i64) -> Result<(), sqlx::Error> {
    sqlx::query(
        "INSERT INTO alert_reads (alert_id, user_id, read_at) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING",
    )
    .bind(id)
    .bind(user.id)
    .bind(now)
    .execute(tx)
    .await?;
    Ok(())
}

/// Marks alert `id` read for `user`.
pub async fn read(store: &Store, user: &User, id: i64, now: i64) -> Result<Alert, AlertError> {
    one(store, user, id).await?;
    let mut conn = store.pool.acquire().await?;
    mark_read(&mut conn, user, id, now).await?;
    drop(conn);
    one(store, user, id).await
}

/// `user` acknowledges alert `id`: it is read, and no longer repeated to anyone. Again on
/// an acknowledged alert changes nothing.
pub async fn acknowledge(store: &Store, user: &User, id: i64, now: i64) -> Result<Alert, AlertError> {
    let before = one(store, user, id).await?;
    let mut tx = store.begin().await?;
    mark_read(&mut tx, user, id, now).await?;
    if before.acknowledged_at.is_none() {
        sqlx::query(
            "UPDATE alerts SET acknowledged_at = $1, acknowledged_by = $2 WHERE id = $3 AND acknowledged_at IS NULL",
        )
        .bind(now)
        .bind(&user.username)
        .bind(id)
        .execute(&mut *tx)
        .await?;
        let detail = EventDetail { alert: Some(id), ..EventDetail::default() };
        let message = format!("{} acknowledged alert {id}: {}", user.username, before.message);
        record(&mut tx, now, "alert-acknowledged", None, &user.username, &message, &detail).await?;
    }
    tx.commit().await?;
    one(store, user, id).await
}
