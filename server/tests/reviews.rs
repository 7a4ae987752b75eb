//! The monthly reviews against a known month of the hourly roll-up (Q5, R5): each
//! quota's held p50/p95 and the suggested guarantee, the suggestions proposed as quota
//! changes awaiting a second admin (B2), and the idle review; members see their group's
//! lines only. Both engines.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use sqlx::Row;
use tidepool_api::reviews::{IdleReview, QuotaReview, SuggestionsProposed};

/// 2026-11-01 00:00 UTC.
const NOV: i64 = 1_793_491_200;
const H: i64 = 3600;

async fn november(app: &TestApp) {
    let pool = &app.state.store.pool;
    let vision: i64 =
        sqlx::query("SELECT id FROM groups WHERE name = 'vision'").fetch_one(pool).await.unwrap().get(0);
    // 40 hours of 3 GPUs held, one of them idle: 120 GPU-h held, 40 idle.
    for k in 0..40 {
        sqlx::query(
            "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, \
             util_pct_gpu_s, idle_gpu_s, jobs_started, jobs_finished, wait_s) \
             VALUES ($1, $2, 'east', 'A100-80G', 'training', $3, $3, 0, $4, 0, 0, 0)",
        )
        .bind(NOV + k * H)
        .bind(vision)
        .bind(3 * H)
        .bind(H)
        .execute(pool)
        .await
        .unwrap();
    }
    app.clock.store(NOV + 35 * 24 * H, std::sync::atomic::Ordering::SeqCst);
}

// Q5: over November's 720 hours vision held 3 GPUs in 40 of them: p50 0, p95 (rank 684) 3,
// under half its guarantee of 16, so 3 is suggested; an admin proposes every suggestion,
// each a change awaiting a second admin (B2); a member cannot.
#[tokio::test]
async fn the_quota_review_suggests_the_held_p95_and_proposes_it_for_review() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        november(&app).await;
        let dev = app.token("vision-dev", "demo-password").await;
        let (status, v) = app.call("GET", "/api/reviews/quotas?month=2026-11", Some(&dev), None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: QuotaReview = serde_json::from_value(v).unwrap();
        assert_eq!(r.lines.len(), 1, "{engine}: a member sees their group's lines only");
        let l = &r.lines[0];
        assert_eq!((l.group.as_str(), l.guaranteed, l.held_p50, l.held_p95), ("vision", 16, 0.0, 3.0));
        assert_eq!(l.suggested, Some(3), "{}", l.why);
        let body = r#"{"month":"2026-11"}"#;
        let (status, _) = app.call("POST", "/api/reviews/quotas/propose", Some(&dev), Some(body)).await;
        assert_eq!(status, StatusCode::FORBIDDEN);
        let admin = app.token("admin", "admin-pw").await;
        let (status, v) = app.call("GET", "/api/reviews/quotas?month=2026-11", Some(&admin), None).await;
        assert_eq!(status, StatusCode::OK);
        let all: QuotaReview = serde_json::from_value(v).unwrap();
        let suggested = all.lines.iter().filter(|l| l.suggested.is_some()).count();
        let (status, v) = app.call("POST", "/api/reviews/quotas/propose", Some(&admin), Some(body)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{v}");
        let made: SuggestionsProposed = serde_json::from_value(v).unwrap();
        assert_eq!(made.changes.len(), suggested);
        let (_, v) = app.call("GET", "/api/changes", Some(&admin), None).await;
        let vision = v["changes"]
            .as_array()
            .unwrap()
            .iter()
            .find(|c| c["change"]["group"] == "vision")
            .expect("vision's proposal")
            .clone();
        assert_eq!(
            (vision["state"].as_str(), vision["change"]["guaranteed"].as_i64()),
            (Some("proposed"), Some(3))
        );
        let (status, _) = app.call("GET", "/api/reviews/quotas?month=2026-13", Some(&admin), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
    }
}

// R5: vision held 120 GPU-hours in November, 40 of them idle (a third); its 16 guaranteed
// GPUs held 120/720 = 1/6 on average, so 16 - 1/6 sat unused.
#[tokio::test]
async fn the_idle_review_shows_idle_gpu_hours_and_unused_guarantees() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        november(&app).await;
        let admin = app.token("admin", "admin-pw").await;
        let (status, v) = app.call("GET", "/api/reviews/idle?month=2026-11", Some(&admin), None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: IdleReview = serde_json::from_value(v).unwrap();
        let l = r.lines.iter().find(|l| l.group == "vision").expect("vision");
        assert_eq!((l.held_gpu_hours, l.idle_gpu_hours), (120.0, 40.0));
        assert!((l.idle_share - 1.0 / 3.0).abs() < 1e-9);
        assert!((l.unused_guarantee_avg - (16.0 - 1.0 / 6.0)).abs() < 1e-9);
        assert!(l.suggestion.contains("idle"), "{}", l.suggestion);
        assert_eq!(r.lines.len(), 3, "admins see every group");
    }
}
