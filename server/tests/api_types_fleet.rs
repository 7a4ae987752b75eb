//! Issue 11: nodes, node tokens, the agent protocol and policy modules through the real
//! router, on both engines: every answer reads back as its api type (or the agent
//! protocol's) field for field, and every request is sent as one. MISSION V1, O1, A3, B2.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use common::typed::{NONE, send, typed};
use tidepool::fleet::protocol::{
    Fence, Finished, GpuInfo, GpuSample, Orders, Outcome, Register, Registered, Report,
};
use tidepool_api::*;

#[tokio::test]
async fn nodes_tokens_and_the_agent_protocol_read_as_their_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let node = NewNode {
            name: "by-hand".into(),
            pool: "main".into(),
            model: "A100-80G".into(),
            gpus: 8,
            nvlink_group: Some(4),
        };
        let added: NodeAdded =
            send(&app, "POST", "/api/nodes", &admin, Some(&node), StatusCode::CREATED).await;
        let edit = NodeEdit { pool: Some("spare".into()), healthy: Some(false) };
        let path = format!("/api/nodes/{}", added.id);
        let edited: NodeEdited = send(&app, "PATCH", &path, &admin, Some(&edit), StatusCode::OK).await;
        assert_eq!(edited.id, added.id);
        let pools: PoolsView = send(&app, "GET", "/api/pools", &admin, NONE, StatusCode::OK).await;
        assert!(pools.pools.iter().any(|p| p.pool == "spare" && p.healthy_nodes == 0), "{engine}");

        let ask = NewNodeToken { node: "lab-1".into(), pool: Some("lab".into()), expires_in_s: Some(3600) };
        let issued: IssuedNodeToken =
            send(&app, "POST", "/api/nodes/tokens", &admin, Some(&ask), StatusCode::CREATED).await;
        assert!(issued.expires_at.is_some() && !issued.token.is_empty(), "{engine}");

        // The agent registers and syncs with the protocol's own types.
        let gpu = |index| GpuInfo {
            index,
            uuid: format!("GPU-{index}"),
            model: "A100-80G".into(),
            memory_total_mb: 81_920,
        };
        let register = Register { pool: None, gpus: vec![gpu(0), gpu(1)] };
        let registered: Registered =
            send(&app, "POST", "/api/agent/register", &issued.token, Some(&register), StatusCode::OK).await;
        assert_eq!(registered.name, "lab-1");
        let stray = Fence { allocation: 999_999, epoch: 1 };
        let gone = Finished {
            fence: Fence { allocation: 999_998, epoch: 1 },
            outcome: Outcome::Exited,
            exit_code: Some(0),
            grace_used_ms: None,
        };
        let report = Report {
            gpus: vec![GpuSample { index: 0, util_pct: 5, memory_used_mb: 10 }],
            running: vec![stray],
            finished: vec![gone],
            ..Report::default()
        };
        let orders: Orders =
            send(&app, "POST", "/api/agent/sync", &issued.token, Some(&report), StatusCode::OK).await;
        assert!(orders.stop.iter().any(|s| s.fence == stray), "{engine}: a stray process is stopped");
        assert!(
            orders.refused.iter().any(|r| r.allocation == 999_998),
            "{engine}: an unknown end is refused"
        );

        let list: NodeTokenList = send(&app, "GET", "/api/nodes/tokens", &admin, NONE, StatusCode::OK).await;
        let listed = list.tokens.iter().find(|t| t.id == issued.id).expect("listed");
        assert!(listed.last_used_at.is_some() && listed.revoked_at.is_none(), "{engine}: {listed:?}");
        let path = format!("/api/nodes/tokens/{}/revoke", issued.id);
        let revoked: NodeToken = send(&app, "POST", &path, &admin, NONE, StatusCode::OK).await;
        assert!(revoked.revoked_at.is_some());
    }
}

#[tokio::test]
async fn policy_versions_and_their_reviews_read_as_the_api_types() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        let upload = |name: &'static str| {
            let (app, admin) = (&app, &admin);
            async move {
                let (s, v) =
                    app.upload("/api/policies?note=trial", admin, common::policies::bytes(name)).await;
                assert_eq!(s, StatusCode::CREATED, "{v}");
                typed::<Uploaded>(&v)
            }
        };
        let fifo = upload("fifo").await;
        assert_eq!((fifo.kind, &fifo.state), (Some(PolicyKind::Priority), &PolicyState::Validated));
        let sha = &fifo.sha256;
        let moved: PolicyMoved =
            send(&app, "POST", &format!("/api/policies/{sha}/shadow"), &admin, NONE, StatusCode::OK).await;
        assert_eq!(moved.state, "shadow");
        let canary = CanaryRequest { groups: vec!["vision".into()] };
        let path = format!("/api/policies/{sha}/canary");
        let asked: CanaryRequested =
            send(&app, "POST", &path, &admin, Some(&canary), StatusCode::ACCEPTED).await;
        assert_eq!(asked.canary_requested_by, "admin");
        let approval = PolicyApproval { note: "reviewed".into(), action: Some(Approval::Canary) };
        let path = format!("/api/policies/{sha}/approve");
        let moved: PolicyMoved = send(&app, "POST", &path, &admin2, Some(&approval), StatusCode::OK).await;
        assert_eq!(moved.state, "canary");

        let priority = upload("priority").await;
        let sha = &priority.sha256;
        let path = format!("/api/policies/{sha}/promote");
        let asked: PromotionRequested = send(&app, "POST", &path, &admin, NONE, StatusCode::ACCEPTED).await;
        assert_eq!(asked.promotion_requested_by, "admin");
        let approval = PolicyApproval { note: "reviewed".into(), action: None };
        let path = format!("/api/policies/{sha}/approve");
        let moved: PolicyMoved = send(&app, "POST", &path, &admin2, Some(&approval), StatusCode::OK).await;
        assert_eq!(moved.state, "active");

        let list: PolicyList = send(&app, "GET", "/api/policies", &admin, NONE, StatusCode::OK).await;
        let kind = &list.kinds["priority"];
        assert_eq!(kind.active.as_deref(), Some(sha.as_str()), "{engine}");
        let canaried = kind.versions.iter().find(|v| v.sha256 == fifo.sha256).expect("listed");
        assert!(
            matches!(&canaried.state, PolicyState::Canary { groups } if groups.len() == 1),
            "{canaried:?}"
        );
        assert!(canaried.history.len() >= 3, "{engine}: validated, shadow, canary: {:?}", canaried.history);

        // The canary is promoted in turn; rolling back brings the first promotion back.
        let path = format!("/api/policies/{}/promote", fifo.sha256);
        let _: PromotionRequested = send(&app, "POST", &path, &admin, NONE, StatusCode::ACCEPTED).await;
        let approval = PolicyApproval { note: "canary went well".into(), action: Some(Approval::Promotion) };
        let path = format!("/api/policies/{}/approve", fifo.sha256);
        let moved: PolicyMoved = send(&app, "POST", &path, &admin2, Some(&approval), StatusCode::OK).await;
        assert_eq!(moved.state, "active");
        let back = Rollback { kind: PolicyKind::Priority, note: "starves small jobs".into() };
        let rolled: RolledBack =
            send(&app, "POST", "/api/policies/rollback", &admin, Some(&back), StatusCode::OK).await;
        assert_eq!(rolled.kind, PolicyKind::Priority);
        assert_eq!(rolled.active.as_deref(), Some(sha.as_str()), "{engine}");
    }
}
