//! The weekly report (A5, O4, Q1, Q3) against a known history written straight into the
//! records (usage_hours rows as the hourly roll-up defines them, jobs, allocations,
//! loans, events), each figure checked against a value computed by hand; the frozen copy
//! (A2) unchanged after a later edit; another group's report refused (403). Both engines.

mod common;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use sqlx::Row;
use tidepool_api::reports::{FrozenWeeks, WeeklyReport};

/// Monday 2026-11-23 00:00 UTC: the start of 2026-W48.
const W48: i64 = 1_795_392_000;
const H: i64 = 3600;
const DAY: i64 = 86_400;

async fn id(app: &TestApp, sql: &'static str, name: &str) -> i64 {
    sqlx::query(sql).bind(name).fetch_one(&app.state.store.pool).await.expect("id").get(0)
}

/// One roll-up row: GPU-seconds held, sampled, utilisation % x GPU-seconds, idle; jobs started and finished.
#[allow(clippy::too_many_arguments)]
async fn hour(
    app: &TestApp,
    at: i64,
    group: i64,
    category: &str,
    held: i64,
    util_pct: i64,
    idle: i64,
    started: i64,
    finished: i64,
) {
    sqlx::query(
        "INSERT INTO usage_hours (hour, group_id, pool, model, category, held_gpu_s, sampled_gpu_s, util_pct_gpu_s, \
         idle_gpu_s, jobs_started, jobs_finished, wait_s) VALUES ($1, $2, 'east', 'A100-80G', $3, $4, $4, $5, $6, $7, $8, 0)",
    )
    .bind(at)
    .bind(group)
    .bind(category)
    .bind(held)
    .bind(util_pct * held)
    .bind(idle)
    .bind(started)
    .bind(finished)
    .execute(&app.state.store.pool)
    .await
    .expect("usage hour");
}

/// A job with its first allocation (and its end state), answering its id.
#[allow(clippy::too_many_arguments)]
async fn job(
    app: &TestApp,
    group: i64,
    class: &str,
    gpus: i64,
    submitted: i64,
    placed: Option<i64>,
    state: &str,
    finished: Option<i64>,
    limit: i64,
    reason: Option<&str>,
) -> i64 {
    let pool = &app.state.store.pool;
    let user = id(app, "SELECT id FROM users WHERE username = $1", "vision-dev").await;
    let row = sqlx::query(
        "INSERT INTO jobs (group_id, submitted_by, name, category, class, gpus, model, topology, time_limit_s, \
         checkpointable, command, state, reason, submitted_at, queued_at, finished_at) VALUES \
         ($1, $2, 'j', 'training', $3, $4, 'A100-80G', 'any', $5, FALSE, 'true', $6, $7, $8, $8, $9) RETURNING id",
    )
    .bind(group)
    .bind(user)
    .bind(class)
    .bind(gpus)
    .bind(limit)
    .bind(state)
    .bind(reason)
    .bind(submitted)
    .bind(finished)
    .fetch_one(pool)
    .await
    .expect("job");
    let job: i64 = row.get(0);
    if let Some(at) = placed {
        allocation(app, job, at).await;
    }
    job
}

async fn allocation(app: &TestApp, job: i64, at: i64) {
    let node = id(app, "SELECT id FROM nodes WHERE name = $1", "gpu-east-0").await;
    sqlx::query(
        "INSERT INTO allocations (job_id, node_id, gpu_mask, borrowed, epoch, started_at) VALUES ($1, $2, 3, '[]', 1, $3)",
    )
    .bind(job)
    .bind(node)
    .bind(at)
    .execute(&app.state.store.pool)
    .await
    .expect("allocation");
}

/// A span of a job's wait history (D2).
async fn wait(app: &TestApp, job: i64, kind: &str, since: i64, until: Option<i64>) {
    sqlx::query("INSERT INTO job_waits (job_id, kind, reason, since, until) VALUES ($1, $2, 'r', $3, $4)")
        .bind(job)
        .bind(kind)
        .bind(since)
        .bind(until)
        .execute(&app.state.store.pool)
        .await
        .expect("wait span");
}

