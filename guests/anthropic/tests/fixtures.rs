//! Every Anthropic case of tests/fixtures/provider-failures.json, through the adapter.

mod common;

use common::{decode_all_ways_with, finishes};
use dsh_guest_anthropic::classify_failure;
use dsh_guest_anthropic::types::{Chunk, FinishKind};
use dsh_guest_support::fixtures::{
    assert_cases_pass, case_head, check_http, provider_failure_cases,
};
use serde_json::Value;

const PROVIDERS: &[&str] = &["anthropic"];

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
    let cases = provider_failure_cases(PROVIDERS);
    assert!(
        cases.len() >= 14,
        "expected the Anthropic fixtures, found {}",
        cases.len()
    );
    assert_cases_pass(
        &cases,
        |case| check_http(case, classify_failure),
        check_stream,
    );
}
