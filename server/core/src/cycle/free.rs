//! Free GPUs during one cycle, indexed so best-fit lookups stay logarithmic at
//! thousands of nodes.

use std::collections::BTreeSet;

use crate::model::{ModelId, Node, NodeId, Slot, Topology};
use crate::snapshot::Snapshot;

/// Free GPU masks per node plus, per model, the nodes ordered by free count.
#[derive(Clone, Debug)]
pub(crate) struct FreeMap {
    pub free: Vec<u64>,
    /// Per model: `(free count, node)` for every node with at least one free GPU.
    index: Vec<BTreeSet<(u8, u32)>>,
    /// Per model: free GPUs in total.
    pub total: Vec<u32>,
}

/// Per node, the GPUs no job in `slots` holds (none on an unhealthy node).
pub(crate) fn free_masks<'a>(snap: &Snapshot, slots: impl Iterator<Item = &'a Slot>) -> Vec<u64> {
    let mut free: Vec<u64> = snap.nodes.iter().map(|n| if n.healthy { n.all_gpus() } else { 0 }).collect();
    for s in slots {
        if let Some(f) = free.get_mut(s.node.0 as usize) {
            *f &= !s.gpus;
        }
    }
    free
}

impl FreeMap {
    pub fn new(snap: &Snapshot) -> FreeMap {
        let free = free_masks(snap, snap.running.iter().flat_map(|a| &a.slots));
        let mut index = vec![BTreeSet::new(); snap.models.len()];
        let mut total = vec![0u32; snap.models.len()];
        for (i, (node, &mask)) in snap.nodes.iter().zip(&free).enumerate() {
            let count = mask.count_ones();
            if count > 0 {
                index[node.model.0 as usize].insert((count as u8, i as u32));
                total[node.model.0 as usize] += count;
            }
        }
        FreeMap { free, index, total }
    }

    fn set(&mut self, nodes: &[Node], node: NodeId, mask: u64) {
        let n = node.0 as usize;
        let model = nodes[n].model.0 as usize;
        let (old, new) = (self.free[n].count_ones(), mask.count_ones());
        if old > 0 {
            self.index[model].remove(&(old as u8, node.0));
        }
        if new > 0 {
            self.index[model].insert((new as u8, node.0));
        }
        self.total[model] = self.total[model] + new - old;
        self.free[n] = mask;
    }

    /// Marks GPUs as used.
    pub fn take(&mut self, nodes: &[Node], node: NodeId, gpus: u64) {
        let mask = self.free[node.0 as usize] & !gpus;
        self.set(nodes, node, mask);
    }

    /// Marks GPUs as free again (withheld GPUs handed back to the job they are withheld for).
    pub fn give(&mut self, nodes: &[Node], node: NodeId, gpus: u64) {
        let mask = self.free[node.0 as usize] | gpus;
        self.set(nodes, node, mask);
    }

    /// Nodes of `model` with at least `k` free GPUs, fewest free first (best fit).
    pub fn best_fit(&self, model: ModelId, k: u32) -> impl Iterator<Item = NodeId> + '_ {
        let k = k.min(u8::MAX as u32) as u8;
        self.index[model.0 as usize].range((k, 0)..).map(|&(_, n)| NodeId(n))
    }

    /// Nodes of `model` with free GPUs, most free first (whole nodes for gangs).
    pub fn most_free(&self, model: ModelId) -> impl Iterator<Item = NodeId> + '_ {
        self.index[model.0 as usize].iter().rev().map(|&(_, n)| NodeId(n))
    }
}

/// The largest shapes a model can ever offer, to tell "wait" from "never".
#[derive(Clone, Debug)]
pub(crate) struct ModelCaps {
    total: Vec<u32>,
    largest_node: Vec<u32>,
    largest_domain: Vec<u32>,
}

impl ModelCaps {
    pub fn new(snap: &Snapshot) -> ModelCaps {
        let m = snap.models.len();
        let mut caps = ModelCaps { total: vec![0; m], largest_node: vec![0; m], largest_domain: vec![0; m] };
        for node in snap.nodes.iter().filter(|n| n.healthy) {
            let i = node.model.0 as usize;
            caps.total[i] += u32::from(node.gpus);
            caps.largest_node[i] = caps.largest_node[i].max(u32::from(node.gpus));
            let domain = node.domains().map(|d| (d & node.all_gpus()).count_ones()).max().unwrap_or(0);
            caps.largest_domain[i] = caps.largest_domain[i].max(domain);
        }
        caps
    }

    /// The most GPUs one job of this shape could ever get.
    pub fn largest(&self, model: ModelId, topology: Topology) -> u32 {
        let i = model.0 as usize;
        match topology {
            _ if i >= self.total.len() => 0,
            Topology::Any => self.total[i],
            Topology::SameNode => self.largest_node[i],
            Topology::SameNvlink => self.largest_domain[i],
        }
    }

    pub fn largest_node(&self, model: ModelId) -> u32 {
        self.largest_node.get(model.0 as usize).copied().unwrap_or(0)
    }
}
