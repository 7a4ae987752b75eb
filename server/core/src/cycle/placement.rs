//! Topology-aware placement: best-fit node, best-fit NVLink domain inside it, and
//! all-or-nothing gangs across nodes for jobs larger than a node.

use crate::cycle::free::FreeMap;
use crate::model::{Job, ModelId, Node, NodeId, Slot, Topology};

/// What placement needs to know about a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Shape {
    pub gpus: u32,
    pub model: ModelId,
    pub topology: Topology,
}

impl Shape {
    pub fn of(job: &Job) -> Shape {
        Shape { gpus: job.gpus, model: job.model, topology: job.topology }
    }
}

/// The `k` lowest set bits of `mask`.
pub(crate) fn lowest_bits(mut mask: u64, k: u32) -> u64 {
    let mut out = 0;
    for _ in 0..k {
        let bit = mask & mask.wrapping_neg();
        out |= bit;
        mask ^= bit;
    }
    out
}

/// Picks `k` of a node's `free` GPUs: inside the fullest-fitting NVLink domain if one
/// has room (best fit keeps larger domains whole), else across domains unless the
/// topology forbids it.
pub(crate) fn pick_in_node(node: &Node, free: u64, k: u32, topology: Topology) -> Option<u64> {
    if free.count_ones() < k || k == 0 {
        return None;
    }
    let best =
        node.domains().map(|d| free & d).filter(|f| f.count_ones() >= k).min_by_key(|f| f.count_ones());
    if let Some(f) = best {
        return Some(lowest_bits(f, k));
    }
    if topology == Topology::SameNvlink {
        return None;
    }
    let mut domains: Vec<u64> = node.domains().map(|d| free & d).collect();
    domains.sort_by_key(|f| std::cmp::Reverse(f.count_ones()));
    let (mut out, mut left) = (0u64, k);
    for f in domains {
        let take = lowest_bits(f & !out, left.min((f & !out).count_ones()));
        out |= take;
        left -= take.count_ones();
        if left == 0 {
            break;
        }
    }
    (left == 0).then_some(out)
}

/// Places a job on the free GPUs, or returns `None` (all or nothing).
pub(crate) fn place(nodes: &[Node], free: &FreeMap, shape: Shape, largest_node: u32) -> Option<Vec<Slot>> {
    if shape.gpus <= largest_node {
        for n in free.best_fit(shape.model, shape.gpus) {
            let node = &nodes[n.0 as usize];
            if let Some(gpus) = pick_in_node(node, free.free[n.0 as usize], shape.gpus, shape.topology) {
                return Some(vec![Slot { node: n, gpus }]);
            }
        }
    }
    if shape.topology != Topology::Any {
        return None;
    }
    let total = free.total.get(shape.model.0 as usize).copied().unwrap_or(0);
    if total < shape.gpus {
        return None;
    }
    Some(gang(nodes, free.most_free(shape.model).map(|n| (n, free.free[n.0 as usize])), shape.gpus))
}

/// Fills `k` GPUs from nodes in the given order (most free first keeps gangs on few,
/// whole nodes). The caller has checked there are enough.
pub(crate) fn gang(nodes: &[Node], candidates: impl Iterator<Item = (NodeId, u64)>, k: u32) -> Vec<Slot> {
    let mut slots = Vec::new();
    let mut left = k;
    for (n, free) in candidates {
        if left == 0 {
            break;
        }
        let want = left.min(free.count_ones());
        let gpus = if want == free.count_ones() {
            free
        } else {
            pick_in_node(&nodes[n.0 as usize], free, want, Topology::Any).unwrap_or(0)
        };
        if gpus != 0 {
            left -= gpus.count_ones();
            slots.push(Slot { node: n, gpus });
        }
    }
    slots
}