async fn event(app: &TestApp, at: i64, kind: &str, job: i64) {
    sqlx::query("INSERT INTO events (at, kind, job_id, actor, message, detail) VALUES ($1, $2, $3, 'test', 'm', '{}')")
        .bind(at)
        .bind(kind)
        .bind(job)
        .execute(&app.state.store.pool)
        .await
        .expect("event");
}

#[allow(clippy::too_many_arguments)]
async fn loan(
    app: &TestApp,
    lender: i64,
    borrower: Option<i64>,
    gpus: i64,
    state: &str,
    decided: Option<i64>,
    ends: i64,
    ended: Option<i64>,
) {
    sqlx::query(
        "INSERT INTO loans (lender_id, borrower_id, model, gpus, ends_at, state, why, requested_by, requested_at, \
         decided_at, ended_at) VALUES ($1, $2, 'A100-80G', $3, $4, $5, 'w', 'x', 0, $6, $7)",
    )
    .bind(lender)
    .bind(borrower)
    .bind(gpus)
    .bind(ends)
    .bind(state)
    .bind(decided)
    .bind(ended)
    .execute(&app.state.store.pool)
    .await
    .expect("loan");
}

/// The history of 2026-W48, with the figures it must give written beside each part.
async fn history(app: &TestApp) -> (i64, i64) {
    let pool = &app.state.store.pool;
    let group = |n: &'static str| id(app, "SELECT id FROM groups WHERE name = $1", n);
    let (vision, speech, robotics) = (group("vision").await, group("speech").await, group("robotics").await);
    // Prices: A100-80G at 2.50 a GPU-hour, set through the API (A5).
    let admin = app.token("admin", "admin-pw").await;
    let body = r#"{"time_zone":"UTC","currency":"EUR","prices":[{"model":"A100-80G","per_gpu_hour":2.5}],"report_webhook":null}"#;
    let (status, v) = app.call("PUT", "/api/settings", Some(&admin), Some(body)).await;
    assert_eq!(status, StatusCode::OK, "{v}");

    // vision, Monday 00:00: 8 GPUs held, 50 % busy, a quarter idle (2 GPU-h), 2 jobs started.
    hour(app, W48, vision, "training", 8 * H, 50, 2 * H, 2, 0).await;
    // Monday 01:00: 4 training GPUs 80 % busy, and 2 inference GPUs fully idle.
    hour(app, W48 + H, vision, "training", 4 * H, 80, 0, 0, 0).await;
    hour(app, W48 + H, vision, "inference", 2 * H, 0, 2 * H, 0, 0).await;
    // Tuesday 00:00: 16 GPUs, fully busy; 2 jobs finished.
    hour(app, W48 + DAY, vision, "training", 16 * H, 100, 0, 0, 2).await;
    // Wednesday 00:00-09:00: 2 GPUs an hour, idle.
    for k in 0..10 {
        hour(app, W48 + 2 * DAY + k * H, vision, "training", 2 * H, 0, 2 * H, 0, 0).await;
    }
    // speech: one GPU-hour (in the organisation's report only).
    hour(app, W48 + 2 * H, speech, "training", H, 100, 0, 0, 0).await;
    // Outside the week: nothing of it counts.
    hour(app, W48 + 7 * DAY, vision, "training", 64 * H, 100, 0, 0, 0).await;

    // Waits of the jobs first placed in the week: normal 600, 3600 and 60 s; batch 100 s.
    let a =
        job(app, vision, "normal", 2, W48, Some(W48 + 600), "succeeded", Some(W48 + 4000), 7200, None).await;
    allocation(app, a, W48 + 5000).await; // a second segment: not a first placement
    job(app, vision, "normal", 2, W48 - 3000, Some(W48 + 600), "running", None, 7200, None).await;
    job(app, vision, "batch", 2, W48 + 100, Some(W48 + 200), "failed", Some(W48 + 300), 7200, None).await;
    let e = job(
        app,
        vision,
        "normal",
        2,
        W48 + 1000,
        Some(W48 + 1060),
        "timed-out",
        Some(W48 + 2000),
        4040,
        None,
    )
    .await;
    // First placed in the week before (wait 90 s): the previous week's only wait.
    job(app, vision, "normal", 2, W48 - 100, Some(W48 - 10), "succeeded", Some(W48 - 5), 7200, None).await;
    // Still waiting, with their wait histories (D2): x over quota all week; y over quota
    // for an hour, then short of GPUs; z held by the budget for half an hour, then by
    // quota until now; w over quota since before the week, 600 s of it inside.
    let x =
        job(app, vision, "normal", 8, W48 + 100, None, "pending", None, 7200, Some("over quota: 8")).await;
    wait(app, x, "quota", W48 + 100, None).await;
    let y = job(app, vision, "normal", 2, W48 + 200, None, "pending", None, 7200, Some("no GPUs")).await;
    wait(app, y, "quota", W48 + 200, Some(W48 + 3800)).await;
    wait(app, y, "capacity", W48 + 3800, None).await;
    let z = job(app, vision, "normal", 2, W48 + 300, None, "pending", None, 7200, Some("over quota")).await;
    wait(app, z, "budget", W48 + 300, Some(W48 + 2100)).await;
    wait(app, z, "quota", W48 + 2100, None).await;
    let w = job(app, vision, "normal", 1, W48 - 3600, None, "pending", None, 7200, None).await;
    wait(app, w, "quota", W48 - 3600, Some(W48 + 600)).await;
    // A preemption, and an idle reclaim of job e's 2 GPUs at +1500: its limit ends at
    // +1060 + 4040 = +5100, so 2 GPUs x 3600 s = 2 GPU-hours are recovered.
    event(app, W48 + 3000, "preempted", a).await;
    event(app, W48 + 1500, "idle-reclaim", e).await;

    // Loans: vision lent speech 4 GPUs until Wednesday 00:00 (2 days in the week: 192
    // GPU-h); speech lent vision 2 GPUs from Sunday 00:00 on (1 day: 48 GPU-h); a request
    // never approved and a loan between others count for nothing here.
    loan(app, vision, Some(speech), 4, "returned", Some(W48 - DAY), W48 + 10 * DAY, Some(W48 + 2 * DAY))
        .await;
    loan(app, speech, Some(vision), 2, "active", Some(W48 + 6 * DAY), W48 + 8 * DAY, None).await;
    loan(app, vision, Some(speech), 8, "requested", None, W48 + 8 * DAY, None).await;
    loan(app, robotics, Some(speech), 8, "active", Some(W48), W48 + 8 * DAY, None).await;

    // The roll-up covers the week.
    sqlx::query("UPDATE usage_rollup SET rolled_until = $1")
        .bind(W48 + 7 * DAY)
        .execute(pool)
        .await
        .expect("rolled");
    (vision, speech)
}

