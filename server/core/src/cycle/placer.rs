//! Step 4 of the cycle: place jobs in priority order. The first job of each GPU model
//! that cannot start gets a reservation; later jobs of that model backfill only where
//! they cannot delay it (EASY backfill per model, so a busy H100 queue never starves a
//! large A100 job).

use crate::cycle::free::{FreeMap, ModelCaps};
use crate::cycle::placement::{Shape, place};
use crate::cycle::reserve::{self, Reservation, Withheld};
use crate::model::{Job, JobId, Slot, Time};
use crate::reason::Reason;
use crate::snapshot::Snapshot;

pub(crate) struct Placer<'s> {
    snap: &'s Snapshot,
    caps: &'s ModelCaps,
    now: Time,
    pub free: FreeMap,
    /// Per GPU model: the reservation of its highest blocked job, and the GPUs that are
    /// free now but withheld for it.
    reserved: Vec<Option<(Reservation, Withheld)>>,
}

impl<'s> Placer<'s> {
    pub fn new(snap: &'s Snapshot, caps: &'s ModelCaps, now: Time) -> Placer<'s> {
        let reserved = snap.models.iter().map(|_| None).collect();
        Placer { snap, caps, now, free: FreeMap::new(snap), reserved }
    }

    /// Places `job` now (`Ok(slots, backfilled)`), or says why it waits. The first
    /// blocked job of a model reserves the GPUs it will get at the earliest time.
    pub fn place(&mut self, job: &Job) -> Result<(Vec<Slot>, bool), Reason> {
        let snap = self.snap;
        let shape = Shape::of(job);
        let m = shape.model.0 as usize;
        let largest_node = self.caps.largest_node(shape.model);
        let backfilled = self.reserved[m].is_some();
        let mut slots = place(&snap.nodes, &self.free, shape, largest_node);
        let ends_by = self.now + snap.time_limit_s(job) as Time;
        if slots.is_none()
            && let Some((r, withheld)) = self.reserved[m].as_mut()
            && ends_by <= r.start_at
        {
            slots = withheld.place_short(&mut self.free, snap, shape);
        }
        if let Some(slots) = slots {
            for s in &slots {
                self.free.take(&snap.nodes, s.node, s.gpus);
            }
            return Ok((slots, backfilled));
        }
        let free_now = self.free.total.get(m).copied().unwrap_or(0);
        Err(match &self.reserved[m] {
            Some((r, w)) if w.would_fit(&self.free, snap, shape) => {
                Reason::WouldDelay { job: r.job, start_at: r.start_at }
            }
            None if snap.config.backfill => {
                match reserve::reserve(snap, &self.free, job.id, shape, self.now, largest_node) {
                    Some(r) => {
                        let withheld = Withheld::take_from(&mut self.free, snap, &r);
                        let reason = Reason::Reserved { start_at: r.start_at };
                        self.reserved[m] = Some((r, withheld));
                        reason
                    }
                    None => waiting(shape.gpus, free_now),
                }
            }
            _ => waiting(shape.gpus, free_now),
        })
    }

    /// Ends step 4: the free GPUs, the reservations, and what each reserved job has withheld.
    pub fn finish(self) -> (FreeMap, Vec<Reservation>, Vec<(JobId, Withheld)>) {
        let (mut reservations, mut withheld) = (Vec::new(), Vec::new());
        for (r, w) in self.reserved.into_iter().flatten() {
            withheld.push((r.job, w));
            reservations.push(r);
        }
        (self.free, reservations, withheld)
    }
}

fn waiting(requested: u32, free: u32) -> Reason {
    if free >= requested {
        Reason::Fragmented { requested, free }
    } else {
        Reason::NoCapacity { requested, free }
    }
}
