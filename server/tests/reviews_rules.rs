//! The quarterly template review (T3) and the yearly review of the rules, against records
//! written by hand: stale templates with their launches ever and the last one (managers
//! see their group's); each policy transition and applied quota change of the year with
//! its reason, who made it, who approved it, and the four weeks before and after, each
//! figure computed by hand. Both engines.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use sqlx::Row;
use tidepool_api::reviews::{Effect, RulesReview, TemplateReview};

const H: i64 = 3600;
const DAY: i64 = 86_400;
/// 2026-10-01 and 2027-01-05, 00:00 UTC.
const Q4: i64 = 1_790_812_800;
const JAN5: i64 = 1_799_107_200;
/// 2026-06-15 00:00 UTC: the rules change.
const T: i64 = 1_781_481_600;

async fn group(app: &TestApp, name: &str) -> i64 {
    sqlx::query("SELECT id FROM groups WHERE name = $1")
        .bind(name)
        .fetch_one(&app.state.store.pool)
        .await
        .unwrap()
        .get(0)
}

async fn template(app: &TestApp, group: i64, name: &str, created: i64, retired: Option<i64>) -> i64 {
    sqlx::query(
        "INSERT INTO templates (group_id, name, category, class, gpus, model, topology, checkpointable, image, command, \
         env, created_by, created_at, retired_at) VALUES ($1, $2, 'training', 'normal', 1, 'A100-80G', 'any', FALSE, \
         'img', 'true', '{}', 'vision-lead', $3, $4) RETURNING id",
    )
    .bind(group)
    .bind(name)
    .bind(created)
    .bind(retired)
    .fetch_one(&app.state.store.pool)
    .await
    .unwrap()
    .get(0)
}

/// A job of `group` submitted at `at` (from `template`), placed `wait` seconds later when given.
async fn job(app: &TestApp, group: i64, template: Option<i64>, at: i64, wait: Option<i64>) {
    let pool = &app.state.store.pool;
    let user: i64 = sqlx::query("SELECT id FROM users WHERE username = 'vision-dev'")
        .fetch_one(pool)
        .await
        .unwrap()
        .get(0);
    let job: i64 = sqlx::query(
        "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, checkpointable, command, \
         state, submitted_at, queued_at, template_id) VALUES ($1, $2, 'j', 'training', 'normal', 1, 'A100-80G', 'any', \
         FALSE, 'true', 'succeeded', $3, $3, $4) RETURNING id",
    )
    .bind(group)
    .bind(user)
    .bind(at)
    .bind(template)
    .fetch_one(pool)
    .await
    .unwrap()
    .get(0);
    if let Some(w) = wait {
        let node: i64 = sqlx::query("SELECT id FROM nodes LIMIT 1").fetch_one(pool).await.unwrap().get(0);
        sqlx::query(
            "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at) VALUES ($1, $2, 1, '[]', 1, $3)",
        )
        .bind(job)
        .bind(node)
        .bind(at + w)
        .execute(pool)
        .await
        .unwrap();
    }
}