async fn get(app: &TestApp, token: &str, path: &str) -> (StatusCode, serde_json::Value) {
    app.call("GET", path, Some(token), None).await
}

#[track_caller]
fn close(got: f64, want: f64, what: &str) {
    assert!((got - want).abs() < 1e-9, "{what}: {got} != {want}");
}

// A5, O4, Q1, Q3: each figure of vision's finished week against the hand-computed value.
#[tokio::test]
async fn a_finished_week_reports_each_figure_from_the_records() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        history(&app).await;
        app.clock.store(W48 + 8 * DAY, std::sync::atomic::Ordering::SeqCst);
        let lead = app.token("vision-lead", "demo-password").await;
        let (status, v) = get(&app, &lead, "/api/reports/weekly?group=vision&week=2026-W48").await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: WeeklyReport = serde_json::from_value(v).expect("a WeeklyReport");
        assert_eq!(
            (r.week.as_str(), r.group.as_deref(), r.starts_at, r.ends_at),
            ("2026-W48", Some("vision"), W48, W48 + 7 * DAY)
        );
        assert_eq!(
            r.frozen_at,
            Some(W48 + 8 * DAY),
            "{engine}: a finished, rolled-up week is frozen on first read"
        );
        // GPU-hours: 8 + 4 + 2 + 16 + 10 x 2 = 50; cost 50 x 2.50 = 125.00.
        close(r.totals.gpu_hours, 50.0, "gpu_hours");
        close(r.totals.cost, 125.0, "cost");
        // Busy: (8 x 50 % + 4 x 80 % + 16 x 100 %) GPU-h = 4 + 3.2 + 16 = 23.2; idle 2 + 2 + 20 = 24.
        close(r.totals.busy_gpu_hours, 23.2, "busy");
        close(r.totals.idle_gpu_hours, 24.0, "idle");
        assert_eq!((r.totals.jobs_started, r.totals.jobs_finished), (2, 2));
        let line = |c: &str| r.usage.iter().find(|u| u.category == c).expect(c);
        close(line("training").gpu_hours, 48.0, "training");
        close(line("training").cost, 120.0, "training cost");
        close(line("inference").cost, 5.0, "inference cost");
        assert_eq!(line("training").price_per_gpu_hour, Some(2.5));
        // Days: Monday 12 training + 2 inference, Tuesday 16, Wednesday 20; seven days.
        assert_eq!(r.days.len(), 7);
        assert_eq!(
            (r.days[0].date.as_str(), r.days[0].training, r.days[0].inference),
            ("2026-11-23", 12.0, 2.0)
        );
        assert_eq!((r.days[1].training, r.days[2].training, r.days[3].training), (16.0, 20.0, 0.0));
        // Guarantee: 16 GPUs x 168 h = 2688 GPU-h; used 48. Held per hour over 168 hours:
        // 8, 4, 16, ten 2s, 155 zeros: avg 48/168, p50 0, p95 (rank 160) 2.
        let g = r.guarantees.iter().find(|g| g.group == "vision").expect("vision's quota");
        assert_eq!(g.guaranteed, 16);
        close(g.guaranteed_gpu_hours, 2688.0, "guaranteed");
        close(g.used_gpu_hours, 48.0, "used");
        close(g.use_ratio.unwrap(), 48.0 / 2688.0, "ratio");
        close(g.held_avg, 48.0 / 168.0, "held avg");
        assert_eq!((g.held_p50, g.held_p95), (0.0, 2.0));
        assert_eq!(r.guarantees.len(), 1, "only vision's quotas");
        // Waits: normal 60, 600, 3600 -> avg 1420, p50 600, p95 3600; batch 100.
        let normal = r.waits.iter().find(|w| w.class == "normal").expect("normal");
        assert_eq!((normal.jobs, normal.avg_s, normal.p50_s, normal.p95_s), (3, 1420.0, 600.0, 3600.0));
        let batch = r.waits.iter().find(|w| w.class == "batch").expect("batch");
        assert_eq!((batch.jobs, batch.p95_s), (1, 100.0));
        // Why they waited, inside the week (D2): quota x 604,700 + y 3,600 + z 604,800 -
        // 2,100 + w 600 = 1,211,600 s by 4 jobs; capacity y 604,800 - 3,800 = 601,000;
        // budget z 1,800.
        let why: Vec<(&str, i64, i64)> =
            r.wait_reasons.iter().map(|w| (w.reason.as_str(), w.jobs, w.wait_s)).collect();
        assert_eq!(
            why,
            vec![
                ("over the group's quota, no loan available", 4, 1_211_600),
                ("waiting for free GPUs", 1, 601_000),
                ("the monthly budget", 1, 1_800),
            ],
            "{engine}"
        );
        // Loans: lent 4 x 48 h = 192, borrowed 2 x 24 h = 48.
        close(r.loans.lent_gpu_hours, 192.0, "lent");
        close(r.loans.borrowed_gpu_hours, 48.0, "borrowed");
        assert_eq!(r.loans.loans.len(), 2);
        assert_eq!((r.interruptions.preemptions, r.interruptions.idle_reclaims), (1, 1));
        close(r.interruptions.reclaimed_gpu_hours, 2.0, "reclaimed");
        assert_eq!(
            (r.outcomes.succeeded, r.outcomes.failed, r.outcomes.timed_out, r.outcomes.cancelled),
            (1, 1, 1, 0)
        );
        // Budget: 16 x 24 x 30 = 11520 GPU-h; 48 spent in the 29 days of November to the
        // week's end -> 48 x 30 / 29 by the month's end.
        let b = r.budgets.iter().find(|b| b.group == "vision").expect("budget");
        assert_eq!((b.month.as_str(), b.budget_gpu_hours), ("2026-11", 11520.0));
        close(b.spent_gpu_hours, 48.0, "spent");
        close(b.forecast_gpu_hours, 48.0 * 30.0 / 29.0, "forecast");
        // Busiest: Tuesday 00:00 (16, 100 %), Monday 00:00 (8, 50 %), Monday 01:00 (6: 4 at 80 %, 2 at 0 %).
        let busiest: Vec<(&str, f64)> =
            r.busiest_hours.iter().map(|h| (h.local.as_str(), h.gpus_held)).collect();
        assert_eq!(
            busiest,
            vec![("2026-11-24 00:00", 16.0), ("2026-11-23 00:00", 8.0), ("2026-11-23 01:00", 6.0)]
        );
        close(r.busiest_hours[2].util_pct, 4.0 * 80.0 / 6.0, "util");
        assert_eq!(r.idlest_hours[0].local, "2026-11-23 02:00");
        // The week before: no GPU-hours, one wait of 90 s; this week's p95 over all classes
        // (60, 100, 600, 3600: rank 4) is 3600.
        let p = r.previous.as_ref().expect("a previous week");
        assert_eq!(
            (p.week.as_str(), p.gpu_hours, p.wait_p95_s, p.this_wait_p95_s),
            ("2026-W47", 0.0, 90.0, 3600.0)
        );

        // The organisation's week adds speech's GPU-hour; every loan is lent and borrowed.
        let dev = app.token("vision-dev", "demo-password").await;
        let (status, v) = get(&app, &dev, "/api/reports/weekly?week=2026-W48").await;
        assert_eq!(status, StatusCode::OK, "{v}");
        let org: WeeklyReport = serde_json::from_value(v).expect("org report");
        assert_eq!(org.group, None);
        close(org.totals.gpu_hours, 51.0, "org gpu_hours");
        // 192 + 48 + robotics' 8 GPUs x 7 days (from Monday 00:00) = 1344 -> 1584.
        close(org.loans.lent_gpu_hours, 1584.0, "org lent");
        close(org.loans.borrowed_gpu_hours, 1584.0, "org borrowed");
    }
}

