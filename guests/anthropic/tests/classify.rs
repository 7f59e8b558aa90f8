//! `classify-failure` beyond the fixtures: every documented error type, the wordings, headers, and
//! bodies that are not JSON.

mod common;

use common::head;
use dsh_guest_anthropic::classify_failure;

fn error_body(kind: &str, message: &str) -> String {
    serde_json::json!({"type": "error", "error": {"type": kind, "message": message}}).to_string()
}

fn code(status: u16, body: &str) -> String {
    classify_failure(&head(status, &[]), body.as_bytes())
        .code
        .to_string()
}

#[test]
fn documented_error_types() {
    let cases = [
        (
            400,
            "invalid_request_error",
            "messages: roles must alternate",
            "INVALID_REQUEST",
        ),
        (401, "authentication_error", "invalid x-api-key", "AUTH"),
        (402, "billing_error", "Payment required", "QUOTA_EXCEEDED"),
        (
            403,
            "permission_error",
            "Your API key does not have permission to use the specified resource.",
            "AUTH",
        ),
        (
            404,
            "not_found_error",
            "model: claude-nope",
            "INVALID_REQUEST",
        ),
        (
            413,
            "request_too_large",
            "Request exceeds the maximum allowed number of bytes.",
            // Over the API's request size: only a smaller request can succeed (compaction).
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            429,
            "rate_limit_error",
            "Number of request tokens has exceeded your per-minute rate limit",
            "RATE_LIMITED",
        ),
        (500, "api_error", "Internal server error", "SERVER_ERROR"),
        (500, "api_error", "Overloaded", "SERVER_ERROR"),
        (504, "timeout_error", "Request timed out", "TIMEOUT"),
        (529, "overloaded_error", "Overloaded", "OVERLOADED"),
    ];
    for (status, kind, message, expected) in cases {
        let failure = classify_failure(&head(status, &[]), error_body(kind, message).as_bytes());
        assert_eq!(failure.code, expected, "{status} {kind}: {message}");
        assert_eq!(failure.status, Some(status));
        assert!(failure.message.contains(message), "{}", failure.message);
        assert!(
            failure.message.contains(kind),
            "the type is named: {}",
            failure.message
        );
    }
}

#[test]
fn context_overflow_wordings_whatever_the_type_or_status() {
    let messages = [
        "prompt is too long: 219898 tokens > 200000 maximum",
        "input length and `max_tokens` exceed context limit: 143653 + 64000 > 200000, decrease input length or `max_tokens` and try again",
        "input length and max_tokens exceed context limit: 199000 + 21333 > 200000",
        "The request would exceed context limit",
        "too many tokens in the prompt",
    ];
    for message in messages {
        for (status, kind) in [
            (400, "invalid_request_error"),
            (413, "request_too_large"),
            (500, "api_error"),
        ] {
            assert_eq!(
                code(status, &error_body(kind, message)),
                "CONTEXT_WINDOW_EXCEEDED",
                "{status} {kind}: {message}"
            );
        }
    }
    // Rate limits that talk about prompt length are still rate limits.
    let itpm = "This request would exceed the rate limit for your organization of 200,000 input tokens per minute. Please reduce the prompt length or the maximum tokens requested, or try again later.";
    assert_eq!(
        code(429, &error_body("rate_limit_error", itpm)),
        "RATE_LIMITED"
    );
    // An output cap is a bad request, not an overflow.
    assert_eq!(
        code(
            400,
            &error_body(
                "invalid_request_error",
                "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens for claude-sonnet-4-5"
            )
        ),
        "INVALID_REQUEST"
    );
}

#[test]
fn money_is_quota_not_rate() {
    let cases = [
        (
            400,
            "invalid_request_error",
            "Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.",
        ),
        (
            400,
            "invalid_request_error",
            "You have reached your specified API usage limits. You will regain access on 2025-08-01 at 00:00 UTC.",
        ),
        (
            429,
            "rate_limit_error",
            "You have reached your specified workspace API usage limits.",
        ),
        (
            402,
            "billing_error",
            "There is an issue with your account's billing.",
        ),
    ];
    for (status, kind, message) in cases {
        assert_eq!(
            code(status, &error_body(kind, message)),
            "QUOTA_EXCEEDED",
            "{message}"
        );
    }
}

#[test]
fn content_filter_wording() {
    assert_eq!(
        code(
            400,
            &error_body(
                "invalid_request_error",
                "Output blocked by content filtering policy"
            )
        ),
        "CONTENT_FILTER"
    );
}

