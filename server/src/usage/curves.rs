//! The busy/idle curves (`GET /api/usage`, V4): the hour-of-day x weekday heatmap,
//! averaged over the range, and GPU-hours by local day, in the organisation's time zone.
//! Members and managers see their own group or the organisation's totals, never another
//! group's figures; admins see any group.

use std::collections::BTreeMap;

use sqlx::Row;
use tidepool_api::usage::{DayFigure, HeatCell, UsageCurves};
use tidepool_core::usage::{Figures, HOUR, hour_of};

use crate::access::{AccessError, belongs, group_named};
use crate::input::{Invalid, filter};
use crate::org_time::OrgZone;
use crate::store::Store;
use crate::store::users::User;
use crate::usage::{UsageError, figures_at, rolled_until};

/// The longest range one answer covers.
pub const MAX_RANGE_S: i64 = 400 * 86_400;
/// The range when none is given: the last four weeks rolled up.
pub const DEFAULT_RANGE_S: i64 = 28 * 86_400;

/// What the caller asks for.
#[derive(Clone, Debug, Default)]
pub struct Ask<'a> {
    pub from: Option<i64>,
    pub to: Option<i64>,
    pub group: Option<&'a str>,
    pub pool: Option<&'a str>,
}

/// The organisation's time zone (UTC when the setting names none we know).
pub async fn org_zone(store: &Store) -> Result<OrgZone, UsageError> {
    let row =
        sqlx::query("SELECT time_zone FROM org_settings WHERE id = 1").fetch_optional(&store.pool).await?;
    let name: Option<String> = row.map(|r| r.try_get(0)).transpose()?;
    Ok(name.and_then(|n| OrgZone::named(&n).ok()).unwrap_or_else(OrgZone::utc))
}

/// The curves `user` asked for.
pub async fn curves(store: &Store, user: &User, ask: &Ask<'_>) -> Result<UsageCurves, UsageError> {
    let group = match ask.group {
        Some(name) => {
            let id = group_named(store, name).await?;
            if !belongs(user, id) {
                let why = "you see your own group's usage or the organisation's, not another group's";
                return Err(AccessError::Denied(why.into()).into());
            }
            Some(id)
        }
        None => None,
    };
    let pool = ask.pool.map(|p| filter(p, "pool")).transpose()?;
    let rolled = rolled_until(store).await?;
    let to = hour_of(ask.to.unwrap_or(rolled).min(rolled));
    let from = hour_of(ask.from.unwrap_or(to - DEFAULT_RANGE_S));
    if ask.from.is_some() && ask.to.is_some() && ask.from > ask.to {
        return Err(Invalid("from must come before to".into()).into());
    }
    if to - from > MAX_RANGE_S {
        return Err(Invalid(format!("a range covers at most {} days", MAX_RANGE_S / 86_400)).into());
    }
    let zone = org_zone(store).await?;
    let totals = totals_by_hour(store, from, to, group, pool).await?;
    let (heatmap, days) = shape(&zone, from, to, &totals);
    Ok(UsageCurves {
        from,
        to: to.max(from),
        group: ask.group.map(str::to_string),
        pool: pool.map(str::to_string),
        time_zone: zone.name().to_string(),
        heatmap,
        days,
        rolled_until: rolled,
    })
}

/// The figures of each rolled-up hour in `[from, to)`, summed over the rows that match.
pub async fn totals_by_hour(
    store: &Store,
    from: i64,
    to: i64,
    group: Option<i64>,
    pool: Option<&str>,
) -> Result<BTreeMap<i64, Figures>, UsageError> {
    let sum = |c: &str| format!("CAST(SUM({c}) AS BIGINT)");
    let columns = [
        "held_gpu_s",
        "sampled_gpu_s",
        "util_pct_gpu_s",
        "idle_gpu_s",
        "jobs_started",
        "jobs_finished",
        "wait_s",
    ];
    let sums: Vec<String> = columns.iter().map(|c| sum(c)).collect();
    let sql = format!(
        "SELECT hour, {} FROM usage_hours WHERE hour >= $1 AND hour < $2 AND ($3 < 0 OR group_id = $3) \
         AND ($4 = '' OR pool = $4) GROUP BY hour",
        sums.join(", ")
    );
    let rows = sqlx::query(sqlx::AssertSqlSafe(sql))
        .bind(from)
        .bind(to)
        .bind(group.unwrap_or(-1))
        .bind(pool.unwrap_or(""))
        .fetch_all(&store.pool)
        .await?;
    let mut out = BTreeMap::new();
    for r in &rows {
        out.insert(r.try_get::<i64, _>(0)?, figures_at(r, 1)?);
    }
    Ok(out)
}

/// The heatmap (7 x 24, Monday 00:00 first) and the local days of `[from, to)`. A cell
/// averages over every hour of the range that falls in it, used or not.
pub fn shape(
    zone: &OrgZone,
    from: i64,
    to: i64,
    totals: &BTreeMap<i64, Figures>,
) -> (Vec<HeatCell>, Vec<DayFigure>) {
    let mut cells = vec![(0i64, Figures::default()); 7 * 24];
    let mut days: Vec<(String, Figures)> = Vec::new();
    let mut hour = from;
    while hour < to {
        let f = totals.get(&hour).copied().unwrap_or_default();
        let (weekday, local) = zone.weekday_hour(hour);
        let cell = &mut cells[usize::from(weekday) * 24 + usize::from(local)];
        cell.0 += 1;
        cell.1 += f;
        let date = zone.date_of(hour);
        match days.last_mut() {
            Some((d, sum)) if *d == date => *sum += f,
            _ => days.push((date, f)),
        }
        hour += HOUR;
    }
    let h = HOUR as f64;
    let heatmap = cells
        .iter()
        .enumerate()
        .map(|(k, (n, f))| {
            let n = (*n).max(1) as f64;
            HeatCell {
                weekday: (k / 24) as u8,
                hour: (k % 24) as u8,
                gpus_held: f.held_gpu_s as f64 / h / n,
                util_pct: (f.sampled_gpu_s > 0).then(|| f.util_pct_gpu_s as f64 / f.sampled_gpu_s as f64),
                gpus_idle: f.idle_gpu_s as f64 / h / n,
            }
        })
        .collect();
    let days = days
        .into_iter()
        .map(|(date, f)| DayFigure {
            date,
            gpu_hours: f.held_gpu_s as f64 / h,
            busy_gpu_hours: f.util_pct_gpu_s as f64 / 100.0 / h,
            idle_gpu_hours: f.idle_gpu_s as f64 / h,
        })
        .collect();
    (heatmap, days)
}
