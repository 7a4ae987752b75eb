//! The quarterly template review (T3): the templates still in use (not retired, made
//! before the quarter's end) that nobody launched in the quarter, with their launches
//! ever and the last one, so their owners can retire them. Quarters are the
//! organisation's local ones; managers and members see their group's templates.

use sqlx::Row;
use tidepool_api::reviews::{StaleTemplate, TemplateReview};

use super::{ReviewError, month_bounds, only};
use crate::input::Invalid;
use crate::org_time::OrgZone;
use crate::settings;
use crate::store::Store;
use crate::store::users::User;

/// `[start, end)` and name of local quarter `quarter` (`2026-Q4`); none: the quarter of `now`.
pub fn quarter_bounds(
    zone: &OrgZone,
    quarter: Option<&str>,
    now: i64,
) -> Result<(i64, i64, String), Invalid> {
    let name = match quarter {
        Some(q) => q.to_string(),
        None => {
            let (_, _, month) = zone.month_of(now);
            let (y, m) = month.split_once('-').unwrap_or(("1970", "01"));
            let m: u32 = m.parse().unwrap_or(1);
            format!("{y}-Q{}", (m - 1) / 3 + 1)
        }
    };
    let bad = || Invalid(format!("quarter must look like 2026-Q4, not `{name}`"));
    let (y, q) = name.split_once("-Q").ok_or_else(bad)?;
    let q: u32 = q.parse().map_err(|_| bad())?;
    if y.len() != 4 || !(1..=4).contains(&q) || name.len() != 7 {
        return Err(bad());
    }
    let (start, _, _) = month_bounds(zone, Some(&format!("{y}-{:02}", 3 * q - 2)), now).map_err(|_| bad())?;
    let (_, end, _) = month_bounds(zone, Some(&format!("{y}-{:02}", 3 * q)), now).map_err(|_| bad())?;
    Ok((start, end, name))
}

/// The stale templates of `quarter` that `user` may see, the longest unused first.
pub async fn template_review(
    store: &Store,
    user: &User,
    quarter: Option<&str>,
    now: i64,
) -> Result<TemplateReview, ReviewError> {
    let zone = settings::zone_of(&settings::read(store).await?);
    let (start, end, quarter) = quarter_bounds(&zone, quarter, now)?;
    let rows = sqlx::query(
        "SELECT t.id, t.name, g.name, t.created_by, \
         (SELECT COUNT(*) FROM jobs j WHERE j.template_id = t.id), \
         (SELECT MAX(j.submitted_at) FROM jobs j WHERE j.template_id = t.id) \
         FROM templates t JOIN groups g ON g.id = t.group_id \
         WHERE t.retired_at IS NULL AND t.created_at < $1 AND ($2 = 0 OR t.group_id = $2) \
         AND NOT EXISTS (SELECT 1 FROM jobs j WHERE j.template_id = t.id AND j.submitted_at >= $3 AND j.submitted_at < $1) \
         ORDER BY t.id LIMIT 10000",
    )
    .bind(end)
    .bind(only(user))
    .bind(start)
    .fetch_all(&store.pool)
    .await?;
    let mut stale = rows
        .iter()
        .map(|r| {
            Ok(StaleTemplate {
                id: r.try_get(0)?,
                name: r.try_get(1)?,
                group: r.try_get(2)?,
                created_by: r.try_get(3)?,
                launches: r.try_get(4)?,
                last_launch: r.try_get(5)?,
            })
        })
        .collect::<Result<Vec<_>, sqlx::Error>>()?;
    // Never launched first, then the oldest last launch.
    stale.sort_by_key(|t| (t.last_launch.unwrap_or(i64::MIN), t.id));
    Ok(TemplateReview { quarter, stale })
}
