//! The organisation's settings (A5): its time zone (every report's weeks, days and hours
//! are cut in it), the currency and the price of a GPU-hour per model, and the webhook
//! finished weeks are posted to. Everyone signed in reads them; admins change them, and
//! each change is an event with the old and new values (A4). Users' email addresses,
//! where the weekly reports go, are set here too.

use std::collections::HashMap;

use sqlx::Row;
use tidepool_api::records::SettingsChange;
use tidepool_api::settings::{GpuPrice, OrgSettings};

use crate::access::{AccessError, require_admin};
use crate::input::{Invalid, clean, text};
use crate::org_time::OrgZone;
use crate::store::events::{EventDetail, record};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// The highest price one GPU-hour may have: a typo (an extra zero or three) is refused.
const MAX_PRICE: f64 = 100_000.0;
/// Models priced at most.
const MAX_PRICES: usize = 64;

/// Why settings were not changed.
#[derive(Debug, thiserror::Error)]
pub enum SettingsError {
    #[error("no user `{0}`")]
    NoSuchUser(String),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(SettingsError);

/// The settings as stored.
pub async fn read(store: &Store) -> Result<OrgSettings, StoreError> {
    let row = sqlx::query("SELECT time_zone, currency, report_webhook FROM org_settings WHERE id = 1")
        .fetch_one(&store.pool)
        .await?;
    let prices = sqlx::query("SELECT model, cents_per_gpu_hour FROM gpu_prices ORDER BY model")
        .fetch_all(&store.pool)
        .await?
        .iter()
        .map(|r| Ok(GpuPrice { model: r.try_get(0)?, per_gpu_hour: r.try_get::<i64, _>(1)? as f64 / 100.0 }))
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    Ok(OrgSettings {
        time_zone: row.try_get(0)?,
        currency: row.try_get(1)?,
        prices,
        report_webhook: row.try_get(2)?,
    })
}

/// The organisation's zone; a stored name the bundled database no longer knows reads as
/// UTC (logged), so reports keep working.
pub fn zone_of(settings: &OrgSettings) -> OrgZone {
    OrgZone::named(&settings.time_zone).unwrap_or_else(|e| {
        tracing::warn!(zone = %settings.time_zone, error = %e, "stored time zone unknown; using UTC");
        OrgZone::utc()
    })
}

/// Cents per GPU-hour, by model.
pub async fn prices_cents(store: &Store) -> Result<HashMap<String, i64>, StoreError> {
    let rows = sqlx::query("SELECT model, cents_per_gpu_hour FROM gpu_prices").fetch_all(&store.pool).await?;
    rows.iter()
        .map(|r| Ok((r.try_get(0)?, r.try_get(1)?)))
        .collect::<Result<_, sqlx::Error>>()
        .map_err(Into::into)
}

/// A webhook must be an http(s) URL without spaces: nothing else is posted to.
fn webhook(url: &str) -> Result<&str, Invalid> {
    let url = text(url, "report_webhook", 500)?;
    let rest = url.strip_prefix("https://").or_else(|| url.strip_prefix("http://"));
    match rest {
        Some(host) if !host.is_empty() && !url.contains(char::is_whitespace) => Ok(url),
        _ => Err(Invalid(format!("report_webhook must be an http:// or https:// URL, not `{url}`"))),
    }
}

/// The prices in cents, checked: known-looking model names, each once, finite and in range.
fn cents(prices: &[GpuPrice]) -> Result<Vec<(String, i64)>, Invalid> {
    if prices.len() > MAX_PRICES {
        return Err(Invalid(format!("at most {MAX_PRICES} prices")));
    }
    let mut out: Vec<(String, i64)> = Vec::new();
    for p in prices {
        let model = text(&p.model, "prices.model", 64)?.to_string();
        if !p.per_gpu_hour.is_finite() || !(0.0..=MAX_PRICE).contains(&p.per_gpu_hour) {
            return Err(Invalid(format!("the price of {model} must be between 0 and {MAX_PRICE}")));
        }
        if out.iter().any(|(m, _)| *m == model) {
            return Err(Invalid(format!("{model} is priced twice")));
        }
        out.push((model, (p.per_gpu_hour * 100.0).round() as i64));
    }
    Ok(out)
}

/// Replaces the settings (admins): a model left out of `prices` loses its price.
pub async fn write(
    store: &Store,
    user: &User,
    body: &OrgSettings,
    now: i64,
) -> Result<OrgSettings, SettingsError> {
    require_admin(user, "change the organisation's settings")?;
    let zone = OrgZone::named(text(&body.time_zone, "time_zone", 64)?)?;
    let currency = text(&body.currency, "currency", 8)?;
    if !currency.chars().all(|c| c.is_ascii_uppercase()) || currency.len() != 3 {
        return Err(
            Invalid(format!("currency must be a three-letter code such as EUR, not `{currency}`")).into()
        );
    }
    let hook = body.report_webhook.as_deref().map(webhook).transpose()?;
    let prices = cents(&body.prices)?;
    let before = read(store).await?;
    let mut tx = store.begin().await?;
    sqlx::query(
        "UPDATE org_settings SET time_zone = $1, currency = $2, report_webhook = $3, updated_by = $4, \
         updated_at = $5 WHERE id = 1",
    )
    .bind(zone.name())
    .bind(currency)
    .bind(hook)
    .bind(&user.username)
    .bind(now)
    .execute(&mut *tx)
    .await?;
    sqlx::query("DELETE FROM gpu_prices").execute(&mut *tx).await?;
    for (model, cents) in &prices {
        sqlx::query(
            "INSERT INTO gpu_prices (model, cents_per_gpu_hour, set_by, set_at) VALUES ($1, $2, $3, $4)",
        )
        .bind(model)
        .bind(cents)
        .bind(&user.username)
        .bind(now)
        .execute(&mut *tx)
        .await?;
    }
    let after = OrgSettings {
        time_zone: zone.name().to_string(),
        currency: currency.to_string(),
        prices: {
            let mut p: Vec<GpuPrice> = prices
                .iter()
                .map(|(m, c)| GpuPrice { model: m.clone(), per_gpu_hour: *c as f64 / 100.0 })
                .collect();
            p.sort_by(|a, b| a.model.cmp(&b.model));
            p
        },
        report_webhook: hook.map(str::to_string),
    };
    let change = SettingsChange { before, after: after.clone() };
    let detail = EventDetail { settings: Some(change), ..EventDetail::default() };
    let message = format!(
        "{} set the organisation's settings: zone {}, currency {}, {} prices, webhook {}",
        user.username,
        after.time_zone,
        after.currency,
        after.prices.len(),
        if after.report_webhook.is_some() { "set" } else { "none" }
    );
    record(&mut tx, now, "settings-changed", None, &user.username, &message, &detail).await?;
    tx.commit().await?;
    Ok(after)
}

/// Sets (or with `None` clears) `username`'s email address, recorded as an event.
pub async fn set_email(
    store: &Store,
    actor: &str,
    username: &str,
    address: Option<&str>,
    now: i64,
) -> Result<(), SettingsError> {
    let address = address.map(|a| text(a, "email", 254)).transpose()?;
    if let Some(a) = address {
        clean(a, "email", &[])?;
        let ok = a.split_once('@').is_some_and(|(l, d)| !l.is_empty() && d.contains('.'))
            && !a.contains(char::is_whitespace)
            && !a.contains(['<', '>', ',', ';']);
        if !ok {
            return Err(Invalid(format!("`{a}` is not an email address")).into());
        }
    }
    let mut tx = store.begin().await?;
    let done = sqlx::query("UPDATE users SET email = $1 WHERE username = $2")
        .bind(address)
        .bind(username)
        .execute(&mut *tx)
        .await?;
    if done.rows_affected() != 1 {
        return Err(SettingsError::NoSuchUser(username.to_string()));
    }
    let message = format!("{actor} set the email of {username} to {}", address.unwrap_or("none"));
    record(&mut tx, now, "email-changed", None, actor, &message, &EventDetail::default()).await?;
    tx.commit().await?;
    Ok(())
}