#[test]
fn status_decides_without_a_known_type() {
    let cases = [
        (400, "BAD_REQUEST"),
        (401, "AUTH"),
        (403, "AUTH"),
        (404, "INVALID_REQUEST"),
        (408, "TIMEOUT"),
        (413, "CONTEXT_WINDOW_EXCEEDED"),
        (429, "RATE_LIMITED"),
        (500, "SERVER_ERROR"),
        (502, "SERVER_ERROR"),
        // Service Unavailable is the servers refusing work, as for every provider (the shared
        // rules' judgement, tests/fixtures/classification/README.md).
        (503, "OVERLOADED"),
        (504, "TIMEOUT"),
        (529, "OVERLOADED"),
        (307, "INVALID_REQUEST"),
    ];
    for (status, expected) in cases {
        let expected = if expected == "BAD_REQUEST" {
            "INVALID_REQUEST"
        } else {
            expected
        };
        for body in [
            "",
            "   ",
            // Plain words that say nothing. (Envoy's "upstream connect error" says something: the
            // connection to the backend failed, a server error under a 5xx.)
            "a proxy's words that mean nothing here",
            "{\"foo\":1}",
            "null",
            "[]",
            "\u{0}\u{ff}",
        ] {
            let failure = classify_failure(&head(status, &[]), body.as_bytes());
            assert_eq!(failure.code, expected, "{status} {body:?}");
            assert!(!failure.message.trim().is_empty(), "{status} {body:?}");
            assert!(
                failure.message.contains(&status.to_string()),
                "{}",
                failure.message
            );
        }
    }
}

#[test]
fn gateway_and_html_bodies() {
    let page = "<!DOCTYPE html><html><head><title>502 Bad Gateway</title></head><body><script>overloaded()</script></body></html>";
    let failure = classify_failure(&head(502, &[("request-id", "req_x")]), page.as_bytes());
    assert_eq!(failure.code, "SERVER_ERROR");
    assert!(
        failure.message.contains("502 Bad Gateway"),
        "{}",
        failure.message
    );
    assert_eq!(failure.request_id.as_deref(), Some("req_x"));

    let long = "x".repeat(10_000);
    let failure = classify_failure(&head(500, &[]), long.as_bytes());
    assert!(
        failure.message.chars().count() < 500,
        "truncated: {}",
        failure.message.len()
    );

    assert_eq!(
        code(400, r#"{"error": "prompt is too long"}"#),
        "CONTEXT_WINDOW_EXCEEDED"
    );
    assert_eq!(code(403, r#"{"message": "Forbidden"}"#), "AUTH");
    assert_eq!(code(429, "Too Many Requests"), "RATE_LIMITED");
    assert_eq!(
        code(400, "prompt is too long: 1 > 0"),
        "CONTEXT_WINDOW_EXCEEDED"
    );
}

#[test]
fn a_type_without_a_message_still_says_something() {
    let failure = classify_failure(
        &head(529, &[]),
        br#"{"type":"error","error":{"type":"overloaded_error"}}"#,
    );
    assert_eq!(failure.code, "OVERLOADED");
    assert!(
        failure.message.contains("overloaded_error"),
        "{}",
        failure.message
    );
    assert!(failure.message.contains("529"), "{}", failure.message);
}

#[test]
fn request_id_header_then_body() {
    let body =
        r#"{"type":"error","error":{"type":"api_error","message":"x"},"request_id":"req_body"}"#;
    let id = |headers: &[(&str, &str)]| {
        classify_failure(&head(500, headers), body.as_bytes()).request_id
    };
    assert_eq!(id(&[("request-id", "req_hdr")]).as_deref(), Some("req_hdr"));
    assert_eq!(id(&[]).as_deref(), Some("req_body"));
    assert_eq!(id(&[("request-id", "  ")]).as_deref(), Some("req_body"));
    let null_id =
        r#"{"type":"error","error":{"type":"api_error","message":"x"},"request_id":null}"#;
    assert_eq!(
        classify_failure(&head(500, &[]), null_id.as_bytes()).request_id,
        None
    );
    assert_eq!(
        classify_failure(&head(500, &[("x-request-id", "gw_1")]), null_id.as_bytes())
            .request_id
            .as_deref(),
        Some("gw_1")
    );
}

#[test]
fn retry_after_headers_as_sent() {
    let body = error_body("rate_limit_error", "slow down");
    let after = |headers: &[(&str, &str)]| {
        classify_failure(&head(429, headers), body.as_bytes()).provider_retry_after_ms
    };
    assert_eq!(after(&[("retry-after", "16")]), Some(16_000));
    assert_eq!(
        after(&[("retry-after", "0")]),
        Some(0),
        "0 is reported as sent"
    );
    assert_eq!(
        after(&[("retry-after-ms", "1500"), ("retry-after", "16")]),
        Some(1_500)
    );
    assert_eq!(after(&[("retry-after-ms", "0")]), Some(0));
    // HTTP date against the head's clock (Fri, 29 Sep 2023 16:26:37 GMT in common::head).
    assert_eq!(
        after(&[("retry-after", "Fri, 29 Sep 2023 16:26:57 GMT")]),
        Some(20_000)
    );
    assert_eq!(after(&[("retry-after", "soon")]), None);
    assert_eq!(after(&[]), None);
    // Rate-limit reset headers are not a retry-after.
    assert_eq!(
        after(&[("anthropic-ratelimit-requests-reset", "2024-03-26T20:00:00Z")]),
        None
    );
}
