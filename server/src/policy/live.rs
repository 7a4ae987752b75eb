//! A module's live instance, kept between calls (issue 15): instantiating a component
//! and faulting in its memory on every call cost more than the module's own work.
//! One instance per version (a `Module` is one sha256), recreated after any fault, after
//! `Limits::reuse_calls` calls and when the version becomes active, and never shared by two calls at once: a second caller
//! while one is in the instance (a dry run beside the live cycle) gets a fresh one.
//! Every call still has its own deadline; the memory limit holds for the instance's life.

use std::sync::{Mutex, TryLockError};

use wasmtime::Store;

use crate::policy::bindings::{priority, quota, reclaim};
use crate::policy::call::Fault;
use crate::policy::runtime::{Module, Pre, Runtime, State};

/// An instantiated module's exports.
pub(crate) enum Bound {
    Priority(priority::PriorityPolicy),
    Quota(quota::QuotaPolicy),
    Reclaim(reclaim::ReclaimPolicy),
}

/// A store with its instance, and how many calls it has answered.
pub(crate) struct Instance {
    pub(crate) store: Store<State>,
    pub(crate) bound: Bound,
    calls: u32,
}

/// The instance a module keeps between calls, if any.
#[derive(Default)]
pub(crate) struct Live(Mutex<Option<Instance>>);

impl Module {
    /// Drops the kept instance: the next call starts from a fresh one (a version that
    /// becomes active starts clean, even if it had answered before).
    pub fn drop_instance(&self) {
        *self.live.0.lock().unwrap_or_else(|p| p.into_inner()) = None;
    }
}

impl Runtime {
    fn instantiate(&self, m: &Module) -> Result<Instance, Fault> {
        let mut store = self.store();
        let bound = match &m.pre {
            Pre::Priority(pre) => pre.instantiate(&mut store).map(Bound::Priority),
            Pre::Quota(pre) => pre.instantiate(&mut store).map(Bound::Quota),
            Pre::Reclaim(pre) => pre.instantiate(&mut store).map(Bound::Reclaim),
        }
        .map_err(crate::policy::call::classify)?;
        Ok(Instance { store, bound, calls: 0 })
    }

    /// Runs `f` (one call, its answer checked) in `m`'s kept instance, or a fresh one; a
    /// fault of any kind, a malformed answer included, drops the instance it ran in.
    pub(crate) fn with_instance<T>(
        &self,
        m: &Module,
        f: impl FnOnce(&mut Instance) -> Result<T, Fault>,
    ) -> Result<T, Fault> {
        let mut slot = match m.live.0.try_lock() {
            Ok(slot) => slot,
            Err(TryLockError::Poisoned(p)) => {
                let mut slot = p.into_inner();
                *slot = None;
                slot
            }
            Err(TryLockError::WouldBlock) => return f(&mut self.instantiate(m)?),
        };
        let mut instance = match slot.take() {
            Some(i) if i.calls < self.limits.reuse_calls => i,
            _ => self.instantiate(m)?,
        };
        instance.store.set_epoch_deadline(self.deadline_ticks());
        let out = f(&mut instance)?;
        instance.calls += 1;
        *slot = Some(instance);
        Ok(out)
    }
}
