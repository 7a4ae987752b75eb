//! The server's policy desk: one runtime, the dispatcher's `WasmPolicies`, and the
//! registry that moves versions through their life, kept in step with the records.
//! Registry changes are serialized (one async lock held across the write) so two
//! admins acting at once cannot store an older state over a newer one.

use std::sync::Arc;

use tidepool_core::Time;

use crate::policy::artifacts::ArtifactCache;
use crate::policy::registry::Registry;
use crate::policy::select::ModuleFiles;
use crate::policy::{Kind, Limits, PolicyEvent, Runtime, WasmPolicies};
use crate::store::Store;
use crate::store::events::{EventDetail, stored};
use tidepool_api::records::PolicyNotice;

pub struct PolicyDesk {
    pub runtime: Arc<Runtime>,
    pub policies: Arc<WasmPolicies>,
    pub registry: tokio::sync::Mutex<Registry>,
    /// How many versions and transitions the records held when last read: a change
    /// means another server (or this one) moved a version.
    seen: std::sync::atomic::AtomicI64,
}

impl PolicyDesk {
    /// A desk with no module yet: the built-in policies decide. `artifacts` caches
    /// compiled modules on disk across restarts.
    pub fn new(artifacts: Option<ArtifactCache>) -> Result<PolicyDesk, String> {
        let runtime = Arc::new(
            Runtime::new(Limits::default(), artifacts).map_err(|e| format!("policy runtime: {e:#}"))?,
        );
        let policies = Arc::new(WasmPolicies::new(runtime.clone()));
        let registry = tokio::sync::Mutex::new(Registry::new(runtime.clone(), policies.clone()));
        Ok(PolicyDesk { runtime, policies, registry, seen: std::sync::atomic::AtomicI64::new(-1) })
    }

    /// Follows the records: when versions or transitions were added since the last look
    /// (a promotion or rollback on another server sharing the database), reloads them all.
    /// Cheap when nothing changed: one count. Returns whether it reloaded.
    pub async fn follow(&self, store: &Store) -> Result<bool, String> {
        use std::sync::atomic::Ordering;
        let row = sqlx::query(
            "SELECT (SELECT COUNT(*) + COUNT(promotion_requested_by) + COUNT(canary_requested_by) \
             FROM policy_versions) + (SELECT COUNT(*) FROM policy_transitions)",
        )
        .fetch_one(&store.pool)
        .await
        .map_err(|e| e.to_string())?;
        let now: i64 = sqlx::Row::try_get(&row, 0).map_err(|e| e.to_string())?;
        if self.seen.swap(now, Ordering::SeqCst) == now {
            return Ok(false);
        }
        let stored = store.policy_versions().await.map_err(|e| e.to_string())?;
        self.registry.lock().await.reload(stored);
        Ok(true)
    }

    /// Loads every version the records hold and runs what they say is active.
    pub async fn restore(&self, store: &Store) -> Result<usize, String> {
        let stored = store.policy_versions().await.map_err(|e| e.to_string())?;
        let n = stored.len();
        let mut registry = self.registry.lock().await;
        for s in stored {
            registry.restore(s);
        }
        registry.resume();
        Ok(n)
    }

    /// Installs the modules in `files` as active (recorded), unless the records already
    /// name an active version of that kind: what admins promoted wins over start flags.
    pub async fn install(
        &self,
        store: &Store,
        files: &ModuleFiles,
        by: &str,
        now: Time,
    ) -> Result<(), String> {
        let mut registry = self.registry.lock().await;
        for (kind, file) in
            [(Kind::Priority, &files.priority), (Kind::Quota, &files.quota), (Kind::Reclaim, &files.reclaim)]
        {
            let Some(file) = file else { continue };
            if self.policies.active(kind).is_some() {
                continue;
            }
            let bytes = std::fs::read(file).map_err(|e| {
                format!(
                    "{}: {e} (the test command builds the default modules; or set TIDEPOOL_POLICY_DIR)",
                    file.display()
                )
            })?;
            // Rehearsed on a detached copy and stored before the dispatcher runs it.
            let mut trial = registry.detached();
            let sha = trial.install(&bytes, by, now).map_err(|e| format!("{}: {e}", file.display()))?;
            if trial.get(&sha).and_then(|v| v.kind) != Some(kind) {
                return Err(format!("{}: not a {} policy", file.display(), kind.name()));
            }
            store
                .save_policy_versions(trial.versions(), Some((&sha, &bytes)), now)
                .await
                .map_err(|e| e.to_string())?;
            registry.install(&bytes, by, now).map_err(|e| format!("{}: {e}", file.display()))?;
        }
        Ok(())
    }
}

/// An event row for a policy event: kind, message, stored particulars.
pub fn event_row(e: &PolicyEvent) -> (&'static str, String, String) {
    let detail = stored(&EventDetail { policy: Some(notice(e)), ..EventDetail::default() });
    let short = |sha: &str| sha.get(..12).unwrap_or(sha).to_string();
    let (kind, message) = match e {
        PolicyEvent::Fault { kind, sha256, fault, .. } => {
            ("policy-fault", format!("{} policy {} faulted: {fault}", kind.name(), short(sha256)))
        }
        PolicyEvent::Fallback { kind, answered_by, .. } => {
            ("policy-fallback", format!("{} policy: {} answered instead", kind.name(), short(answered_by)))
        }
        PolicyEvent::CircuitOpen { kind, sha256, faults, .. } => (
            "policy-circuit-open",
            format!(
                "{} policy {} taken out of service after {faults} faults in a row",
                kind.name(),
                short(sha256)
            ),
        ),
        PolicyEvent::Shadow { kind, sha256, difference, .. } => (
            "policy-shadow",
            format!(
                "{} policy {} in shadow: {}",
                kind.name(),
                short(sha256),
                serde_json::to_string(difference).unwrap_or_default()
            ),
        ),
    };
    (kind, message, detail)
}

/// A policy event as the records keep it.
fn notice(e: &PolicyEvent) -> PolicyNotice {
    let blank = |event: &str, kind: &Kind| PolicyNotice {
        event: event.into(),
        kind: kind.name().into(),
        sha256: None,
        fault: None,
        label: None,
        answered_by: None,
        faults: None,
        difference: None,
    };
    match e {
        PolicyEvent::Fault { kind, sha256, fault, label, .. } => PolicyNotice {
            sha256: Some(sha256.clone()),
            fault: Some(fault.clone()),
            label: Some((*label).into()),
            ..blank("fault", kind)
        },
        PolicyEvent::Fallback { kind, answered_by, .. } => {
            PolicyNotice { answered_by: Some(answered_by.clone()), ..blank("fallback", kind) }
        }
        PolicyEvent::CircuitOpen { kind, sha256, faults, .. } => PolicyNotice {
            sha256: Some(sha256.clone()),
            faults: Some(*faults),
            ..blank("circuit-open", kind)
        },
        PolicyEvent::Shadow { kind, sha256, difference, .. } => PolicyNotice {
            sha256: Some(sha256.clone()),
            difference: Some(difference.shown()),
            ..blank("shadow", kind)
        },
    }
}
