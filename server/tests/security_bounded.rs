//! Issue 10, findings 8 and 10: bounded work per request and quiet secrets, on both
//! engines. Lists page by an id cursor (no gaps, no duplicates, bounded limits); one user's
//! pending jobs and one group's templates are capped; jobs name only GPU models the
//! cluster has; dry runs are rate-limited; control and bidi characters (and NUL, a 500 on
//! PostgreSQL) are refused in names and commands; template and job env values reach only
//! the owning group and admins; a spec's image and env are checked and stored.
//! Mission: V3 (team-visible views, secrets excepted), T1 (templates), O6 (dry runs).

mod common;

use std::collections::BTreeSet;
use std::sync::Arc;
use std::sync::atomic::Ordering;

use axum::body::Body;
use axum::http::{Request, StatusCode};
use common::api::{TestApp, engines};
use serde_json::{Value, json};
use tidepool::http::app as router;
use tidepool::limits::Bounds;
use tower::ServiceExt;

async fn send(app: &TestApp, method: &str, path: &str, token: &str, body: Value) -> (StatusCode, Value) {
    app.call(method, path, Some(token), Some(&body.to_string())).await
}

async fn get(app: &TestApp, path: &str, token: &str) -> Value {
    let (status, v) = app.call("GET", path, Some(token), None).await;
    assert_eq!(status, StatusCode::OK, "{path}: {v}");
    v
}

fn job(name: &str) -> Value {
    json!({ "name": name, "command": "true", "gpus": 1 })
}

/// Every id of a list, walking its pages by `next` through `cursor`.
async fn walk(app: &TestApp, path: &str, key: &str, cursor: &str, token: &str) -> (Vec<i64>, usize) {
    let (mut ids, mut pages, mut next) = (Vec::new(), 0, None::<i64>);
    loop {
        let sep = if path.contains('?') { '&' } else { '?' };
        let url = match next {
            Some(n) => format!("{path}{sep}{cursor}={n}"),
            None => path.to_string(),
        };
        let v = get(app, &url, token).await;
        assert!(v.get("next").is_some(), "{url}: a page names the next cursor: {v}");
        ids.extend(v[key].as_array().unwrap().iter().map(|x| x["id"].as_i64().unwrap()));
        pages += 1;
        next = v["next"].as_i64();
        if next.is_none() {
            return (ids, pages);
        }
        assert!(pages < 100, "{url}: the cursor moves on");
    }
}

