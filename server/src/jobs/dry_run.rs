//! The dry run (O6): what would happen to a job submitted now — where it would start, or
//! why it would wait and when it could start — checked as a submission is and planned
//! against the whole cluster, with nothing written. Each plans the whole cluster, so each
//! user may ask a few per window (finding 8).

use std::sync::Arc;

use tidepool_api::jobs::{DryRun, Submit};
use tidepool_core::Policies;

use crate::dispatch::DispatchError;
use crate::dispatch::rehearse::rehearse;
use crate::jobs::submit::{SubmitError, prepare};
use crate::limits::Bounds;
use crate::store::Store;
use crate::store::users::User;

/// Why a dry run gave no answer.
#[derive(Debug, thiserror::Error)]
pub enum DryRunError {
    /// The user asked too many in the window; `wait_s` until the next may be asked.
    #[error("at most {max} dry runs per {window_s} s: try again in {wait_s} s")]
    TooMany { max: usize, window_s: i64, wait_s: i64 },
    /// The job itself is refused, as its submission would be.
    #[error(transparent)]
    Refused(#[from] SubmitError),
    /// The records could not be planned with.
    #[error(transparent)]
    Plan(#[from] DispatchError),
}

/// What would happen to `body`, submitted by `user` at `now`, under `policies`.
pub async fn dry_run(
    store: &Store,
    bounds: &Bounds,
    policies: Arc<dyn Policies + Send + Sync>,
    user: &User,
    body: Submit,
    now: i64,
) -> Result<DryRun, DryRunError> {
    if let Err(wait_s) = bounds.dry_run(user.id, now) {
        return Err(DryRunError::TooMany { max: bounds.dry_runs, window_s: bounds.dry_run_window_s, wait_s });
    }
    let p = prepare(store, user, body, now).await?;
    Ok(rehearse(store, policies, p.group_id, &p.spec, now).await?)
}
