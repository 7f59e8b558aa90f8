//! Every Anthropic case of tests/fixtures/provider-failures.json, through the adapter.

mod common;

use common::{decode_all_ways_with, finishes, head};
use dsh_guest_anthropic::classify_failure;
use dsh_guest_anthropic::types::{Chunk, FinishKind};
use serde_json::Value;

const PROVIDERS: &[&str] = &["anthropic"];

fn load_cases() -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/provider-failures.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let cases: Vec<Value> = serde_json::from_str(&text).expect("fixtures are a JSON array");
    cases
        .into_iter()
        .filter(|c| PROVIDERS.contains(&c["provider"].as_str().unwrap_or("")))
        .collect()
}

fn case_head(case: &Value) -> dsh_guest_anthropic::types::ResponseHead {
    let headers: Vec<(String, String)> = case["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let mut h = head(case["status"].as_u64().unwrap() as u16, &[]);
    h.headers = headers;
    if let Some(now) = case["clock_now_epoch_s"].as_u64() {
        h.received_at_ms = now * 1000;
    }
    h
}

/// Problems with one classify case (empty when it passes).
fn check_http(case: &Value) -> Vec<String> {
    let failure = classify_failure(&case_head(case), case["body"].as_str().unwrap().as_bytes());
    let mut problems = Vec::new();
    let expected_code = case["expected_code"].as_str().unwrap();
    if failure.code != expected_code {
        problems.push(format!(
            "code {} (expected {expected_code}); message {:?}",
            failure.code, failure.message
        ));
    }
    if failure.provider_retry_after_ms != case["expected_retry_after_ms"].as_u64() {
        problems.push(format!(
            "retry-after {:?} (expected {})",
            failure.provider_retry_after_ms, case["expected_retry_after_ms"]
        ));
    }
    if failure.request_id.as_deref() != case["expected_request_id"].as_str() {
        problems.push(format!(
            "request id {:?} (expected {})",
            failure.request_id, case["expected_request_id"]
        ));
    }
    if failure.status != case["status"].as_u64().map(|s| s as u16) {
        problems.push(format!("status {:?}", failure.status));
    }
    if failure.message.trim().is_empty() {
        problems.push("empty message".into());
    }
    problems
}

/// Problems with one stream case, decoded whole and in pieces.
fn check_stream(case: &Value) -> Vec<String> {
    let expected = case["expected_code"].as_str().unwrap();
    let mut problems = Vec::new();
    let head = case_head(case);
    for (how, chunks) in decode_all_ways_with(&head, case["body"].as_str().unwrap()) {
        let finishes = finishes(&chunks);
        let problem = match (expected, finishes.as_slice()) {
            (_, [_, _, ..]) => Some(format!("{} finish chunks", finishes.len())),
            ("STREAM_TRUNCATED", []) => None,
            ("STREAM_TRUNCATED", [f]) => Some(format!("a finish {f:?} (expected none: truncated)")),
            ("EMPTY_RESPONSE", [f]) if f.kind == FinishKind::Stop => {
                let has_content = chunks
                    .iter()
                    .any(|c| matches!(c, Chunk::Text(_) | Chunk::ToolCall(_)));
                has_content.then(|| "text or tool calls in an empty response".to_string())
            }
            (_, [f]) if f.kind == FinishKind::Error => match &f.failure {
                Some(failure)
                    if failure.code == expected
                        && !failure.message.trim().is_empty()
                        && failure.provider_retry_after_ms
                            == case["expected_retry_after_ms"].as_u64()
                        && failure.request_id.as_deref()
                            == case["expected_request_id"].as_str() =>
                {
                    None
                }
                other => Some(format!(
                    "error finish with {other:?} (expected {expected}, retry-after {}, request id {})",
                    case["expected_retry_after_ms"], case["expected_request_id"]
                )),
            },
            (_, [f]) => Some(format!("finish {f:?} (expected {expected})")),
            (_, []) => Some(format!("no finish (expected {expected})")),
        };
        if let Some(problem) = problem {
            problems.push(format!("{how}: {problem}"));
        }
    }
    problems
}

#[test]
fn every_anthropic_fixture_classifies_as_expected() {
    let cases = load_cases();
    assert!(
        cases.len() >= 14,
        "expected the Anthropic fixtures, found {}",
        cases.len()
    );
    let mut failures = Vec::new();
    for case in &cases {
        let status = case["status"].as_u64().unwrap();
        let problems = match case["transport"].as_str().unwrap() {
            "http" if status >= 300 => check_http(case),
            "http" | "sse" => check_stream(case),
            other => vec![format!("unknown transport {other}")],
        };
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n    {}",
                case["id"].as_str().unwrap(),
                problems.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}
