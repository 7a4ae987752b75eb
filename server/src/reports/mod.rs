//! The weekly report (A5, O4, Q1, Q3): per group or for the organisation, for any ISO week
//! of the organisation's time zone, computed from the records (the hourly roll-up in
//! `usage_hours`, jobs, allocations, loans, events). A finished week is frozen (A2) on its
//! first read once the roll-up covers it, and by the Monday delivery: stored in
//! `weekly_reports` and answered from there ever after, so later edits change nothing.
//!
//! Who reads what: everyone signed in reads the organisation's report and their own
//! group's; admins read any group's.

mod csv;
pub mod delivery;
mod figures;
mod flows;
pub mod frozen;
pub mod mail;
pub mod recipients;

pub use csv::to_csv;

use tidepool_api::reports::{FrozenWeeks, WeeklyReport};

use crate::access::{AccessError, group_named};
use crate::input::Invalid;
use crate::settings;
use crate::store::users::{Role, User};
use crate::store::{Store, StoreError};

/// Why a report was not answered.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("week {0} has not begun")]
    NotBegun(String),
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ReportError);

/// Whom a report is about: a group (id, name) or, none, the organisation.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Scope(pub Option<(i64, String)>);

impl Scope {
    /// The id stored in `weekly_reports.group_id`: 0 for the organisation.
    pub fn id(&self) -> i64 {
        self.0.as_ref().map_or(0, |(id, _)| *id)
    }
    pub fn name(&self) -> Option<String> {
        self.0.as_ref().map(|(_, n)| n.clone())
    }
}

/// The scope `user` asked for: the organisation, their own group, or (admins) any group.
pub async fn scope_for(store: &Store, user: &User, group: Option<&str>) -> Result<Scope, ReportError> {
    let Some(name) = group else { return Ok(Scope(None)) };
    let id = group_named(store, name).await?;
    if user.role != Role::Admin && user.group_id != Some(id) {
        return Err(
            AccessError::Denied("you read your own group's reports and the organisation's".into()).into()
        );
    }
    Ok(Scope(Some((id, name.to_string()))))
}

/// The report of `week` (default: the week holding `now`) for `scope`: the frozen copy
/// when there is one; else computed, and frozen when the week is over and rolled up.
pub async fn weekly(
    store: &Store,
    scope: &Scope,
    week: Option<&str>,
    now: i64,
) -> Result<WeeklyReport, ReportError> {
    let settings = settings::read(store).await?;
    let zone = settings::zone_of(&settings);
    let week = match week {
        Some(w) => {
            zone.week_bounds(w)?;
            w.to_string()
        }
        None => zone.week_of(now),
    };
    if let Some(report) = frozen::read(store, scope.id(), &week).await? {
        return Ok(report);
    }
    let (start, end) = zone.week_bounds(&week)?;
    if start > now {
        return Err(ReportError::NotBegun(week));
    }
    let report = figures::compute(store, &settings, &zone, scope, &week, now).await?;
    if end <= now && figures::rolled_until(store).await? >= end {
        return Ok(frozen::freeze(store, scope.id(), report, now).await?);
    }
    Ok(report)
}

/// The frozen weeks, newest first (managers and members: the organisation's and their
/// group's; admins: all).
pub async fn list(store: &Store, user: &User) -> Result<FrozenWeeks, ReportError> {
    let only = (user.role != Role::Admin).then(|| user.group_id.unwrap_or(0));
    Ok(frozen::list(store, only).await?)
}
