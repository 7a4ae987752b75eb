//! `WasmPolicies`: the core's `Policies` answered by modules, and never left without an
//! answer. Each call goes to the active version; if it faults, the previous good version
//! answers, else the built-in policy, in the same cycle. Repeated faults take a version
//! out of service (circuit breaker). Every fault is recorded as an event for alerts.
//! A shadow version runs beside the active one and records how it would have differed;
//! a canary version decides for chosen groups only.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::Serialize;
use tidepool_core::{GroupId, Ledger, NativePolicies, Policies, Snapshot, Time, Verdict};

use crate::policy::scratch::{Scratch, Scratches};
use crate::policy::shadow::{self, Difference};
use crate::policy::{Fault, Kind, Module, Runtime, convert};

/// Consecutive faults after which the active version is taken out of service.
pub const BREAKER_THRESHOLD: u32 = 3;
/// Events kept in memory (the server persists them as they happen).
const EVENTS_KEPT: usize = 1000;

/// Something alerting and the audit log care about.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "event", rename_all = "kebab-case")]
pub enum PolicyEvent {
    /// A module's answer was not used.
    Fault { kind: Kind, sha256: String, fault: String, label: &'static str, at: Time },
    /// Who answered instead.
    Fallback { kind: Kind, answered_by: String, at: Time },
    /// The active version faulted too often and was taken out of service.
    CircuitOpen { kind: Kind, sha256: String, faults: u32, at: Time },
    /// What the shadow version would have decided differently.
    Shadow { kind: Kind, sha256: String, difference: Difference, at: Time },
}

#[derive(Default)]
struct Slot {
    active: Option<Arc<Module>>,
    /// The version active before, known to have answered: the first fallback.
    previous: Option<Arc<Module>>,
    faults_in_a_row: u32,
    shadow: Option<Arc<Module>>,
    canary: Option<(Arc<Module>, Vec<GroupId>)>,
}

/// Policies served by WebAssembly modules, with the built-in ones behind them.
pub struct WasmPolicies {
    runtime: Arc<Runtime>,
    slots: Mutex<[Slot; 3]>,
    events: Mutex<VecDeque<PolicyEvent>>,
    native: NativePolicies,
    scratch: Scratches,
}

fn index(kind: Kind) -> usize {
    kind as usize
}

impl WasmPolicies {
    /// No module yet: the built-in policies answer everything.
    pub fn new(runtime: Arc<Runtime>) -> WasmPolicies {
        WasmPolicies {
            runtime,
            slots: Mutex::default(),
            events: Mutex::default(),
            native: NativePolicies::default(),
            scratch: Scratches::default(),
        }
    }

    fn slots(&self) -> std::sync::MutexGuard<'_, [Slot; 3]> {
        self.slots.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    /// Forgets every module: the built-in policies answer until versions are set again.
    pub fn clear(&self) {
        *self.slots() = Default::default();
    }

    /// Makes `module` the active version of its kind; the one it replaces becomes the fallback.
    pub fn activate(&self, module: Arc<Module>) {
        let mut slots = self.slots();
        let slot = &mut slots[index(module.kind)];
        if let Some(old) = slot.active.take() {
            slot.previous = Some(old);
        }
        module.drop_instance();
        slot.active = Some(module);
        slot.faults_in_a_row = 0;
    }

    /// Goes back to the previous version (or the built-in policy if there is none).
    pub fn rollback(&self, kind: Kind) {
        let mut slots = self.slots();
        let slot = &mut slots[index(kind)];
        slot.active = slot.previous.take();
        if let Some(m) = &slot.active {
            m.drop_instance();
        }
        slot.faults_in_a_row = 0;
    }

    pub fn set_shadow(&self, kind: Kind, module: Option<Arc<Module>>) {
        self.slots()[index(kind)].shadow = module;
    }

    pub fn set_canary(&self, kind: Kind, canary: Option<(Arc<Module>, Vec<GroupId>)>) {
        self.slots()[index(kind)].canary = canary;
    }

    /// The sha256 of the active version, if a module is active.
    pub fn active(&self, kind: Kind) -> Option<String> {
        self.slots()[index(kind)].active.as_ref().map(|m| m.sha256.clone())
    }

    /// The groups the canary version of `kind` decides for, if one runs.
    pub fn canary_groups(&self, kind: Kind) -> Option<Vec<GroupId>> {
        self.canary(kind).map(|(_, groups)| groups)
    }

