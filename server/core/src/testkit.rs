//! Builders for snapshots, so tests read like the rule they check:
//! `cluster().nodes(2, 8).group("a", 8).pending(job(1).gpus(4)).build()`.

use crate::model::*;
use crate::quota::{Loan, Quota};
use crate::snapshot::{CycleConfig, Snapshot};

/// Starts a snapshot with one GPU model, "A100".
pub fn cluster() -> ClusterBuilder {
    ClusterBuilder { snap: Snapshot { models: vec!["A100".into()], ..Snapshot::default() } }
}

pub struct ClusterBuilder {
    snap: Snapshot,
}

impl ClusterBuilder {
    /// Adds `count` healthy nodes of `gpus` GPUs of the first model, one NVLink domain each.
    pub fn nodes(self, count: usize, gpus: u8) -> Self {
        self.nvlink_nodes(count, gpus, gpus)
    }

    /// Adds nodes whose GPUs form NVLink domains of `domain` GPUs each.
    pub fn nvlink_nodes(mut self, count: usize, gpus: u8, domain: u8) -> Self {
        let domains: Vec<u64> = if domain >= gpus {
            Vec::new()
        } else {
            (0..gpus / domain).map(|d| ((1u64 << domain) - 1) << (d * domain)).collect()
        };
        for _ in 0..count {
            let name = format!("node-{}", self.snap.nodes.len());
            self.snap.nodes.push(Node {
                name,
                pool: "default".into(),
                model: ModelId(0),
                gpus,
                nvlink_domains: domains.clone(),
                healthy: true,
            });
        }
        self
    }

    /// Adds `count` nodes of `gpus` GPUs of the model named `model`, adding the model if
    /// it is new (its id is its position: the first model, "A100", is 0).
    pub fn model_nodes(mut self, model: &str, count: usize, gpus: u8) -> Self {
        let id = match self.snap.models.iter().position(|m| m == model) {
            Some(i) => i,
            None => {
                self.snap.models.push(model.into());
                self.snap.models.len() - 1
            }
        };
        let first = self.snap.nodes.len();
        self = self.nodes(count, gpus);
        for node in &mut self.snap.nodes[first..] {
            node.model = ModelId(id as u16);
        }
        self
    }

    /// Adds a training quota row of `guaranteed` GPUs of `model` to an existing group.
    pub fn model_quota(mut self, group: u32, model: u16, guaranteed: u32) -> Self {
        self.snap.quotas.push(Quota::guaranteeing(
            GroupId(group),
            ModelId(model),
            Category::Training,
            guaranteed,
        ));
        self
    }

    /// Adds a group with a training quota of `guaranteed` GPUs of the first model.
    pub fn group(mut self, name: &str, guaranteed: u32) -> Self {
        let group = GroupId(self.snap.groups.len() as u32);
        self.snap.groups.push(Group::named(name));
        self.snap.quotas.push(Quota::guaranteeing(group, ModelId(0), Category::Training, guaranteed));
        self
    }

    /// Changes the quota row of `group` (its first).
    pub fn quota(mut self, group: u32, edit: impl FnOnce(&mut Quota)) -> Self {
        if let Some(q) = self.snap.quotas.iter_mut().find(|q| q.group.0 == group) {
            edit(q);
        }
        self
    }

    /// An approved loan of `gpus` from `lender` to `borrower` (`None`: to every group).
    pub fn loan(mut self, id: u64, lender: u32, borrower: Option<u32>, gpus: u32) -> Self {
        self.snap.loans.push(Loan {
            id: LoanId(id),
            lender: GroupId(lender),
            borrower: borrower.map(GroupId),
            model: ModelId(0),
            gpus,
            ends_at: None,
        });
        self
    }

    /// An approved loan like [`Self::loan`] that ends at `ends_at`.
    pub fn loan_until(
        mut self,
        id: u64,
        lender: u32,
        borrower: Option<u32>,
        gpus: u32,
        ends_at: Time,
    ) -> Self {
        self = self.loan(id, lender, borrower, gpus);
        if let Some(l) = self.snap.loans.last_mut() {
            l.ends_at = Some(ends_at);
        }
        self
    }

    /// Every group offers its whole guarantee to every other group (a pooled cluster).
    pub fn open_loans(mut self) -> Self {
        let offers: Vec<(GroupId, u32)> = self.snap.quotas.iter().map(|q| (q.group, q.guaranteed)).collect();
        for (lender, gpus) in offers {
            let id = LoanId(1000 + lender.0 as u64);
            self.snap.loans.push(Loan { id, lender, borrower: None, model: ModelId(0), gpus, ends_at: None });
        }
        self
    }

