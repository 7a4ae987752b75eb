//! Issue 12 on the command line: `tidepool report weekly` and `report reviews`, run as a
//! user runs them — a fresh config folder, `login` with the password on stdin — against
//! a real server on loopback. The JSON is the API's answer, the table says the totals,
//! the CSV is the server's; another group's report and a malformed week are the
//! server's refusals (exit 1); a review flag of the wrong period is usage (exit 2).
//! MISSION A5 (weekly report per group and organisation), O4, Q5, R5, T3.

mod common;

use common::live::{call, free_port, login, serve};
use common::shell::Shell;
use tidepool_api::reports::WeeklyReport;
use tidepool_api::reviews::{IdleReview, QuotaReview, RulesReview, TemplateReview};

impl Shell {
    #[track_caller]
    fn json<T: serde::de::DeserializeOwned>(&self, args: &[&str]) -> T {
        let out = self.expect(0, args).0;
        serde_json::from_str(&out).unwrap_or_else(|e| panic!("tidepool {args:?}: not its JSON ({e}): {out}"))
    }
}

#[test]
fn a_member_reads_the_weekly_report_and_the_reviews_from_the_command_line() {
    let dir = common::fresh_dir("cli-report");
    let d = dir.to_str().unwrap();
    let addr = format!("127.0.0.1:{}", free_port());
    let _server = serve(&format!("{d}/data"), &addr, None, &[]);
    let sh = Shell::in_dir(&dir);

    // Not signed in: exit 3, as every client command.
    let (_, err) = sh.expect(3, &["report", "weekly"]);
    assert!(err.contains("tidepool login --server"), "{err}");

    let server = format!("http://{addr}");
    let out = sh.run(&["login", "--server", &server, "-u", "vision-dev"], "demo-password\n");
    let (status, err) = (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr));
    assert_eq!(status, 0, "{err}");
    let token = login(&addr, "vision-dev", "demo-password");

    // A finished week: the CLI's JSON is the API's answer, as the shared type.
    let week = "2026-W01";
    let mine: WeeklyReport =
        sh.json(&["report", "weekly", "--group", "vision", "--week", week, "--format", "json"]);
    let api: WeeklyReport = serde_json::from_value(call(
        &addr,
        "GET",
        &format!("/api/reports/weekly?group=vision&week={week}"),
        &token,
        None,
    ))
    .expect("the API's WeeklyReport");
    assert_eq!(mine, api);
    assert_eq!((mine.week.as_str(), mine.group.as_deref()), (week, Some("vision")));

    // The table: the header names the scope and week, the totals line follows.
    let (table, _) = sh.expect(0, &["report", "weekly", "--group", "vision", "--week", week]);
    let mut lines = table.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with(&format!("vision · {week} (2025-12-29 to 2026-01-04, ")), "{table}");
    let totals = lines.next().unwrap();
    assert!(totals.starts_with("totals: 0.0 GPU-h, 0.0 busy, 0.0 idle, cost 0.00 "), "{table}");
    assert!(totals.ends_with("jobs 0 started / 0 finished"), "{table}");
    for part in ["loans: lent 0.0 GPU-h, borrowed 0.0 GPU-h", "outcomes: 0 succeeded", "\nagainst "] {
        assert!(table.contains(part), "{part} in\n{table}");
    }
    // The organisation's, by default.
    let (org, _) = sh.expect(0, &["report", "weekly", "--week", week]);
    assert!(org.starts_with(&format!("organisation · {week} ")), "{org}");

    // CSV: the server's sections, from the first.
    let (csv, _) =
        sh.expect(0, &["report", "weekly", "--group", "vision", "--week", week, "--format", "csv"]);
    assert!(csv.starts_with("# report\nweek,group,time_zone,"), "{csv}");
    assert!(csv.contains("\n# totals\n"), "{csv}");

    // Another group's report is refused in the server's words; a malformed week too.
    let (_, err) = sh.expect(1, &["report", "weekly", "--group", "speech"]);
    assert!(err.contains("you read your own group's reports and the organisation's"), "{err}");
    let (_, err) = sh.expect(1, &["report", "weekly", "--group", "speech", "--format", "csv"]);
    assert!(err.starts_with("error: you read your own group's"), "{err}");
    let (_, err) = sh.expect(1, &["report", "weekly", "--week", "2026-48"]);
    assert!(err.contains("week must look like 2026-W48, not `2026-48`"), "{err}");

    // The reviews, as their API types; a period flag the review does not take is usage.
    let quotas: QuotaReview =
        sh.json(&["report", "reviews", "quotas", "--month", "2026-11", "--format", "json"]);
    assert_eq!(quotas.month, "2026-11");
    assert!(quotas.lines.iter().all(|l| l.group == "vision"), "a member sees their group's: {quotas:?}");
    let idle: IdleReview = sh.json(&["report", "reviews", "idle", "--format", "json", "--month", "2026-11"]);
    assert_eq!(idle.month, "2026-11");
    let stale: TemplateReview =
        sh.json(&["report", "reviews", "templates", "--quarter", "2026-Q4", "--format", "json"]);
    assert_eq!(stale.quarter, "2026-Q4");
    let rules: RulesReview = sh.json(&["report", "reviews", "rules", "--year", "2026", "--format", "json"]);
    assert_eq!(rules.year, 2026);
    let (text, _) = sh.expect(0, &["report", "reviews", "quotas", "--month", "2026-11"]);
    assert!(text.starts_with("quota review 2026-11"), "{text}");
    let (_, err) = sh.expect(2, &["report", "reviews", "quotas", "--quarter", "2026-Q4"]);
    assert!(err.contains("takes --month"), "{err}");
    sh.expect(2, &["report", "reviews", "quotas", "--format", "csv"]);

    // Shell completions know the new commands.
    let (bash, _) = sh.expect(0, &["completions", "bash"]);
    assert!(bash.contains("report") && bash.contains("reviews") && bash.contains("weekly"), "completions");
}
