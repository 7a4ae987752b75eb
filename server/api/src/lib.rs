//! Tidepool's API payloads, one module per area: the shapes the server answers with and
//! the requests it accepts, shared by the server, the web app and the command line so a
//! renamed field fails a build or a test instead of showing "—" somewhere.
//!
//! Types only: serde derives and no I/O, so the crate compiles for wasm32 as well.
//! Responses are read with `deny_unknown_fields` where the shape is closed, so the
//! round-trip test (`server/tests/api_types.rs`) notices any drift.

/// Alerts: the inbox, acknowledgements, the alert webhook and its bodies.
pub mod alerts;
/// Signing in and out, and the signed-in user.
pub mod auth;
/// Configuration changes under two-person review.
pub mod changes;
/// Failover drills and what they measured.
pub mod drills;
/// The error shape every failure answers with.
pub mod errors;
/// Nodes as admins manage them, and node tokens.
pub mod fleet;
/// Research groups.
pub mod groups;
/// Liveness and readiness for load balancers and monitoring.
pub mod health;
/// Submitting, listing and cancelling jobs; the dry run.
pub mod jobs;
/// Time limits by priority class.
pub mod limits;
/// Loans between groups.
pub mod loans;
/// A job's log, in byte ranges.
pub mod logs;
/// Pools, nodes and who holds each GPU.
pub mod nodes;
/// Policy modules: versions, shadow, canary, promotion, rollback.
pub mod policies;
/// Projects and their priority grants.
pub mod projects;
/// Quotas per group, model and category, with their use.
pub mod quotas;
/// A job's dispatch receipt.
pub mod receipt;
/// The event log and the archive.
pub mod records;
/// Replays of a policy version over recorded history, beside the active one.
pub mod replays;
/// The weekly report.
pub mod reports;
/// The monthly, quarterly and yearly reviews.
pub mod reviews;
/// The organisation's settings: time zone, currency, prices.
pub mod settings;
/// Templates: frozen job shapes.
pub mod templates;
/// Usage over time: the busy/idle heatmap and daily GPU-hours.
pub mod usage;
/// Accounts, new groups, passwords.
pub mod users;

pub use auth::{Login, Logout, Refresh, Role, Tokens, User};
pub use changes::{Change, ChangePage, ChangeProposed, ChangeReviewed, QuotaChange, QuotaSetting, Review};
pub use errors::{ErrorBody, ErrorDetail};
pub use fleet::{
    IssuedNodeToken, NewNode, NewNodeToken, NodeAdded, NodeEdit, NodeEdited, NodeToken, NodeTokenList,
};
pub use groups::{Group, GroupPage};
pub use jobs::{Cancelled, DryRun, JobPage, JobRow, JobState, Submit, Submitted};
pub use loans::{Decision, Loan, LoanChanged, LoanPage, NewLoan};
pub use logs::LogRange;
pub use nodes::{GpuHolder, Node, NodesView, Pool, PoolsView};
pub use policies::{
    Approval, CanaryRequest, CanaryRequested, KindVersions, PolicyApproval, PolicyKind, PolicyList,
    PolicyMoved, PolicyState, PolicyVersion, PromotionRequested, Rollback, RolledBack, Transition, Uploaded,
};
pub use projects::{NewProject, Project, ProjectCreated, ProjectPage, Renew, Renewed};
pub use quotas::{Quota, QuotasView};
pub use receipt::{Event, Receipt, WaitSpan};
pub use records::{ArchivePage, ArchivedJob, EventDetail, EventPage, LoggedEvent};
pub use replays::{Replay, ReplayFigures, ReplayList, ReplayRequest, ReplayShare, ReplayWaits};
pub use templates::{
    NewTemplate, Template, TemplateCreated, TemplateGrant, TemplateGranted, TemplatePage, TemplateRetire,
    TemplateRetired,
};
pub use users::{NewGroup, NewPassword, NewUser, UserCreated, UserPage, UserRow};