    pub fn events(&self) -> Vec<PolicyEvent> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).iter().cloned().collect()
    }

    /// The events since the last call, oldest first (the dispatcher stores them).
    pub fn take_events(&self) -> Vec<PolicyEvent> {
        self.events.lock().unwrap_or_else(|p| p.into_inner()).drain(..).collect()
    }

    fn record(&self, event: PolicyEvent) {
        crate::metrics::policy_event(&event);
        let mut events = self.events.lock().unwrap_or_else(|p| p.into_inner());
        if events.len() == EVENTS_KEPT {
            events.pop_front();
        }
        events.push_back(event);
    }

    /// The active version's answer, else the previous version's, else `None` (the caller
    /// then asks the built-in policy). Faults are recorded; the breaker counts them.
    fn answer<T>(&self, kind: Kind, now: Time, call: impl Fn(&Module) -> Result<T, Fault>) -> Option<T> {
        let (active, previous) = {
            let slots = self.slots();
            let slot = &slots[index(kind)];
            (slot.active.clone(), slot.previous.clone())
        };
        let active = active?;
        match call(&active) {
            Ok(v) => {
                self.slots()[index(kind)].faults_in_a_row = 0;
                return Some(v);
            }
            Err(fault) => self.fault(kind, &active, fault, now),
        }
        if let Some(previous) = previous {
            match call(&previous) {
                Ok(v) => {
                    let answered_by = previous.sha256.clone();
                    self.record(PolicyEvent::Fallback { kind, answered_by, at: now });
                    return Some(v);
                }
                Err(fault) => self.fault(kind, &previous, fault, now),
            }
        }
        self.record(PolicyEvent::Fallback { kind, answered_by: "built-in".into(), at: now });
        None
    }

    fn fault(&self, kind: Kind, module: &Module, fault: Fault, now: Time) {
        let label = fault.label();
        let sha256 = module.sha256.clone();
        self.record(PolicyEvent::Fault {
            kind,
            sha256: sha256.clone(),
            fault: fault.to_string(),
            label,
            at: now,
        });
        let mut slots = self.slots();
        let slot = &mut slots[index(kind)];
        if slot.active.as_ref().is_some_and(|a| a.sha256 == sha256) {
            slot.faults_in_a_row += 1;
            if slot.faults_in_a_row >= BREAKER_THRESHOLD {
                let faults = slot.faults_in_a_row;
                slot.active = slot.previous.take();
                slot.faults_in_a_row = 0;
                drop(slots);
                self.record(PolicyEvent::CircuitOpen { kind, sha256, faults, at: now });
            }
        }
    }

    /// Runs the shadow version, if any, and records how it differs from `decided`.
    fn shadow<T>(
        &self,
        kind: Kind,
        now: Time,
        call: impl Fn(&Module) -> Result<T, Fault>,
        compare: impl Fn(&T) -> Difference,
    ) {
        let Some(module) = self.slots()[index(kind)].shadow.clone() else { return };
        match call(&module) {
            Ok(answer) => {
                let difference = compare(&answer);
                self.record(PolicyEvent::Shadow { kind, sha256: module.sha256.clone(), difference, at: now });
            }
            Err(fault) => {
                let (sha256, label) = (module.sha256.clone(), fault.label());
                self.record(PolicyEvent::Fault { kind, sha256, fault: fault.to_string(), label, at: now });
            }
        }
    }

    /// The canary version and its groups, if any.
    fn canary(&self, kind: Kind) -> Option<(Arc<Module>, Vec<GroupId>)> {
        self.slots()[index(kind)].canary.clone()
    }
}

impl Policies for WasmPolicies {
    fn priority(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        let _timer = crate::metrics::POLICY_CALL.time_with(Kind::Priority.name());
        self.scratch.with(|scratch| self.priority_with(scratch, snap, now))
    }

    fn quota(&self, snap: &Snapshot, now: Time, order: &[u32], ledger: &Ledger) -> Vec<Verdict> {
        let _timer = crate::metrics::POLICY_CALL.time_with(Kind::Quota.name());
        self.scratch.with(|scratch| self.quota_with(scratch, snap, now, order, ledger))
    }

    fn reclaim(&self, snap: &Snapshot, now: Time) -> Vec<i64> {
        let _timer = crate::metrics::POLICY_CALL.time_with(Kind::Reclaim.name());
        self.scratch.with(|scratch| self.reclaim_with(scratch, snap, now))
    }

    fn begin_cycle(&self, snap: &Snapshot, now: Time) {
        self.scratch.begin(snap, now);
    }

    fn end_cycle(&self) {
        self.scratch.end();
    }

