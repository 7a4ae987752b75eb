//! What the OpenAPI document says of each route beyond [`ROUTES`](super::ROUTES): its
//! operation id, the `tidepool-api` type of its request and of its answer, its success
//! status, the errors only it can answer, and its query parameters. The document's tests
//! fail when a route has no entry here, or an entry names no route.

use schemars::generate::SchemaGenerator;
use schemars::{JsonSchema, Schema};
use serde_json::Value;
use tidepool_api as api;

use super::examples as ex;
use crate::fleet::protocol as agent;

/// The schema of a type, as a `$ref` into `components/schemas`.
pub type SchemaFn = fn(&mut SchemaGenerator) -> Schema;

fn s<T: JsonSchema>(g: &mut SchemaGenerator) -> Schema {
    g.subschema_for::<T>()
}

/// This document: an object, described by the OpenAPI 3.1 specification itself.
fn document_schema(_: &mut SchemaGenerator) -> Schema {
    schemars::json_schema!({ "type": "object", "description": "An OpenAPI 3.1 document" })
}

/// A query parameter of one route.
pub struct Param {
    pub name: &'static str,
    /// `integer`, `string` or `boolean`.
    pub ty: &'static str,
    pub required: bool,
    pub description: &'static str,
}

const fn q(name: &'static str, ty: &'static str, description: &'static str) -> Param {
    Param { name, ty, required: false, description }
}

/// One operation.
pub struct Op {
    pub method: &'static str,
    pub path: &'static str,
    pub id: &'static str,
    /// A JSON body's type, and an example of it.
    pub request: Option<(SchemaFn, fn() -> Value)>,
    /// The body may be left out (signing out with the bearer alone).
    pub optional_body: bool,
    pub status: u16,
    /// The success answer's type; none: no content (204).
    pub answer: Option<SchemaFn>,
    /// Errors beyond those its access, body, path and query imply.
    pub errors: &'static [u16],
    /// Takes `limit`, `after` and `before`.
    pub paged: bool,
    pub query: &'static [Param],
    /// The success answer's media type.
    pub media: &'static str,
}

const fn op(method: &'static str, path: &'static str, id: &'static str, status: u16, answer: SchemaFn) -> Op {
    Op {
        method,
        path,
        id,
        request: None,
        optional_body: false,
        status,
        answer: Some(answer),
        errors: &[],
        paged: false,
        query: &[],
        media: "application/json",
    }
}

impl Op {
    const fn body(self, schema: SchemaFn, example: fn() -> Value) -> Op {
        Op { request: Some((schema, example)), ..self }
    }
    const fn errors(self, errors: &'static [u16]) -> Op {
        Op { errors, ..self }
    }
    const fn paged(self, query: &'static [Param]) -> Op {
        Op { paged: true, query, ..self }
    }
    const fn query(self, query: &'static [Param]) -> Op {
        Op { query, ..self }
    }
    const fn optional_body(self) -> Op {
        Op { optional_body: true, ..self }
    }
    /// The answer is not JSON (a CSV download, the metrics' exposition format).
    const fn media(self, media: &'static str) -> Op {
        Op { media, ..self }
    }
    const fn empty(self) -> Op {
        Op { answer: None, ..self }
    }
}