// Finding 8: every list route pages by an id cursor, in a stable order, without gaps or
// duplicates; `limit` is bounded (1 to 500) and the old `?limit=` keeps working.
#[tokio::test]
async fn security_lists_page_by_cursor_without_gaps_or_duplicates() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (dev, lead) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let admin = app.token("admin", "admin-pw").await;
        for i in 0..7 {
            assert_eq!(
                send(&app, "POST", "/api/jobs", &dev, job(&format!("j{i}"))).await.0,
                StatusCode::CREATED
            );
        }
        let mut mine = Vec::new();
        for i in 0..5 {
            let t = json!({ "name": format!("t{i}"), "gpus": 1, "image": "pytorch:2.4", "command": "c" });
            let (s, v) = send(&app, "POST", "/api/templates", &lead, t).await;
            assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
            mine.push(v["id"].as_i64().unwrap());
        }
        // Newest first, paged with `before`.
        let (jobs, pages) = walk(&app, "/api/jobs?mine=true&limit=3", "jobs", "before", &dev).await;
        assert!(jobs.len() >= 7, "{engine}: {jobs:?}");
        assert_eq!(pages, jobs.len().div_ceil(3), "{engine}: full pages, and no empty one at the end");
        assert!(jobs.windows(2).all(|w| w[0] > w[1]), "{engine}: newest first, no duplicates: {jobs:?}");
        let all = get(&app, "/api/jobs?mine=true", &dev).await;
        let whole: Vec<i64> =
            all["jobs"].as_array().unwrap().iter().map(|j| j["id"].as_i64().unwrap()).collect();
        assert_eq!(jobs, whole, "{engine}: the pages together are the whole list");
        assert_eq!(all["next"], Value::Null, "{engine}: one page holds it all");
        // Oldest first, paged with `after`.
        let (templates, _) = walk(&app, "/api/templates?limit=2", "templates", "after", &dev).await;
        let count = get(&app, "/api/templates?limit=500", &dev).await["templates"].as_array().unwrap().len();
        assert_eq!(templates.len(), count, "{engine}");
        assert!(templates.windows(2).all(|w| w[0] < w[1]), "{engine}: {templates:?}");
        let (events, _) = walk(&app, "/api/events?limit=4", "events", "before", &admin).await;
        assert_eq!(events.iter().collect::<BTreeSet<_>>().len(), events.len(), "{engine}: no duplicates");
        assert_eq!(events.len() as i64, app.count("events").await, "{engine}: no gaps");
        let (users, _) = walk(&app, "/api/users?limit=2", "users", "after", &admin).await;
        assert_eq!(users.len() as i64, app.count("users").await, "{engine}");
        let (groups, _) = walk(&app, "/api/groups?limit=2", "groups", "after", &admin).await;
        assert_eq!(groups.len() as i64, app.count("groups").await, "{engine}");
        for (path, key) in [
            ("/api/projects?limit=1", "projects"),
            ("/api/loans?limit=1", "loans"),
            ("/api/changes?limit=1", "changes"),
            ("/api/archive?limit=1", "jobs"),
        ] {
            let cursor = if key == "projects" { "after" } else { "before" };
            let (ids, _) = walk(&app, path, key, cursor, &admin).await;
            assert_eq!(ids.iter().collect::<BTreeSet<_>>().len(), ids.len(), "{engine} {path}");
        }
        // The limit is bounded, and said so.
        for path in [
            "/api/jobs?limit=0",
            "/api/events?limit=501",
            "/api/templates?limit=100000",
            "/api/users?limit=-1",
        ] {
            let (s, v) = app.call("GET", path, Some(&admin), None).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine} {path}: {v}");
        }
        assert_eq!(get(&app, "/api/events?limit=2", &admin).await["events"].as_array().unwrap().len(), 2);
        // Usage counts are right on every page.
        let first = mine[0];
        for _ in 0..2 {
            let (s, v) = send(&app, "POST", "/api/jobs", &dev, json!({ "template": first })).await;
            assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
        }
        let page = get(&app, &format!("/api/templates?limit=1&after={}", first - 1), &dev).await;
        assert_eq!(page["templates"][0]["uses"], 2, "{engine}: {page}");
        let later = get(&app, &format!("/api/templates?limit=1&after={first}"), &dev).await;
        assert_eq!(later["templates"][0]["uses"], 0, "{engine}: {later}");
    }
}

// Finding 8: one user's pending jobs are capped (the error names the cap and the count);
// a cancelled job frees its place; other users are not held back.
#[tokio::test]
async fn security_pending_jobs_per_user_are_capped() {
    for engine in engines() {
        let mut app = TestApp::new(engine).await;
        app.state.bounds = Arc::new(Bounds::new(3, 500, 10, 10));
        let (dev, other) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let mut ids = Vec::new();
        for i in 0..3 {
            let (s, v) = send(&app, "POST", "/api/jobs", &dev, job(&format!("j{i}"))).await;
            assert_eq!(s, StatusCode::CREATED, "{engine}: {v}");
            ids.push(v["id"].as_i64().unwrap());
        }
        let before = app.count("jobs").await;
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, job("one too many")).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        let message = v["error"]["message"].as_str().unwrap();
        assert!(message.contains("3 jobs pending") && message.contains("is 3"), "{engine}: {message}");
        assert_eq!(app.count("jobs").await, before, "{engine}: nothing written");
        assert_eq!(send(&app, "POST", "/api/jobs", &other, job("theirs")).await.0, StatusCode::CREATED);
        let (s, _) = send(&app, "POST", &format!("/api/jobs/{}/cancel", ids[0]), &dev, json!({})).await;
        assert_eq!(s, StatusCode::OK, "{engine}");
        assert_eq!(send(&app, "POST", "/api/jobs", &dev, job("again")).await.0, StatusCode::CREATED);
    }
}

// Finding 8: one group's active templates are capped; retiring one frees a place.
#[tokio::test]
async fn security_templates_per_group_are_capped() {
    for engine in engines() {
        let mut app = TestApp::new(engine).await;
        // vision has one template from the demo.
        app.state.bounds = Arc::new(Bounds::new(1000, 2, 10, 10));
        let lead = app.token("vision-lead", "demo-password").await;
        let t = |name: &str| json!({ "name": name, "gpus": 1, "image": "pytorch:2.4", "command": "c" });
        let (s, first) = send(&app, "POST", "/api/templates", &lead, t("a")).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {first}");
        let (s, v) = send(&app, "POST", "/api/templates", &lead, t("b")).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("is 2"), "{engine}: {v}");
        let speech = app.token("speech-lead", "demo-password").await;
        assert_eq!(send(&app, "POST", "/api/templates", &speech, t("b")).await.0, StatusCode::CREATED);
        let path = format!("/api/templates/{}/retire", first["id"]);
        assert_eq!(send(&app, "POST", &path, &lead, json!({ "reason": "done" })).await.0, StatusCode::OK);
        assert_eq!(send(&app, "POST", "/api/templates", &lead, t("b")).await.0, StatusCode::CREATED);
    }
}

