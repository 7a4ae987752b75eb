//! The three policies a cycle consults, behind one trait so the same cycle runs native
//! Rust policies, WebAssembly modules (the server's policy host) or test doubles.
//!
//! Every method is batched: one call per cycle sees the whole queue or the whole set of
//! running jobs. Per-job calls are what made earlier WASM schedulers slow.

mod native;

pub use native::{FifoPriority, NativePolicies, NativePriority, NativeQuota, NativeReclaim};

use serde::{Deserialize, Serialize};

use crate::model::{Borrow, GroupId, Time};
use crate::quota::Ledger;
use crate::reason::Reason;
use crate::snapshot::Snapshot;

/// The quota policy's answer for one job.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Verdict {
    /// Run, with `borrowed` GPUs on loans and the rest on the group's own guarantee.
    Admit { borrowed: Vec<Borrow> },
    /// Do not run this cycle.
    Hold(Reason),
}

/// Priority, quota and reclaim decisions for a cycle.
pub trait Policies {
    /// One score per `snapshot.pending` job, same order; higher runs first. Ties are
    /// broken by the cycle (submission time, then id) so every policy is deterministic.
    fn priority(&self, snapshot: &Snapshot, now: Time) -> Vec<i64>;

    /// One verdict per entry of `order` (indices into `snapshot.pending`, best first).
    /// `order` leaves out jobs that can never run (they are held as infeasible), so it
    /// may be shorter than the queue.
    /// `ledger` holds what running jobs use; accounting within the batch is the policy's.
    fn quota(&self, snapshot: &Snapshot, now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict>;

    /// One score per `snapshot.running` allocation; lower is preempted first.
    /// Which allocations may be preempted at all is the cycle's rule, not the policy's.
    fn reclaim(&self, snapshot: &Snapshot, now: Time) -> Vec<i64>;

    /// Names the versions deciding, for dispatch receipts (D3).
    fn version(&self) -> String;

    /// Groups for which other versions decide (a canary, O1), and those versions named
    /// as [`Policies::version`] names them: a receipt names what decided for its job.
    fn versions_by_group(&self) -> Vec<(GroupId, String)> {
        Vec::new()
    }

    /// Called by `plan()` before the other methods, with the snapshot all of them will
    /// see: an implementation may prepare once what its calls share (the WASM host
    /// marshals the queue once per cycle, not once per call).
    fn begin_cycle(&self, _snapshot: &Snapshot, _now: Time) {}

    /// Called by `plan()` when the cycle is done: whatever `begin_cycle` prepared is
    /// stale from here on.
    fn end_cycle(&self) {}
}
