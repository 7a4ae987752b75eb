//! Issue 11: the OpenAPI document the real router serves describes every route, body and
//! answer. A route missing from it, a JSON body without a schema or an example, an answer
//! without a schema, a `$ref` to nothing, or a `tidepool-api` type left out fails here.
//! (`tests/openapi/check.sh` runs a registry's OpenAPI 3.1 validator on the same document
//! and drives a client generated from it.)

mod common;

use std::collections::BTreeSet;

use axum::http::StatusCode;
use common::api::TestApp;
use serde_json::Value;
use tidepool::http::{Access, Body, ROUTES};

async fn document() -> Value {
    let app = TestApp::new("sqlite").await;
    let (s, doc) = app.call("GET", "/api/openapi.json", None, None).await;
    assert_eq!(s, StatusCode::OK);
    doc
}

/// Every `$ref` in `v`, with where it stands.
fn refs<'a>(v: &'a Value, at: String, out: &mut Vec<(String, &'a str)>) {
    match v {
        Value::Object(m) => {
            for (k, x) in m {
                assert_ne!(k, "$defs", "{at}: schemas belong under components/schemas");
                match (k.as_str(), x) {
                    ("$ref", Value::String(r)) => out.push((at.clone(), r)),
                    _ => refs(x, format!("{at}/{k}"), out),
                }
            }
        }
        Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| refs(x, format!("{at}/{i}"), out)),
        _ => {}
    }
}

#[tokio::test]
async fn every_route_is_described_with_its_access_bodies_and_answers() {
    let doc = document().await;
    assert_eq!(doc["openapi"], "3.1.0");
    let ops: usize =
        doc["paths"].as_object().expect("paths").values().map(|p| p.as_object().unwrap().len()).sum();
    assert_eq!(ops, ROUTES.len(), "the document has exactly the routes of ROUTES");
    for r in ROUTES {
        let what = format!("{} {}", r.method, r.path);
        let op = &doc["paths"][r.path][r.method];
        assert!(op.is_object(), "{what} is missing from the document");
        assert_eq!(op["x-access"], serde_json::to_value(r.access).unwrap(), "{what}");
        assert_eq!(op["summary"], r.summary, "{what}");
        assert!(op["operationId"].is_string(), "{what}");
        let security = match r.access {
            Access::Public => serde_json::json!([]),
            Access::Node => serde_json::json!([{ "nodeToken": [] }]),
            Access::Scraper => serde_json::json!([{ "metricsToken": [] }, {}]),
            _ => serde_json::json!([{ "bearer": [] }]),
        };
        assert_eq!(op["security"], security, "{what}");

        let body = &op["requestBody"]["content"];
        match r.body {
            Body::Json => {
                let json = &body["application/json"];
                assert!(json["schema"]["$ref"].is_string(), "{what}: a JSON body has a schema");
                assert!(json["example"].is_object(), "{what}: a JSON body has an example");
            }
            Body::Wasm => assert!(body["application/wasm"]["schema"].is_object(), "{what}"),
            Body::None => assert!(op.get("requestBody").is_none(), "{what} takes no body"),
        }

        let responses = op["responses"].as_object().expect("responses");
        let ok: Vec<_> = responses.keys().filter(|k| k.starts_with('2')).collect();
        assert_eq!(ok.len(), 1, "{what}: one success status");
        let success = &responses[ok[0].as_str()];
        if ok[0] != "204" {
            // JSON, but for downloads and the metrics' exposition format, which say what they are.
            let media = match r.access {
                Access::Scraper => "text/plain",
                _ if r.path.ends_with(".csv") => "text/csv",
                _ => "application/json",
            };
            assert!(success["content"][media]["schema"].is_object(), "{what}: the answer's schema");
        }
        assert!(responses.contains_key("500"), "{what}");
        if r.access != Access::Public {
            assert!(responses.contains_key("401"), "{what}: signed-out callers get 401");
        }
        for (status, response) in responses.iter().filter(|(k, _)| !k.starts_with('2')) {
            if status == "503" {
                // Not ready (issue 14, `GET /readyz`): the success's body, the failing check named.
                let schema = |r: &serde_json::Value| r["content"]["application/json"]["schema"].clone();
                assert!(schema(response).is_object() && schema(response) == schema(success), "{what} 503");
                continue;
            }
            assert!(response["$ref"].is_string(), "{what} {status}: the shared error shape");
        }
        for name in r.path.split('/').filter_map(|s| s.strip_prefix('{')).map(|s| s.trim_end_matches('}')) {
            let params = op["parameters"].as_array().expect("parameters");
            assert!(
                params.iter().any(|p| p["name"] == name && p["in"] == "path"),
                "{what}: path parameter {name}"
            );
        }
    }
}