// Finding 8: a job or template names a GPU model some node has; otherwise 422 listing the
// models there are. A node added a moment ago counts at once.
#[tokio::test]
async fn security_unknown_models_are_refused_listing_the_models() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (dev, admin) =
            (app.token("vision-dev", "demo-password").await, app.token("admin", "admin-pw").await);
        let before = app.count("jobs").await;
        let mut made_up = job("x");
        made_up["model"] = json!("H100");
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, made_up.clone()).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: {v}");
        assert!(v["error"]["message"].as_str().unwrap().contains("A100-80G"), "{engine}: {v}");
        let t = json!({ "name": "t", "gpus": 1, "image": "i", "command": "c", "model": "H100" });
        assert_eq!(
            send(&app, "POST", "/api/templates", &dev, t.clone()).await.0,
            StatusCode::UNPROCESSABLE_ENTITY
        );
        assert_eq!(app.count("jobs").await, before, "{engine}");
        let node = json!({ "name": "h-0", "pool": "east", "model": "H100", "gpus": 8 });
        assert_eq!(send(&app, "POST", "/api/nodes", &admin, node).await.0, StatusCode::CREATED);
        let (s, v) = send(&app, "POST", "/api/jobs", &dev, made_up).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: the new node's model counts: {v}");
        assert_eq!(send(&app, "POST", "/api/templates", &dev, t).await.0, StatusCode::CREATED);
    }
}

// Finding 8: dry runs plan the whole cluster; each user may ask for ten per 10 s, then
// 429 with Retry-After.
#[tokio::test]
async fn security_dry_runs_are_rate_limited() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (dev, other) =
            (app.token("vision-dev", "demo-password").await, app.token("speech-dev", "demo-password").await);
        let dry = |token: &str| {
            Request::post("/api/jobs/dry-run")
                .header("authorization", format!("Bearer {token}"))
                .header("content-type", "application/json")
                .body(Body::from(job("try").to_string()))
                .unwrap()
        };
        for i in 0..10 {
            let resp = router(app.state.clone()).oneshot(dry(&dev)).await.unwrap();
            assert_eq!(resp.status(), StatusCode::OK, "{engine}: dry run {i}");
        }
        let resp = router(app.state.clone()).oneshot(dry(&dev)).await.unwrap();
        assert_eq!(resp.status(), StatusCode::TOO_MANY_REQUESTS, "{engine}");
        let wait: i64 = resp.headers()["retry-after"].to_str().unwrap().parse().unwrap();
        assert!((1..=10).contains(&wait), "{engine}: Retry-After {wait}");
        let body: Value =
            serde_json::from_slice(&axum::body::to_bytes(resp.into_body(), 1 << 16).await.unwrap()).unwrap();
        assert_eq!(body["error"]["code"], "too-many-requests", "{engine}: {body}");
        let resp = router(app.state.clone()).oneshot(dry(&other)).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{engine}: another user has their own allowance");
        app.clock.fetch_add(wait, Ordering::SeqCst);
        let dev = app.token("vision-dev", "demo-password").await;
        let resp = router(app.state.clone()).oneshot(dry(&dev)).await.unwrap();
        assert_eq!(resp.status(), StatusCode::OK, "{engine}: allowed again after Retry-After");
    }
}