// T3: templates nobody launched in 2026-Q4, never-launched first; a manager sees their group's.
#[tokio::test]
async fn the_template_review_lists_templates_not_launched_in_the_quarter() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        sqlx::query("UPDATE templates SET retired_at = 1").execute(&app.state.store.pool).await.unwrap();
        let (vision, speech) = (group(&app, "vision").await, group(&app, "speech").await);
        // resnet: launched 2026-05-01 and 2026-09-30, none in Q4: stale, 2 launches.
        let resnet = template(&app, vision, "resnet", 1_000, None).await;
        job(&app, vision, Some(resnet), 1_777_593_600, None).await;
        job(&app, vision, Some(resnet), Q4 - DAY, None).await;
        // bert: launched on 2026-11-05: not stale.
        let bert = template(&app, vision, "bert", 1_000, None).await;
        job(&app, vision, Some(bert), 1_793_836_800, None).await;
        // whisper (speech): never launched: stale, listed first.
        let whisper = template(&app, speech, "whisper", 1_000, None).await;
        // Retired, or made after the quarter: not reviewed.
        template(&app, vision, "old", 1_000, Some(2_000)).await;
        template(&app, vision, "new", JAN5, None).await;

        let admin = app.token("admin", "admin-pw").await;
        let (status, v) = app.call("GET", "/api/reviews/templates?quarter=2026-Q4", Some(&admin), None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: TemplateReview = serde_json::from_value(v).expect("a TemplateReview");
        assert_eq!(r.quarter, "2026-Q4");
        let got: Vec<_> = r
            .stale
            .iter()
            .map(|t| (t.id, t.name.as_str(), t.group.as_str(), t.launches, t.last_launch))
            .collect();
        assert_eq!(
            got,
            vec![(whisper, "whisper", "speech", 0, None), (resnet, "resnet", "vision", 2, Some(Q4 - DAY))],
            "{engine}"
        );
        assert_eq!(r.stale[1].created_by, "vision-lead");

        let lead = app.token("vision-lead", "demo-password").await;
        let (status, v) = app.call("GET", "/api/reviews/templates?quarter=2026-Q4", Some(&lead), None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: TemplateReview = serde_json::from_value(v).unwrap();
        assert_eq!(r.stale.iter().map(|t| t.id).collect::<Vec<_>>(), vec![resnet], "{engine}: only vision's");
        // In Q3 resnet was launched (2026-09-30); bert (launched since) and whisper were not:
        // whisper first (never launched), then bert.
        let (_, v) = app.call("GET", "/api/reviews/templates?quarter=2026-Q3", Some(&admin), None).await;
        let r: TemplateReview = serde_json::from_value(v).unwrap();
        assert_eq!(r.stale.iter().map(|t| t.id).collect::<Vec<_>>(), vec![whisper, bert], "{engine}");
        for bad in ["2026-Q5", "2026-4", "26-Q1"] {
            let (status, _) =
                app.call("GET", &format!("/api/reviews/templates?quarter={bad}"), Some(&admin), None).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {bad}");
        }
    }
}

fn close(got: &Effect, want: (f64, f64, f64), what: &str) {
    let ok = (got.wait_p95_s - want.0).abs() < 1e-9
        && (got.idle_share - want.1).abs() < 1e-9
        && (got.gpu_hours - want.2).abs() < 1e-9;
    assert!(ok, "{what}: {got:?} != {want:?}");
}

async fn usage(app: &TestApp, at: i64, group: i64, held: i64, idle: i64) {
    sqlx::query(
        "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, util_pct_gpu_s, \
         idle_gpu_s, jobs_started, jobs_finished, wait_s) VALUES ($1, $2, 'east', 'A100-80G', 'training', $3, $3, 0, $4, 0, 0, 0)",
    )
    .bind(at)
    .bind(group)
    .bind(held * H)
    .bind(idle * H)
    .execute(&app.state.store.pool)
    .await
    .unwrap();
}