// A2: a frozen week answers its frozen copy after the records change; it is listed.
#[tokio::test]
async fn the_frozen_copy_is_unchanged_by_a_later_edit() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (vision, _) = history(&app).await;
        app.clock.store(W48 + 8 * DAY, std::sync::atomic::Ordering::SeqCst);
        let admin = app.token("admin", "admin-pw").await;
        let (_, first) = get(&app, &admin, "/api/reports/weekly?group=vision&week=2026-W48").await;
        // Later edits: another hour of 32 GPUs, a new price.
        hour(&app, W48 + 3 * DAY, vision, "training", 32 * H, 100, 0, 0, 0).await;
        let body = r#"{"time_zone":"UTC","currency":"EUR","prices":[{"model":"A100-80G","per_gpu_hour":9.0}],"report_webhook":null}"#;
        app.call("PUT", "/api/settings", Some(&admin), Some(body)).await;
        app.clock.store(W48 + 20 * DAY, std::sync::atomic::Ordering::SeqCst);
        let admin = app.token("admin", "admin-pw").await;
        let (status, again) = get(&app, &admin, "/api/reports/weekly?group=vision&week=2026-W48").await;
        assert_eq!(status, StatusCode::OK);
        assert_eq!(again, first, "{engine}: the frozen week answers as it was frozen");
        assert_eq!(again["totals"]["gpu_hours"], 50.0);
        // The current week is not frozen.
        let (_, now) = get(&app, &admin, "/api/reports/weekly?group=vision").await;
        assert_eq!(now["frozen_at"], serde_json::Value::Null, "{now}");
        let (status, v) = get(&app, &admin, "/api/reports").await;
        assert_eq!(status, StatusCode::OK);
        let listed: FrozenWeeks = serde_json::from_value(v).expect("FrozenWeeks");
        assert!(listed.weeks.iter().any(|w| w.week == "2026-W48" && w.group.as_deref() == Some("vision")));
    }
}

