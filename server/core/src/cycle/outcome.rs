//! What a cycle decides: placements, preemptions, and a reason for every job it holds.

use serde::{Deserialize, Serialize};

use crate::cycle::Reservation;
use crate::cycle::free::free_masks;
use crate::model::{Borrow, GroupId, JobId, Slot, Time};
use crate::reason::{PreemptReason, Reason};
use crate::snapshot::Snapshot;

/// A job to start now on these GPUs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Placement {
    pub job: JobId,
    /// Index into the snapshot's `pending`.
    pub pending_index: u32,
    /// Rank in this cycle's priority order (0 = first).
    pub position: u32,
    pub slots: Vec<Slot>,
    /// GPUs counted against lenders under loans; the rest against the group's guarantee.
    pub borrowed: Vec<Borrow>,
    /// Started ahead of a blocked higher job without delaying its reservation.
    pub backfilled: bool,
}

impl Placement {
    /// The grant in words, for the dispatch receipt (D3).
    pub fn basis(&self) -> String {
        let quota = if self.borrowed.is_empty() {
            "within the group's guarantee".to_string()
        } else {
            let loans: Vec<String> =
                self.borrowed.iter().map(|b| format!("{} GPUs on loan {}", b.gpus, b.loan.0)).collect();
            format!("borrowing {}", loans.join(", "))
        };
        if self.backfilled { format!("{quota}; backfilled without delaying the reserved job") } else { quota }
    }
}

/// A running job to stop; it returns to the queue and resumes from its checkpoint (D4).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Preemption {
    pub job: JobId,
    /// Index into the snapshot's `running`.
    pub running_index: u32,
    pub reason: PreemptReason,
}

/// A job left pending, with its queue position and why.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    pub job: JobId,
    pub pending_index: u32,
    pub position: u32,
    pub reason: Reason,
}

impl Plan {
    /// The policy versions that decided for a job of `group` (D3).
    pub fn policy_for(&self, group: GroupId) -> &str {
        self.policy_by_group.iter().find(|(g, _)| *g == group).map_or(&self.policy, |(_, v)| v)
    }
}

/// The outcome of one cycle.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub placements: Vec<Placement>,
    pub preemptions: Vec<Preemption>,
    /// Every pending job not placed, in priority order.
    pub holds: Vec<Hold>,
    /// Per GPU model, the highest blocked job's reservation.
    pub reservations: Vec<Reservation>,
    /// Plan again at this time even if nothing else happens: protected victims become
    /// preemptible then.
    pub retry_at: Option<Time>,
    /// The policy versions that decided (D3).
    pub policy: String,
    /// Groups for which other versions decided (a canary), and those versions.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub policy_by_group: Vec<(GroupId, String)>,
    /// Policy answers the cycle refused and replaced with the built-in policy's.
    pub policy_faults: Vec<String>,
}

impl Plan {
    /// GPUs of healthy nodes that no job holds once this plan's placements are made
    /// (`snap`: the snapshot it was planned on).
    pub fn idle_gpus(&self, snap: &Snapshot) -> u32 {
        let held = snap.running.iter().flat_map(|a| &a.slots);
        let placed = self.placements.iter().flat_map(|p| &p.slots);
        free_masks(snap, held.chain(placed)).iter().map(|m| m.count_ones()).sum()
    }
}
