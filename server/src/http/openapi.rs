//! The OpenAPI document, generated from the route table so it cannot drift from it.

use axum::Json;
use serde_json::{Map, Value, json};

use crate::http::{Access, Body, ROUTES};

pub async fn document() -> Json<Value> {
    let mut paths = Map::new();
    for r in ROUTES {
        let mut op = json!({
            "summary": r.summary,
            "x-access": r.access,
            "responses": {
                "default": { "description": "On failure: {\"error\": {\"code\", \"message\"}}" }
            }
        });
        match r.body {
            Body::None => {}
            Body::Json => {
                op["requestBody"] = json!({ "required": true, "content": { "application/json": {} } })
            }
            Body::Wasm => {
                op["requestBody"] = json!({ "required": true, "content": { "application/wasm": {} } })
            }
        }
        if r.access != Access::Public {
            op["security"] = json!([{ "bearer": [] }]);
        }
        let entry = paths.entry(r.path.to_string()).or_insert_with(|| json!({}));
        entry[r.method] = op;
    }
    Json(json!({
        "openapi": "3.1.0",
        "info": { "title": "Tidepool", "version": env!("CARGO_PKG_VERSION") },
        "components": { "securitySchemes": { "bearer": { "type": "http", "scheme": "bearer", "bearerFormat": "JWT" } } },
        "paths": paths,
    }))
}
