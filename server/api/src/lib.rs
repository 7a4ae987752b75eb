//! Tidepool's API payloads, one module per area: the shapes the server answers with and
//! the requests it accepts, shared by the server, the web app and the command line so a
//! renamed field fails a build or a test instead of showing "—" somewhere.
//!
//! Types only: serde derives and no I/O, so the crate compiles for wasm32 as well.
//! Responses are read with `deny_unknown_fields` where the shape is closed, so the
//! round-trip test (`server/tests/api_types.rs`) notices any drift.

/// Signing in and out, and the signed-in user.
pub mod auth;
/// The error shape every failure answers with.
pub mod errors;
/// Research groups.
pub mod groups;
/// Submitting, listing and cancelling jobs; the dry run.
pub mod jobs;
/// Loans between groups.
pub mod loans;
/// A job's log, in byte ranges.
pub mod logs;
/// Pools, nodes and who holds each GPU.
pub mod nodes;
/// Quotas per group, model and category, with their use.
pub mod quotas;
/// A job's dispatch receipt.
pub mod receipt;
/// Templates: frozen job shapes.
pub mod templates;

pub use auth::{Login, Logout, Refresh, Role, Tokens, User};
pub use errors::{ErrorBody, ErrorDetail};
pub use groups::{Group, GroupPage};
pub use jobs::{Cancelled, DryRun, JobPage, JobRow, JobState, Submit, Submitted};
pub use loans::{Decision, Loan, LoanChanged, LoanPage, NewLoan};
pub use logs::LogRange;
pub use nodes::{GpuHolder, Node, NodesView, Pool, PoolsView};
pub use quotas::{Quota, QuotasView};
pub use receipt::{Event, Receipt};
pub use templates::{Template, TemplatePage};
