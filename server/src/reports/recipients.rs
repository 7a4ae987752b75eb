//! Who gets which frozen report, decided without the network: each group's report goes by
//! email to that group's managers, the organisation's to the admins (one mail a week for
//! each person: admins read the groups' reports in the app), and every report to the
//! webhook. A delivery that went out is never repeated; a failed one is tried again on a
//! later pass, up to [`MAX_ATTEMPTS`] times, so a dead address is not mailed forever.

use std::collections::{BTreeSet, HashMap};

use crate::store::users::Role;

/// Attempts per report, channel and recipient before delivery gives up on it.
pub const MAX_ATTEMPTS: i64 = 24;

/// How a report travels.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Channel {
    Email,
    Webhook,
}

impl Channel {
    /// The name stored in `report_deliveries.channel`.
    pub fn as_str(self) -> &'static str {
        match self {
            Channel::Email => "email",
            Channel::Webhook => "webhook",
        }
    }

    pub fn parse(s: &str) -> Option<Channel> {
        match s {
            "email" => Some(Channel::Email),
            "webhook" => Some(Channel::Webhook),
            _ => None,
        }
    }
}

/// A frozen report of the week: its row and whom it is about (0: the organisation).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct FrozenReport {
    pub report_id: i64,
    pub group_id: i64,
}

/// A user with an address.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Reader {
    pub email: String,
    pub role: Role,
    pub group_id: Option<i64>,
}

/// What earlier passes did for one report, channel and recipient.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Past {
    pub report_id: i64,
    pub channel: Channel,
    pub recipient: String,
    pub attempts: i64,
    pub delivered: bool,
}

/// One delivery to attempt now.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub struct Send {
    pub report_id: i64,
    pub channel: Channel,
    pub recipient: String,
}

/// The deliveries this pass makes: each at most once, none already delivered or given up.
/// `mail`: whether SMTP is configured (without it, reports are only in the app and on the
/// webhook).
pub fn plan(
    reports: &[FrozenReport],
    readers: &[Reader],
    webhook: Option<&str>,
    mail: bool,
    past: &[Past],
) -> Vec<Send> {
    let past: HashMap<(i64, Channel, &str), &Past> =
        past.iter().map(|p| ((p.report_id, p.channel, p.recipient.as_str()), p)).collect();
    let mut sends = BTreeSet::new();
    for report in reports {
        let mut wanted: Vec<(Channel, String)> = Vec::new();
        if mail {
            for reader in readers {
                let reads = if report.group_id == 0 {
                    reader.role == Role::Admin
                } else {
                    reader.role == Role::Manager && reader.group_id == Some(report.group_id)
                };
                if reads && !reader.email.trim().is_empty() {
                    wanted.push((Channel::Email, reader.email.trim().to_string()));
                }
            }
        }
        if let Some(url) = webhook.filter(|u| !u.is_empty()) {
            wanted.push((Channel::Webhook, url.to_string()));
        }
        for (channel, recipient) in wanted {
            let done = past
                .get(&(report.report_id, channel, recipient.as_str()))
                .is_some_and(|p| p.delivered || p.attempts >= MAX_ATTEMPTS);
            if !done {
                sends.insert(Send { report_id: report.report_id, channel, recipient });
            }
        }
    }
    sends.into_iter().collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reader(email: &str, role: Role, group: Option<i64>) -> Reader {
        Reader { email: email.into(), role, group_id: group }
    }

    fn send(report_id: i64, channel: Channel, to: &str) -> Send {
        Send { report_id, channel, recipient: to.into() }
    }

    #[test]
    fn managers_get_their_group_admins_the_organisation_and_the_webhook_everything() {
        // A5: report 1 is the organisation's, 2 group 7's, 3 group 8's.
        let reports = [
            FrozenReport { report_id: 1, group_id: 0 },
            FrozenReport { report_id: 2, group_id: 7 },
            FrozenReport { report_id: 3, group_id: 8 },
        ];
        let readers = [
            reader("root@x", Role::Admin, None),
            reader("lead7@x", Role::Manager, Some(7)),
            reader("dev7@x", Role::Member, Some(7)),
            reader(" lead8@x ", Role::Manager, Some(8)),
            reader("", Role::Manager, Some(8)),
        ];
        let got = plan(&reports, &readers, Some("http://h/hook"), true, &[]);
        assert_eq!(
            got,
            vec![
                send(1, Channel::Email, "root@x"),
                send(1, Channel::Webhook, "http://h/hook"),
                send(2, Channel::Email, "lead7@x"),
                send(2, Channel::Webhook, "http://h/hook"),
                send(3, Channel::Email, "lead8@x"),
                send(3, Channel::Webhook, "http://h/hook"),
            ]
        );
        // Without SMTP only the webhook; without a webhook only mail.
        assert_eq!(plan(&reports[..1], &readers, Some("http://h/hook"), false, &[]).len(), 1);
        assert_eq!(plan(&reports[..1], &readers, None, true, &[]), vec![send(1, Channel::Email, "root@x")]);
    }

    #[test]
    fn delivered_never_again_failed_again_until_the_cap() {
        let reports = [FrozenReport { report_id: 1, group_id: 0 }];
        let readers = [reader("a@x", Role::Admin, None), reader("b@x", Role::Admin, None)];
        let past = |to: &str, attempts, delivered| Past {
            report_id: 1,
            channel: Channel::Email,
            recipient: to.into(),
            attempts,
            delivered,
        };
        let got = plan(&reports, &readers, None, true, &[past("a@x", 1, true), past("b@x", 3, false)]);
        assert_eq!(got, vec![send(1, Channel::Email, "b@x")]);
        let got = plan(&reports, &readers, None, true, &[past("b@x", MAX_ATTEMPTS, false)]);
        assert_eq!(got, vec![send(1, Channel::Email, "a@x")]);
        // Two users sharing one address get one mail.
        let twice = [reader("a@x", Role::Admin, None), reader("a@x", Role::Admin, None)];
        assert_eq!(plan(&reports, &twice, None, true, &[]).len(), 1);
    }
}
