//! Replay before promotion (O1, A3): an admin runs a policy version over the
//! organisation's own recorded submissions of a period, on the simulator's engine (the
//! same `plan()` as the dispatcher), beside the active version and what really happened.
//! The comparison is stored with the version, so the admin who approves its promotion
//! reads it. Shadow and canary show a version on the future; this shows it on the past.

pub mod figures;
pub mod history;
pub mod run;

use std::sync::Arc;

use sqlx::Row;
use tidepool_api::replays::{Replay, ReplayList, ReplayRequest};

use crate::access::{AccessError, require_admin};
use crate::input::Invalid;
use crate::policy::desk::PolicyDesk;
use crate::policy::registry::{Registry, RegistryError};
use crate::policy::version::{State, state_name};
use crate::policy::{Kind, Module};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Replays kept per version and answered by the list, newest first.
const LISTED: i64 = 20;

/// Why a replay was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error(transparent)]
    Access(#[from] AccessError),
    #[error(transparent)]
    Invalid(#[from] Invalid),
    #[error(transparent)]
    Registry(#[from] RegistryError),
    /// The period cannot be read or is empty.
    #[error("{0}")]
    Period(String),
    /// Nothing was submitted in the period: there is nothing to replay.
    #[error("no jobs were submitted between {since} and {until} (Unix seconds): nothing to replay")]
    NoJobs { since: i64, until: i64 },
    /// The records could not be read as the dispatcher reads them.
    #[error("reading the cluster: {0}")]
    Records(String),
    /// The simulation's task failed.
    #[error("replaying: {0}")]
    Task(String),
    #[error(transparent)]
    Store(#[from] StoreError),
}

crate::store::from_sqlx!(ReplayError);

/// A version's module, if it can run (not rejected).
fn runnable(registry: &Registry, sha: &str) -> Result<Arc<Module>, ReplayError> {
    let v = registry.get(sha).ok_or_else(|| RegistryError::Unknown(sha.into()))?;
    match (&v.state, &v.module) {
        (State::Rejected { .. }, _) | (_, None) => Err(RegistryError::NotRunnable {
            sha256: sha.into(),
            state: state_name(&v.state),
            action: "a replay",
        }
        .into()),
        (_, Some(m)) => Ok(m.clone()),
    }
}

/// The candidate's modules (`sha` and `with`, one per kind) and the active ones.
async fn modules(
    desk: &PolicyDesk,
    sha: &str,
    with: &[String],
) -> Result<(Vec<Arc<Module>>, Vec<Arc<Module>>), ReplayError> {
    if with.len() > 2 {
        return Err(Invalid("`with` names at most two versions (one of each other kind)".into()).into());
    }
    let registry = desk.registry.lock().await;
    let mut candidate = Vec::new();
    for s in std::iter::once(sha).chain(with.iter().map(String::as_str)) {
        let m = runnable(&registry, s)?;
        if candidate.iter().any(|c: &Arc<Module>| c.kind == m.kind) {
            return Err(
                Invalid(format!("two {} versions given: replay one of each kind", m.kind.name())).into()
            );
        }
        candidate.push(m);
    }
    let active = Kind::ALL
        .into_iter()
        .filter_map(|k| desk.policies.active(k))
        .filter_map(|s| registry.get(&s).and_then(|v| v.module.clone()))
        .collect();
    Ok((candidate, active))
}

/// Runs the replay an admin asks for and stores its comparison with version `sha`.
pub async fn start(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
    ask: &ReplayRequest,
    now: i64,
) -> Result<Replay, ReplayError> {
    require_admin(user, "replay policy versions")?;
    let (since, until) = history::period(&ask.since, ask.until.as_deref(), now)?;
    let (candidate, active) = modules(desk, sha, &ask.with).await?;
    let jobs = history::jobs(store, since, until, now).await?;
    if jobs.is_empty() {
        return Err(ReplayError::NoJobs { since, until });
    }
    let (snap, _) =
        crate::dispatch::load_snapshot(store, now).await.map_err(|e| ReplayError::Records(e.to_string()))?;
    let snap = run::empty_cluster(snap, &run::main_model(&jobs));
    let entitled = run::entitlements(&snap);
    let runtime = desk.runtime.clone();
    let labels =
        (format!("active: {}", run::label(&active)), format!("candidate: {}", run::label(&candidate)));
    // Policy calls block (wasmtime): off the async workers, as the dispatcher runs them.
    let (replayable, jobs, went_active, went_candidate) = tokio::task::spawn_blocking(move || {
        let replayable = run::replayable(&snap, &jobs);
        let now_set = run::policy_set(runtime.clone(), &active, &[]);
        let went_active = run::simulate(&snap, &now_set, &jobs, &replayable);
        let next_set = run::policy_set(runtime, &active, &candidate);
        let went_candidate = run::simulate(&snap, &next_set, &jobs, &replayable);
        (replayable, jobs, went_active, went_candidate)
    })
    .await
    .map_err(|e| ReplayError::Task(e.to_string()))?;
    let mut replay = Replay {
        id: 0,
        sha256: sha.into(),
        with: ask.with.clone(),
        since,
        until,
        requested_by: user.username.clone(),
        at: now,
        jobs: replayable.picked.len() as u64,
        left_out: replayable.left_out,
        actual: figures::figures("what happened".into(), &jobs, &figures::recorded(&jobs), &entitled),
        active: figures::figures(labels.0, &jobs, &went_active, &entitled),
        candidate: figures::figures(labels.1, &jobs, &went_candidate, &entitled),
    };
    let json = serde_json::to_string(&replay).map_err(|e| ReplayError::Task(e.to_string()))?;
    let row = sqlx::query(
        "INSERT INTO policy_replays (sha256, since, until, requested_by, at, comparison) \
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
    )
    .bind(sha)
    .bind(since)
    .bind(until)
    .bind(&user.username)
    .bind(now)
    .bind(json)
    .fetch_one(&store.pool)
    .await?;
    replay.id = row.try_get(0)?;
    tracing::info!(
        sha = &sha[..12.min(sha.len())],
        jobs = replay.jobs,
        active_jct_s = replay.active.avg_jct_s,
        candidate_jct_s = replay.candidate.avg_jct_s,
        "replayed a policy version over the recorded period"
    );
    Ok(replay)
}

/// Version `sha`'s stored replays, newest first (admins).
pub async fn list(
    desk: &PolicyDesk,
    store: &Store,
    user: &User,
    sha: &str,
) -> Result<ReplayList, ReplayError> {
    require_admin(user, "read replays")?;
    if desk.registry.lock().await.get(sha).is_none() {
        return Err(RegistryError::Unknown(sha.into()).into());
    }
    let rows =
        sqlx::query("SELECT id, comparison FROM policy_replays WHERE sha256 = $1 ORDER BY id DESC LIMIT $2")
            .bind(sha)
            .bind(LISTED)
            .fetch_all(&store.pool)
            .await?;
    let mut replays = Vec::with_capacity(rows.len());
    for r in rows {
        let text: String = r.try_get(1)?;
        let mut replay: Replay = serde_json::from_str(&text)
            .map_err(|e| ReplayError::Records(format!("stored replay cannot be read: {e}")))?;
        replay.id = r.try_get(0)?;
        replays.push(replay);
    }
    Ok(ReplayList { replays })
}
