//! Backfill reservation (EASY backfill, as in Slurm): the highest blocked job gets the
//! GPUs it will be able to use at the earliest time running jobs are expected to free
//! them. Lower jobs may then start only where they cannot delay that start.

use serde::{Deserialize, Serialize};

use crate::cycle::free::FreeMap;
use crate::cycle::placement::{Shape, gang, pick_in_node};
use crate::model::{JobId, NodeId, Slot, Time, Topology};
use crate::snapshot::Snapshot;

/// GPUs promised to the highest blocked job from `start_at`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Reservation {
    pub job: JobId,
    pub start_at: Time,
    pub slots: Vec<Slot>,
}

/// When and where `shape` could start if running jobs end as expected; `None` if never.
pub(crate) fn reserve(
    snap: &Snapshot,
    free: &FreeMap,
    job: JobId,
    shape: Shape,
    now: Time,
    largest_node: u32,
) -> Option<Reservation> {
    let default_limit = snap.config.default_time_limit_s;
    let mut ends: Vec<(Time, u32)> = snap
        .running
        .iter()
        .enumerate()
        .filter(|(_, a)| a.model == shape.model)
        .map(|(i, a)| {
            let end = if a.draining_for.is_some() { now } else { a.expected_end(now, default_limit) };
            (end, i as u32)
        })
        .collect();
    ends.sort_unstable();

    let mut future = free.free.clone();
    let mut total = free.total.get(shape.model.0 as usize).copied().unwrap_or(0);
    let single_node = shape.gpus <= largest_node;
    let mut touched: Vec<NodeId> = Vec::new();
    let mut k = 0;
    while k < ends.len() {
        let at = ends[k].0;
        touched.clear();
        // Release everything that ends at the same moment before looking.
        while k < ends.len() && ends[k].0 == at {
            for s in &snap.running[ends[k].1 as usize].slots {
                let node = &snap.nodes[s.node.0 as usize];
                if node.healthy {
                    let gained = s.gpus & !future[s.node.0 as usize];
                    future[s.node.0 as usize] |= s.gpus;
                    total += gained.count_ones();
                    touched.push(s.node);
                }
            }
            k += 1;
        }
        if single_node {
            touched.sort_unstable();
            touched.dedup();
            for &n in &touched {
                let node = &snap.nodes[n.0 as usize];
                if let Some(gpus) = pick_in_node(node, future[n.0 as usize], shape.gpus, shape.topology) {
                    return Some(Reservation { job, start_at: at, slots: vec![Slot { node: n, gpus }] });
                }
            }
        }
        if shape.topology == Topology::Any && total >= shape.gpus {
            let mut nodes: Vec<(NodeId, u64)> = snap
                .nodes
                .iter()
                .enumerate()
                .filter(|(i, n)| n.model == shape.model && future[*i] != 0)
                .map(|(i, _)| (NodeId(i as u32), future[i]))
                .collect();
            nodes.sort_by_key(|&(n, f)| (std::cmp::Reverse(f.count_ones()), n));
            let slots = gang(&snap.nodes, nodes.into_iter(), shape.gpus);
            return Some(Reservation { job, start_at: at, slots });
        }
    }
    None
}

/// The reservation's GPUs that are free now, withheld from jobs that would still be
/// running at `start_at`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Withheld {
    pub slots: Vec<Slot>,
}

impl Withheld {
    pub fn take_from(free: &mut FreeMap, snap: &Snapshot, reservation: &Reservation) -> Withheld {
        let mut slots = Vec::new();
        for s in &reservation.slots {
            let now_free = s.gpus & free.free[s.node.0 as usize];
            if now_free != 0 {
                free.take(&snap.nodes, s.node, now_free);
                slots.push(Slot { node: s.node, gpus: now_free });
            }
        }
        Withheld { slots }
    }

    /// Places a job that ends before the reservation starts, using withheld GPUs too.
    pub fn place_short(&mut self, free: &mut FreeMap, snap: &Snapshot, shape: Shape) -> Option<Vec<Slot>> {
        for w in self.slots.iter_mut() {
            let node = &snap.nodes[w.node.0 as usize];
            // The reservation may be for another GPU model: its GPUs are no use to this job.
            if node.model != shape.model {
                continue;
            }
            let usable = free.free[w.node.0 as usize] | w.gpus;
            if let Some(gpus) = pick_in_node(node, usable, shape.gpus, shape.topology) {
                free.take(&snap.nodes, w.node, gpus);
                w.gpus &= !gpus;
                return Some(vec![Slot { node: w.node, gpus }]);
            }
        }
        None
    }

    /// Whether the job would fit if it could use withheld GPUs (for the hold reason).
    pub fn would_fit(&self, free: &FreeMap, snap: &Snapshot, shape: Shape) -> bool {
        self.slots.iter().any(|w| {
            let node = &snap.nodes[w.node.0 as usize];
            let usable = free.free[w.node.0 as usize] | w.gpus;
            node.model == shape.model && pick_in_node(node, usable, shape.gpus, shape.topology).is_some()
        })
    }
}
