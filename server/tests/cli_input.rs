//! Bad input to the command line gets a clear error, never a panic; an empty trace
//! gives zeros.

mod common;

use common::{f, json, temp_file, tidepool};

fn stderr_of(args: &[&str]) -> (i32, String) {
    let out = tidepool(args);
    (out.status.code().unwrap_or(-1), String::from_utf8_lossy(&out.stderr).into_owned())
}

const HEADER: &str = "timestamp,duration,num_gpus,gpu_time,cluster\n";

#[test]
fn a_malformed_row_names_the_file_and_line() {
    let cases = [
        ("2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:01:00,sixty,1,60,a\n", "duration"),
        ("2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:01:00,60,0,60,a\n", "num_gpus"),
        ("2017-10-01 00:00:00,60,1,60,a\n2017-13-01 00:01:00,60,1,60,a\n", "timestamp"),
        ("2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:01:00,60,1,60,\n", "cluster"),
        ("2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:01:00,60,1\n", "fields"),
    ];
    for (rows, word) in cases {
        let path = temp_file("trace.csv", &format!("{HEADER}{rows}"));
        let (code, err) = stderr_of(&["simulate", "--trace", path.to_str().unwrap(), "--nodes", "2"]);
        assert_eq!(code, 2, "{err}");
        assert!(err.contains(&format!("{}:3", path.display())), "names file and line 3: {err}");
        assert!(err.contains(word), "mentions {word}: {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
}

#[test]
fn a_trace_without_the_needed_columns_is_refused() {
    let path = temp_file("trace.csv", "when,how_long\n1,2\n");
    let (code, err) = stderr_of(&["simulate", "--trace", path.to_str().unwrap(), "--nodes", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("timestamp"), "{err}");
}

#[test]
fn unknown_flags_and_missing_sizes_give_usage() {
    let (code, err) = stderr_of(&["simulate", "--trace", "x.csv", "--frobnicate"]);
    assert_eq!(code, 2);
    assert!(err.contains("Usage"), "{err}");
    let (code, err) = stderr_of(&["simulate", "--trace", "x.csv", "--gpus-per-node", "0"]);
    assert_eq!(code, 2);
    assert!(err.contains("gpus-per-node"), "{err}");
    let empty = temp_file("trace.csv", HEADER);
    let (code, err) = stderr_of(&["simulate", "--trace", empty.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains("--groups") && err.contains("--nodes"), "{err}");
    let (code, err) =
        stderr_of(&["simulate", "--trace", empty.to_str().unwrap(), "--nodes", "2", "--from", "soon"]);
    assert_eq!(code, 2);
    assert!(err.contains("--from"), "{err}");
    for scale in ["--capacity-scale=-1", "--capacity-scale=0", "--capacity-scale=inf"] {
        let (code, err) = stderr_of(&["simulate", "--trace", empty.to_str().unwrap(), "--nodes", "2", scale]);
        assert_eq!(code, 2);
        assert!(err.contains("--capacity-scale must be a positive number"), "{err}");
    }
}

#[test]
fn missing_and_malformed_files_are_named() {
    let (code, err) = stderr_of(&["simulate", "--trace", "/nonexistent/trace.csv", "--nodes", "2"]);
    assert_eq!(code, 2);
    assert!(err.contains("/nonexistent/trace.csv"), "{err}");
    let trace = temp_file("trace.csv", HEADER);
    let groups = temp_file("groups.csv", "vc,node num\na,4\nb,many\n");
    let (code, err) =
        stderr_of(&["simulate", "--trace", trace.to_str().unwrap(), "--groups", groups.to_str().unwrap()]);
    assert_eq!(code, 2);
    assert!(err.contains(&format!("{}:3", groups.display())) && err.contains("many"), "{err}");
}

#[test]
fn an_empty_trace_gives_zeros() {
    for contents in [HEADER, ""] {
        let path = temp_file("trace.csv", contents);
        let report =
            json(&["simulate", "--trace", path.to_str().unwrap(), "--nodes", "2", "--format", "json"]);
        for key in
            ["jobs", "completed", "avg_jct_s", "avg_wait_s", "p99_wait_s", "makespan_s", "gpu_utilization"]
        {
            assert_eq!(f(&report, key), 0.0, "{key} in {report}");
        }
        assert_eq!(report["groups"].as_object().map(|g| g.len()), Some(0));
    }
}

#[test]
fn jobs_of_unknown_groups_are_skipped_and_counted() {
    let trace = temp_file(
        "trace.csv",
        &format!(
            "{HEADER}2017-10-01 00:00:00,60,1,60,a\n2017-10-01 00:00:10,60,2,120,zz\n1506816100,30,1,30,a\n"
        ),
    );
    let groups = temp_file("groups.csv", "vc,node num\na,1\n");
    let report =
        json(&["simulate", "--trace", trace.to_str().unwrap(), "--groups", groups.to_str().unwrap()]);
    assert_eq!(f(&report, "jobs"), 2.0);
    assert_eq!(f(&report, "skipped"), 1.0);
    assert_eq!(f(&report, "completed"), 2.0);
    // Two 1-GPU jobs on an idle 8-GPU node: neither waits; the run spans 60 s after the first.
    assert_eq!(f(&report, "avg_wait_s"), 0.0);
    assert_eq!(f(&report, "makespan_s"), 130.0);
}
