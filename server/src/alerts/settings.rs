//! Where alerts are posted: the alert webhook's URL and the body it takes (the plain JSON
//! notice, or the `{"text": …}` message Slack's and Mattermost's incoming webhooks take).
//! A setting of its own beside the organisation's, so report and alert receivers differ;
//! admins read and change it (a chat webhook's URL is a secret), each change an event.

use sqlx::Row;
use tidepool_api::alerts::{AlertSettings, WebhookShape};

use super::AlertError;
use crate::access::require_admin;
use crate::input::{Invalid, text};
use crate::store::events::{EventDetail, record};
use crate::store::users::User;
use crate::store::{Store, StoreError};

fn shape_name(shape: WebhookShape) -> &'static str {
    match shape {
        WebhookShape::Json => "json",
        WebhookShape::Chat => "chat",
    }
}

/// The setting as stored.
pub async fn read(store: &Store) -> Result<AlertSettings, StoreError> {
    let row =
        sqlx::query("SELECT webhook, shape FROM alert_settings WHERE id = 1").fetch_one(&store.pool).await?;
    let shape: String = row.try_get(1)?;
    Ok(AlertSettings {
        webhook: row.try_get(0)?,
        shape: if shape == "chat" { WebhookShape::Chat } else { WebhookShape::Json },
    })
}

/// The setting, for an admin.
pub async fn get(store: &Store, user: &User) -> Result<AlertSettings, AlertError> {
    require_admin(user, "read the alert webhook")?;
    Ok(read(store).await?)
}

/// An http(s) URL without spaces: nothing else is posted to.
fn webhook(url: &str) -> Result<&str, Invalid> {
    let url = text(url, "webhook", 500)?;
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !url.contains(char::is_whitespace) => Ok(url),
        _ => Err(Invalid(format!("webhook must be an http:// or https:// URL, not `{url}`"))),
    }
}

/// Replaces the setting (admins).
pub async fn write(
    store: &Store,
    user: &User,
    body: &AlertSettings,
    now: i64,
) -> Result<AlertSettings, AlertError> {
    require_admin(user, "change the alert webhook")?;
    let hook = body.webhook.as_deref().map(webhook).transpose()?;
    let mut tx = store.begin().await?;
    sqlx::query(
        "UPDATE alert_settings SET webhook = $1, shape = $2, updated_by = $3, updated_at = $4 WHERE id = 1",
    )
    .bind(hook)
    .bind(shape_name(body.shape))
    .bind(&user.username)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    let message = format!(
        "{} set the alert webhook: {} ({})",
        user.username,
        if hook.is_some() { "set" } else { "none" },
        shape_name(body.shape)
    );
    record(&mut tx, now, "alert-settings-changed", None, &user.username, &message, &EventDetail::default())
        .await?;
    tx.commit().await?;
    Ok(AlertSettings { webhook: hook.map(str::to_string), shape: body.shape })
}
