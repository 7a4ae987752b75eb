//! The OpenAPI 3.1 document (`GET /api/openapi.json`), generated so it cannot drift from
//! the server: the routes, summaries and access rules from [`ROUTES`], the request and
//! answer of each from [`table::OPS`], and every schema from the `tidepool-api` types'
//! `JsonSchema` derives (schemars, draft 2020-12: the dialect of OpenAPI 3.1), which follow
//! the same serde attributes the server reads and writes with.

mod examples;
mod table;

use std::sync::OnceLock;

use axum::Json;
use schemars::Schema;
use schemars::generate::{SchemaGenerator, SchemaSettings};
use schemars::transform::RecursiveTransform;
use serde_json::{Map, Value, json};
use tidepool_api as api;

use crate::http::page::{DEFAULT_LIMIT, MAX_LIMIT};
use crate::http::{Access, Body, ROUTES, Route};

pub async fn document() -> Json<Value> {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    Json(DOCUMENT.get_or_init(build).clone())
}

/// The error answers, by status: the name of each shared response and its code.
const ERRORS: &[(u16, &str, &str, &str)] = &[
    (400, "BadRequest", "bad-request", "The request cannot be read (not JSON, a bad path or query)"),
    (401, "Unauthorized", "unauthorized", "Not signed in, or the token is invalid, expired or revoked"),
    (403, "Forbidden", "forbidden", "The caller's role or group may not do this"),
    (404, "NotFound", "not-found", "No such record"),
    (409, "Conflict", "conflict", "The record has moved on (already decided, retired, or exists)"),
    (413, "TooLarge", "too-large", "The body is larger than the server accepts"),
    (422, "Unprocessable", "unprocessable", "The request is readable but a value is refused"),
    (429, "TooManyRequests", "too-many-requests", "Too many tries: wait `Retry-After` seconds"),
    (500, "Internal", "internal", "The server failed; the message says where"),
];

/// The whole document.
pub fn build() -> Value {
    let mut settings = SchemaSettings::draft2020_12();
    // Schemas live under components/schemas, so every `$ref` points there (not `$defs`).
    settings.definitions_path = "/components/schemas".into();
    settings.meta_schema = None;
    let mut g = settings.with_transform(RecursiveTransform(string_enums)).into_generator();
    let error = g.subschema_for::<api::ErrorBody>();
    let mut paths = Map::new();
    for r in ROUTES {
        // A route without an entry is left out; the tests name it.
        if let Some(op) = table::OPS.iter().find(|o| o.method == r.method && o.path == r.path) {
            let item = paths.entry(r.path).or_insert_with(|| json!({}));
            item[r.method] = operation(r, op, &mut g);
        }
    }
    let mut responses = Map::new();
    for &(status, name, code, description) in ERRORS {
        let example = json!({ "error": { "code": code, "message": description } });
        let mut response = json!({
            "description": description,
            "content": { "application/json": { "schema": error, "example": example } },
        });
        if status == 429 {
            response["headers"] = json!({ "Retry-After": {
                "description": "Seconds to wait before trying again",
                "schema": { "type": "integer", "minimum": 1 },
            }});
        }
        responses.insert(name.into(), response);
    }
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": "Tidepool",
            "version": env!("CARGO_PKG_VERSION"),
            "description": "Tidepool's API: GPU jobs, templates, projects, loans, quotas, nodes and \
                policies. Every failure answers `{\"error\": {\"code\", \"message\"}}`. Lists come a \
                page at a time: `limit` (1-500), and the answer's `next` in `after` (oldest-first \
                lists) or `before` (newest-first lists). `x-access` says who may call each route.",
        },
        "servers": [{ "url": "/" }],
        "paths": paths,
        "components": {
            "schemas": g.take_definitions(true),
            "responses": responses,
            "securitySchemes": {
                "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT",
                    "description": "An access token from `POST /api/auth/login` or `/api/auth/refresh`" },
                "nodeToken": { "type": "http", "scheme": "bearer",
                    "description": "A node token an admin issued (`POST /api/nodes/tokens`)" },
                "metricsToken": { "type": "http", "scheme": "bearer",
                    "description": "The token of `tidepool serve --metrics-token`; without one set, callers on loopback need none" },
            },
        },
    })
}