// Finding 10 (and 3's NUL): control characters, bidi overrides and NUL are refused with
// 422 in names and commands, on both engines (NUL was a 500 on PostgreSQL); tabs and
// newlines stay allowed in commands.
#[tokio::test]
async fn security_control_and_bidi_characters_are_refused_in_names_and_commands() {
    let bad = ["\u{0}", "\u{1b}[31m", "\u{7f}", "\u{85}", "\u{202e}", "\u{2066}", "\u{200f}"];
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (dev, lead) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let admin = app.token("admin", "admin-pw").await;
        let rows = || async {
            let mut n = 0;
            for t in ["jobs", "templates", "projects", "groups", "users", "nodes"] {
                n += app.count(t).await;
            }
            n
        };
        let before = rows().await;
        for b in bad {
            let s = format!("x{b}y");
            let cases: Vec<(&str, &String, Value)> = vec![
                ("/api/jobs", &dev, json!({ "name": s, "command": "true", "gpus": 1 })),
                ("/api/jobs", &dev, json!({ "name": "n", "command": s, "gpus": 1 })),
                ("/api/jobs", &dev, json!({ "name": "n", "command": "true", "gpus": 1, "tags": [s] })),
                ("/api/jobs", &dev, json!({ "name": "n", "command": "true", "gpus": 1, "project": s })),
                ("/api/jobs", &admin, json!({ "name": "n", "command": "true", "gpus": 1, "group": s })),
                ("/api/templates", &lead, json!({ "name": s, "gpus": 1, "image": "i", "command": "c" })),
                ("/api/templates", &lead, json!({ "name": "t", "gpus": 1, "image": "i", "command": s })),
                (
                    "/api/projects",
                    &lead,
                    json!({ "name": s, "class": "critical", "expires_at": 2_000_086_400 }),
                ),
                ("/api/groups", &admin, json!({ "name": s })),
                ("/api/users", &admin, json!({ "username": s, "password": "long-enough", "role": "admin" })),
                ("/api/nodes", &admin, json!({ "name": "n", "pool": s, "model": "A100-80G", "gpus": 8 })),
                ("/api/nodes", &admin, json!({ "name": s, "pool": "p", "model": "A100-80G", "gpus": 8 })),
            ];
            for (path, token, body) in cases {
                let (status, v) = send(&app, "POST", path, token, body.clone()).await;
                assert_eq!(status, StatusCode::UNPROCESSABLE_ENTITY, "{engine} {path} {body}: {v}");
            }
        }
        assert_eq!(rows().await, before, "{engine}: nothing written");
        // A carriage return is no part of a command; tabs and newlines are.
        let (s, _) =
            send(&app, "POST", "/api/jobs", &dev, json!({ "name": "n", "command": "a\rb", "gpus": 1 })).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}");
        let script = json!({ "name": "n", "command": "for i in 1 2; do\n\techo $i\ndone", "gpus": 1 });
        assert_eq!(send(&app, "POST", "/api/jobs", &dev, script).await.0, StatusCode::CREATED, "{engine}");
        // NUL and bidi in a list's filters: 422, not a database error.
        for path in [
            "/api/events?kind=%00",
            "/api/events?actor=a%E2%80%AE",
            "/api/jobs?group=%00",
            "/api/archive?tag=%00",
        ] {
            let (s, v) = app.call("GET", path, Some(&admin), None).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine} {path}: {v}");
        }
    }
}

// Finding 10: a template's env values (where API keys go) reach its own group and admins;
// other signed-in users see the names with the values masked. The same for a job's env.
#[tokio::test]
async fn security_env_values_are_shown_to_the_owning_group_and_admins_only() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let lead = app.token("vision-lead", "demo-password").await;
        let dev = app.token("vision-dev", "demo-password").await;
        let (speech, admin) =
            (app.token("speech-dev", "demo-password").await, app.token("admin", "admin-pw").await);
        let t = json!({ "name": "keyed", "gpus": 1, "image": "i", "command": "c", "env": { "HF_TOKEN": "hf_s3cret" } });
        let (s, created) = send(&app, "POST", "/api/templates", &lead, t).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {created}");
        let env_for = |list: &Value| {
            list["templates"].as_array().unwrap().iter().find(|t| t["id"] == created["id"]).unwrap()["env"]
                .clone()
        };
        for (who, token) in [("member", &dev), ("manager", &lead), ("admin", &admin)] {
            let env = env_for(&get(&app, "/api/templates", token).await);
            assert_eq!(env["HF_TOKEN"], "hf_s3cret", "{engine}: the {who} reads it");
        }
        let (_, raw) = app.call("GET", "/api/templates", Some(&speech), None).await;
        assert_eq!(env_for(&raw)["HF_TOKEN"], "•••", "{engine}: another group sees the name only");
        assert!(!raw.to_string().contains("hf_s3cret"), "{engine}: the value appears nowhere");

        let spec = json!({ "name": "j", "command": "true", "gpus": 1, "env": { "API_KEY": "k-123" } });
        let (s, j) = send(&app, "POST", "/api/jobs", &dev, spec).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {j}");
        let path = format!("/api/jobs/{}", j["id"]);
        assert_eq!(get(&app, &path, &dev).await["env"]["API_KEY"], "k-123", "{engine}");
        assert_eq!(get(&app, &path, &admin).await["env"]["API_KEY"], "k-123", "{engine}");
        let theirs = get(&app, &path, &speech).await;
        assert_eq!(theirs["env"]["API_KEY"], "•••", "{engine}: {theirs}");
        assert!(!theirs.to_string().contains("k-123"), "{engine}");
    }
}

