//! One call into a module: its kept instance (or a fresh one), the deadline armed, the
//! answer checked.
//! Every way a call can go wrong becomes a [`Fault`]; none of them escapes.

use std::fmt;

use wasmtime::Trap;

use crate::policy::bindings::types as t;
use crate::policy::live::Bound;
use crate::policy::runtime::{Module, Runtime};

/// Why a module's answer was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Fault {
    /// The module trapped (a panic, an out-of-bounds access, `unreachable`).
    Trap(String),
    /// The call ran past its deadline and was interrupted.
    Timeout,
    /// The module tried to grow its memory past the limit.
    Memory,
    /// The module returned an error of its own.
    Guest(String),
    /// The answer has the wrong shape (length, unknown ids, values out of range).
    Malformed(String),
    /// The module does not implement this kind of policy.
    WrongKind,
}

impl fmt::Display for Fault {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Fault::Trap(m) => write!(f, "trapped: {m}"),
            Fault::Timeout => write!(f, "ran past its deadline and was stopped"),
            Fault::Memory => write!(f, "tried to use more memory than its limit"),
            Fault::Guest(m) => write!(f, "returned an error: {m}"),
            Fault::Malformed(m) => write!(f, "malformed answer: {m}"),
            Fault::WrongKind => write!(f, "is not a policy of this kind"),
        }
    }
}

impl Fault {
    /// A short label for events and metrics.
    pub fn label(&self) -> &'static str {
        match self {
            Fault::Trap(_) => "trap",
            Fault::Timeout => "timeout",
            Fault::Memory => "memory",
            Fault::Guest(_) => "guest-error",
            Fault::Malformed(_) => "malformed",
            Fault::WrongKind => "wrong-kind",
        }
    }
}

pub(crate) fn classify(err: wasmtime::Error) -> Fault {
    if err.downcast_ref::<Trap>() == Some(&Trap::Interrupt) {
        return Fault::Timeout;
    }
    let text = format!("{err:#}");
    if text.contains("forcing trap when growing memory") || text.contains("growing memory") {
        return Fault::Memory;
    }
    Fault::Trap(text.lines().next().unwrap_or("trap").chars().take(300).collect())
}

fn answer<T>(result: wasmtime::Result<Result<T, String>>) -> Result<T, Fault> {
    match result {
        Ok(Ok(v)) => Ok(v),
        Ok(Err(message)) => Err(Fault::Guest(message.chars().take(300).collect())),
        Err(e) => Err(classify(e)),
    }
}

fn check_len(what: &str, got: usize, want: usize) -> Result<(), Fault> {
    if got == want { Ok(()) } else { Err(Fault::Malformed(format!("{got} {what} for {want} inputs"))) }
}

impl Runtime {
    pub fn priority(&self, m: &Module, ctx: &t::Context, jobs: &t::Jobs) -> Result<Vec<i64>, Fault> {
        self.with_instance(m, |i| {
            let Bound::Priority(b) = &i.bound else { return Err(Fault::WrongKind) };
            let scores = answer(b.tidepool_policy_priority().call_score(&mut i.store, ctx, jobs))?;
            check_len("scores", scores.len(), jobs.id.len())?;
            Ok(scores)
        })
    }

    /// The module's verdicts, one per job, loans and notes checked.
    pub fn quota(
        &self,
        m: &Module,
        ctx: &t::Context,
        jobs: &t::Jobs,
        order: &[u32],
        quotas: &[t::Quota],
        loans: &[t::Loan],
    ) -> Result<Vec<tidepool_core::Verdict>, Fault> {
        self.with_instance(m, |i| {
            let Bound::Quota(b) = &i.bound else { return Err(Fault::WrongKind) };
            let decisions =
                answer(b.tidepool_policy_quota().call_decide(&mut i.store, ctx, jobs, order, quotas, loans))?;
            crate::policy::convert::verdicts(decisions, order.len(), loans).map_err(Fault::Malformed)
        })
    }

    pub fn reclaim(
        &self,
        m: &Module,
        ctx: &t::Context,
        allocations: &t::Allocations,
    ) -> Result<Vec<i64>, Fault> {
        self.with_instance(m, |i| {
            let Bound::Reclaim(b) = &i.bound else { return Err(Fault::WrongKind) };
            let scores = answer(b.tidepool_policy_reclaim().call_rank(&mut i.store, ctx, allocations))?;
            check_len("scores", scores.len(), allocations.job.len())?;
            Ok(scores)
        })
    }
}
