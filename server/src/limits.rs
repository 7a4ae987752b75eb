//! Bounded work per request (finding 8): how many jobs one user may have waiting, how
//! many active templates one group may keep, which GPU models a job may name (those some
//! node has: made-up names each grew the planner's model table), and how often one user
//! may ask for a dry run (each plans the whole cluster). The HTTP layer answers a
//! [`Limited::Over`] with 422, and a dry run past its window with 429 and Retry-After.

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use sqlx::Row;

use crate::store::{Store, StoreError};

/// A request past one of the bounds, with what to do about it.
#[derive(Debug, thiserror::Error)]
pub enum Limited {
    #[error("{0}")]
    Over(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(Limited);

/// The caps a server enforces; `serve` sets them from its flags.
pub struct Bounds {
    /// Jobs one user may have pending at once.
    pub pending_per_user: i64,
    /// Active (unretired) templates one group may keep.
    pub templates_per_group: i64,
    /// Dry runs one user may ask for per `dry_run_window_s`.
    pub dry_runs: usize,
    pub dry_run_window_s: i64,
    /// Per user: when their recent dry runs were asked for.
    recent: Mutex<HashMap<i64, VecDeque<i64>>>,
    /// Per user: pending jobs when last counted, plus what they submitted here since.
    counted: Mutex<HashMap<i64, (i64, Instant)>>,
}

/// How long a user's count of pending jobs, plus what they submitted since, stands in
/// for a fresh count while it is under 90% of the cap. Counting on every submission read
/// the user's whole queue (up to the cap) each time: in `bench e2e` on PostgreSQL,
/// 1,000 submissions a second instead of 1,700, and 445 jobs started a second instead of
/// 495. What the estimate misses in that second (the user's jobs requeued, submissions
/// through another server) can pass the cap by as much, as two submissions at the same
/// moment always could; starts and cancellations only make it count again sooner. Near
/// the cap every submission is counted, so the refusal comes exactly at it.
const PENDING_RECOUNT: Duration = Duration::from_secs(1);

impl Default for Bounds {
    fn default() -> Self {
        Bounds::new(1_000, 500, 10, 10)
    }
}

impl Bounds {
    pub fn new(pending_per_user: i64, templates_per_group: i64, dry_runs: usize, window_s: i64) -> Bounds {
        Bounds {
            pending_per_user,
            templates_per_group,
            dry_runs,
            dry_run_window_s: window_s.max(1),
            recent: Mutex::new(HashMap::new()),
            counted: Mutex::new(HashMap::new()),
        }
    }

    /// True when `user`'s recent count plus what they submitted since is well under the
    /// cap; this submission is then counted in it and needs no count of its own.
    fn pending_well_under(&self, user: i64) -> bool {
        let cap = self.pending_per_user;
        let mut counted = self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match counted.get_mut(&user) {
            Some((n, at)) if at.elapsed() < PENDING_RECOUNT && *n < cap - cap / 10 => {
                *n += 1;
                true
            }
            _ => false,
        }
    }

    /// Notes `user`'s pending jobs as just counted (this submission included).
    fn pending_counted(&self, user: i64, pending: i64) {
        let mut counted = self.counted.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        counted.retain(|_, (_, at)| at.elapsed() < PENDING_RECOUNT);
        counted.insert(user, (pending, Instant::now()));
    }

    /// Counts a dry run by `user` at `now`; when the window is full, the seconds until a
    /// slot frees (for Retry-After).
    pub fn dry_run(&self, user: i64, now: i64) -> Result<(), i64> {
        let mut recent = self.recent.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // Forget everyone's stale entries, so the map holds only recent askers.
        recent.retain(|_, times| {
            while times.front().is_some_and(|t| *t <= now - self.dry_run_window_s) {
                times.pop_front();
            }
            !times.is_empty()
        });
        let times = recent.entry(user).or_default();
        if times.len() >= self.dry_runs {
            let oldest = times.front().copied().unwrap_or(now);
            return Err((oldest + self.dry_run_window_s - now).max(1));
        }
        times.push_back(now);
        Ok(())
    }
}

/// Refused when `user` already has the most pending jobs allowed.
pub async fn pending_cap(store: &Store, bounds: &Bounds, user: i64) -> Result<(), Limited> {
    let cap = bounds.pending_per_user;
    if bounds.pending_well_under(user) {
        return Ok(());
    }
    // Counts at most one past the cap: the index on (submitted_by, state) keeps it a range read.
    let row = sqlx::query(
        "SELECT COUNT(*) FROM (SELECT 1 FROM jobs WHERE submitted_by = $1 AND state = 'pending' LIMIT $2) p",
    )
    .bind(user)
    .bind(cap + 1)
    .fetch_one(&store.pool)
    .await?;
    let pending: i64 = row.try_get(0)?;
    if pending >= cap {
        return Err(Limited::Over(format!(
            "you have {pending} jobs pending, the most one user may have waiting is {cap}: \
             wait for some to start or cancel some"
        )));
    }
    bounds.pending_counted(user, pending + 1);
    Ok(())
}

/// Refused when `group` already keeps the most active templates allowed.
pub async fn template_cap(store: &Store, bounds: &Bounds, group: i64) -> Result<(), Limited> {
    let cap = bounds.templates_per_group;
    let row = sqlx::query("SELECT COUNT(*) FROM templates WHERE group_id = $1 AND retired_at IS NULL")
        .bind(group)
        .fetch_one(&store.pool)
        .await?;
    let active: i64 = row.try_get(0)?;
    if active >= cap {
        return Err(Limited::Over(format!(
            "the group has {active} active templates, the most a group may keep is {cap}: retire one first"
        )));
    }
    Ok(())
}

/// Refused unless some node has GPUs of `model`; the error lists the models that exist. Read
/// from the nodes each time (an index lookup), so a node added a moment ago counts.
pub async fn known_model(store: &Store, model: &str) -> Result<(), Limited> {
    let pool = &store.pool;
    if sqlx::query("SELECT 1 FROM nodes WHERE model = $1 LIMIT 1")
        .bind(model)
        .fetch_optional(pool)
        .await?
        .is_some()
    {
        return Ok(());
    }
    let models: Vec<String> = sqlx::query("SELECT DISTINCT model FROM nodes ORDER BY model LIMIT 100")
        .fetch_all(pool)
        .await?
        .iter()
        .map(|r| r.try_get(0))
        .collect::<Result<_, _>>()?;
    Err(Limited::Over(if models.is_empty() {
        format!("no node has {model} GPUs: the cluster has no nodes yet")
    } else {
        format!("no node has {model} GPUs; the cluster's models are: {}", models.join(", "))
    }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dry_runs_beyond_the_window_wait_for_the_oldest_to_age_out() {
        let b = Bounds::new(1, 1, 2, 10);
        assert_eq!(b.dry_run(7, 100), Ok(()));
        assert_eq!(b.dry_run(7, 103), Ok(()));
        assert_eq!(b.dry_run(7, 105), Err(5));
        assert_eq!(b.dry_run(8, 105), Ok(()), "another user has their own window");
        assert_eq!(b.dry_run(7, 110), Ok(()), "the first aged out");
    }

    #[test]
    fn a_recent_count_stands_in_only_well_under_the_cap() {
        let b = Bounds::new(100, 1, 1, 10);
        assert!(!b.pending_well_under(7), "never counted: count");
        b.pending_counted(7, 50);
        // 50 counted, then 40 submissions on the estimate: 90 is 90% of the cap.
        assert_eq!((0..100).take_while(|_| b.pending_well_under(7)).count(), 40);
        assert!(!b.pending_well_under(7), "near the cap every submission is counted");
        assert!(!b.pending_well_under(8), "another user has their own count");
    }
}