// O4: a week under way is compared with the same first hours of the previous week, not
// with the whole of it (which made every Monday read as a fall of ~100 %).
#[tokio::test]
async fn a_week_under_way_is_compared_with_as_much_of_the_previous_one() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        history(&app).await;
        // Tuesday 06:00 of 2026-W49: 30 hours of it have passed.
        app.clock.store(W48 + 8 * DAY + 6 * H, std::sync::atomic::Ordering::SeqCst);
        let lead = app.token("vision-lead", "demo-password").await;
        let (status, v) = get(&app, &lead, "/api/reports/weekly?group=vision&week=2026-W49").await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: WeeklyReport = serde_json::from_value(v).expect("a WeeklyReport");
        close(r.totals.gpu_hours, 64.0, "this week so far");
        let p = r.previous.expect("a previous week");
        // W48's first 30 hours: Monday 8 + 4 + 2, Tuesday 00:00 16 = 30 of its 50.
        assert_eq!((p.week.as_str(), p.elapsed_only), ("2026-W48", true), "{engine}");
        close(p.gpu_hours, 30.0, "the previous week's first 30 hours");
        close(p.cost, 75.0, "their cost");
        // Once W49 has ended, the whole of W48 is the comparison.
        app.clock.store(W48 + 15 * DAY, std::sync::atomic::Ordering::SeqCst);
        let lead = app.token("vision-lead", "demo-password").await;
        let (_, v) = get(&app, &lead, "/api/reports/weekly?group=vision&week=2026-W49").await;
        let r: WeeklyReport = serde_json::from_value(v).expect("a WeeklyReport");
        let p = r.previous.expect("a previous week");
        assert!(!p.elapsed_only, "{engine}");
        close(p.gpu_hours, 50.0, "the whole previous week");
    }
}

