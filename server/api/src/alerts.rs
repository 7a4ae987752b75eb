//! Alerts (O2): the inbox each person reads (`GET /api/alerts`), acknowledging and
//! marking read, the alert webhook's setting, and the two bodies the webhook is sent:
//! the plain JSON notice and the `{"text": …}` message chat tools accept.

use serde::{Deserialize, Serialize};

/// How urgent an alert is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum Severity {
    Info,
    Warning,
    Critical,
}

impl Severity {
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Info => "info",
            Severity::Warning => "warning",
            Severity::Critical => "critical",
        }
    }
}

/// One alert as a recipient sees it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Alert {
    pub id: i64,
    /// The rule that raised it: budget, grant-lapsing, policy-fault, policy-circuit-open,
    /// node-lost, idle-notice, idle-reclaim, wait-spike, pool-idle.
    pub rule: String,
    pub severity: Severity,
    /// The group it concerns; none: the organisation's (admins).
    pub group: Option<String>,
    /// What it is about: a quota, a project, a node, a pool, a policy, a job.
    pub subject: String,
    pub message: String,
    pub opened_at: i64,
    /// The last evaluation that found its condition true.
    pub last_seen_at: i64,
    /// When its condition ended; none while open.
    pub resolved_at: Option<i64>,
    /// When a recipient acknowledged it (no more repeats), and who.
    pub acknowledged_at: Option<i64>,
    pub acknowledged_by: Option<String>,
    /// Whether the caller has read it (acknowledged counts as read).
    pub read: bool,
}

/// The caller's inbox, newest first.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct Inbox {
    pub alerts: Vec<Alert>,
    /// Alerts the caller has neither read nor seen acknowledged (the badge's number).
    pub unread: i64,
}

/// The body the alert webhook is sent.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(rename_all = "lowercase")]
pub enum WebhookShape {
    /// An [`AlertNotice`].
    Json,
    /// A [`ChatMessage`]: Slack's and Mattermost's incoming webhooks take it.
    Chat,
}

/// Where alerts are posted (`GET/PUT /api/alerts/settings`, admins).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AlertSettings {
    /// An http(s) URL; none: alerts are not posted anywhere.
    pub webhook: Option<String>,
    pub shape: WebhookShape,
}

/// The plain JSON webhook body: the alert, and whether this is a reminder of an alert
/// nobody acknowledged yet.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct AlertNotice {
    pub id: i64,
    pub rule: String,
    pub severity: Severity,
    pub group: Option<String>,
    pub subject: String,
    pub message: String,
    pub opened_at: i64,
    pub reminder: bool,
}

/// The chat-shaped webhook body.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(deny_unknown_fields)]
pub struct ChatMessage {
    pub text: String,
}
