//! Quota never exceeded without a loan, and no GPU given twice: every plan over thousands
//! of random small snapshots keeps the rules, whatever the queue, loans and cluster.
//! // Q1, Q2, Q3, B1, D1, P1

mod common;

use common::run;
use tidepool_core::*;

/// xorshift64: deterministic, no dependencies.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        self.0 = x;
        x
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
    fn pick<T: Copy>(&mut self, xs: &[T]) -> T {
        xs[self.below(xs.len() as u64) as usize]
    }
}

const NOW: Time = 100_000;

fn lend_cap(snap: &Snapshot, lender: GroupId, model: ModelId) -> u32 {
    let q = snap.quotas.iter().filter(|q| q.group == lender && q.model == model);
    q.map(|q| q.lend_limit.unwrap_or(q.guaranteed).min(q.guaranteed)).sum()
}

fn row(snap: &Snapshot, g: GroupId, m: ModelId, c: Category) -> Option<&Quota> {
    snap.quotas.iter().find(|q| q.group == g && q.model == m && q.category == c)
}

/// A small random cluster whose running jobs respect quotas and loans.
fn random_snapshot(rng: &mut Rng) -> Snapshot {
    let models = 1 + rng.below(2) as u16;
    let mut snap = Snapshot { models: (0..models).map(|m| format!("M{m}")).collect(), ..Snapshot::default() };
    for n in 0..1 + rng.below(4) {
        let gpus = rng.pick(&[1u8, 2, 4, 8]);
        let domain = rng.pick(&[1u8, 2, 4, 8]).min(gpus);
        let domains = if domain == gpus {
            vec![]
        } else {
            (0..gpus / domain).map(|d| ((1u64 << domain) - 1) << (d * domain)).collect()
        };
        let model = ModelId(rng.below(models as u64) as u16);
        snap.nodes.push(Node {
            name: format!("n{n}"),
            pool: "p".into(),
            model,
            gpus,
            nvlink_domains: domains,
            healthy: rng.chance(90),
        });
    }
    let groups = 1 + rng.below(3) as u32;
    for g in 0..groups {
        snap.groups.push(Group::named(format!("g{g}")));
        for m in 0..models {
            if rng.chance(85) {
                let guaranteed = rng.below(9) as u32;
                let borrow_limit = rng.chance(30).then(|| rng.below(5) as u32);
                let lend_limit = rng.chance(30).then(|| rng.below(guaranteed as u64 + 1) as u32);
                let budget_gpu_h = rng.chance(25).then(|| rng.below(200) as f64);
                let spent_gpu_h = rng.below(150) as f64;
                let (group, model, category) = (GroupId(g), ModelId(m), Category::Training);
                snap.quotas.push(Quota {
                    group,
                    model,
                    category,
                    guaranteed,
                    borrow_limit,
                    lend_limit,
                    budget_gpu_h,
                    spent_gpu_h,
                });
            }
        }
    }
    for id in 1..=rng.below(4) {
        let lender = GroupId(rng.below(groups as u64) as u32);
        let borrower = rng.chance(70).then(|| GroupId(rng.below(groups as u64) as u32));
        let ends_at = match rng.below(5) {
            0 => Some(NOW - rng.below(1000) as Time),
            1 => Some(NOW + 1 + rng.below(10_000) as Time),
            _ => None,
        };
        let (model, gpus) = (ModelId(rng.below(models as u64) as u16), 1 + rng.below(6) as u32);
        snap.loans.push(Loan { id: LoanId(id), lender, borrower, model, gpus, ends_at });
    }
    // Running jobs: GPUs of their model not yet held, part on the group's own guarantee
    // (at most what is left of it), the rest on loans within their size, the lender's
    // lending limit and the borrower's limit; now and then on a loan that has ended.
    let pending = rng.below(7);
    let mut free: Vec<u64> = snap.nodes.iter().map(|n| n.all_gpus()).collect();
    for id in 100..100 + rng.below(6) {
        let (g, m) = (GroupId(rng.below(groups as u64) as u32), ModelId(rng.below(models as u64) as u16));
        let Some(q) = row(&snap, g, m, Category::Training).cloned() else { continue };
        let k = 1 + rng.below(4) as u32;
        let mut slots = Vec::new();
        let mut left = k;
        let start = rng.below(snap.nodes.len() as u64) as usize;
        for i in (0..snap.nodes.len()).map(|i| (i + start) % snap.nodes.len()) {
            if snap.nodes[i].model != m || left == 0 {
                continue;
            }
            let mut take = 0u64;
            for bit in 0..64 {
                if left > 0 && free[i] & (1 << bit) != 0 {
                    take |= 1 << bit;
                    left -= 1;
                }
            }
            if take != 0 {
                slots.push((i, take));
            }
        }
        if left > 0 {
            continue;
        }
        let own_used: u32 = running_own(&snap, g, m);
        let own = rng.below(u64::from(k.min(q.guaranteed.saturating_sub(own_used))) + 1) as u32;
        let mut need = k - own;
        let mut borrowed_room =
            q.borrow_limit.map_or(u32::MAX, |l| l.saturating_sub(running_borrowed(&snap, g, m)));
        let mut borrowed = Vec::new();
        for l in snap.loans.clone() {
            if need == 0 || !l.serves(g) || l.model != m {
                continue;
            }
            let used: u32 = snap
                .running
                .iter()
                .flat_map(|a| &a.borrowed)
                .filter(|b| b.loan == l.id)
                .map(|b| b.gpus)
                .sum();
            let lent: u32 = lent_by(&snap, l.lender, m);
            let avail = if l.is_active(NOW) {
                l.gpus.saturating_sub(used).min(lend_cap(&snap, l.lender, m).saturating_sub(lent))
            } else {
                need
            };
            let take = avail.min(need).min(borrowed_room);
            if take > 0 {
                borrowed.push(Borrow { loan: l.id, gpus: take });
                need -= take;
                borrowed_room -= take;
            }
        }
        if need > 0 {
            continue;
        }
        for &(i, take) in &slots {
            free[i] &= !take;
        }
        let started = NOW - rng.below(5000) as Time;
        snap.running.push(Allocation {
            job: JobId(id),
            group: g,
            category: Category::Training,
            class: rng.pick(&[
                PriorityClass::Batch,
                PriorityClass::Experiment,
                PriorityClass::Normal,
                PriorityClass::Critical,
            ]),
            model: m,
            slots: slots.into_iter().map(|(i, gpus)| Slot { node: NodeId(i as u32), gpus }).collect(),
            started_at: started,
            time_limit_s: rng.chance(70).then(|| 600 + rng.below(20_000)),
            checkpointable: rng.chance(70),
            last_checkpoint_at: rng.chance(50).then(|| started + rng.below(5000) as Time),
            borrowed,
            draining_for: (pending > 0 && rng.chance(10)).then(|| JobId(1 + rng.below(pending))),
            attained_gpu_s: rng.below(20_000),
            preemptions_today: rng.below(6) as u32,
        });
    }
    for id in 1..=pending {
        let submitted = NOW - rng.below(100_000) as Time;
        snap.pending.push(Job {
            id: JobId(id),
            group: GroupId(rng.below(groups as u64) as u32),
            category: if rng.chance(90) { Category::Training } else { Category::Inference },
            class: rng.pick(&[
                PriorityClass::Batch,
                PriorityClass::Experiment,
                PriorityClass::Normal,
                PriorityClass::Critical,
            ]),
            gpus: rng.pick(&[0, 1, 1, 2, 2, 3, 4, 6, 8, 12]),
            model: ModelId(rng.below(models as u64) as u16),
            topology: rng.pick(&[Topology::Any, Topology::Any, Topology::SameNode, Topology::SameNvlink]),
            time_limit_s: rng.chance(70).then(|| 300 + rng.below(20_000)),
            checkpointable: rng.chance(70),
            submitted_at: submitted,
            queued_at: submitted,
            attained_gpu_s: rng.below(1_000_000),
        });
    }
    snap.config.backfill = rng.chance(70);
    snap.config.min_runtime_s = rng.pick(&[0, 120, 3600]);
    snap.config.max_preemptors = rng.pick(&[0, 1, 32]);
    snap.config.default_time_limit_s = rng.pick(&[3600, 86_400]);
    snap.config.timeshare = rng.chance(50).then(|| tidepool_core::TimeShare {
        thresholds_gpu_s: vec![rng.pick(&[600, 3600]), 36_000],
        max_per_day: rng.pick(&[1, 4]) as u32,
        starve_after_s: rng.pick(&[0, 3600, 86_400]),
        starve_factor: rng.pick(&[0, 2]),
        order_by_queue: rng.chance(50),
        quantum_s: rng.pick(&[0, 1800]),
        protect_after_gpu_s: rng.pick(&[0, 36_000]),
        fifo_in_later_queues: rng.chance(50),
    });
    snap
}

