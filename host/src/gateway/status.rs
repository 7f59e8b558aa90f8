//! What a client sees of a failure: the HTTP status, the OpenAI-shaped error body and the headers
//! that tell an official SDK whether to retry. Pure code.
//!
//! The SDKs retry 429 and 5xx on their own; after the gateway has spent its retry policy, that would
//! run the whole waterfall again, so every final failure says `x-should-retry: false`. Load shedding
//! (the gateway's own limits) is the exception: it is retryable, and says so.

use crate::failure::LlmFailure;
use serde_json::{Value, json};

/// How a final failure is answered.
#[derive(Debug, Clone, PartialEq)]
pub struct FailureResponse {
    pub status: u16,
    /// OpenAI's error `type` and `code`, which the SDKs surface on their exceptions.
    pub error_type: &'static str,
    pub error_code: String,
    /// `retry-after` in whole seconds, when the provider gave one.
    pub retry_after_s: Option<u64>,
}

/// The mapping of issue #11: each canonical code to the status an SDK raises as the right exception.
pub fn for_failure(failure: &LlmFailure) -> FailureResponse {
    let (status, error_type, code) = match failure.code.as_str() {
        "RATE_LIMITED" => (429, "rate_limit_error", "rate_limit_exceeded"),
        "QUOTA_EXCEEDED" => (429, "insufficient_quota", "insufficient_quota"),
        "CONTEXT_WINDOW_EXCEEDED" => (400, "invalid_request_error", "context_length_exceeded"),
        "INVALID_REQUEST" => (400, "invalid_request_error", "invalid_request"),
        "CONTENT_FILTER" => (400, "invalid_request_error", "content_filter"),
        // The gateway's own provider key was rejected: a 401 belongs to the gateway's clients.
        "AUTH" => (502, "upstream_error", "upstream_auth"),
        "OVERLOADED" => (503, "overloaded_error", "overloaded"),
        "TIMEOUT" => (504, "timeout_error", "timeout"),
        "ADAPTER_FAULT" => (500, "server_error", "adapter_fault"),
        "ABORTED" => (499, "aborted", "aborted"),
        _ => (502, "upstream_error", "upstream_error"),
    };
    let code = match failure.code.as_str() {
        "INVALID_REQUEST"
        | "CONTENT_FILTER"
        | "ADAPTER_FAULT"
        | "RATE_LIMITED"
        | "QUOTA_EXCEEDED"
        | "CONTEXT_WINDOW_EXCEEDED"
        | "AUTH"
        | "OVERLOADED"
        | "TIMEOUT"
        | "ABORTED" => code.to_string(),
        // The rest name the canonical code, lower-case (server_error, network, stream_truncated...).
        other => other.to_ascii_lowercase(),
    };
    let retry_after_s = match failure.code.as_str() {
        "RATE_LIMITED" | "OVERLOADED" => failure
            .provider_retry_after_ms
            .map(|ms| ms.div_ceil(1000).max(1)),
        _ => None,
    };
    FailureResponse {
        status,
        error_type,
        error_code: code,
        retry_after_s,
    }
}

/// The error body: `{"error": {"message", "type", "code", "param"}}`, as OpenAI sends it.
pub fn error_body(message: &str, error_type: &str, code: &str) -> Value {
    json!({"error": {"message": message, "type": error_type, "code": code, "param": null}})
}

/// A failure's message for the client: the canonical code first, so that it is visible whatever the
/// SDK prints.
pub fn client_message(failure: &LlmFailure) -> String {
    let mut text = format!("{}: {}", failure.code, failure.message);
    if let Some(id) = &failure.request_id {
        text.push_str(&format!(" (provider request id {id})"));
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(code: &str) -> LlmFailure {
        LlmFailure::new(code, "x")
    }

    #[test]
    fn every_canonical_code_has_the_status_of_issue_11() {
        let expected = [
            ("RATE_LIMITED", 429, "rate_limit_exceeded"),
            ("QUOTA_EXCEEDED", 429, "insufficient_quota"),
            ("CONTEXT_WINDOW_EXCEEDED", 400, "context_length_exceeded"),
            ("INVALID_REQUEST", 400, "invalid_request"),
            ("CONTENT_FILTER", 400, "content_filter"),
            ("AUTH", 502, "upstream_auth"),
            ("OVERLOADED", 503, "overloaded"),
            ("TIMEOUT", 504, "timeout"),
            ("ADAPTER_FAULT", 500, "adapter_fault"),
            ("SERVER_ERROR", 502, "server_error"),
            ("NETWORK", 502, "network"),
            ("STREAM_TRUNCATED", 502, "stream_truncated"),
            ("EMPTY_RESPONSE", 502, "empty_response"),
        ];
        for (code, status, error_code) in expected {
            let r = for_failure(&f(code));
            assert_eq!(
                (r.status, r.error_code.as_str()),
                (status, error_code),
                "{code}"
            );
        }
        for code in crate::failure::CODES {
            assert_ne!(
                for_failure(&f(code)).status,
                401,
                "{code}: 401 is the gateway's own"
            );
        }
    }

    #[test]
    fn retry_after_is_whole_seconds_for_rate_limits_only() {
        let mut limited = f("RATE_LIMITED");
        limited.provider_retry_after_ms = Some(1500);
        assert_eq!(for_failure(&limited).retry_after_s, Some(2));
        let mut quota = f("QUOTA_EXCEEDED");
        quota.provider_retry_after_ms = Some(86_400_000);
        assert_eq!(
            for_failure(&quota).retry_after_s,
            None,
            "waiting cannot cure a quota"
        );
    }

    #[test]
    fn the_message_leads_with_the_canonical_code() {
        let mut x = f("SERVER_ERROR");
        x.request_id = Some("req_1".into());
        assert_eq!(
            client_message(&x),
            "SERVER_ERROR: x (provider request id req_1)"
        );
        assert_eq!(error_body("m", "t", "c")["error"]["code"], "c");
    }
}
