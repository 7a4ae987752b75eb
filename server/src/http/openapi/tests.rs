//! The table and the routes cannot drift apart (issue 11: a route missing from the
//! document fails here). The served document itself is checked in
//! `server/tests/openapi_document.rs`, and validated by a registry's validator in
//! `tests/openapi/check.sh`.

use super::table::OPS;
use super::{build, error_statuses};
use crate::http::{Access, Body, ROUTES};

#[test]
fn every_route_has_exactly_one_entry_and_every_entry_a_route() {
    for r in ROUTES {
        let n = OPS.iter().filter(|o| o.method == r.method && o.path == r.path).count();
        assert_eq!(n, 1, "{} {} has {n} entries in openapi/table.rs (one needed)", r.method, r.path);
    }
    for o in OPS {
        assert!(
            ROUTES.iter().any(|r| r.method == o.method && r.path == o.path),
            "openapi/table.rs describes {} {}, which is not a route",
            o.method,
            o.path
        );
    }
    let mut ids: Vec<&str> = OPS.iter().map(|o| o.id).collect();
    ids.sort_unstable();
    let before = ids.len();
    ids.dedup();
    assert_eq!(ids.len(), before, "operation ids are unique");
}

#[test]
fn json_bodies_have_a_schema_and_an_example_and_no_other_route_has_one() {
    for r in ROUTES {
        let o = OPS.iter().find(|o| o.method == r.method && o.path == r.path).expect("an entry");
        match r.body {
            Body::Json => {
                assert!(o.request.is_some(), "{} {} takes JSON: name its request type", r.method, r.path)
            }
            Body::None | Body::Wasm => {
                assert!(o.request.is_none(), "{} {} takes no JSON body", r.method, r.path)
            }
        }
        if let Some((_, example)) = o.request {
            assert!(example().is_object(), "{} {}: an example is a JSON object", r.method, r.path);
        }
        assert_eq!(o.answer.is_none(), o.status == 204, "{} {}: only a 204 has no content", r.method, r.path);
    }
}

#[test]
fn errors_follow_access_and_input() {
    let find = |m: &str, p: &str| {
        let r = ROUTES.iter().find(|r| r.method == m && r.path == p).expect("route");
        (r, OPS.iter().find(|o| o.method == m && o.path == p).expect("entry"))
    };
    let (r, o) = find("post", "/api/auth/login");
    assert_eq!(r.access, Access::Public);
    assert_eq!(error_statuses(r, o), [400, 401, 413, 422, 429, 500]);
    let (r, o) = find("post", "/api/jobs/{id}/cancel");
    assert_eq!(error_statuses(r, o), [400, 401, 403, 404, 409, 500]);
    let (r, o) = find("get", "/api/jobs");
    assert_eq!(error_statuses(r, o), [400, 401, 422, 500]);
}

#[test]
fn the_document_is_built_from_the_table() {
    let doc = build();
    let ops: usize =
        doc["paths"].as_object().expect("paths").values().map(|p| p.as_object().unwrap().len()).sum();
    assert_eq!(ops, ROUTES.len());
    let login = &doc["paths"]["/api/auth/login"]["post"];
    assert_eq!(
        login["requestBody"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Login"
    );
    assert_eq!(
        login["responses"]["200"]["content"]["application/json"]["schema"]["$ref"],
        "#/components/schemas/Tokens"
    );
    assert_eq!(doc["components"]["schemas"]["Login"]["additionalProperties"], false);
    // A download says what it is: the weekly report's CSV is text/csv, not JSON.
    let csv = &doc["paths"]["/api/reports/weekly.csv"]["get"]["responses"]["200"]["content"];
    assert_eq!(csv["text/csv"]["schema"]["type"], "string", "{csv}");
    assert!(csv.get("application/json").is_none());
}

#[test]
fn documented_unit_enums_are_plain_string_enums() {
    let doc = build();
    let role = &doc["components"]["schemas"]["Role"];
    assert_eq!(role["enum"], serde_json::json!(["admin", "manager", "member"]), "{role}");
    assert!(role.get("oneOf").is_none(), "{role}");
    assert!(role["description"].as_str().unwrap().contains("`admin`: Acts anywhere."), "{role}");
    // A tagged enum of objects keeps its oneOf.
    assert!(doc["components"]["schemas"]["PolicyState"]["oneOf"].is_array());
}
