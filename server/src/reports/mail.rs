//! The two ways a frozen report leaves the server: a mail (a short text with the headline
//! figures, the CSV attached) through the configured SMTP server, and the typed report
//! POSTed as JSON to the organisation's webhook. Plain SMTP only (no TLS stack is built
//! in): point `--smtp-server` at a relay on the host or the local network.

use std::time::Duration;

use lettre::message::header::ContentType;
use lettre::message::{Attachment, Mailbox, MultiPart, SinglePart};
use lettre::{AsyncSmtpTransport, AsyncTransport, Message, Tokio1Executor};
use tidepool_api::reports::WeeklyReport;

use super::to_csv;

/// Seconds one SMTP conversation or webhook call may take before it counts as failed.
const TIMEOUT: Duration = Duration::from_secs(15);

/// Where mail goes out (`serve --smtp-server HOST:PORT --smtp-from ADDRESS`).
#[derive(Clone, Debug)]
pub struct Smtp {
    pub host: String,
    pub port: u16,
    pub from: Mailbox,
}

impl Smtp {
    /// The flags' values, checked: a `HOST:PORT` and an address.
    pub fn parse(server: &str, from: &str) -> Result<Smtp, String> {
        let bad = || format!("--smtp-server must look like HOST:PORT, not `{server}`");
        let (host, port) = server.rsplit_once(':').ok_or_else(bad)?;
        let port: u16 = port.parse().map_err(|_| bad())?;
        let host = host.trim_start_matches('[').trim_end_matches(']');
        if host.is_empty() {
            return Err(bad());
        }
        let from = from.parse().map_err(|e| format!("--smtp-from `{from}` is not an address: {e}"))?;
        Ok(Smtp { host: host.to_string(), port, from })
    }
}

fn figure(v: f64) -> String {
    format!("{v:.2}")
}

fn change(now: f64, before: f64) -> String {
    let d = now - before;
    if d >= 0.0 { format!("+{d:.2}") } else { format!("{d:.2}") }
}

/// The mail's subject and text: the week, whom it is about, and the headline figures.
pub fn headline(r: &WeeklyReport) -> (String, String) {
    let about = r.group.clone().unwrap_or_else(|| "the organisation".into());
    let subject = format!("Tidepool weekly report {}: {about}", r.week);
    let t = &r.totals;
    let mut text = format!(
        "Tidepool's report of {} for {about} (weeks in {}).\n\n\
         GPU-hours held: {} (busy {}, idle while held {})\n\
         Cost: {} {}\n\
         Jobs: {} started, {} finished ({} failed, {} timed out)\n",
        r.week,
        r.time_zone,
        figure(t.gpu_hours),
        figure(t.busy_gpu_hours),
        figure(t.idle_gpu_hours),
        figure(t.cost),
        r.currency,
        t.jobs_started,
        t.jobs_finished,
        r.outcomes.failed,
        r.outcomes.timed_out,
    );
    for w in &r.waits {
        text.push_str(&format!(
            "Waits, {}: {} jobs, p50 {:.0} s, p95 {:.0} s\n",
            w.class, w.jobs, w.p50_s, w.p95_s
        ));
    }
    text.push_str(&format!(
        "Loans: lent {} GPU-hours, borrowed {}\n",
        figure(r.loans.lent_gpu_hours),
        figure(r.loans.borrowed_gpu_hours)
    ));
    if let Some(p) = &r.previous {
        text.push_str(&format!(
            "Against {}: GPU-hours {}, cost {}, idle {}\n",
            p.week,
            change(t.gpu_hours, p.gpu_hours),
            change(t.cost, p.cost),
            change(t.idle_gpu_hours, p.idle_gpu_hours)
        ));
    }
    text.push_str("\nEvery table is in the attached CSV; the report is also on the Reports page.\n");
    (subject, text)
}

/// Mails `report` to `to`; the error in words when the server refused or was not there.
pub async fn send_mail(smtp: &Smtp, to: &str, report: &WeeklyReport) -> Result<(), String> {
    let to: Mailbox = to.parse().map_err(|e| format!("`{to}` is not an address: {e}"))?;
    let (subject, text) = headline(report);
    let about = report.group.as_deref().unwrap_or("organisation");
    let csv = Attachment::new(format!("tidepool-{}-{about}.csv", report.week))
        .body(to_csv(report), ContentType::parse("text/csv; charset=utf-8").map_err(|e| e.to_string())?);
    let message = Message::builder()
        .from(smtp.from.clone())
        .to(to)
        .subject(subject)
        .multipart(MultiPart::mixed().singlepart(SinglePart::plain(text)).singlepart(csv))
        .map_err(|e| format!("cannot build the mail: {e}"))?;
    let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host)
        .port(smtp.port)
        .timeout(Some(TIMEOUT))
        .build();
    transport.send(message).await.map(|_| ()).map_err(|e| format!("SMTP: {e}"))
}

/// Mails a plain text (an alert) to `to`.
pub async fn send_text(smtp: &Smtp, to: &str, subject: &str, text: String) -> Result<(), String> {
    let to: Mailbox = to.parse().map_err(|e| format!("`{to}` is not an address: {e}"))?;
    let message = Message::builder()
        .from(smtp.from.clone())
        .to(to)
        .subject(subject)
        .singlepart(SinglePart::plain(text))
        .map_err(|e| format!("cannot build the mail: {e}"))?;
    let transport = AsyncSmtpTransport::<Tokio1Executor>::builder_dangerous(&smtp.host)
        .port(smtp.port)
        .timeout(Some(TIMEOUT))
        .build();
    transport.send(message).await.map(|_| ()).map_err(|e| format!("SMTP: {e}"))
}

/// POSTs `body` (a report, an alert) as JSON to `url`; an answer other than 2xx is a failure.
pub async fn post_webhook<T: serde::Serialize>(
    http: &reqwest::Client,
    url: &str,
    body: &T,
) -> Result<(), String> {
    let answer =
        http.post(url).timeout(TIMEOUT).json(body).send().await.map_err(|e| format!("webhook: {e}"))?;
    if answer.status().is_success() {
        Ok(())
    } else {
        Err(format!("the webhook answered {}", answer.status()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn smtp_flags_are_checked() {
        let s = Smtp::parse("127.0.0.1:2525", "Tidepool <reports@example.org>").expect("good flags");
        assert_eq!((s.host.as_str(), s.port), ("127.0.0.1", 2525));
        assert_eq!(Smtp::parse("[::1]:25", "a@b").expect("v6").host, "::1");
        for bad in ["localhost", "host:port", ":25", "host:99999"] {
            assert!(Smtp::parse(bad, "a@b").is_err(), "{bad}");
        }
        assert!(Smtp::parse("h:25", "not an address").is_err());
    }
}
