//! Step 5 of the cycle: blocked jobs that are entitled to GPUs pick victims, in
//! priority order, at most `max_preemptors` of them per cycle.

use crate::cycle::free::{FreeMap, ModelCaps};
use crate::cycle::policy_calls::reclaim_scores;
use crate::cycle::reserve::Withheld;
use crate::cycle::victims::{self, Candidates, Claim};
use crate::cycle::{Hold, Plan, Preemption};
use crate::model::{JobId, Time};
use crate::policy::Policies;
use crate::reason::Reason;
use crate::snapshot::Snapshot;

/// A job step 4 could not start, with what it may claim from running jobs.
pub(crate) struct Blocked {
    pub index: u32,
    pub position: u32,
    pub claim: Option<Claim>,
    pub reason: Reason,
}

pub(crate) struct Step<'a> {
    pub snap: &'a Snapshot,
    pub now: Time,
    pub policies: &'a dyn Policies,
    pub caps: &'a ModelCaps,
    /// GPUs withheld for reserved jobs; each reserved job may count its own.
    pub withheld: &'a [(JobId, Withheld)],
}

impl Step<'_> {
    /// Holds every blocked job, having first let the entitled ones pick victims.
    pub fn run(&self, free: &mut FreeMap, blocked: Vec<Blocked>, out: &mut Plan) {
        let snap = self.snap;
        let mut candidates: Option<Candidates> = None;
        let mut tried = 0;
        for b in blocked {
            let job = &snap.pending[b.index as usize];
            let mut reason = b.reason;
            if let Some(claim) = b.claim
                && tried < snap.config.max_preemptors
                && !snap.running.is_empty()
            {
                tried += 1;
                let candidates = candidates.get_or_insert_with(|| {
                    let scores = reclaim_scores(snap, self.now, self.policies, &mut out.policy_faults);
                    Candidates::new(snap, &scores, &out.preemptions)
                });
                // A reserved job counts the free GPUs withheld for it: a lender with half
                // of what it needs free reclaims only the other half.
                let own = self.withheld.iter().filter(|(j, _)| *j == job.id).flat_map(|(_, w)| &w.slots);
                for s in own.clone() {
                    free.give(&snap.nodes, s.node, s.gpus);
                }
                let largest_node = self.caps.largest_node(job.model);
                match victims::choose(snap, free, candidates, job, claim, self.now, largest_node) {
                    Ok(choice) => {
                        for s in &choice.slots {
                            free.take(&snap.nodes, s.node, s.gpus & free.free[s.node.0 as usize]);
                        }
                        reason = Reason::AwaitingPreemption { victims: choice.victims.len() as u32 };
                        for (v, why) in choice.victims {
                            let victim = &snap.running[v as usize];
                            out.preemptions.push(Preemption {
                                job: victim.job,
                                running_index: v,
                                reason: why,
                            });
                        }
                    }
                    Err(Some(until)) => out.retry_at = Some(out.retry_at.map_or(until, |t| t.min(until))),
                    Err(None) => {}
                }
                for s in own {
                    free.take(&snap.nodes, s.node, s.gpus);
                }
            }
            out.holds.push(Hold { job: job.id, pending_index: b.index, position: b.position, reason });
        }
    }
}