    pub fn config(mut self, edit: impl FnOnce(&mut CycleConfig)) -> Self {
        edit(&mut self.snap.config);
        self
    }

    pub fn pending(mut self, job: JobBuilder) -> Self {
        self.snap.pending.push(job.build());
        self
    }

    pub fn running(mut self, alloc: AllocBuilder) -> Self {
        self.snap.running.push(alloc.build());
        self
    }

    pub fn build(self) -> Snapshot {
        self.snap
    }
}

/// A pending job: 1 GPU, group 0, normal class, training, submitted at t=0.
pub fn job(id: u64) -> JobBuilder {
    JobBuilder(Job {
        id: JobId(id),
        group: GroupId(0),
        category: Category::Training,
        class: PriorityClass::Normal,
        gpus: 1,
        model: ModelId(0),
        topology: Topology::Any,
        time_limit_s: None,
        checkpointable: true,
        submitted_at: 0,
        queued_at: 0,
        attained_gpu_s: 0,
    })
}

pub struct JobBuilder(pub Job);

impl JobBuilder {
    pub fn group(mut self, g: u32) -> Self {
        self.0.group = GroupId(g);
        self
    }
    pub fn gpus(mut self, n: u32) -> Self {
        self.0.gpus = n;
        self
    }
    pub fn class(mut self, c: PriorityClass) -> Self {
        self.0.class = c;
        self
    }
    pub fn category(mut self, c: Category) -> Self {
        self.0.category = c;
        self
    }
    pub fn model(mut self, m: u16) -> Self {
        self.0.model = ModelId(m);
        self
    }
    pub fn topology(mut self, t: Topology) -> Self {
        self.0.topology = t;
        self
    }
    pub fn limit(mut self, s: u64) -> Self {
        self.0.time_limit_s = Some(s);
        self
    }
    /// Submitted (and queued) at `t`.
    pub fn at(mut self, t: Time) -> Self {
        self.0.submitted_at = t;
        self.0.queued_at = t;
        self
    }
    pub fn queued_at(mut self, t: Time) -> Self {
        self.0.queued_at = t;
        self
    }
    pub fn attained(mut self, gpu_s: u64) -> Self {
        self.0.attained_gpu_s = gpu_s;
        self
    }
    pub fn build(self) -> Job {
        self.0
    }
}

/// A running allocation for `job`: group 0, normal class, started at t=0, no GPUs yet.
pub fn alloc(job: u64) -> AllocBuilder {
    AllocBuilder(Allocation {
        job: JobId(job),
        group: GroupId(0),
        category: Category::Training,
        class: PriorityClass::Normal,
        model: ModelId(0),
        slots: Vec::new(),
        started_at: 0,
        time_limit_s: None,
        checkpointable: true,
        last_checkpoint_at: None,
        borrowed: Vec::new(),
        draining_for: None,
        attained_gpu_s: 0,
        preemptions_today: 0,
    })
}

pub struct AllocBuilder(pub Allocation);

impl AllocBuilder {
    pub fn group(mut self, g: u32) -> Self {
        self.0.group = GroupId(g);
        self
    }
    pub fn class(mut self, c: PriorityClass) -> Self {
        self.0.class = c;
        self
    }
    pub fn category(mut self, c: Category) -> Self {
        self.0.category = c;
        self
    }
    pub fn model(mut self, m: u16) -> Self {
        self.0.model = ModelId(m);
        self
    }
    /// Holds the GPUs of `mask` on `node`.
    pub fn on(mut self, node: u32, mask: u64) -> Self {
        self.0.slots.push(Slot { node: NodeId(node), gpus: mask });
        self
    }
    pub fn started(mut self, t: Time) -> Self {
        self.0.started_at = t;
        self
    }
    pub fn limit(mut self, s: u64) -> Self {
        self.0.time_limit_s = Some(s);
        self
    }
    /// The job cannot checkpoint: preempting it loses everything since it started.
    pub fn not_checkpointable(mut self) -> Self {
        self.0.checkpointable = false;
        self
    }
    pub fn checkpoint(mut self, t: Time) -> Self {
        self.0.last_checkpoint_at = Some(t);
        self
    }
    pub fn borrowed(mut self, loan: u64, gpus: u32) -> Self {
        self.0.borrowed.push(Borrow { loan: LoanId(loan), gpus });
        self
    }
    pub fn draining_for(mut self, job: u64) -> Self {
        self.0.draining_for = Some(JobId(job));
        self
    }
    pub fn build(self) -> Allocation {
        self.0
    }
}
