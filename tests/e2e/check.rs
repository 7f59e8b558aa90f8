//! `dsh-host check` through the binary: every built-in guest passes (with its own cases), so do the
//! 0.1 JavaScript adapter and the Python listener built from source; a broken adapter fails naming
//! its cases; `--json` parses; a malformed case file or component is refused with exit 2.

use crate::support::*;
use serde_json::Value;
use std::process::Output;

async fn check(args: &[&str]) -> Output {
    let mut all = vec!["check"];
    all.extend_from_slice(args);
    Scratch::new().run_bin(&all, None).await
}

/// The JSON report of `check ARGS --json`, and the exit code.
async fn check_json(args: &[&str]) -> (Value, Option<i32>) {
    let mut all = args.to_vec();
    all.push("--json");
    let out = check(&all).await;
    let report = serde_json::from_str(&stdout(&out)).unwrap_or_else(|e| {
        panic!(
            "--json is not JSON ({e}):\n{}\n{}",
            stdout(&out),
            stderr(&out)
        )
    });
    (report, out.status.code())
}

fn failed_rows(report: &Value) -> Vec<String> {
    report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["passed"] == false)
        .map(|r| format!("{}: {}: {}", r["source"], r["case"], r["problems"]))
        .collect()
}

fn sources(report: &Value) -> Vec<String> {
    let mut s: Vec<String> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["source"].as_str().unwrap().to_string())
        .collect();
    s.dedup();
    s
}

#[tokio::test]
async fn every_built_in_adapter_passes_with_its_own_cases() {
    for name in ["openai", "anthropic", "gemini"] {
        let (report, code) = check_json(&["--builtin", name]).await;
        assert_eq!(failed_rows(&report), Vec::<String>::new(), "{name}");
        assert_eq!(code, Some(0), "{name}");
        assert_eq!(report["passed"], true);
        assert_eq!(report["guest"]["world"], "adapter");
        let sources = sources(&report);
        for corpus in [
            "corpus/status-only.json",
            "corpus/retry-after.json",
            "corpus/html-pages.json",
            "corpus/bodies.json",
            "corpus/streams.json",
            "fuzz",
        ] {
            assert!(sources.contains(&corpus.to_string()), "{name}: {sources:?}");
        }
        assert!(
            sources.iter().any(|s| s.ends_with("check-cases.json")),
            "{name}: its own cases ran: {sources:?}"
        );
        let m = &report["measurements"];
        assert!(
            m["decode_micros_per_event"].as_f64().unwrap() > 0.0
                && m["events"].as_u64().unwrap() > 0,
            "{m}"
        );
        assert!(
            m["peak_memory_bytes"].as_u64().unwrap() >= 64 << 10,
            "at least one wasm page: {m}"
        );
    }
}

#[tokio::test]
async fn every_built_in_listener_passes_with_its_own_scenarios() {
    for name in ["llm-retry", "compaction-basic"] {
        let out = check(&["--builtin", name]).await;
        let table = stdout(&out);
        assert_eq!(
            out.status.code(),
            Some(0),
            "{name}:\n{table}{}",
            stderr(&out)
        );
        assert!(
            table.contains(&format!("checked listener '{name}'")),
            "{table}"
        );
        assert!(
            table.contains("configure: an unknown key is refused")
                && table.contains("decide RATE_LIMITED"),
            "{table}"
        );
        assert!(
            table.contains(&format!("guests/{name}/check-scenarios.json")),
            "{table}"
        );
        assert!(table.contains("cases, all pass"), "{table}");
    }
}

#[tokio::test]
async fn the_other_language_guests_pass_through_the_same_path() {
    let guests = other_language_guests();
    let root = workspace_root();
    let gemini_cases = root.join("guests/gemini/check-cases.json");
    let (report, code) = check_json(&[
        guests.gemini.to_str().unwrap(),
        "--cases",
        gemini_cases.to_str().unwrap(),
    ])
    .await;
    assert_eq!(failed_rows(&report), Vec::<String>::new());
    assert_eq!(code, Some(0));
    assert_eq!(
        report["guest"]["contract"], "0.1.0",
        "the JavaScript example is a 0.1 component"
    );

    let scenarios = root.join("guests/retry-budget/check-scenarios.json");
    let (report, code) = check_json(&[
        guests.retry_budget.to_str().unwrap(),
        "--cases",
        scenarios.to_str().unwrap(),
    ])
    .await;
    assert_eq!(failed_rows(&report), Vec::<String>::new());
    assert_eq!(code, Some(0));
    assert_eq!(report["guest"]["world"], "listener");
}