    fn version(&self) -> String {
        self.version_where(|_| None)
    }

    /// Groups a canary decides for: their jobs' receipts name the canary (D3).
    fn versions_by_group(&self) -> Vec<(GroupId, String)> {
        let canaries: Vec<(Kind, Vec<GroupId>)> =
            Kind::ALL.iter().filter_map(|&k| self.canary(k).map(|(_, groups)| (k, groups))).collect();
        let mut groups: Vec<GroupId> = canaries.iter().flat_map(|(_, g)| g.iter().copied()).collect();
        groups.sort_unstable();
        groups.dedup();
        groups
            .into_iter()
            .map(|g| {
                let version = self.version_where(|k| {
                    let (module, groups) = self.canary(k)?;
                    groups.contains(&g).then(|| format!("wasm:{} (canary)", &module.sha256[..12]))
                });
                (g, version)
            })
            .collect()
    }
}

impl WasmPolicies {
    /// The versions deciding, each kind's from `overrides` if it names one, else the active.
    fn version_where(&self, overrides: impl Fn(Kind) -> Option<String>) -> String {
        let active: Vec<Option<String>> = {
            let slots = self.slots();
            Kind::ALL.iter().map(|&k| slots[index(k)].active.as_ref().map(|m| m.sha256.clone())).collect()
        };
        Kind::ALL
            .iter()
            .zip(active)
            .map(|(&k, active)| {
                let who = overrides(k).unwrap_or_else(|| {
                    active.map_or("built-in".to_string(), |sha| format!("wasm:{}", &sha[..12]))
                });
                format!("{}={who}", k.name())
            })
            .collect::<Vec<_>>()
            .join(",")
    }

    fn priority_with(&self, scratch: &mut Scratch, snap: &Snapshot, now: Time) -> Vec<i64> {
        let (ctx, jobs) = scratch.inputs(snap, now);
        let call = |m: &Module| self.runtime.priority(m, &ctx, jobs);
        let mut scores =
            self.answer(Kind::Priority, now, call).unwrap_or_else(|| self.native.priority(snap, now));
        if let Some((canary, groups)) = self.canary(Kind::Priority)
            && let Ok(theirs) = self.runtime.priority(&canary, &ctx, jobs)
        {
            for (i, j) in snap.pending.iter().enumerate() {
                if groups.contains(&j.group) {
                    scores[i] = theirs[i];
                }
            }
        }
        self.shadow(Kind::Priority, now, call, |theirs| shadow::priority(&scores, theirs));
        scores
    }

    fn quota_with(
        &self,
        scratch: &mut Scratch,
        snap: &Snapshot,
        now: Time,
        order: &[u32],
        ledger: &Ledger,
    ) -> Vec<Verdict> {
        let (ctx, jobs) = scratch.inputs(snap, now);
        let (quotas, loans) = convert::quotas_and_loans(snap, ledger);
        let call = |m: &Module| self.runtime.quota(m, &ctx, jobs, order, &quotas, &loans);
        let mut verdicts = self
            .answer(Kind::Quota, now, call)
            .unwrap_or_else(|| self.native.quota(snap, now, order, ledger));
        if let Some((canary, groups)) = self.canary(Kind::Quota)
            && let Ok(theirs) = call(&canary)
        {
            for (k, &i) in order.iter().enumerate() {
                if groups.contains(&snap.pending[i as usize].group) {
                    verdicts[k] = theirs[k].clone();
                }
            }
        }
        self.shadow(Kind::Quota, now, call, |theirs| shadow::quota(&verdicts, theirs));
        verdicts
    }

    fn reclaim_with(&self, scratch: &mut Scratch, snap: &Snapshot, now: Time) -> Vec<i64> {
        let ctx = scratch.prepared.clone().unwrap_or_else(|| convert::context(snap, now));
        convert::allocations_into(&mut scratch.allocations, &snap.running, now);
        let allocations = &scratch.allocations;
        let call = |m: &Module| self.runtime.reclaim(m, &ctx, allocations);
        let mut scores =
            self.answer(Kind::Reclaim, now, call).unwrap_or_else(|| self.native.reclaim(snap, now));
        if let Some((canary, groups)) = self.canary(Kind::Reclaim)
            && let Ok(theirs) = call(&canary)
        {
            for (i, a) in snap.running.iter().enumerate() {
                if groups.contains(&a.group) {
                    scores[i] = theirs[i];
                }
            }
        }
        self.shadow(Kind::Reclaim, now, call, |theirs| shadow::reclaim(&scores, theirs));
        scores
    }
}