#[tokio::test]
async fn lists_with_a_cursor_take_the_page_parameters_and_their_filters() {
    let doc = document().await;
    let schemas = &doc["components"]["schemas"];
    let mut paged = 0;
    for r in ROUTES.iter().filter(|r| r.method == "get") {
        let op = &doc["paths"][r.path]["get"];
        let answer = op["responses"]["200"]["content"]["application/json"]["schema"]["$ref"].as_str();
        let Some(name) = answer.and_then(|a| a.strip_prefix("#/components/schemas/")) else { continue };
        let names: BTreeSet<&str> = op["parameters"]
            .as_array()
            .map(|a| a.iter().filter(|p| p["in"] == "query").filter_map(|p| p["name"].as_str()).collect())
            .unwrap_or_default();
        let has_cursor = schemas[name]["properties"].get("next").is_some();
        let page = ["limit", "after", "before"].iter().all(|p| names.contains(p));
        assert_eq!(page, has_cursor, "{}: page parameters exactly when the answer has `next`", r.path);
        paged += usize::from(page);
    }
    assert_eq!(paged, 9, "users, groups, jobs, projects, templates, loans, changes, events, archive");
    let jobs = doc["paths"]["/api/jobs"]["get"]["parameters"].to_string();
    for filter in ["state", "group", "mine"] {
        assert!(jobs.contains(&format!("\"name\":\"{filter}\"")), "GET /api/jobs filters by {filter}");
    }
    let log = doc["paths"]["/api/jobs/{id}/log"]["get"]["parameters"].to_string();
    assert!(log.contains("\"follow_s\"") && log.contains("\"offset\""), "{log}");
}

#[tokio::test]
async fn every_ref_resolves_and_every_api_type_is_in_the_document() {
    let doc = document().await;
    let mut found = Vec::new();
    refs(&doc, String::new(), &mut found);
    assert!(found.len() > 100, "the document refers to its schemas");
    for (at, r) in &found {
        let pointer = r.strip_prefix('#').unwrap_or_else(|| panic!("{at}: {r} is not local"));
        assert!(doc.pointer(pointer).is_some(), "{at}: {r} points to nothing");
    }

    // Every type the api crate exports has its schema, read from the crate's own list.
    let schemas = doc["components"]["schemas"].as_object().expect("schemas");
    let lib = include_str!("../api/src/lib.rs");
    let exported: Vec<&str> = lib
        .split("pub use ")
        .skip(1)
        .filter_map(|u| u.split_once('{').and_then(|(_, rest)| rest.split_once('}')).map(|(names, _)| names))
        .flat_map(|names| names.split(',').map(str::trim).filter(|n| !n.is_empty()))
        .collect();
    assert!(exported.len() > 80, "read the api crate's exports: {exported:?}");
    let missing: Vec<&&str> = exported.iter().filter(|n| !schemas.contains_key(**n)).collect();
    assert!(missing.is_empty(), "api types missing from the document: {missing:?}");
    for agent in ["Register", "Registered", "Report", "Orders", "Assignment", "Stop", "Refusal"] {
        assert!(schemas.contains_key(agent), "the agent protocol's {agent}");
    }

    // The error shape is shared, with an example of each code.
    let responses = doc["components"]["responses"].as_object().expect("responses");
    for (name, r) in responses {
        let json = &r["content"]["application/json"];
        assert_eq!(json["schema"]["$ref"], "#/components/schemas/ErrorBody", "{name}");
        assert!(json["example"]["error"]["code"].is_string(), "{name}");
    }
}
