//! The template list (T1–T3): each template with its usage (launches and the last one),
//! the groups granted it, and whether the caller may launch it; env values only for the
//! owning group and admins. A page costs its own templates' jobs and grants, never
//! templates × jobs (finding 8).

use std::collections::BTreeMap;

use sqlx::Row;
use sqlx::any::AnyRow;
use tidepool_api::templates::{Template, TemplatePage};

use crate::access::belongs;
use crate::jobs::sandbox::shown;
use crate::store::listing::{Arg, Filters, Keyed, Order, Page};
use crate::store::users::User;
use crate::store::{Store, StoreError};

/// Each template's launches and the last one, for a page's id range, in one grouped
/// read of the (template_id, submitted_at) index.
const USAGE: &str = "SELECT template_id, COUNT(*), MAX(submitted_at) FROM jobs \
     WHERE template_id BETWEEN $1 AND $2 GROUP BY template_id";

/// Per template in a page's id range: the groups granted its use, as (id, name).
const GRANTS: &str = "SELECT tg.template_id, g.id, g.name FROM template_grants tg \
     JOIN groups g ON g.id = tg.group_id WHERE tg.template_id BETWEEN $1 AND $2 ORDER BY g.name";

impl Keyed for Template {
    fn key(&self) -> i64 {
        self.id
    }
}

/// A row as stored, before usage, grants and the caller's view are added.
fn template_of(row: &AnyRow) -> Result<Template, sqlx::Error> {
    let env: String = row.try_get(12)?;
    Ok(Template {
        id: row.try_get(0)?,
        name: row.try_get(1)?,
        group: row.try_get(2)?,
        category: row.try_get(3)?,
        class: row.try_get(4)?,
        gpus: row.try_get(5)?,
        model: row.try_get(6)?,
        topology: row.try_get(7)?,
        time_limit_s: row.try_get(8)?,
        checkpointable: row.try_get::<i64, _>(9)? != 0,
        image: row.try_get(10)?,
        command: row.try_get(11)?,
        // Written by this server as a JSON object; anything else shows as none.
        env: serde_json::from_str(&env).ok(),
        env_shown: false,
        created_by: row.try_get(13)?,
        created_at: row.try_get(14)?,
        retired_at: row.try_get(15)?,
        group_id: row.try_get(16)?,
        uses: 0,
        last_used_at: None,
        granted_to: Vec::new(),
        usable: false,
    })
}

/// Templates, oldest first, a page at a time (`next` goes in `after`), as `user` sees
/// them. `stale_days`: only active templates neither launched nor created within that
/// many days, the retirement review (T3).
pub async fn list(
    store: &Store,
    user: &User,
    stale_days: Option<u32>,
    page: &Page,
    now: i64,
) -> Result<TemplatePage, StoreError> {
    let pool = &store.pool;
    let mut filters = Filters::default();
    if let Some(days) = stale_days {
        let cutoff = now - i64::from(days) * 86_400;
        filters.and_fixed("t.retired_at IS NULL").and(
            "NOT EXISTS (SELECT 1 FROM jobs j WHERE j.template_id = t.id AND j.submitted_at > ?)",
            Arg::Int(cutoff),
        );
        filters.and(
            "(t.created_at <= ? OR EXISTS (SELECT 1 FROM jobs j WHERE j.template_id = t.id))",
            Arg::Int(cutoff),
        );
    }
    filters.page("t.id", page);
    let sql = format!(
        "SELECT t.id, t.name, g.name, t.category, t.class, t.gpus, t.model, t.topology, t.time_limit_s, \
         CAST(CASE WHEN t.checkpointable THEN 1 ELSE 0 END AS BIGINT), t.image, t.command, t.env, t.created_by, \
         t.created_at, t.retired_at, t.group_id FROM templates t JOIN groups g ON g.id = t.group_id{} {} LIMIT {}",
        filters.sql(),
        Order::OldestFirst.sql("t.id"),
        page.fetch()
    );
    let rows = filters.bind(sqlx::query(sqlx::AssertSqlSafe(sql))).fetch_all(pool).await?;
    let templates = rows.iter().map(template_of).collect::<Result<Vec<_>, _>>()?;
    let (mut templates, next) = page.finish(templates);
    let (lo, hi) = (templates.first().map_or(0, |t| t.id), templates.last().map_or(-1, |t| t.id));
    let mut usage: BTreeMap<i64, (i64, Option<i64>)> = BTreeMap::new();
    for r in sqlx::query(USAGE).bind(lo).bind(hi).fetch_all(pool).await? {
        usage.insert(r.try_get(0)?, (r.try_get(1)?, r.try_get(2)?));
    }
    let mut grants: BTreeMap<i64, Vec<(i64, String)>> = BTreeMap::new();
    for r in sqlx::query(GRANTS).bind(lo).bind(hi).fetch_all(pool).await? {
        grants.entry(r.try_get(0)?).or_default().push((r.try_get(1)?, r.try_get(2)?));
    }
    for t in &mut templates {
        let granted = grants.remove(&t.id).unwrap_or_default();
        let owner = t.group_id;
        t.usable = t.retired_at.is_none()
            && (belongs(user, owner) || granted.iter().any(|(g, _)| user.group_id == Some(*g)));
        (t.uses, t.last_used_at) = usage.get(&t.id).copied().unwrap_or((0, None));
        t.env = t.env.take().map(|env| shown(env, user, owner));
        t.env_shown = belongs(user, owner);
        t.granted_to = granted.into_iter().map(|(_, name)| name).collect();
    }
    Ok(TemplatePage { templates, next })
}
