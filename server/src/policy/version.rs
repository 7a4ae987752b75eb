//! A policy version as the registry and the records hold it: where it is in its life,
//! every transition with who made it and why (A3), and the requests waiting for a second
//! person (B2).

use std::sync::Arc;

use serde::{Deserialize, Serialize};
use tidepool_core::{GroupId, Time};

use crate::policy::{Kind, Module};

/// Where a version is in its life.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "state", rename_all = "kebab-case")]
pub enum State {
    /// Failed validation; kept with the reasons, never runs.
    Rejected { errors: Vec<String> },
    /// Passed validation (compiles, right world and version, imports nothing,
    /// conformance vectors pass).
    Validated,
    /// Runs beside the active version on every cycle; its differences are recorded.
    Shadow,
    /// Decides for these groups only.
    Canary { groups: Vec<GroupId> },
    /// Decides for everyone.
    Active,
    /// Was active, or was set aside.
    Retired,
}

/// One recorded change of state.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Transition {
    pub to: State,
    pub by: String,
    pub at: Time,
    pub note: String,
}

/// A policy version.
#[derive(Clone, Serialize)]
pub struct Version {
    pub sha256: String,
    pub kind: Option<Kind>,
    pub interface: Option<String>,
    pub author: String,
    /// The change that produced this version (A3).
    pub note: String,
    pub state: State,
    /// Who asked for promotion, waiting for a second person's approval (B2).
    pub promotion_requested_by: Option<String>,
    /// Who asked for a canary, and for which groups, waiting for a second person (B2).
    pub canary_requested_by: Option<String>,
    pub canary_requested: Option<Vec<GroupId>>,
    pub history: Vec<Transition>,
    #[serde(skip)]
    pub(crate) module: Option<Arc<Module>>,
}

/// A version as the records keep it, for [`Registry::restore`].
pub struct Stored {
    pub bytes: Vec<u8>,
    pub author: String,
    pub note: String,
    pub state: State,
    pub promotion_requested_by: Option<String>,
    pub canary_requested_by: Option<String>,
    pub canary_requested: Option<Vec<GroupId>>,
    pub history: Vec<Transition>,
}

/// What an approval approves: a canary or a promotion (the API's own type).
pub use tidepool_api::policies::Approval;

impl State {
    /// The state's one-word name, as stored and shown.
    pub fn name(&self) -> &'static str {
        match self {
            State::Rejected { .. } => "rejected",
            State::Validated => "validated",
            State::Shadow => "shadow",
            State::Canary { .. } => "canary",
            State::Active => "active",
            State::Retired => "retired",
        }
    }
}

pub(crate) fn state_name(s: &State) -> String {
    match s {
        State::Rejected { .. } => "rejected",
        State::Validated => "validated",
        State::Shadow => "in shadow",
        State::Canary { .. } => "in canary",
        State::Active => "active",
        State::Retired => "retired",
    }
    .into()
}
