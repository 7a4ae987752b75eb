//! Who is sent a round of an alert: each person with an address who receives it (the
//! core's rule: admins everything, a group's managers and members as its audience says),
//! once per address, and the alert webhook. Rows of `alert_deliveries`, due at once.

use std::collections::BTreeSet;

use sqlx::Row;
use tidepool_core::alerts::{Audience, Tier, receives};

use super::{AlertConfig, AlertError, settings};
use crate::store::Store;
use crate::store::users::Role;

/// The addresses and the webhook a round may go to.
pub struct Recipients {
    /// (address, tier, group) of each user with an address; empty without SMTP.
    people: Vec<(String, Tier, Option<i64>)>,
    webhook: Option<String>,
}

/// A user's tier, as the core's rules see it.
pub fn tier(role: Role) -> Tier {
    match role {
        Role::Admin => Tier::Admin,
        Role::Manager => Tier::Manager,
        Role::Member => Tier::Member,
    }
}

impl Recipients {
    pub async fn read(store: &Store, config: &AlertConfig) -> Result<Recipients, AlertError> {
        let mut people = Vec::new();
        if config.mail {
            let rows =
                sqlx::query("SELECT email, role, group_id FROM users WHERE email IS NOT NULL ORDER BY id")
                    .fetch_all(&store.pool)
                    .await?;
            for r in rows {
                let Some(role) = Role::parse(&r.try_get::<String, _>(1)?) else { continue };
                let email: String = r.try_get(0)?;
                if !email.trim().is_empty() {
                    people.push((email.trim().to_string(), tier(role), r.try_get(2)?));
                }
            }
        }
        Ok(Recipients { people, webhook: settings::read(store).await?.webhook })
    }

    /// Queues round `round` of alert `id`; how many deliveries it queued.
    pub async fn queue(
        &self,
        tx: &mut sqlx::AnyConnection,
        id: i64,
        round: i64,
        group: Option<i64>,
        audience: Audience,
        now: i64,
    ) -> Result<usize, AlertError> {
        let mut to: BTreeSet<(&str, &str)> = self
            .people
            .iter()
            .filter(|(_, tier, own)| receives(*tier, *own, group, audience))
            .map(|(email, _, _)| ("email", email.as_str()))
            .collect();
        if let Some(url) = &self.webhook {
            to.insert(("webhook", url.as_str()));
        }
        for (channel, recipient) in &to {
            sqlx::query(
                "INSERT INTO alert_deliveries (alert_id, round, channel, recipient, attempts, next_at) \
                 VALUES ($1, $2, $3, $4, 0, $5) ON CONFLICT DO NOTHING",
            )
            .bind(id)
            .bind(round)
            .bind(*channel)
            .bind(*recipient)
            .bind(now)
            .execute(&mut *tx)
            .await?;
        }
        Ok(to.len())
    }
}
