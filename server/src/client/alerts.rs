//! `tidepool alerts`: one's inbox (`--unread`: only what is not read yet), `ack ID` and
//! `read ID`.

use tidepool_api::alerts::{Alert, Inbox};

use crate::cli::{AlertAction, ClientOpts};
use crate::client::http::Api;
use crate::client::table::{relative, table};
use crate::client::{Outcome, print};

fn state(a: &Alert) -> String {
    let mut s = if a.resolved_at.is_some() { "resolved" } else { "open" }.to_string();
    if let Some(by) = &a.acknowledged_by {
        s.push_str(&format!(", ack {by}"));
    }
    if !a.read {
        s.push_str(", unread");
    }
    s
}

pub async fn alerts(opts: &ClientOpts, unread: bool, action: Option<&AlertAction>) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let (verb, id) = match action {
        None => {
            let inbox: Inbox =
                api.get(if unread { "/api/alerts?unread=true" } else { "/api/alerts" }).await?;
            let now = crate::unix_now();
            return print(opts, &inbox, |inbox| {
                let rows: Vec<Vec<String>> = inbox
                    .alerts
                    .iter()
                    .map(|a| {
                        vec![
                            a.id.to_string(),
                            a.severity.as_str().to_string(),
                            a.rule.clone(),
                            a.group.clone().unwrap_or_else(|| "-".into()),
                            relative(a.opened_at, now),
                            state(a),
                            a.message.clone(),
                        ]
                    })
                    .collect();
                let mut out = format!("{} unread\n", inbox.unread);
                if !rows.is_empty() {
                    out.push_str(&table(
                        &["ID", "SEVERITY", "RULE", "GROUP", "OPENED", "STATE", "MESSAGE"],
                        &rows,
                    ));
                }
                out
            });
        }
        Some(AlertAction::Ack { id }) => ("ack", *id),
        Some(AlertAction::Read { id }) => ("read", *id),
    };
    let alert: Alert = api.post::<(), _>(&format!("/api/alerts/{id}/{verb}"), None).await?;
    print(opts, &alert, |a| format!("alert {}: {}", a.id, state(a)))
}
