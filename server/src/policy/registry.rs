//! Policy versions and their life: uploaded → validated → shadow | canary(groups) →
//! active → retired (A3, O1, B2). Versions are content-addressed (sha256) and carry their
//! author and change note; every transition is kept with who made it and why. Promotion
//! and canaries (a policy change for some groups is still a change, B2) take two people:
//! one asks, a different one approves, and the version's author never approves it.
//! Rollback is one call. The server persists what this holds before applying it
//! ([`Registry::detached`] rehearses a change); the dispatcher's `WasmPolicies` follows it.

use std::sync::Arc;

use tidepool_core::{GroupId, Time};

use crate::policy::version::state_name;
pub use crate::policy::version::{Approval, State, Stored, Transition, Version};
use crate::policy::{Kind, Module, Runtime, WasmPolicies, conformance};

#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum RegistryError {
    #[error("no policy version {0}")]
    Unknown(String),
    #[error("version {sha256} is {state}; {action} needs a validated version")]
    NotRunnable { sha256: String, state: String, action: &'static str },
    #[error("promotion of {0} was not requested")]
    NotRequested(String),
    #[error("{0} asked for this; a second person must approve it")]
    SamePerson(String),
    #[error("{0} wrote this version; someone else must approve it")]
    Author(String),
    #[error("both a canary and a promotion of {0} wait for approval: say which (`action`)")]
    Ambiguous(String),
    #[error("no earlier {0} version to roll back to")]
    NothingToRollBack(&'static str),
}

/// All versions, and the dispatcher's policies that follow the registry's decisions.
pub struct Registry {
    runtime: Arc<Runtime>,
    policies: Arc<WasmPolicies>,
    versions: Vec<Version>,
}

impl Registry {
    pub fn new(runtime: Arc<Runtime>, policies: Arc<WasmPolicies>) -> Registry {
        Registry { runtime, policies, versions: Vec::new() }
    }

    pub fn versions(&self) -> &[Version] {
        &self.versions
    }

    /// A copy whose changes reach no dispatcher: a change is made here first, stored, and
    /// only then made on the real registry, so what runs never gets ahead of the records.
    pub fn detached(&self) -> Registry {
        Registry {
            runtime: self.runtime.clone(),
            policies: Arc::new(WasmPolicies::new(self.runtime.clone())),
            versions: self.versions.clone(),
        }
    }

    pub fn get(&self, sha256: &str) -> Option<&Version> {
        self.versions.iter().find(|v| v.sha256 == sha256)
    }

    /// Adds a version (or returns the one with the same content) and validates it.
    pub fn upload(&mut self, bytes: &[u8], author: &str, note: &str, now: Time) -> &Version {
        let sha256 = crate::policy::runtime::sha256_hex(bytes);
        if let Some(i) = self.versions.iter().position(|v| v.sha256 == sha256) {
            return &self.versions[i];
        }
        let (state, module) = match self.runtime.load(bytes) {
            Ok(module) => match conformance::run(&self.runtime, &module) {
                errors if errors.is_empty() => (State::Validated, Some(module)),
                errors => (State::Rejected { errors }, None),
            },
            Err(errors) => (State::Rejected { errors }, None),
        };
        let history =
            vec![Transition { to: state.clone(), by: author.into(), at: now, note: "uploaded".into() }];
        self.versions.push(Version {
            sha256,
            kind: module.as_ref().map(|m| m.kind),
            interface: module.as_ref().map(|m| m.interface.clone()),
            author: author.into(),
            note: note.into(),
            state,
            promotion_requested_by: None,
            canary_requested_by: None,
            canary_requested: None,
            history,
            module,
        });
        self.versions.last().expect("just pushed")
    }

    fn index(&self, sha256: &str) -> Result<usize, RegistryError> {
        self.versions
            .iter()
            .position(|v| v.sha256 == sha256)
            .ok_or_else(|| RegistryError::Unknown(sha256.into()))
    }

    fn runnable(&self, i: usize, action: &'static str) -> Result<Arc<Module>, RegistryError> {
        let v = &self.versions[i];
        match (&v.state, &v.module) {
            (State::Rejected { .. }, _) | (_, None) => Err(RegistryError::NotRunnable {
                sha256: v.sha256.clone(),
                state: state_name(&v.state),
                action,
            }),
            (_, Some(m)) => Ok(m.clone()),
        }
    }

    fn move_to(&mut self, i: usize, to: State, by: &str, at: Time, note: &str) {
        let v = &mut self.versions[i];
        v.state = to.clone();
        v.history.push(Transition { to, by: by.into(), at, note: note.into() });
    }

    /// Sets aside any other version of `kind` in `state` (one shadow, one canary per kind).
    fn demote_others(&mut self, kind: Kind, same: impl Fn(&State) -> bool, keep: usize, by: &str, at: Time) {
        let others: Vec<usize> = (0..self.versions.len())
            .filter(|&j| j != keep && self.versions[j].kind == Some(kind) && same(&self.versions[j].state))
            .collect();
        for j in others {
            self.move_to(j, State::Validated, by, at, "replaced");
        }
    }

    pub fn shadow(&mut self, sha256: &str, by: &str, at: Time) -> Result<(), RegistryError> {
        let i = self.index(sha256)?;
        let module = self.runnable(i, "shadow")?;
        self.demote_others(module.kind, |s| *s == State::Shadow, i, by, at);
        self.policies.set_shadow(module.kind, Some(module));
        self.move_to(i, State::Shadow, by, at, "shadow beside the active version");
        Ok(())
    }

    /// First step of a canary: someone asks for these groups.
    pub fn request_canary(
        &mut self,
        sha256: &str,
        groups: Vec<GroupId>,
        by: &str,
    ) -> Result<(), RegistryError> {
        let i = self.index(sha256)?;
        self.runnable(i, "canary")?;
        self.versions[i].canary_requested_by = Some(by.into());
        self.versions[i].canary_requested = Some(groups);
        Ok(())
    }

    /// First step of promotion: someone asks.
    pub fn request_promotion(&mut self, sha256: &str, by: &str) -> Result<(), RegistryError> {
        let i = self.index(sha256)?;
        self.runnable(i, "promotion")?;
        self.versions[i].promotion_requested_by = Some(by.into());
        Ok(())
    }

    /// Second step: a person who neither asked nor wrote the version approves what was
    /// asked (`what`, or the one request waiting).
    pub fn approve(
        &mut self,
        sha256: &str,
        what: Option<Approval>,
        by: &str,
        at: Time,
        note: &str,
    ) -> Result<Approval, RegistryError> {
        let i = self.index(sha256)?;
        let v = &self.versions[i];
        let what = match (what, v.canary_requested_by.is_some(), v.promotion_requested_by.is_some()) {
            (Some(w), ..) => w,
            (None, true, true) => return Err(RegistryError::Ambiguous(sha256.into())),
            (None, true, false) => Approval::Canary,
            (None, false, _) => Approval::Promotion,
        };
        let asker = match what {
            Approval::Canary => &v.canary_requested_by,
            Approval::Promotion => &v.promotion_requested_by,
        };
        match asker {
            None => return Err(RegistryError::NotRequested(sha256.into())),
            Some(asker) if asker == by => return Err(RegistryError::SamePerson(asker.clone())),
            Some(_) if v.author == by => return Err(RegistryError::Author(by.into())),
            Some(_) => {}
        }
        match what {
            Approval::Canary => {
                let groups = self.versions[i].canary_requested.take().unwrap_or_default();
                self.versions[i].canary_requested_by = None;
                self.canary(i, groups, by, at, note)?;
            }
            Approval::Promotion => self.promote(i, by, at, note)?,
        }
        Ok(what)
    }

    fn canary(
        &mut self,
        i: usize,
        groups: Vec<GroupId>,
        by: &str,
        at: Time,
        note: &str,
    ) -> Result<(), RegistryError> {
        let module = self.runnable(i, "canary")?;
        self.demote_others(module.kind, |s| matches!(s, State::Canary { .. }), i, by, at);
        self.policies.set_canary(module.kind, Some((module, groups.clone())));
        let note = if note.is_empty() { "canary for chosen groups" } else { note };
        self.move_to(i, State::Canary { groups }, by, at, note);
        Ok(())
    }

    /// The version becomes active.
    fn promote(&mut self, i: usize, by: &str, at: Time, note: &str) -> Result<(), RegistryError> {
        let module = self.runnable(i, "promotion")?;
        let kind = module.kind;
        // The version it replaces stays the dispatcher's fallback and rollback target.
        self.demote_to_retired(kind, i, by, at, "replaced by a newer version");
        if matches!(self.versions[i].state, State::Shadow) {
            self.policies.set_shadow(kind, None);
        }
        if matches!(self.versions[i].state, State::Canary { .. }) {
            self.policies.set_canary(kind, None);
        }
        self.policies.activate(module);
        self.versions[i].promotion_requested_by = None;
        self.move_to(i, State::Active, by, at, note);
        Ok(())
    }

    fn demote_to_retired(&mut self, kind: Kind, keep: usize, by: &str, at: Time, note: &str) {
        let active: Vec<usize> = (0..self.versions.len())
            .filter(|&j| {
                j != keep && self.versions[j].kind == Some(kind) && self.versions[j].state == State::Active
            })
            .collect();
        for j in active {
            self.move_to(j, State::Retired, by, at, note);
        }
    }

    /// Back to the version active before the current one, in one call.
    pub fn rollback(&mut self, kind: Kind, by: &str, at: Time, note: &str) -> Result<(), RegistryError> {
        let current = self.versions.iter().position(|v| v.kind == Some(kind) && v.state == State::Active);
        // The most recently retired version that was once active.
        let previous = (0..self.versions.len())
            .filter(|&j| {
                let v = &self.versions[j];
                v.kind == Some(kind)
                    && v.state == State::Retired
                    && v.history.iter().any(|t| t.to == State::Active)
            })
            .max_by_key(|&j| self.versions[j].history.last().map_or(0, |t| t.at));
        let Some(previous) = previous else { return Err(RegistryError::NothingToRollBack(kind.name())) };
        if let Some(c) = current {
            self.move_to(c, State::Retired, by, at, note);
        }
        let module = self.runnable(previous, "rollback")?;
        self.policies.activate(module);
        self.move_to(previous, State::Active, by, at, note);
        Ok(())
    }

    /// Puts back a version the records hold, compiling it again. A version that no longer
    /// loads (an interface this server dropped) keeps its history but cannot run.
    pub fn restore(&mut self, stored: Stored) {
        let sha256 = crate::policy::runtime::sha256_hex(&stored.bytes);
        if self.get(&sha256).is_some() {
            return;
        }
        let module = match stored.state {
            State::Rejected { .. } => None,
            _ => self.runtime.load(&stored.bytes).ok(),
        };
        self.versions.push(Version {
            sha256,
            kind: module.as_ref().map(|m| m.kind),
            interface: module.as_ref().map(|m| m.interface.clone()),
            author: stored.author,
            note: stored.note,
            state: stored.state,
            promotion_requested_by: stored.promotion_requested_by,
            canary_requested_by: stored.canary_requested_by,
            canary_requested: stored.canary_requested,
            history: stored.history,
            module,
        });
    }

    /// Replaces every version with what the records hold now (another server changed
    /// them) and runs what they say.
    pub fn reload(&mut self, stored: Vec<Stored>) {
        self.versions.clear();
        for s in stored {
            self.restore(s);
        }
        self.policies.clear();
        self.resume();
    }

    /// After restoring: the dispatcher's policies take what the records say runs — the
    /// last version retired from active as the fallback, then the active, shadow and
    /// canary versions.
    pub fn resume(&self) {
        let last_at = |v: &Version| v.history.last().map_or(0, |t| t.at);
        for kind in Kind::ALL {
            let of_kind = || self.versions.iter().filter(move |v| v.kind == Some(kind));
            let fallback = of_kind()
                .filter(|v| v.state == State::Retired && v.history.iter().any(|t| t.to == State::Active))
                .max_by_key(|v| last_at(v));
            for v in fallback.into_iter().chain(of_kind().filter(|v| v.state == State::Active)) {
                if let Some(m) = &v.module {
                    self.policies.activate(m.clone());
                }
            }
            for v in of_kind() {
                match (&v.state, &v.module) {
                    (State::Shadow, Some(m)) => self.policies.set_shadow(kind, Some(m.clone())),
                    (State::Canary { groups }, Some(m)) => {
                        self.policies.set_canary(kind, Some((m.clone(), groups.clone())))
                    }
                    _ => {}
                }
            }
        }
    }

    /// Uploads and activates a module without review: the operator's own choice at start
    /// (`serve --policies wasm`), recorded as such. Refused if it does not validate.
    pub fn install(&mut self, bytes: &[u8], by: &str, at: Time) -> Result<String, RegistryError> {
        let sha256 = self.upload(bytes, by, "installed at server start", at).sha256.clone();
        let i = self.index(&sha256)?;
        let module = self.runnable(i, "installation")?;
        if self.versions[i].state == State::Active {
            return Ok(sha256);
        }
        self.demote_to_retired(module.kind, i, by, at, "replaced at server start");
        self.policies.activate(module);
        self.move_to(i, State::Active, by, at, "installed at server start");
        Ok(sha256)
    }

    /// The versions of a kind, newest first, with their transitions (A3).
    pub fn history(&self, kind: Kind) -> Vec<&Version> {
        let mut v: Vec<&Version> = self.versions.iter().filter(|v| v.kind == Some(kind)).collect();
        v.reverse();
        v
    }
}