// A5 access: a member reads their group's and the organisation's report; another group's
// is refused (403); a bad week is the caller's to fix (422); the CSV has every table.
#[tokio::test]
async fn another_groups_report_is_refused_and_the_csv_has_every_table() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        history(&app).await;
        app.clock.store(W48 + 8 * DAY, std::sync::atomic::Ordering::SeqCst);
        let dev = app.token("vision-dev", "demo-password").await;
        let (status, _) = get(&app, &dev, "/api/reports/weekly?group=speech&week=2026-W48").await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{engine}");
        let (status, _) = get(&app, &dev, "/api/reports/weekly.csv?group=speech&week=2026-W48").await;
        assert_eq!(status, StatusCode::FORBIDDEN, "{engine}");
        let (status, _) = get(&app, &dev, "/api/reports/weekly?week=2026-48").await;
        assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY);
        let admin = app.token("admin", "admin-pw").await;
        let (status, _) = get(&app, &admin, "/api/reports/weekly?group=speech&week=2026-W48").await;
        assert_eq!(status, StatusCode::OK);

        let req = axum::http::Request::get("/api/reports/weekly.csv?group=vision&week=2026-W48")
            .header("authorization", format!("Bearer {dev}"))
            .body(axum::body::Body::empty())
            .unwrap();
        use tower::ServiceExt;
        let resp = tidepool::http::app(app.state.clone()).oneshot(req).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK);
        assert!(resp.headers()["content-type"].to_str().unwrap().starts_with("text/csv"));
        let body = axum::body::to_bytes(resp.into_body(), 1 << 20).await.unwrap();
        let csv = String::from_utf8(body.to_vec()).unwrap();
        for section in
            ["# totals", "# usage", "# days", "# guarantees", "# waits", "# loans", "# budgets", "# previous"]
        {
            assert!(csv.contains(section), "{section} in\n{csv}");
        }
        assert!(csv.contains("A100-80G,training,48,"), "{csv}");
        assert!(csv.contains("normal,3,1420,600,3600"), "{csv}");
    }
}