#[tokio::test]
async fn a_listener_without_the_configuration_it_needs_fails_saying_how_to_give_it() {
    let guests = other_language_guests();
    let out = check(&[guests.retry_budget.to_str().unwrap()]).await;
    assert_eq!(out.status.code(), Some(1), "{}", stdout(&out));
    assert!(
        stdout(&out).contains("budget_ms") && stdout(&out).contains("--listener-config"),
        "{}",
        stdout(&out)
    );
}

/// The hostile test adapter classifies every failure as SERVER_ERROR and "decodes" any body to a
/// text answer with a stop finish: the corpus and the truncation check must catch both.
#[tokio::test]
async fn a_broken_adapter_fails_naming_its_cases() {
    let hostile = test_guest("dsh_test_hostile");
    let out = check(&[hostile.to_str().unwrap()]).await;
    let table = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{table}{}", stderr(&out));
    assert!(table.contains("checked adapter 'hostile'"), "{table}");
    for case in [
        "corpus/status-only.json: 429 empty body",
        "corpus/retry-after.json: retry-after seconds",
        "corpus/streams.json: 200 empty stream",
        "fuzz: 32 garbage 2xx bodies",
    ] {
        let line = table
            .lines()
            .find(|l| l.starts_with(case))
            .unwrap_or_else(|| panic!("no row {case}:\n{table}"));
        assert!(line.trim_end().ends_with("FAIL"), "{line}");
    }
    assert!(
        table.contains("code SERVER_ERROR (expected RATE_LIMITED)"),
        "{table}"
    );
    assert!(table.contains("ended as a success"), "{table}");
    let summary = table.lines().last().unwrap();
    assert!(
        summary.contains("cases FAIL: ") && summary.contains("429 empty body"),
        "{summary}"
    );

    // The same through --json.
    let (report, code) = check_json(&[hostile.to_str().unwrap()]).await;
    assert_eq!(code, Some(1));
    assert_eq!(report["passed"], false);
    assert!(
        report["failed"].as_u64().unwrap() >= 4,
        "{}",
        report["failed"]
    );
}

#[tokio::test]
async fn a_0_1_adapter_is_checked_through_compat() {
    let v01 = test_guest("dsh_test_v0_1_adapter");
    let (report, _) = check_json(&[v01.to_str().unwrap()]).await;
    assert_eq!(report["guest"]["contract"], "0.1.0");
    let plans: Vec<&Value> = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["case"].as_str().unwrap().starts_with("plan:"))
        .collect();
    assert_eq!(plans.len(), 2);
    assert!(plans.iter().all(|r| r["passed"] == true), "{plans:?}");
}

