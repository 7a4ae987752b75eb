//! The records: the event log (`GET /api/events`, D2) and the archive of finished jobs
//! by group, year and tag (`GET /api/archive`, A2), both newest first, a page at a time.

use serde::{Deserialize, Serialize};

/// One entry of the event log.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct LoggedEvent {
    pub id: i64,
    /// Unix seconds.
    pub at: i64,
    /// `submitted`, `placed`, `loan-approved`, `change-applied`, `node-registered`…
    pub kind: String,
    /// The job it is about, if any.
    pub job: Option<i64>,
    /// Who acted: a user, an agent, or the dispatcher.
    pub actor: Option<String>,
    /// The policy version that decided, when a policy did.
    pub policy: Option<String>,
    /// What happened, in words.
    pub message: String,
    /// Machine-readable particulars; which are present depends on the kind.
    pub detail: EventDetail,
}

/// An event's particulars for tools: every field is optional, and each kind fills the
/// ones it is about (a loan's events name the loan, a placement its slots, a policy
/// fault the module and the fault).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EventDetail {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loan: Option<i64>,
    /// An alert raised, resolved or acknowledged (O2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alert: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub change: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub project: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub template: Option<i64>,
    /// A group's id: the one granted a template, or whose grant lapses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<i64>,
    /// A group's name, where the event names one (the group a template is granted to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group_name: Option<String>,
    /// Unix seconds: when a grant or a node token lapses.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<i64>,
    /// A node's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<i64>,
    /// A node's name, where the event names one before it exists (a node token).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pool: Option<String>,
    /// A node token's id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub allocation: Option<i64>,
    /// GPUs an allocation held, and for how long (seconds).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gpus: Option<i64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_s: Option<i64>,
    /// Why its agent was told to stop it: `preempted`, `cancelled`, `idle`…
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop_reason: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub exit_code: Option<i64>,
    /// From the decision to stop to the GPUs being free, less the job's own grace.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reclaim_latency_ms: Option<i64>,
    /// Where a placed job's GPUs are.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub slots: Option<Vec<PlacedSlot>>,
    /// Why a running job was stopped for another.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub preempted: Option<Preemption>,
    /// What a policy module did: a fault, a fallback, an open circuit, a shadow difference.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub policy: Option<PolicyNotice>,
    /// A failed sign-in and the throttle's counts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sign_in: Option<SignInFailure>,
    /// The organisation's settings before and after a change (A5).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub settings: Option<SettingsChange>,
}

/// A change of the organisation's settings.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SettingsChange {
    pub before: crate::settings::OrgSettings,
    pub after: crate::settings::OrgSettings,
}

/// One node's share of a placement.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PlacedSlot {
    pub node: i64,
    pub node_name: String,
    /// Bit `i` set: GPU `i` of the node.
    pub gpu_mask: i64,
}

/// Why a running job was preempted.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Preemption {
    /// `return-to-lender`, `higher-class`, `loan-ended`, `over-guarantee` (Q4), `over-budget` (Q3)
    /// or `time-share` (a checkpointable peer that has had less GPU time takes a turn).
    pub kind: String,
    /// The job the GPUs went to.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub for_job: Option<i64>,
    /// The loan that ended.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loan: Option<i64>,
}

/// A policy module's notice.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct PolicyNotice {
    /// `fault`, `fallback`, `circuit-open` or `shadow`.
    pub event: String,
    /// `priority`, `quota` or `reclaim`.
    pub kind: String,
    /// The version concerned.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fault: Option<String>,
    /// The call that faulted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub label: Option<String>,
    /// Who answered instead: a version, or the built-in policy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answered_by: Option<String>,
    /// Faults in a row when the circuit opened.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub faults: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub difference: Option<ShadowDifference>,
}

/// How a shadow version decided differently from the active one (O1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ShadowDifference {
    /// `rank-correlation` (priority), `verdicts` (quota) or `victim-overlap` (reclaim).
    pub measure: String,
    /// Jobs (or allocations) compared.
    pub compared: u64,
    /// Spearman's rho of the two orders (1 = same order).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rho: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_choice_same: Option<bool>,
    /// Jobs whose verdict differs, and how many each version admitted.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub differing: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted_by_active: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub admitted_by_shadow: Option<u64>,
    /// Overlap (Jaccard) of the first `k` victims each would preempt.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub k: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub jaccard: Option<f64>,
}

/// A failed sign-in.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct SignInFailure {
    pub username: String,
    pub address: Option<String>,
    /// Failures in the current window, per throttle key (`user:…`, `addr:…`).
    pub counts: Vec<ThrottleCount>,
    /// Further sign-ins refused for this long, when this failure blocked a key.
    pub blocked_s: Option<i64>,
}

/// One throttle key's failures.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ThrottleCount {
    pub key: String,
    pub failures: i64,
}

/// A page of events; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct EventPage {
    pub events: Vec<LoggedEvent>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}

/// A finished job in the archive.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArchivedJob {
    pub id: i64,
    pub name: String,
    pub group: String,
    /// `succeeded`, `failed`, `timed-out` or `cancelled`.
    pub state: String,
    pub class: String,
    pub category: String,
    pub gpus: i64,
    pub model: String,
    /// Unix seconds.
    pub submitted_at: i64,
    pub finished_at: Option<i64>,
    /// GPU-seconds it used.
    pub gpu_s: i64,
    /// Its archive tags, in order.
    pub tags: Vec<String>,
}

/// A page of the archive; `next` goes in `?before=`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ArchivePage {
    pub jobs: Vec<ArchivedJob>,
    /// The cursor of the next page; none on the last.
    pub next: Option<i64>,
}
