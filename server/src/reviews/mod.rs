//! The monthly reviews (Q5, R5): each quota's guarantee against what its group held, with
//! a suggested guarantee and why, which an admin turns into proposals for the second
//! admin (B2) through [`crate::changes`]; and where idle capacity sat. Figures come from
//! the hourly roll-up (`usage_hours`) over the organisation's local month. Managers and
//! members see their group's lines, admins every group's.

mod quotas;
mod rules;
mod templates;

use quotas::only;
pub use quotas::{idle, propose, quota_review};
pub use rules::{effect, rules_review};
pub use templates::{quarter_bounds, template_review};

use crate::access::AccessError;
use crate::changes::ChangeError;
use crate::input::Invalid;
use crate::org_time::OrgZone;
use crate::store::StoreError;

/// Why a review was not answered or its suggestions not proposed.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Change(#[from] ChangeError),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ReviewError);

/// `[start, end)` and name of local month `month` (`2026-11`); none: the month of `now`.
pub fn month_bounds(zone: &OrgZone, month: Option<&str>, now: i64) -> Result<(i64, i64, String), Invalid> {
    let Some(m) = month else { return Ok(zone.month_of(now)) };
    let bad = || Invalid(format!("month must look like 2026-11, not `{m}`"));
    let (y, mo) = m.split_once('-').ok_or_else(bad)?;
    let (y, mo): (i64, u32) = (y.parse().map_err(|_| bad())?, mo.parse().map_err(|_| bad())?);
    if !(1970..=9999).contains(&y) || !(1..=12).contains(&mo) || m.len() != 7 {
        return Err(bad());
    }
    // The 15th at noon UTC lies inside the local month in every zone.
    let mid = crate::calendar::days_from_civil(y, mo, 15) * 86_400 + 12 * 3600;
    Ok(zone.month_of(mid))
}
