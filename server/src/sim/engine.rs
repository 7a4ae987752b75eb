//! The event-driven simulator: a virtual clock, and the same `plan()` the live
//! dispatcher runs. Events are arrivals, completions and planned retries; every event
//! time runs one dispatch cycle (again at once when it preempted, so freed GPUs are
//! used at the same instant). Deterministic: no clock, no hashing, no threads.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use tidepool_core::checkpoint::Checkpointing;
use tidepool_core::{
    Allocation, Category, GroupId, Job, JobId, ModelId, Plan, Policies, PriorityClass, Snapshot, Time,
    Topology, plan,
};

/// Half-life of groups' recent usage, as fair-share policies see it.
const USAGE_HALF_LIFE_S: f64 = 7.0 * 86_400.0;

/// A job as the simulator feeds it: when it arrives and how much work it is.
#[derive(Clone, Debug)]
pub struct SimJob {
    pub group: GroupId,
    pub arrival: Time,
    pub work_s: u64,
    pub gpus: u32,
}

/// What happened to one job.
#[derive(Clone, Debug, Default)]
pub struct JobOutcome {
    pub finished_at: Option<Time>,
    /// Seconds holding GPUs, over all segments (including restart overhead and lost work).
    pub run_s: u64,
    pub preemptions: u32,
}

struct Live {
    remaining_s: u64,
    resumed: bool,
    generation: u32,
    segment_start: Time,
    /// When the job was preempted (for the daily cap on time-sharing).
    preempted_at: Vec<Time>,
}

/// Runs `jobs` (sorted by arrival) on `snap`'s cluster until every job has finished.
pub struct Engine<'a> {
    snap: Snapshot,
    policies: &'a dyn Policies,
    checkpointing: Checkpointing,
    jobs: Vec<SimJob>,
    live: Vec<Live>,
    pub outcomes: Vec<JobOutcome>,
    /// (time, job, generation): a completion, stale if the generation moved on.
    completions: BinaryHeap<Reverse<(Time, u32, u32)>>,
    retry_at: Option<Time>,
    largest_node: u32,
    /// When groups' recent usage was last brought up to date.
    usage_at: Time,
    pub busy_gpu_s: u128,
    pub cycles: u64,
}

impl<'a> Engine<'a> {
    pub fn new(
        snap: Snapshot,
        policies: &'a dyn Policies,
        checkpointing: Checkpointing,
        jobs: Vec<SimJob>,
    ) -> Self {
        let live = jobs
            .iter()
            .map(|j| Live {
                remaining_s: j.work_s,
                resumed: false,
                generation: 0,
                segment_start: 0,
                preempted_at: Vec::new(),
            })
            .collect();
        let outcomes = vec![JobOutcome::default(); jobs.len()];
        let largest_node = snap.nodes.iter().map(|n| u32::from(n.gpus)).max().unwrap_or(0);
        Engine {
            largest_node,
            usage_at: 0,
            snap,
            policies,
            checkpointing,
            jobs,
            live,
            outcomes,
            completions: BinaryHeap::new(),
            retry_at: None,
            busy_gpu_s: 0,
            cycles: 0,
        }
    }

    pub fn run(&mut self) {
        let mut next_arrival = 0usize;
        loop {
            let arrival = self.jobs.get(next_arrival).map(|j| j.arrival);
            let completion = self.completions.peek().map(|Reverse((t, _, _))| *t);
            let Some(now) = [arrival, completion, self.retry_at].into_iter().flatten().min() else {
                break;
            };
            self.retry_at = None;
            // Usage up to now first: a job finishing now held its GPUs until now, and its
            // share of the group's recent usage would be lost once it leaves `running`.
            self.refresh(now);
            while let Some(&Reverse((t, job, generation))) = self.completions.peek() {
                if t != now {
                    break;
                }
                self.completions.pop();
                if self.live[job as usize].generation == generation {
                    self.finish(job, now);
                }
            }
            while next_arrival < self.jobs.len() && self.jobs[next_arrival].arrival == now {
                let job = self.queued_job(next_arrival as u32, now);
                self.snap.pending.push(job);
                next_arrival += 1;
            }
            if self.snap.pending.is_empty() {
                continue;
            }
            // Preemptions free GPUs at once in the simulator; plan again at the same instant.
            for _ in 0..8 {
                self.refresh(now);
                let plan = plan(&self.snap, now, self.policies);
                self.cycles += 1;
                let again = !plan.preemptions.is_empty();
                self.retry_at = plan.retry_at.filter(|&t| t > now);
                self.apply(plan, now);
                if !again {
                    break;
                }
            }
        }
    }