// The yearly review: a policy promoted at T and vision's quota changed at T + 60 s, each
// with its reason, maker, approver and the four weeks before and after.
#[tokio::test]
async fn the_rules_review_shows_each_change_with_its_effect() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let pool = &app.state.store.pool;
        let (vision, speech) = (group(&app, "vision").await, group(&app, "speech").await);
        // Before (T - 10 days on): vision 10 hours of 2 GPUs, 5 GPU-h idle; speech 8 GPU-h, all idle.
        for k in 0..10 {
            usage(&app, T - 10 * DAY + k * H, vision, 2, if k < 5 { 1 } else { 0 }).await;
        }
        usage(&app, T - 9 * DAY, speech, 8, 8).await;
        // After (T + 2 days on): vision 4 hours of 4 GPUs, busy.
        for k in 0..4 {
            usage(&app, T + 2 * DAY + k * H, vision, 4, 0).await;
        }
        // Outside both spans: nothing of it counts.
        usage(&app, T - 40 * DAY, vision, 100, 100).await;
        usage(&app, T + 40 * DAY, vision, 100, 100).await;
        // Waits: vision's jobs before waited 100 and 300 s (p95 300), after 60 s.
        job(&app, vision, None, T - 5 * DAY, Some(100)).await;
        job(&app, vision, None, T - 4 * DAY, Some(300)).await;
        job(&app, vision, None, T + 5 * DAY, Some(60)).await;

        // A policy version by alice, validated at T - 30 days, promoted at T by admin2.
        let sha = "ab".repeat(32);
        sqlx::query(
            "INSERT INTO policy_versions (sha256, kind, interface, author, note, state, detail, module, uploaded_at) \
             VALUES ($1, 'priority', '1', 'alice', 'prefer short jobs', 'active', '{}', $2, $3)",
        )
        .bind(&sha)
        .bind(vec![0u8])
        .bind(T - 30 * DAY)
        .execute(pool)
        .await
        .unwrap();
        for (seq, state, actor, at, note) in [
            (0, "validated", "alice", T - 30 * DAY, ""),
            (1, "active", "admin2", T, "approved after a week in shadow"),
        ] {
            sqlx::query(
                "INSERT INTO policy_transitions (sha256, seq, state, detail, actor, at, note) VALUES ($1, $2, $3, '{}', $4, $5, $6)",
            )
            .bind(&sha)
            .bind(seq)
            .bind(state)
            .bind(actor)
            .bind(at)
            .bind(note)
            .execute(pool)
            .await
            .unwrap();
        }
        // vision's quota: proposed by admin, applied by admin2 at T + 60 s, through the API.
        let (admin, admin2) = (app.token("admin", "admin-pw").await, app.token("admin2", "admin2-pw").await);
        app.clock.store(T, std::sync::atomic::Ordering::SeqCst);
        let body = r#"{"group":"vision","model":"A100-80G","category":"training","guaranteed":12,"borrow_limit":null,"lend_limit":null,"budget_gpu_h":null,"why":"jobs waited an hour at p95"}"#;
        let (status, v) = app.call("PUT", "/api/quotas", Some(&admin), Some(body)).await;
        assert_eq!(status, StatusCode::ACCEPTED, "{engine}: {v}");
        let id = v["change"].as_i64().expect("change id");
        app.clock.store(T + 60, std::sync::atomic::Ordering::SeqCst);
        let (status, v) = app
            .call("POST", &format!("/api/changes/{id}/approve"), Some(&admin2), Some(r#"{"note":"ok"}"#))
            .await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");

        let dev = app.token("vision-dev", "demo-password").await;
        let (status, v) = app.call("GET", "/api/reviews/rules?year=2026", Some(&dev), None).await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: RulesReview = serde_json::from_value(v).expect("a RulesReview");
        assert_eq!(r.year, 2026);
        assert_eq!(r.entries.len(), 3, "{engine}: {:?}", r.entries);
        let (validated, promoted, quota) = (&r.entries[0], &r.entries[1], &r.entries[2]);
        assert_eq!(
            (
                validated.kind.as_str(),
                validated.what.as_str(),
                validated.by.as_str(),
                validated.approved_by.as_deref()
            ),
            ("policy", "priority abababababab validated", "alice", None)
        );
        assert_eq!(validated.why, "prefer short jobs", "an empty note falls back to the version's");
        assert_eq!(
            (
                promoted.at,
                promoted.what.as_str(),
                promoted.why.as_str(),
                promoted.by.as_str(),
                promoted.approved_by.as_deref()
            ),
            (T, "priority abababababab active", "approved after a week in shadow", "alice", Some("admin2"))
        );
        // Organisation-wide: before 20 + 8 = 28 GPU-h, 5 + 8 = 13 idle, waits 100 and 300;
        // after 16 GPU-h, none idle, one wait of 60 s.
        close(&promoted.before, (300.0, 13.0 / 28.0, 28.0), "policy before");
        close(&promoted.after, (60.0, 0.0, 16.0), "policy after");
        assert_eq!(
            (quota.at, quota.kind.as_str(), quota.what.as_str(), quota.why.as_str()),
            (
                T + 60,
                "quota",
                "vision A100-80G training: guarantee 12, budget none",
                "jobs waited an hour at p95"
            )
        );
        assert_eq!((quota.by.as_str(), quota.approved_by.as_deref()), ("admin", Some("admin2")));
        // vision's alone: before 20 GPU-h with 5 idle.
        close(&quota.before, (300.0, 0.25, 20.0), "quota before");
        close(&quota.after, (60.0, 0.0, 16.0), "quota after");

        // Another year has none of it; a year out of range is refused.
        let (_, v) = app.call("GET", "/api/reviews/rules?year=2025", Some(&dev), None).await;
        assert_eq!(serde_json::from_value::<RulesReview>(v).unwrap().entries.len(), 0, "{engine}");
        let (status, _) = app.call("GET", "/api/reviews/rules?year=99999", Some(&dev), None).await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}");
    }
}