#[tokio::test]
async fn the_same_seed_gives_the_same_report() {
    let hostile = test_guest("dsh_test_hostile");
    let a = check(&[hostile.to_str().unwrap(), "--seed", "42"]).await;
    let b = check(&[hostile.to_str().unwrap(), "--seed", "42"]).await;
    let strip = |o: &Output| {
        stdout(o)
            .lines()
            .filter(|l| !l.starts_with("decode time"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(strip(&a), strip(&b));
    assert!(stdout(&a).contains("seed: 42"));
}

#[tokio::test]
async fn bad_case_files_and_components_are_refused_with_exit_2() {
    let scratch = Scratch::new();
    let cases = scratch.dir.path().join("cases.json");
    std::fs::write(&cases, r#"{"cases": [{"name": "x", "response": {"status": 429}, "expect": {"code": "RATE_LIMITTED"}}]}"#).unwrap();
    let out = scratch
        .run_bin(
            &[
                "check",
                "--builtin",
                "openai",
                "--cases",
                cases.to_str().unwrap(),
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    let err = stderr(&out);
    assert!(
        err.contains("cases.json")
            && err.contains(r#"case "x" expects "RATE_LIMITTED", which is not a canonical code"#),
        "{err}"
    );

    std::fs::write(&cases, "{not json").unwrap();
    let out = scratch
        .run_bin(
            &[
                "check",
                "--builtin",
                "openai",
                "--cases",
                cases.to_str().unwrap(),
            ],
            None,
        )
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("not an adapter case file") && stderr(&out).contains("docs/check.md"),
        "{}",
        stderr(&out)
    );

    let junk = scratch.dir.path().join("junk.wasm");
    std::fs::write(&junk, b"hello").unwrap();
    let out = scratch
        .run_bin(&["check", junk.to_str().unwrap()], None)
        .await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("is not a WebAssembly file"),
        "{}",
        stderr(&out)
    );

    let out = scratch.run_bin(&["check", "--builtin", "nope"], None).await;
    assert_eq!(out.status.code(), Some(2));
    assert!(
        stderr(&out).contains("no built-in guest \"nope\"") && stderr(&out).contains("openai"),
        "{}",
        stderr(&out)
    );
}

/// A guest that traps fails the case that made it trap, naming the guest; the check goes on.
#[tokio::test]
async fn a_trap_is_a_failed_case_naming_the_guest() {
    let scratch = Scratch::new();
    let cases = scratch.dir.path().join("panics.json");
    std::fs::write(&cases, r#"{"cases": [{"name": "a request that makes it panic", "request": {"model": "panic", "messages": [{"role": "User", "content": "hi"}]}}]}"#).unwrap();
    let hostile = test_guest("dsh_test_hostile");
    let out = scratch
        .run_bin(
            &[
                "check",
                hostile.to_str().unwrap(),
                "--cases",
                cases.to_str().unwrap(),
            ],
            None,
        )
        .await;
    let table = stdout(&out);
    assert_eq!(out.status.code(), Some(1), "{table}{}", stderr(&out));
    let row = table
        .lines()
        .position(|l| l.contains("a request that makes it panic (plan)"))
        .unwrap_or_else(|| panic!("{table}"));
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[row].trim_end().ends_with("FAIL"), "{}", lines[row]);
    assert!(
        lines[row + 1].contains("ADAPTER_FAULT")
            && lines[row + 1].contains("guest 'hostile'")
            && lines[row + 1].contains("panic"),
        "{}",
        lines[row + 1]
    );
    assert!(
        table.contains("fuzz: 48 garbage error bodies"),
        "the check went on after the trap:\n{table}"
    );
}

/// An adapter whose decoder takes every read for a whole line decodes a recorded stream correctly
/// in one piece, and wrongly in any other: split-invariance catches it.
#[tokio::test]
async fn a_decoder_that_depends_on_the_reads_fails_split_invariance() {
    let scratch = Scratch::new();
    let cases = scratch.dir.path().join("stream.json");
    std::fs::write(
        &cases,
        r#"{"cases": [{"name": "recorded stream", "response": {"status": 200, "headers": {"content-type": "text/event-stream"},
            "events": ["data: Hello\n\n", "data: world\n\n", "data: [DONE]\n\n"]}, "expect": {"text": "Helloworld"}}]}"#,
    )
    .unwrap();
    let guest = test_guest("dsh_test_split_variant");
    let (report, code) =
        check_json(&[guest.to_str().unwrap(), "--cases", cases.to_str().unwrap()]).await;
    assert_eq!(code, Some(1));
    let row = report["rows"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["case"] == "recorded stream")
        .expect("the case's row");
    assert_eq!(row["passed"], false);
    assert_eq!(row["got"], "success (10 chars)", "whole, it decodes right");
    let problems = row["problems"].to_string();
    assert!(
        problems.contains("decoding byte by byte differs from decoding whole"),
        "{problems}"
    );
    assert!(problems.contains("random pieces (seed 1)"), "{problems}");
}