fn running_own(snap: &Snapshot, g: GroupId, m: ModelId) -> u32 {
    let mine =
        snap.running.iter().filter(|a| a.group == g && a.model == m && a.category == Category::Training);
    mine.map(|a| a.gpu_count() - a.borrowed_gpus()).sum()
}

fn running_borrowed(snap: &Snapshot, g: GroupId, m: ModelId) -> u32 {
    let mine =
        snap.running.iter().filter(|a| a.group == g && a.model == m && a.category == Category::Training);
    mine.map(|a| a.borrowed_gpus()).sum()
}

/// GPUs a lender has out on active loans of `model`, per running allocations.
fn lent_by(snap: &Snapshot, lender: GroupId, model: ModelId) -> u32 {
    let active = |id: LoanId| {
        snap.loans.iter().find(|l| l.id == id && l.is_active(NOW) && l.lender == lender && l.model == model)
    };
    snap.running.iter().flat_map(|a| &a.borrowed).filter(|b| active(b.loan).is_some()).map(|b| b.gpus).sum()
}

/// Every rule a plan must keep, whatever the snapshot.
fn check(snap: &Snapshot, plan: &Plan) -> Result<(), String> {
    let job_of = |p: &Placement| &snap.pending[p.pending_index as usize];
    // Every pending job is decided exactly once.
    let mut seen: Vec<u64> =
        plan.placements.iter().map(|p| p.job.0).chain(plan.holds.iter().map(|h| h.job.0)).collect();
    seen.sort_unstable();
    let mut want: Vec<u64> = snap.pending.iter().map(|j| j.id.0).collect();
    want.sort_unstable();
    if seen != want {
        return Err(format!("decided {seen:?}, pending {want:?}"));
    }
    // D1, T1: no GPU twice, and the shape the job asked for.
    let mut used: Vec<u64> = vec![0; snap.nodes.len()];
    for a in &snap.running {
        for s in &a.slots {
            used[s.node.0 as usize] |= s.gpus;
        }
    }
    for p in &plan.placements {
        let job = job_of(p);
        if job.id != p.job || common::gpu_count(p) != job.gpus {
            return Err(format!("job {} placed on {} GPUs", p.job.0, common::gpu_count(p)));
        }
        if matches!(job.topology, Topology::SameNode | Topology::SameNvlink) && p.slots.len() != 1 {
            return Err(format!("job {} split over nodes", job.id.0));
        }
        for s in &p.slots {
            let node = &snap.nodes[s.node.0 as usize];
            if !node.healthy || node.model != job.model || s.gpus & !node.all_gpus() != 0 || s.gpus == 0 {
                return Err(format!("job {} on bad slot {s:?}", job.id.0));
            }
            if job.topology == Topology::SameNvlink && !node.domains().any(|d| s.gpus & !d == 0) {
                return Err(format!("job {} split over NVLink domains", job.id.0));
            }
            if used[s.node.0 as usize] & s.gpus != 0 {
                return Err(format!("job {} given a GPU already in use on node {}", job.id.0, s.node.0));
            }
            used[s.node.0 as usize] |= s.gpus;
        }
    }
    // Q1: own guarantee; B1: loans; Q3: budget.
    for q in &snap.quotas {
        let placed: Vec<&Placement> = plan
            .placements
            .iter()
            .filter(|p| {
                let j = job_of(p);
                (j.group, j.model, j.category) == (q.group, q.model, q.category)
            })
            .collect();
        let own_placed: u32 =
            placed.iter().map(|p| job_of(p).gpus - p.borrowed.iter().map(|b| b.gpus).sum::<u32>()).sum();
        let own_running = running_own(snap, q.group, q.model);
        if own_running + own_placed > q.guaranteed {
            return Err(format!(
                "group {} uses {own_running} + {own_placed} of guarantee {}",
                q.group.0, q.guaranteed
            ));
        }
        let borrowed: u32 = placed.iter().flat_map(|p| &p.borrowed).map(|b| b.gpus).sum();
        if let Some(limit) = q.borrow_limit
            && running_borrowed(snap, q.group, q.model) + borrowed > limit
        {
            return Err(format!("group {} borrows past its limit {limit}", q.group.0));
        }
        if let Some(budget) = q.budget_gpu_h {
            let cost: f64 = placed
                .iter()
                .map(|p| f64::from(job_of(p).gpus) * snap.time_limit_s(job_of(p)) as f64 / 3600.0)
                .sum();
            if cost > 0.0 && q.spent_gpu_h + cost > budget + 1e-9 {
                return Err(format!("group {} overspends: {} + {cost} > {budget}", q.group.0, q.spent_gpu_h));
            }
        }
        let lent: u32 = plan
            .placements
            .iter()
            .flat_map(|p| &p.borrowed)
            .filter(|b| {
                snap.loans.iter().any(|l| l.id == b.loan && l.lender == q.group && l.model == q.model)
            })
            .map(|b| b.gpus)
            .sum();
        if lent > 0 && lent_by(snap, q.group, q.model) + lent > lend_cap(snap, q.group, q.model) {
            return Err(format!("group {} lends past its lending limit", q.group.0));
        }
    }
    for p in &plan.placements {
        let job = job_of(p);
        if row(snap, job.group, job.model, job.category).is_none() {
            return Err(format!("job {} placed without a quota row", job.id.0));
        }
        for b in &p.borrowed {
            let Some(l) = snap.loans.iter().find(|l| l.id == b.loan) else {
                return Err(format!("unknown loan {}", b.loan.0));
            };
            if !l.is_active(NOW) || !l.serves(job.group) || l.model != job.model {
                return Err(format!("job {} borrows on loan {} that does not serve it", job.id.0, l.id.0));
            }
        }
    }
    for l in &snap.loans {
        let on = |bs: &[Borrow]| bs.iter().filter(|b| b.loan == l.id).map(|b| b.gpus).sum::<u32>();
        let total: u32 = snap.running.iter().map(|a| on(&a.borrowed)).sum::<u32>()
            + plan.placements.iter().map(|p| on(&p.borrowed)).sum::<u32>();
        if l.is_active(NOW) && total > l.gpus {
            return Err(format!("loan {} carries {total} of {} GPUs", l.id.0, l.gpus));
        }
    }
    // D1: nothing that overlaps the reservation runs past its start.
    for r in &plan.reservations {
        for p in &plan.placements {
            let overlaps =
                p.slots.iter().any(|s| r.slots.iter().any(|rs| rs.node == s.node && rs.gpus & s.gpus != 0));
            if overlaps && NOW + snap.time_limit_s(job_of(p)) as Time > r.start_at {
                return Err(format!("job {} delays the reservation of job {}", p.job.0, r.job.0));
            }
        }
    }
    // B1, P1: preemptions are entitled, once each, and never hit young or guaranteed work
    // (but for the hard boundaries of Q3, Q4).
    let ledger = snap.ledger(NOW);
    let mut victims: Vec<u32> = plan.preemptions.iter().map(|p| p.running_index).collect();
    victims.sort_unstable();
    victims.dedup();
    if victims.len() != plan.preemptions.len() {
        return Err("a job preempted twice".into());
    }
    for p in &plan.preemptions {
        let a = &snap.running[p.running_index as usize];
        let young = a.started_at + snap.config.min_runtime_s as Time > NOW;
        let ok = a.job == p.job
            && a.draining_for.is_none()
            && match &p.reason {
                PreemptReason::LoanEnded { loan } => {
                    a.borrowed.iter().any(|b| b.loan == *loan)
                        && !snap.loans.iter().any(|l| l.id == *loan && l.is_active(NOW))
                }
                PreemptReason::ReturnToLender { for_job } => {
                    let j = snap.pending.iter().find(|j| j.id == *for_job).unwrap();
                    !young && !a.borrowed.is_empty() && a.group != j.group
                }
                PreemptReason::HigherClass { for_job } => {
                    let j = snap.pending.iter().find(|j| j.id == *for_job).unwrap();
                    !young && a.group == j.group && j.class == PriorityClass::Critical && a.class < j.class
                }
                // Q4: only a row truly above its guarantee sheds its own GPUs.
                PreemptReason::OverGuarantee { guaranteed, held } => {
                    let q = ledger.quota(a.group, a.model, a.category).unwrap();
                    q.guaranteed == *guaranteed && held > guaranteed && a.gpu_count() > a.borrowed_gpus()
                }
                // Q3: only a row whose commitments pass its budget.
                PreemptReason::OverBudget { budget_gpu_h, committed_gpu_h } => {
                    let q = ledger.quota(a.group, a.model, a.category).unwrap();
                    q.budget_gpu_h == Some(*budget_gpu_h) && committed_gpu_h > budget_gpu_h
                }
                // Issue 15: a checkpointable peer in a later attained-service queue, not
                // stopped too often today, after its quantum.
                PreemptReason::TimeShare { for_job, attained_gpu_s, for_attained_gpu_s } => {
                    let j = snap.pending.iter().find(|j| j.id == *for_job).unwrap();
                    let ts = snap.config.timeshare.as_ref().unwrap();
                    let guard = snap.config.min_runtime_s.max(ts.quantum_s) as Time;
                    let starving = NOW - j.queued_at >= ts.starve_after_s as Time;
                    let claimant = if starving { 0 } else { ts.queue(j.attained_gpu_s) };
                    a.checkpointable
                        && a.started_at + guard <= NOW
                        && (a.group, a.class, a.model) == (j.group, j.class, j.model)
                        && a.preemptions_today < ts.max_per_day
                        && *attained_gpu_s == a.attained_gpu_s_at(NOW)
                        && *for_attained_gpu_s == j.attained_gpu_s
                        && claimant < ts.queue(*attained_gpu_s)
                }
            };
        if !ok {
            return Err(format!("preemption {p:?} of {a:?} is not allowed"));
        }
        if let PreemptReason::ReturnToLender { for_job }
        | PreemptReason::HigherClass { for_job }
        | PreemptReason::TimeShare { for_job, .. } = &p.reason
            && !plan
                .holds
                .iter()
                .any(|h| h.job == *for_job && matches!(h.reason, Reason::AwaitingPreemption { .. }))
        {
            return Err(format!(
                "job {} preempted for job {}, which is not waiting for it",
                a.job.0, for_job.0
            ));
        }
    }
    // A job that waits for victims says how many: chosen now, or still stopping.
    for h in &plan.holds {
        if let Reason::AwaitingPreemption { victims } = h.reason {
            let for_job = |r: &PreemptReason| match r {
                PreemptReason::ReturnToLender { for_job }
                | PreemptReason::HigherClass { for_job }
                | PreemptReason::TimeShare { for_job, .. } => *for_job == h.job,
                _ => false,
            };
            let now = plan.preemptions.iter().filter(|p| for_job(&p.reason)).count();
            let draining = snap.running.iter().filter(|a| a.draining_for == Some(h.job)).count();
            if victims as usize != now.max(draining) || (now > 0 && draining > 0) {
                return Err(format!("job {} awaits {victims}: {now} chosen, {draining} stopping", h.job.0));
            }
        }
    }
    if plan.retry_at.is_some_and(|t| t <= NOW) {
        return Err("retry_at in the past".into());
    }
    Ok(())
}

// Q1, B1, D1: for thousands of random small snapshots, every plan keeps every rule.
#[test]
fn random_snapshots_never_break_quotas_loans_or_gpu_exclusivity() {
    let mut placed = 0;
    let mut preempted = 0;
    for seed in 1..=20_000u64 {
        let mut rng = Rng(seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1);
        let snap = random_snapshot(&mut rng);
        let plan = run(&snap, NOW);
        if let Err(e) = check(&snap, &plan) {
            panic!("seed {seed}: {e}\n{snap:#?}\n{plan:#?}");
        }
        placed += plan.placements.len();
        preempted += plan.preemptions.len();
    }
    // The generator must exercise the rules, not only produce empty plans.
    assert!(placed > 5000 && preempted > 500, "placed {placed}, preempted {preempted}");
}
