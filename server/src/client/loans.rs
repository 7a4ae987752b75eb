//! `tidepool loans`: the list, and `request`, `approve`, `reject`, `return`.

use tidepool_api::{Decision, LoanChanged, LoanPage, NewLoan};

use crate::cli::{ClientOpts, LoanAction};
use crate::client::http::Api;
use crate::client::table::{parse_duration, relative, table};
use crate::client::{Failure, Outcome, print};

async fn list(opts: &ClientOpts, api: &mut Api) -> Outcome {
    let page: LoanPage = api.get("/api/loans?limit=500").await?;
    let now = crate::unix_now();
    print(opts, &page, |page| {
        let rows: Vec<Vec<String>> = page
            .loans
            .iter()
            .map(|l| {
                let decided = match (&l.decided_by, &l.decision) {
                    (Some(by), Some(note)) => format!("{by}: {note}"),
                    (Some(by), None) => by.clone(),
                    _ => String::new(),
                };
                vec![
                    l.id.to_string(),
                    l.state.clone(),
                    l.lender.clone(),
                    l.borrower.clone().unwrap_or_else(|| "(open offer)".into()),
                    format!("{}×{}", l.gpus, l.model),
                    relative(l.ends_at, now),
                    format!("{} ({})", l.requested_by, l.why),
                    decided,
                ]
            })
            .collect();
        if rows.is_empty() {
            return "no loans".into();
        }
        let mut out = table(
            &["ID", "STATE", "LENDER", "BORROWER", "GPUS", "ENDS", "ASKED BY (WHY)", "DECISION"],
            &rows,
        );
        if let Some(next) = page.next {
            out.push_str(&format!("\n… and older loans (before id {next}) in the web app or the API"));
        }
        out
    })
}

pub async fn loans(opts: &ClientOpts, action: Option<&LoanAction>) -> Outcome {
    let mut api = Api::signed_in(opts)?;
    let changed: LoanChanged = match action {
        None => return list(opts, &mut api).await,
        Some(LoanAction::Request { lender, gpus, model, duration, why, borrower }) => {
            let seconds = parse_duration(duration).map_err(Failure::Usage)?;
            let body = NewLoan {
                lender: lender.clone(),
                borrower: borrower.clone(),
                model: model.clone(),
                gpus: *gpus,
                ends_at: crate::unix_now().saturating_add(i64::try_from(seconds).unwrap_or(i64::MAX)),
                why: why.clone(),
            };
            api.post("/api/loans", Some(&body)).await?
        }
        Some(LoanAction::Approve { id, note }) => decide(&mut api, *id, "approve", note).await?,
        Some(LoanAction::Reject { id, note }) => decide(&mut api, *id, "reject", note).await?,
        Some(LoanAction::Return { id }) => {
            api.post::<(), _>(&format!("/api/loans/{id}/return"), None).await?
        }
    };
    print(opts, &changed, |c| format!("loan {}: {}", c.id, c.state))
}

async fn decide(api: &mut Api, id: i64, verb: &str, note: &str) -> Result<LoanChanged, Failure> {
    api.post(&format!("/api/loans/{id}/{verb}"), Some(&Decision { note: note.to_string() })).await
}