    fn queued_job(&self, i: u32, now: Time) -> Job {
        let j = &self.jobs[i as usize];
        let largest_node = self.largest_node;
        Job {
            id: JobId(u64::from(i)),
            group: j.group,
            category: Category::Training,
            class: PriorityClass::Normal,
            gpus: j.gpus,
            model: ModelId(0),
            // A trace job that fits a node ran inside one node; larger ones ran as gangs.
            topology: if j.gpus <= largest_node { Topology::SameNode } else { Topology::Any },
            time_limit_s: None,
            checkpointable: self.checkpointing.interval_s > 0,
            submitted_at: j.arrival,
            queued_at: now,
            attained_gpu_s: 0,
        }
    }

    fn finish(&mut self, job: u32, now: Time) {
        let pos =
            self.snap.running.iter().position(|a| a.job.0 == u64::from(job)).expect("completing job runs");
        let alloc = self.snap.running.swap_remove(pos);
        self.account_segment(job, &alloc, now);
        self.outcomes[job as usize].finished_at = Some(now);
    }

    fn account_segment(&mut self, job: u32, alloc: &Allocation, now: Time) {
        let held = (now - self.live[job as usize].segment_start).max(0) as u64;
        self.outcomes[job as usize].run_s += held;
        self.busy_gpu_s += u128::from(held) * u128::from(alloc.gpu_count());
    }

    fn apply(&mut self, plan: Plan, now: Time) {
        let mut stopped: Vec<u32> = plan.preemptions.iter().map(|p| p.running_index).collect();
        stopped.sort_unstable_by_key(|&i| std::cmp::Reverse(i));
        stopped.dedup();
        let mut requeued = Vec::with_capacity(stopped.len());
        for i in stopped {
            let alloc = self.snap.running.swap_remove(i as usize);
            requeued.push(self.interrupt(alloc, now));
        }
        let mut started: Vec<(u32, Allocation)> = Vec::with_capacity(plan.placements.len());
        for p in &plan.placements {
            let job = &self.snap.pending[p.pending_index as usize];
            let live = &self.live[job.id.0 as usize];
            let preemptions_today = live.preempted_at.iter().filter(|&&t| t > now - 86_400).count() as u32;
            started.push((
                p.pending_index,
                Allocation {
                    job: job.id,
                    group: job.group,
                    category: job.category,
                    class: job.class,
                    model: job.model,
                    slots: p.slots.clone(),
                    started_at: now,
                    time_limit_s: job.time_limit_s,
                    checkpointable: job.checkpointable,
                    last_checkpoint_at: None,
                    borrowed: p.borrowed.clone(),
                    draining_for: None,
                    attained_gpu_s: job.attained_gpu_s,
                    preemptions_today,
                },
            ));
        }
        started.sort_unstable_by_key(|s| std::cmp::Reverse(s.0));
        for (pending_index, alloc) in started {
            self.snap.pending.swap_remove(pending_index as usize);
            self.start(alloc, now);
        }
        self.snap.pending.extend(requeued);
    }

    fn start(&mut self, alloc: Allocation, now: Time) {
        let job = alloc.job.0 as u32;
        let live = &mut self.live[job as usize];
        live.generation += 1;
        live.segment_start = now;
        let end = now + self.checkpointing.segment_s(live.remaining_s, live.resumed) as Time;
        self.completions.push(Reverse((end, job, live.generation)));
        self.snap.running.push(alloc);
    }

    /// Stops a running segment: keeps the work up to its last checkpoint (D4).
    fn interrupt(&mut self, alloc: Allocation, now: Time) -> Job {
        let job = alloc.job.0 as u32;
        self.account_segment(job, &alloc, now);
        self.outcomes[job as usize].preemptions += 1;
        let live = &mut self.live[job as usize];
        let elapsed = (now - live.segment_start).max(0) as u64;
        let saved = self.checkpointing.saved_s(elapsed, live.resumed, live.remaining_s);
        live.remaining_s -= saved;
        live.resumed = true;
        live.generation += 1;
        live.preempted_at.push(now);
        let mut queued = self.queued_job(job, now);
        queued.attained_gpu_s = self.outcomes[job as usize].run_s * u64::from(alloc.gpu_count());
        queued
    }

    /// Keeps each running allocation's last checkpoint current (for the reclaim order) and
    /// each group's decayed recent usage (for fair-share policies).
    fn refresh(&mut self, now: Time) {
        let elapsed = (now - self.usage_at).max(0) as f64;
        let decay = 0.5f64.powf(elapsed / USAGE_HALF_LIFE_S);
        for g in &mut self.snap.groups {
            g.recent_gpu_h *= decay;
        }
        for a in &mut self.snap.running {
            let live = &self.live[a.job.0 as usize];
            a.last_checkpoint_at =
                self.checkpointing.last_checkpoint_at(live.segment_start, now, live.resumed);
            // Allocations only change at events, so usage since the last one is exact.
            self.snap.groups[a.group.0 as usize].recent_gpu_h += f64::from(a.gpu_count()) * elapsed / 3600.0;
        }
        self.usage_at = now;
    }

    pub fn jobs(&self) -> &[SimJob] {
        &self.jobs
    }
}