fn operation(r: &Route, op: &table::Op, g: &mut SchemaGenerator) -> Value {
    let mut params = path_params(r.path);
    if op.paged {
        let cursor = |d: &str| json!({ "type": "integer", "format": "int64", "description": d });
        params.push(query(
            "limit",
            json!({ "type": "integer", "minimum": 1, "maximum": MAX_LIMIT,
            "default": DEFAULT_LIMIT, "description": "At most this many items" }),
            false,
        ));
        params.push(query("after", cursor("Only items after this id: an oldest-first list's `next`"), false));
        params.push(query(
            "before",
            cursor("Only items before this id: a newest-first list's `next`"),
            false,
        ));
    }
    for p in op.query {
        params.push(query(p.name, json!({ "type": p.ty, "description": p.description }), p.required));
    }
    let mut o = json!({
        "operationId": op.id,
        "summary": r.summary,
        "tags": [r.path.split('/').nth(2).unwrap_or("api")],
        "x-access": r.access,
        "security": match r.access {
            Access::Public => json!([]),
            Access::Node => json!([{ "nodeToken": [] }]),
            // The token when the server sets one; on loopback, none (`{}`).
            Access::Scraper => json!([{ "metricsToken": [] }, {}]),
            _ => json!([{ "bearer": [] }]),
        },
    });
    if !params.is_empty() {
        o["parameters"] = Value::Array(params);
    }
    match (r.body, op.request) {
        (Body::Json, Some((schema, example))) => {
            let content = json!({ "schema": schema(g), "example": example() });
            o["requestBody"] =
                json!({ "required": !op.optional_body, "content": { "application/json": content } });
        }
        (Body::Wasm, _) => {
            let bytes = json!({ "schema": { "type": "string", "format": "binary" } });
            o["requestBody"] = json!({ "required": true, "description": "A WebAssembly component's bytes",
                "content": { "application/wasm": bytes } });
        }
        _ => {}
    }
    let mut responses = Map::new();
    let ok = match op.answer {
        Some(answer) => {
            let mut content = Map::new();
            content.insert(op.media.to_string(), json!({ "schema": answer(g) }));
            json!({ "description": "Done", "content": content })
        }
        None => json!({ "description": "Done; no content" }),
    };
    responses.insert(op.status.to_string(), ok);
    for status in error_statuses(r, op) {
        let name = ERRORS.iter().find(|e| e.0 == status).map_or("Internal", |e| e.1);
        responses.insert(status.to_string(), json!({ "$ref": format!("#/components/responses/{name}") }));
    }
    // A 503 (not ready) answers with the route's own body, the failing check named.
    if let (true, Some(answer)) = (op.errors.contains(&503), op.answer) {
        let content = json!({ op.media: { "schema": answer(g) } });
        let unready =
            json!({ "description": "Not ready: the same body, the failing check named", "content": content });
        responses.insert("503".into(), unready);
    }
    o["responses"] = Value::Object(responses);
    o
}

/// The errors a route may answer: those its access, body, path and query imply, and its own.
pub fn error_statuses(r: &Route, op: &table::Op) -> Vec<u16> {
    let has_input = r.body != Body::None || op.paged || !op.query.is_empty() || r.path.contains('{');
    let mut out = vec![500];
    out.extend(has_input.then_some(400));
    out.extend((r.access != Access::Public).then_some(401));
    out.extend((!matches!(r.access, Access::Public | Access::SignedIn)).then_some(403));
    out.extend(r.path.contains('{').then_some(404));
    out.extend((r.body != Body::None).then_some(413));
    out.extend((r.body != Body::None || op.paged || !op.query.is_empty()).then_some(422));
    out.extend(op.errors);
    out.sort_unstable();
    out.dedup();
    out
}

/// A unit enum whose variants have doc comments comes out of schemars as a `oneOf` of
/// documented `const`s; generators read that badly (openapi-python-client's models
/// refuse every value but the first), so it becomes a plain string `enum`, the variants'
/// descriptions moved into its own.
fn string_enums(schema: &mut Schema) {
    let Some(branches) = schema.get("oneOf").and_then(Value::as_array) else { return };
    let consts: Option<Vec<(Value, Option<String>)>> = branches
        .iter()
        .map(|b| {
            let b = b.as_object()?;
            let plain = b.get("type")? == "string"
                && b.keys().all(|k| ["const", "type", "description"].contains(&k.as_str()));
            plain.then(|| {
                (b["const"].clone(), b.get("description").and_then(Value::as_str).map(str::to_string))
            })
        })
        .collect();
    let Some(consts) = consts.filter(|c| c.iter().all(|(v, _)| v.is_string())) else { return };
    let words: Vec<String> =
        consts.iter().filter_map(|(v, d)| Some(format!("`{}`: {}", v.as_str()?, d.as_ref()?))).collect();
    let Some(obj) = schema.as_object_mut() else { return };
    obj.remove("oneOf");
    obj.insert("type".into(), json!("string"));
    obj.insert("enum".into(), consts.into_iter().map(|(v, _)| v).collect());
    if !words.is_empty() {
        let head =
            obj.get("description").and_then(Value::as_str).map(|d| format!("{d} ")).unwrap_or_default();
        obj.insert("description".into(), json!(format!("{head}{}", words.join("; "))));
    }
}

fn query(name: &str, schema: Value, required: bool) -> Value {
    json!({ "name": name, "in": "query", "required": required, "schema": schema })
}

fn path_params(path: &str) -> Vec<Value> {
    let names = path.split('/').filter_map(|s| s.strip_prefix('{').and_then(|s| s.strip_suffix('}')));
    names
        .map(|name| {
            let schema = match name {
                "sha256" => {
                    json!({ "type": "string", "description": "A version's SHA-256, or a prefix naming one" })
                }
                _ => json!({ "type": "integer", "format": "int64" }),
            };
            json!({ "name": name, "in": "path", "required": true, "schema": schema })
        })
        .collect()
}

#[cfg(test)]
mod tests;
