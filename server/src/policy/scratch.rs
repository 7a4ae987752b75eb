//! Each plan's own marshalled policy inputs (issue 10, finding 9). The WASM host converts
//! the queue and the context once per plan and shares them between the priority and
//! quota calls; a dry run or a shadow plan running beside the live cycle must never see
//! the live cycle's inputs, nor the other way round.

use std::sync::Mutex;

use tidepool_core::{Snapshot, Time};

use crate::policy::bindings::types as t;
use crate::policy::convert;

/// Each plan's own marshalled inputs. A plan (`plan()` from `begin_cycle` to
/// `end_cycle`) runs start to end on one thread, so its scratch is keyed by that thread:
/// a dry run planning beside the live cycle can never read or overwrite the live
/// cycle's inputs, nor the other way round. Finished scratches are kept for reuse
/// (fresh multi-megabyte buffers page-fault), a few at most.
#[derive(Default)]
pub(crate) struct Scratches {
    in_use: Mutex<Vec<(std::thread::ThreadId, Scratch)>>,
    idle: Mutex<Vec<Scratch>>,
}

const IDLE_SCRATCHES: usize = 2;

impl Scratches {
    /// Runs `f` with this thread's scratch (a fresh one outside a plan).
    pub(crate) fn with<R>(&self, f: impl FnOnce(&mut Scratch) -> R) -> R {
        let me = std::thread::current().id();
        let taken = {
            let mut in_use = lock(&self.in_use);
            in_use.iter().position(|(t, _)| *t == me).map(|k| in_use.swap_remove(k).1)
        };
        let mut scratch = taken.unwrap_or_else(|| self.fresh());
        let planning = scratch.prepared.is_some();
        let out = f(&mut scratch);
        if planning {
            lock(&self.in_use).push((me, scratch));
        } else {
            self.put_back(scratch);
        }
        out
    }

    fn fresh(&self) -> Scratch {
        lock(&self.idle).pop().unwrap_or_else(|| Scratch {
            prepared: None,
            jobs: convert::empty_jobs(),
            allocations: convert::empty_allocations(),
        })
    }

    fn put_back(&self, mut scratch: Scratch) {
        scratch.prepared = None;
        let mut idle = lock(&self.idle);
        if idle.len() < IDLE_SCRATCHES {
            idle.push(scratch);
        }
    }

    /// Starts this thread's plan: its inputs, converted once for all its calls.
    pub(crate) fn begin(&self, snap: &Snapshot, now: Time) {
        let me = std::thread::current().id();
        self.end();
        let mut scratch = self.fresh();
        convert::jobs_into(&mut scratch.jobs, &snap.pending);
        scratch.prepared = Some(convert::context(snap, now));
        lock(&self.in_use).push((me, scratch));
    }

    /// Ends this thread's plan.
    pub(crate) fn end(&self) {
        let me = std::thread::current().id();
        let mine = {
            let mut in_use = lock(&self.in_use);
            in_use.iter().position(|(t, _)| *t == me).map(|k| in_use.swap_remove(k).1)
        };
        if let Some(scratch) = mine {
            self.put_back(scratch);
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
}

/// A plan's marshalled inputs: between `begin_cycle` and `end_cycle` the queue and the
/// context are converted once and shared by the priority and quota calls.
pub(crate) struct Scratch {
    pub(crate) prepared: Option<t::Context>,
    pub(crate) jobs: t::Jobs,
    pub(crate) allocations: t::Allocations,
}

impl Scratch {
    /// The context and the queue (in snapshot order) for `snap`: prepared, or made now.
    pub(crate) fn inputs(&mut self, snap: &Snapshot, now: Time) -> (t::Context, &t::Jobs) {
        let ctx = match &self.prepared {
            Some(ctx) => ctx.clone(),
            None => {
                convert::jobs_into(&mut self.jobs, &snap.pending);
                convert::context(snap, now)
            }
        };
        (ctx, &self.jobs)
    }
}