/// Every operation, in the order of [`ROUTES`](super::ROUTES).
pub const OPS: &[Op] = &[
    op("get", "/api/openapi.json", "openapi", 200, document_schema),
    op("post", "/api/auth/login", "login", 200, s::<api::Tokens>)
        .body(s::<api::Login>, ex::login)
        .errors(&[401, 429]),
    op("post", "/api/auth/refresh", "refresh", 200, s::<api::Tokens>)
        .body(s::<api::Refresh>, ex::refresh)
        .errors(&[401]),
    op("post", "/api/auth/logout", "logout", 204, s::<()>)
        .body(s::<api::Logout>, ex::logout)
        .optional_body()
        .errors(&[401])
        .empty(),
    op("post", "/api/auth/password", "changePassword", 204, s::<()>)
        .body(s::<api::NewPassword>, ex::new_password)
        .errors(&[429])
        .empty(),
    op("get", "/api/me", "me", 200, s::<api::User>),
    op("get", "/api/users", "listUsers", 200, s::<api::UserPage>).paged(&[]),
    op("post", "/api/users", "createUser", 201, s::<api::UserCreated>)
        .body(s::<api::NewUser>, ex::new_user)
        .errors(&[409]),
    op("get", "/api/groups", "listGroups", 200, s::<api::GroupPage>).paged(&[]),
    op("post", "/api/groups", "createGroup", 201, s::<api::Group>)
        .body(s::<api::NewGroup>, ex::new_group)
        .errors(&[409]),
    op("get", "/api/jobs", "listJobs", 200, s::<api::JobPage>).paged(&[
        q(
            "state",
            "string",
            "Only jobs in this state: pending, running, succeeded, failed, timed-out, cancelled",
        ),
        q("group", "string", "Only this group's jobs"),
        q("mine", "boolean", "Only the caller's own submissions"),
    ]),
    op("post", "/api/jobs", "submitJob", 201, s::<api::Submitted>).body(s::<api::Submit>, ex::submit),
    op("post", "/api/jobs/dry-run", "dryRun", 200, s::<api::DryRun>)
        .body(s::<api::Submit>, ex::submit)
        .errors(&[429]),
    op("get", "/api/jobs/{id}", "jobReceipt", 200, s::<api::Receipt>),
    op("post", "/api/jobs/{id}/cancel", "cancelJob", 200, s::<api::Cancelled>).errors(&[409]),
    op("get", "/api/jobs/{id}/log", "jobLog", 200, s::<api::LogRange>).query(&[
        q("offset", "integer", "Where to start, in bytes (a `next_offset` from an earlier read)"),
        q("limit", "integer", "At most this many bytes (up to 1 MiB)"),
        q("follow_s", "integer", "With nothing past `offset` yet, wait up to this many seconds (at most 25)"),
    ]),
    op("get", "/api/projects", "listProjects", 200, s::<api::ProjectPage>).paged(&[]),
    op("post", "/api/projects", "createProject", 201, s::<api::ProjectCreated>)
        .body(s::<api::NewProject>, ex::new_project)
        .errors(&[409]),
    op("post", "/api/projects/{id}/renew", "renewProject", 200, s::<api::Renewed>)
        .body(s::<api::Renew>, ex::renew),
    op("get", "/api/templates", "listTemplates", 200, s::<api::TemplatePage>).paged(&[q(
        "stale_days",
        "integer",
        "Only active templates unused for this many days (T3)",
    )]),
    op("post", "/api/templates", "createTemplate", 201, s::<api::TemplateCreated>)
        .body(s::<api::NewTemplate>, ex::new_template)
        .errors(&[409]),
    op("post", "/api/templates/{id}/grants", "grantTemplate", 201, s::<api::TemplateGranted>)
        .body(s::<api::TemplateGrant>, ex::template_grant)
        .errors(&[409]),
    op("post", "/api/templates/{id}/retire", "retireTemplate", 200, s::<api::TemplateRetired>)
        .body(s::<api::TemplateRetire>, ex::template_retire)
        .errors(&[409]),
    op("get", "/api/loans", "listLoans", 200, s::<api::LoanPage>).paged(&[]),
    op("post", "/api/loans", "createLoan", 201, s::<api::LoanChanged>).body(s::<api::NewLoan>, ex::new_loan),
    op("post", "/api/loans/{id}/approve", "approveLoan", 200, s::<api::LoanChanged>)
        .body(s::<api::Decision>, ex::decision)
        .errors(&[409]),
    op("post", "/api/loans/{id}/reject", "rejectLoan", 200, s::<api::LoanChanged>)
        .body(s::<api::Decision>, ex::decision)
        .errors(&[409]),
    op("post", "/api/loans/{id}/return", "returnLoan", 200, s::<api::LoanChanged>).errors(&[409]),
    op("post", "/api/loans/{id}/reclaim", "reclaimLoan", 200, s::<api::LoanChanged>)
        .body(s::<api::Decision>, ex::decision)
        .errors(&[409]),
    op("get", "/api/quotas", "listQuotas", 200, s::<api::QuotasView>),
    op("put", "/api/quotas", "proposeQuota", 202, s::<api::ChangeProposed>)
        .body(s::<api::QuotaChange>, ex::quota_change),
    op("get", "/api/changes", "listChanges", 200, s::<api::ChangePage>).paged(&[]),
    op("post", "/api/changes/{id}/approve", "approveChange", 200, s::<api::ChangeReviewed>)
        .body(s::<api::Review>, ex::review)
        .errors(&[409]),
    op("post", "/api/changes/{id}/reject", "rejectChange", 200, s::<api::ChangeReviewed>)
        .body(s::<api::Review>, ex::review)
        .errors(&[409]),
    op("get", "/api/nodes", "listNodes", 200, s::<api::NodesView>),
    op("post", "/api/nodes", "addNode", 201, s::<api::NodeAdded>)
        .body(s::<api::NewNode>, ex::new_node)
        .errors(&[409]),
    op("patch", "/api/nodes/{id}", "editNode", 200, s::<api::NodeEdited>)
        .body(s::<api::NodeEdit>, ex::node_edit),
    op("get", "/api/pools", "listPools", 200, s::<api::PoolsView>),
    op("post", "/api/nodes/tokens", "issueNodeToken", 201, s::<api::IssuedNodeToken>)
        .body(s::<api::NewNodeToken>, ex::new_node_token)
        .errors(&[409]),
    op("get", "/api/nodes/tokens", "listNodeTokens", 200, s::<api::NodeTokenList>),
    op("post", "/api/nodes/tokens/{id}/revoke", "revokeNodeToken", 200, s::<api::NodeToken>),
    op("post", "/api/agent/register", "agentRegister", 200, s::<agent::Registered>)
        .body(s::<agent::Register>, ex::register),
    op("post", "/api/agent/sync", "agentSync", 200, s::<agent::Orders>)
        .body(s::<agent::Report>, ex::report)
        .errors(&[409]),
    op("get", "/api/events", "listEvents", 200, s::<api::EventPage>).paged(&[
        q("kind", "string", "Only events of this kind"),
        q("job", "integer", "Only events about this job"),
        q("actor", "string", "Only events by this actor"),
    ]),
    op("get", "/api/archive", "listArchive", 200, s::<api::ArchivePage>).paged(&[
        q("group", "string", "Only this group's jobs"),
        q("year", "integer", "Only jobs submitted in this year (1900-9999)"),
        q("tag", "string", "Only jobs with this tag"),
    ]),
    op("get", "/api/policies", "listPolicies", 200, s::<api::PolicyList>),
    op("post", "/api/policies", "uploadPolicy", 201, s::<api::Uploaded>)
        .query(&[Param { name: "note", ty: "string", required: true, description: "What changed (A3)" }])
        .errors(&[409]),
    op("post", "/api/policies/{sha256}/shadow", "shadowPolicy", 200, s::<api::PolicyMoved>).errors(&[409]),
    op("post", "/api/policies/{sha256}/canary", "canaryPolicy", 202, s::<api::CanaryRequested>)
        .body(s::<api::CanaryRequest>, ex::canary)
        .errors(&[409]),
    op("post", "/api/policies/{sha256}/promote", "promotePolicy", 202, s::<api::PromotionRequested>)
        .errors(&[409]),
    op("post", "/api/policies/{sha256}/approve", "approvePolicy", 200, s::<api::PolicyMoved>)
        .body(s::<api::PolicyApproval>, ex::policy_approval)
        .errors(&[409]),
    op("post", "/api/policies/{sha256}/replays", "replayPolicy", 201, s::<api::Replay>)
        .body(s::<api::ReplayRequest>, ex::replay)
        .errors(&[409]),
    op("get", "/api/policies/{sha256}/replays", "listReplays", 200, s::<api::ReplayList>),
    op("post", "/api/policies/rollback", "rollbackPolicy", 200, s::<api::RolledBack>)
        .body(s::<api::Rollback>, ex::rollback)
        .errors(&[409]),
    op("get", "/api/usage", "usageCurves", 200, s::<api::usage::UsageCurves>).query(&[
        q("from", "integer", "Unix seconds; default: four weeks before `to`"),
        q("to", "integer", "Unix seconds; default and most: the end of the rolled-up history"),
        q("group", "string", "Only this group (members and managers: their own)"),
        q("pool", "string", "Only this pool"),
    ]),
    op("get", "/api/settings", "getSettings", 200, s::<api::settings::OrgSettings>),
    op("put", "/api/settings", "putSettings", 200, s::<api::settings::OrgSettings>)
        .body(s::<api::settings::OrgSettings>, ex::settings),
    op("get", "/api/settings/limits", "getTimeLimits", 200, s::<api::limits::ClassLimits>),
    op("put", "/api/settings/limits", "putTimeLimits", 200, s::<api::limits::ClassLimits>)
        .body(s::<api::limits::ClassLimits>, ex::limits),
    op("get", "/api/reports", "listReports", 200, s::<api::reports::FrozenWeeks>),
    op("get", "/api/reports/weekly", "weeklyReport", 200, s::<api::reports::WeeklyReport>).query(WEEK_QUERY),
    op("get", "/api/reports/weekly.csv", "weeklyReportCsv", 200, s::<String>)
        .query(WEEK_QUERY)
        .media("text/csv"),
    op("get", "/api/alerts", "listAlerts", 200, s::<api::alerts::Inbox>).query(&[q(
        "unread",
        "boolean",
        "Only the alerts not read yet",
    )]),
    op("post", "/api/alerts/{id}/read", "readAlert", 200, s::<api::alerts::Alert>),
    op("post", "/api/alerts/{id}/ack", "acknowledgeAlert", 200, s::<api::alerts::Alert>),
    op("get", "/api/alerts/settings", "getAlertSettings", 200, s::<api::alerts::AlertSettings>),
    op("get", "/api/drills", "listDrills", 200, s::<api::drills::DrillList>),
    op("put", "/api/alerts/settings", "putAlertSettings", 200, s::<api::alerts::AlertSettings>)
        .body(s::<api::alerts::AlertSettings>, ex::alert_settings),
    op("get", "/api/reviews/quotas", "quotaReview", 200, s::<api::reviews::QuotaReview>).query(MONTH_QUERY),
    op(
        "post",
        "/api/reviews/quotas/propose",
        "proposeSuggestions",
        202,
        s::<api::reviews::SuggestionsProposed>,
    )
    .body(s::<api::reviews::ProposeSuggestions>, ex::propose_suggestions),
    op("get", "/api/reviews/idle", "idleReview", 200, s::<api::reviews::IdleReview>).query(MONTH_QUERY),
    op("get", "/api/reviews/templates", "templateReview", 200, s::<api::reviews::TemplateReview>)
        .query(QUARTER_QUERY),
    op("get", "/api/reviews/rules", "rulesReview", 200, s::<api::reviews::RulesReview>).query(YEAR_QUERY),
    op("get", "/metrics", "metrics", 200, s::<String>).media("text/plain"),
    op("get", "/healthz", "healthz", 200, s::<api::health::Alive>),
    op("get", "/readyz", "readyz", 200, s::<api::health::Readiness>).errors(&[503]),
];

const QUARTER_QUERY: &[Param] =
    &[q("quarter", "string", "Quarter of the organisation's time zone, 2026-Q4; none: this quarter")];

const YEAR_QUERY: &[Param] =
    &[q("year", "integer", "Year of the organisation's time zone, 2026; none: this year")];

const MONTH_QUERY: &[Param] =
    &[q("month", "string", "Month of the organisation's time zone, 2026-11; none: this month")];

const WEEK_QUERY: &[Param] = &[
    q("group", "string", "The group reported on (one's own; admins: any); none: the organisation"),
    q("week", "string", "ISO week of the organisation's time zone, 2026-W48; none: the current week"),
];
