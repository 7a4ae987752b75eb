//! Rows to JSON by a column list, so each listing states its shape once instead of a
//! `try_get` per field. Booleans are selected as 0/1 integers (the `Any` driver cannot
//! decode SQLite's BOOLEAN) and come out as `true`/`false`.

use serde_json::{Map, Value};
use sqlx::Row;
use sqlx::any::AnyRow;

/// How to read one column.
#[derive(Clone, Copy)]
pub enum Col {
    Int,
    OptInt,
    Text,
    OptText,
    OptReal,
    /// A 0/1 integer.
    Bool,
    /// Text holding JSON, embedded as JSON.
    Json,
}

/// One row as an object whose keys are `cols`' names, in column order.
pub fn object(row: &AnyRow, cols: &[(&str, Col)]) -> Result<Value, sqlx::Error> {
    let mut out = Map::with_capacity(cols.len());
    for (i, (name, col)) in cols.iter().enumerate() {
        let v = match col {
            Col::Int => Value::from(row.try_get::<i64, _>(i)?),
            Col::OptInt => row.try_get::<Option<i64>, _>(i)?.map_or(Value::Null, Value::from),
            Col::Text => Value::from(row.try_get::<String, _>(i)?),
            Col::OptText => row.try_get::<Option<String>, _>(i)?.map_or(Value::Null, Value::from),
            Col::OptReal => row.try_get::<Option<f64>, _>(i)?.map_or(Value::Null, Value::from),
            Col::Bool => Value::from(row.try_get::<i64, _>(i)? != 0),
            Col::Json => serde_json::from_str(&row.try_get::<String, _>(i)?).unwrap_or(Value::Null),
        };
        out.insert((*name).to_string(), v);
    }
    Ok(Value::Object(out))
}

/// Every row as an object.
pub fn objects(rows: &[AnyRow], cols: &[(&str, Col)]) -> Result<Vec<Value>, sqlx::Error> {
    rows.iter().map(|r| object(r, cols)).collect()
}