// A5: settings refuse an unknown zone, a non-http webhook and a bad currency (422), and
// each accepted change is an event.
#[tokio::test]
async fn settings_are_validated_and_each_change_is_an_event() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let admin = app.token("admin", "admin-pw").await;
        let put = |zone: &str, currency: &str, hook: &str| {
            format!(r#"{{"time_zone":"{zone}","currency":"{currency}","prices":[],"report_webhook":{hook}}}"#)
        };
        for bad in [
            put("Mars/Olympus", "EUR", "null"),
            put("UTC", "EUR", r#""ftp://x""#),
            put("UTC", "euro", "null"),
        ] {
            let (status, v) = app.call("PUT", "/api/settings", Some(&admin), Some(&bad)).await;
            assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {bad}: {v}");
        }
        let before = app.count("events").await;
        let good = put("Europe/Berlin", "CHF", r#""https://hooks.example.org/t""#);
        let (status, v) = app.call("PUT", "/api/settings", Some(&admin), Some(&good)).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        assert_eq!(app.count("events").await, before + 1);
        let dev = app.token("vision-dev", "demo-password").await;
        let (_, v) = app.call("GET", "/api/settings", Some(&dev), None).await;
        assert_eq!((v["time_zone"].as_str(), v["currency"].as_str()), (Some("Europe/Berlin"), Some("CHF")));
    }
}

// The demo's history (issue 12): a newcomer's Reports page is full on the first run — the
// last finished week has use, cost, waits with their reasons, and a previous week.
#[tokio::test]
async fn the_demo_history_fills_the_last_finished_week() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let now = W48 + 7 * DAY + 3 * DAY; // Thursday of 2026-W49
        app.clock.store(now, std::sync::atomic::Ordering::SeqCst);
        let jobs = tidepool::usage::demo::seed(&app.state.store, now).await.expect("demo history");
        assert!(jobs > 500, "{engine}: three weeks of jobs, {jobs}");
        let admin = app.token("admin", "admin-pw").await;
        let (status, v) = get(&app, &admin, "/api/reports/weekly?week=2026-W48").await;
        assert_eq!(status, StatusCode::OK, "{engine}: {v}");
        let r: WeeklyReport = serde_json::from_value(v).expect("a WeeklyReport");
        assert!(r.totals.gpu_hours > 100.0 && r.totals.cost > 0.0, "{engine}: {:?}", r.totals);
        assert!(r.days.iter().all(|d| d.training > 0.0), "{engine}: every day has use: {:?}", r.days);
        assert!(r.totals.idle_gpu_hours > 0.0 && r.outcomes.failed > 0, "{engine}");
        assert!(
            r.waits.iter().any(|w| w.jobs > 100 && w.p95_s > 0.0),
            "{engine}: busy afternoons make jobs wait: {:?}",
            r.waits
        );
        assert_eq!(
            r.wait_reasons.first().map(|w| w.reason.as_str()),
            Some("waiting for free GPUs"),
            "{engine}"
        );
        assert!(r.previous.is_some_and(|p| p.gpu_hours > 100.0), "{engine}: a previous week to compare with");
    }
}
