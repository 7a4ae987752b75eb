//! A dry run (O6): what the dispatcher would do with a job submitted now — start it where,
//! on what terms, making whom yield; or hold it, at which place, and why. The same
//! snapshot and `plan()` as a real cycle, with nothing written.

use std::sync::Arc;

use tidepool_api::jobs::DryRun;
use tidepool_core::{Job, JobId, Policies, plan};

use crate::dispatch::{DispatchError, load};
use crate::jobs::Spec;
use crate::store::Store;

/// The id the rehearsed job carries: no real job has it.
const REHEARSED: JobId = JobId(u64::MAX);

/// What would happen to a job of `spec` for group `group_id` submitted at `now`.
pub async fn rehearse(
    store: &Store,
    policies: Arc<dyn Policies + Send + Sync>,
    group_id: i64,
    spec: &Spec,
    now: i64,
) -> Result<DryRun, DispatchError> {
    let (mut snap, ids) = load::snapshot(store, now).await?;
    let Some(group) = ids.groups.iter().position(|g| *g == group_id) else {
        return Err(DispatchError::Corrupt(format!("no group {group_id}")));
    };
    let model = match snap.models.iter().position(|m| *m == spec.model) {
        Some(m) => m,
        None => {
            return Ok(DryRun {
                would: "wait".into(),
                nodes: Vec::new(),
                why: format!("no node has {} GPUs", spec.model),
                position: 0,
                preemptions: 0,
                estimated_start: None,
            });
        }
    };
    snap.pending.push(Job {
        id: REHEARSED,
        group: tidepool_core::GroupId(group as u32),
        category: load::category(&spec.category)?,
        class: load::class(&spec.class)?,
        gpus: spec.gpus.clamp(0, i64::from(u32::MAX)) as u32,
        model: tidepool_core::ModelId(model as u16),
        topology: load::topology(&spec.topology)?,
        time_limit_s: spec.time_limit_s.map(|t| t.max(1) as u64),
        checkpointable: spec.checkpointable,
        submitted_at: now,
        queued_at: now,
        attained_gpu_s: 0,
    });
    let (snap, p) = tokio::task::spawn_blocking(move || {
        let p = plan(&snap, now, policies.as_ref());
        (snap, p)
    })
    .await
    .map_err(|e| DispatchError::Corrupt(format!("planning panicked: {e}")))?;
    if let Some(placed) = p.placements.iter().find(|x| x.job == REHEARSED) {
        let nodes = placed
            .slots
            .iter()
            .map(|s| (snap.nodes[s.node.0 as usize].name.clone(), crate::fleet::indices(s.gpus)))
            .collect();
        return Ok(DryRun {
            would: "start".into(),
            nodes,
            why: placed.basis(),
            position: placed.position,
            preemptions: p.preemptions.len() as u64,
            estimated_start: Some(now),
        });
    }
    let hold = p.holds.iter().find(|h| h.job == REHEARSED);
    Ok(DryRun {
        would: "wait".into(),
        nodes: Vec::new(),
        why: hold.map_or_else(|| "not planned this cycle".into(), |h| h.reason.to_string()),
        position: hold.map_or(0, |h| h.position),
        preemptions: p.preemptions.len() as u64,
        estimated_start: p.reservations.iter().find(|r| r.job == REHEARSED).map(|r| r.start_at),
    })
}