// Finding 10 / scope "Sandboxes and images": a spec may name an image and env, checked
// and stored for the agent; a template's launch carries the template's image.
#[tokio::test]
async fn security_spec_image_and_env_are_checked_and_stored() {
    for engine in engines() {
        let app = TestApp::new(engine).await;
        let (dev, lead) =
            (app.token("vision-dev", "demo-password").await, app.token("vision-lead", "demo-password").await);
        let spec = json!({ "name": "j", "command": "true", "gpus": 1, "image": "registry.local/ml/pytorch:2.4",
            "env": { "EPOCHS": "3", "_X": "" } });
        let (s, j) = send(&app, "POST", "/api/jobs", &dev, spec).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {j}");
        let stored = |id: i64| {
            sqlx::query_as::<_, (Option<String>, Option<String>)>("SELECT image, env FROM jobs WHERE id = $1")
                .bind(id)
                .fetch_one(&app.state.store.pool)
        };
        let (image, env) = stored(j["id"].as_i64().unwrap()).await.unwrap();
        assert_eq!(image.as_deref(), Some("registry.local/ml/pytorch:2.4"), "{engine}");
        let env: Value = serde_json::from_str(&env.unwrap()).unwrap();
        assert_eq!(env, json!({ "EPOCHS": "3", "_X": "" }), "{engine}");
        let (image, env) =
            stored(send(&app, "POST", "/api/jobs", &dev, job("plain")).await.1["id"].as_i64().unwrap())
                .await
                .unwrap();
        assert_eq!((image, env), (None, None), "{engine}: no image, no env");

        let t = json!({ "name": "t", "gpus": 1, "image": "pytorch:2.4-cuda12", "command": "c", "env": { "A": "b" } });
        let (_, t) = send(&app, "POST", "/api/templates", &lead, t).await;
        let (s, launched) = send(&app, "POST", "/api/jobs", &dev, json!({ "template": t["id"] })).await;
        assert_eq!(s, StatusCode::CREATED, "{engine}: {launched}");
        let (image, env) = stored(launched["id"].as_i64().unwrap()).await.unwrap();
        assert_eq!((image.as_deref(), env), (Some("pytorch:2.4-cuda12"), None), "{engine}");
        let (s, _) =
            send(&app, "POST", "/api/jobs", &dev, json!({ "template": t["id"], "image": "other" })).await;
        assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine}: a template fixes the image");

        let before = app.count("jobs").await;
        let many: serde_json::Map<String, Value> = (0..65).map(|i| (format!("V{i}"), json!("x"))).collect();
        let bad_env = [
            json!({ "LD_PRELOAD": "/tmp/x.so" }),
            json!({ "LD_LIBRARY_PATH": "/tmp" }),
            json!({ "LD_AUDIT": "/tmp/x.so" }),
            json!({ "TIDEPOOL_NODE_TOKEN": "t" }),
            json!({ "CUDA_VISIBLE_DEVICES": "0,1,2,3" }),
            json!({ "1ABC": "x" }),
            json!({ "A-B": "x" }),
            json!({ "A": "x\u{0}y" }),
            json!({ "A": "x".repeat(4097) }),
            Value::Object([("K".repeat(129), json!("x"))].into_iter().collect()),
            Value::Object(many),
        ];
        for env in bad_env {
            let spec = json!({ "name": "j", "command": "true", "gpus": 1, "env": env });
            let (s, v) = send(&app, "POST", "/api/jobs", &dev, spec).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine} {env}: {v}");
            let t = json!({ "name": "t2", "gpus": 1, "image": "i", "command": "c", "env": env });
            assert_eq!(
                send(&app, "POST", "/api/templates", &lead, t).await.0,
                StatusCode::UNPROCESSABLE_ENTITY
            );
        }
        for image in ["--privileged", "a b", "img;rm -rf /", "x\u{0}", &"a".repeat(257)] {
            let spec = json!({ "name": "j", "command": "true", "gpus": 1, "image": image });
            let (s, v) = send(&app, "POST", "/api/jobs", &dev, spec).await;
            assert_eq!(s, StatusCode::UNPROCESSABLE_ENTITY, "{engine} {image}: {v}");
        }
        assert_eq!(app.count("jobs").await, before, "{engine}: nothing written");
    }
}
