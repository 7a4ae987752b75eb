//! Where a benchmarked cycle's time goes: each policy call timed on its own (the rest of
//! `plan()` is the core's), and the process's peak memory.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use tidepool_core::{GroupId, Ledger, Policies, Snapshot, Time, Verdict};

/// A policy set whose calls are timed: per plan, the time spent in each kind's calls.
pub struct Timed<'a> {
    inner: &'a dyn Policies,
    /// This plan's sums so far (priority with its prepared inputs, quota, reclaim).
    current: Mutex<[Duration; 3]>,
    /// One sum per finished plan, per kind.
    times: Mutex<[Vec<Duration>; 3]>,
}

impl<'a> Timed<'a> {
    pub fn new(inner: &'a dyn Policies) -> Timed<'a> {
        Timed { inner, current: Mutex::default(), times: Mutex::default() }
    }

    fn timed<T>(&self, kind: usize, f: impl FnOnce() -> T) -> T {
        let start = Instant::now();
        let out = f();
        let took = start.elapsed();
        lock(&self.current)[kind] += took;
        out
    }

    /// Ends a plan: its sums join the figures.
    pub fn finish_plan(&self) {
        let sums = std::mem::take(&mut *lock(&self.current));
        let mut times = lock(&self.times);
        for (k, sum) in sums.into_iter().enumerate() {
            times[k].push(sum);
        }
    }

    /// The median of each kind's calls (priority, quota, reclaim), forgetting them.
    pub fn take_medians(&self) -> [Duration; 3] {
        let mut times = lock(&self.times);
        let mut out = [Duration::ZERO; 3];
        for (k, t) in times.iter_mut().enumerate() {
            t.sort_unstable();
            out[k] = t.get(t.len() / 2).copied().unwrap_or_default();
            t.clear();
        }
        out
    }
}

impl Policies for Timed<'_> {
    fn priority(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        self.timed(0, || self.inner.priority(snap, now))
    }

    fn quota(&self, snap: &Snapshot, now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
        self.timed(1, || self.inner.quota(snap, now, order, ledger))
    }

    fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        self.timed(2, || self.inner.reclaim(snap, now))
    }

    fn version(&self) -> String {
        self.inner.version()
    }

    fn versions_by_group(&self) -> Vec<(GroupId, String)> {
        self.inner.versions_by_group()
    }

    // Preparing a plan's inputs is part of the priority call's cost: counted there.
    fn begin_cycle(&self, snap: &Snapshot, now: Time) {
        self.timed(0, || self.inner.begin_cycle(snap, now))
    }

    fn end_cycle(&self) {
        self.inner.end_cycle()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|p| p.into_inner())
}

/// The process's peak resident memory in MiB (`VmHWM`), where the system reports it.
pub fn peak_rss_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: f64 = line.trim_start_matches("VmHWM:").trim().trim_end_matches("kB").trim().parse().ok()?;
    Some((kib / 1024.0 * 10.0).round() / 10.0)
}
