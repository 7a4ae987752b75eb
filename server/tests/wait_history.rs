//! Reasons over time (D2) with the live dispatcher on both engines: a job that waited
//! over its group's quota, then (a loan approved) for GPUs to free up for it,
//! keeps both spans, closed when it starts; a cancelled waiting job's span closes at the
//! cancellation; a quiet queue writes no new spans; the receipt and the weekly report
//! read the history.

mod common;

use std::sync::Arc;

use axum::http::StatusCode;
use common::api::{TestApp, engines};
use tidepool::dispatch::{Dispatcher, Lease};
use tidepool_api::Receipt;
use tidepool_api::reports::WeeklyReport;
use tidepool_core::NativePolicies;

async fn submit(app: &TestApp, token: &str, name: &str, gpus: u32) -> i64 {
    let body = format!(r#"{{"name":"{name}","command":"train","gpus":{gpus},"time_limit_s":36000}}"#);
    let (status, v) = app.call("POST", "/api/jobs", Some(token), Some(&body)).await;
    assert_eq!(status, StatusCode::CREATED, "{v}");
    v["id"].as_i64().unwrap()
}

async fn receipt(app: &TestApp, token: &str, job: i64) -> Receipt {
    let (status, v) = app.call("GET", &format!("/api/jobs/{job}"), Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{v}");
    serde_json::from_value(v).expect("a Receipt")
}

fn spans(r: &Receipt) -> Vec<(&str, i64, Option<i64>)> {
    r.waits.iter().map(|w| (w.kind.as_str(), w.since, w.until)).collect()
}

#[tokio::test]
async fn a_job_that_waited_for_quota_then_for_gpus_on_its_loan_shows_both() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let t0 = 1_800_000_000; // a Wednesday, 2027
        app.clock.store(t0, std::sync::atomic::Ordering::SeqCst);
        let d = Dispatcher::new(
            app.state.store.clone(),
            Arc::new(NativePolicies::default()),
            Lease { holder: "a".into(), ttl_s: 30 },
        );
        let vision = app.token("vision-dev", "demo-password").await;
        // Two of the pool's four nodes are out of service; vision's whole guarantee (16)
        // holds the other two.
        let pool = &app.state.store.pool;
        sqlx::query("UPDATE nodes SET healthy = FALSE WHERE name IN ('gpu-west-2', 'gpu-west-3')")
            .execute(pool)
            .await
            .expect("nodes out");
        submit(&app, &vision, "all-of-vision", 16).await;
        let b = submit(&app, &vision, "b", 8).await;
        let c = submit(&app, &vision, "c", 8).await;
        assert_eq!(d.cycle(t0).await.expect("cycle").placed, 1, "{engine}");
        let r = receipt(&app, &vision, b).await;
        assert_eq!(spans(&r), vec![("quota", t0, None)], "{engine}: {:?}", r.waits);
        assert!(r.waits[0].reason.starts_with("over quota"), "{:?}", r.waits);
        // Quiet cycles add nothing.
        d.cycle(t0 + 60).await.expect("cycle");
        d.cycle(t0 + 120).await.expect("cycle");
        assert_eq!(spans(&receipt(&app, &vision, b).await), vec![("quota", t0, None)], "{engine}");

        // c gives up while it waits: its span ends at the cancellation.
        let (status, v) = app.call("POST", &format!("/api/jobs/{c}/cancel"), Some(&vision), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        app.clock.store(t0 + 150, std::sync::atomic::Ordering::SeqCst);

        // speech's manager lends 8 of its idle guarantee to vision (B1): the quota allows b
        // now, but no GPU is free.
        let lead = app.token("speech-lead", "demo-password").await;
        let body = format!(
            r#"{{"lender":"speech","borrower":"vision","gpus":8,"ends_at":{},"why":"vision's deadline"}}"#,
            t0 + 86_400
        );
        let (status, v) = app.call("POST", "/api/loans", Some(&lead), Some(&body)).await;
        assert_eq!(status, StatusCode::CREATED, "{v}");
        d.cycle(t0 + 180).await.expect("cycle");
        let r = receipt(&app, &vision, b).await;
        assert_eq!(r.waits.len(), 2, "{engine}: quota, then another kind: {:?}", r.waits);
        assert_eq!((r.waits[0].kind.as_str(), r.waits[0].until), ("quota", Some(t0 + 180)), "{engine}");
        assert_eq!(r.waits[1].kind, "capacity", "{engine}: the loan answered the quota: {:?}", r.waits);
        assert_eq!((r.waits[1].since, r.waits[1].until), (t0 + 180, None), "{engine}");

        // A node comes back; b starts on the loan, and its last span closes then.
        sqlx::query("UPDATE nodes SET healthy = TRUE WHERE name = 'gpu-west-2'")
            .execute(pool)
            .await
            .expect("node back");
        assert_eq!(d.cycle(t0 + 240).await.expect("cycle").placed, 1, "{engine}");
        let r = receipt(&app, &vision, b).await;
        assert_eq!(r.state.to_string(), "running", "{engine}: {:?}", r.events);
        assert_eq!(
            spans(&r),
            vec![("quota", t0, Some(t0 + 180)), ("capacity", t0 + 180, Some(t0 + 240))],
            "{engine}"
        );
        assert!(r.waits.iter().all(|w| !w.label.is_empty()));
        let r = receipt(&app, &vision, c).await;
        assert_eq!(spans(&r), vec![("quota", t0, Some(r.waits[0].until.unwrap()))], "{engine}");
        assert!(r.waits[0].until.unwrap() < t0 + 150, "{engine}: closed when cancelled");

        // The weekly report's "why jobs waited" reads the same history (A5).
        let (status, v) = app.call("GET", "/api/reports/weekly?group=vision", Some(&vision), None).await;
        assert_eq!(status, StatusCode::OK, "{v}");
        let week: WeeklyReport = serde_json::from_value(v).expect("a WeeklyReport");
        let quota = week.wait_reasons.iter().find(|w| w.reason.contains("quota")).expect("quota");
        assert_eq!(quota.jobs, 2, "{engine}: b and c waited over quota");
    }
}
