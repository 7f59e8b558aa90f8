//! The adapter against recorded provider answers (tests/recorded.json): each failure gets its
//! canonical code, retry-after and request id; each stream decodes to its text and finish, whole,
//! byte by byte and in random pieces alike.

use dsh_guest_support::fixtures::{finishes, head, text_of};
use dsh_guest_support::types::FailureCode;
use serde_json::Value;

dsh_guest_support::decoding_helpers!({{module}}::Decoder);

fn recorded() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/recorded.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

#[test]
fn recorded_failures_get_their_code_retry_after_and_request_id() {
    let cases = recorded()["failures"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!cases.is_empty(), "tests/recorded.json has no failures");
    for case in cases {
        let headers: Vec<(String, String)> = case["headers"]
            .as_object()
            .unwrap()
            .iter()
            .map(|(k, v)| (k.to_lowercase(), v.as_str().unwrap().to_string()))
            .collect();
        let pairs: Vec<(&str, &str)> = headers
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        let status = case["status"].as_u64().unwrap() as u16;
        let failure = {{module}}::classify_failure(
            &head(status, &pairs),
            case["body"].as_str().unwrap().as_bytes(),
        );
        let source = &case["source"];
        let expected = FailureCode::parse(case["expected_code"].as_str().unwrap()).unwrap();
        assert_eq!(failure.code, expected, "{source}: {failure:?}");
        assert_eq!(
            failure.provider_retry_after_ms,
            case["expected_retry_after_ms"].as_u64(),
            "{source}"
        );
        assert_eq!(
            failure.request_id.as_deref(),
            case["expected_request_id"].as_str(),
            "{source}"
        );
        assert_eq!(failure.status, Some(status));
    }
}

#[test]
fn recorded_streams_decode_to_their_text_and_finish_however_they_are_cut() {
    let cases = recorded()["streams"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(!cases.is_empty(), "tests/recorded.json has no streams");
    for case in cases {
        // `decoded` feeds the body whole, byte by byte and in random pieces, and checks they agree.
        let chunks = decoded(case["body"].as_str().unwrap());
        let source = &case["source"];
        assert_eq!(
            text_of(&chunks),
            case["expected_text"].as_str().unwrap(),
            "{source}"
        );
        let finishes = finishes(&chunks);
        assert_eq!(finishes.len(), 1, "{source}: one finish, got {chunks:?}");
        assert_eq!(
            finishes[0].reason.as_deref(),
            case["expected_finish"].as_str(),
            "{source}"
        );
    }
}
