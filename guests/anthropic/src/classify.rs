//! `classify-failure`: an Anthropic error answer (status, headers, body) as one `llm-failure`.
//!
//! Anthropic's envelope is `{"type": "error", "error": {"type", "message"}, "request_id"}`, with a
//! documented set of error types. The code is decided by meaning, strongest evidence first:
//! 1. money: `billing_error`, or credit/billing/usage-limit wording (Anthropic reports an empty
//!    credit balance as a 400 `invalid_request_error`), or a daily budget ("exceeded your daily
//!    rate limit"): QUOTA_EXCEEDED, which waiting will not cure;
//! 2. a rate limit (`rate_limit_error`, or a 429 without a type): RATE_LIMITED, whatever it says
//!    about tokens ("Please reduce the prompt length" in a per-minute limit is not an overflow);
//! 3. context-overflow wording, whatever the type or status ("prompt is too long", "input length
//!    and `max_tokens` exceed context limit"): CONTEXT_WINDOW_EXCEEDED;
//! 4. content-filter wording ("Output blocked by content filtering policy", sent as a 400);
//! 5. the error type (`overloaded_error`, `api_error`, `authentication_error`, ...). It wins over
//!    the wording: a 500 `api_error` whose message is "Overloaded" is a SERVER_ERROR (the fixture
//!    anthropic-500-api-error-overloaded);
//! 6. other wording, for bodies without a known type (gateways, proxies);
//! 7. the HTTP status.
//!
//! Steps 1 and 3 also apply the shared rules of `dsh_guest_support::meaning` (quota and overflow in
//! whatever words), and a rate limit whose `retry-after` outlasts a retry is QUOTA_EXCEEDED.

use dsh_guest_support::meaning;
use serde_json::Value;

use crate::retry_after::retry_after_ms;
use crate::text::{
    MESSAGE_CHARS, QUOTE_CHARS, clip, excerpt, html_title, looks_like_html, normalize, status_line,
};
use crate::types::{FailureCode, LlmFailure, ResponseHead, codes};

/// Classify a non-2xx answer. Never fails: a body that is not JSON (a proxy's HTML page, garbage,
/// nothing) is classified by its status, with the start of the body quoted.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    let text = String::from_utf8_lossy(body);
    let status = head.status;
    let info = serde_json::from_str::<Value>(text.trim())
        .ok()
        .map(|v| ErrorInfo::from_body(&v))
        .filter(ErrorInfo::says_anything);

    let retry_after = retry_after_ms(head);
    let (code, message, body_id) = match &info {
        Some(info) => (
            meaning::outlasting_rate_limit(info.code(Some(status)), &info.text(), retry_after),
            info.describe(&format!("{} from the provider", status_line(status))),
            info.request_id.clone(),
        ),
        None => {
            let (haystack, message) = describe_unstructured(status, &text);
            (code_for(None, &haystack, Some(status)), message, None)
        }
    };
    LlmFailure {
        request_id: header_id(head, "request-id")
            .or(body_id)
            .or_else(|| header_id(head, "x-request-id")),
        message,
        code,
        status: Some(status),
        provider_retry_after_ms: retry_after,
    }
}

/// Classify an error carried inside a 2xx answer: `value` is the JSON that holds it (the data of an
/// `event: error`, or a JSON error body). There is no status of the error's own (the answer's is
/// 200), so the type and wording decide, else SERVER_ERROR. The request id comes from the body,
/// else the 200's `request-id` header. A 200's `retry-after` does not describe this error: not read.
pub fn classify_in_band(value: &Value, head: &ResponseHead) -> LlmFailure {
    let info = ErrorInfo::from_body(value);
    LlmFailure {
        request_id: info.request_id.clone().or_else(|| header_request_id(head)),
        code: info.code(None),
        message: info.describe("the provider reported an error in the stream"),
        status: None,
        provider_retry_after_ms: None,
    }
}

/// Anthropic's `request-id` header, else a gateway's `x-request-id`.
pub fn header_request_id(head: &ResponseHead) -> Option<String> {
    header_id(head, "request-id").or_else(|| header_id(head, "x-request-id"))
}

fn header_id(head: &ResponseHead, name: &str) -> Option<String> {
    head.header(name)
        .map(str::trim)
        .filter(|v| !v.is_empty())
        .map(str::to_string)
}

/// What an error body says.
#[derive(Debug, Default)]
struct ErrorInfo {
    /// `error.type`, lower-cased (`overloaded_error`, ...).
    kind: Option<String>,
    message: Option<String>,
    request_id: Option<String>,
}

impl ErrorInfo {
    fn from_body(body: &Value) -> ErrorInfo {
        let mut info = ErrorInfo::default();
        match body {
            Value::String(s) => info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS)),
            Value::Array(items) => {
                return items.first().map(ErrorInfo::from_body).unwrap_or_default();
            }
            Value::Object(o) => {
                info.request_id = o.get("request_id").and_then(string_of);
                match o.get("error") {
                    Some(Value::Object(e)) => {
                        info.read_fields(e);
                        if info.request_id.is_none() {
                            info.request_id = e.get("request_id").and_then(string_of);
                        }
                    }
                    // A gateway's `{"error": "text"}`.
                    Some(Value::String(s)) => {
                        info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS));
                    }
                    // A flat `{"type": "overloaded_error", "message": ...}` or `{"message": ...}`.
                    _ => info.read_fields(o),
                }
            }
            _ => {}
        }
        info
    }

    fn read_fields(&mut self, e: &serde_json::Map<String, Value>) {
        self.message = ["message", "detail"]
            .iter()
            .filter_map(|k| e.get(*k))
            .find_map(|v| match v {
                Value::String(s) => non_empty(s),
                Value::Null => None,
                other => Some(other.to_string()),
            })
            .map(|m| clip(&m, MESSAGE_CHARS));
        self.kind = e
            .get("type")
            .and_then(Value::as_str)
            .map(|t| t.trim().to_ascii_lowercase())
            .filter(|t| !t.is_empty() && t != "error");
    }

    fn says_anything(&self) -> bool {
        self.message.is_some() || self.kind.is_some()
    }

    fn code(&self, status: Option<u16>) -> FailureCode {
        code_for(self.kind.as_deref(), &self.text(), status)
    }

    /// The message, normalized for matching.
    fn text(&self) -> String {
        normalize(self.message.as_deref().unwrap_or(""))
    }

    /// The provider's message with its error type, e.g. `Overloaded (overloaded_error)`; `what` says
    /// where the error came from when the provider gave no message.
    fn describe(&self, what: &str) -> String {
        match (&self.message, &self.kind) {
            (Some(m), Some(k)) if !m.to_ascii_lowercase().contains(k.as_str()) => {
                format!("{m} ({k})")
            }
            (Some(m), _) => m.clone(),
            (None, Some(k)) => format!("{what}: {k}, without an error message"),
            (None, None) => format!("{what}, without an error message"),
        }
    }
}

/// The message and the searchable text of a body that is not a JSON error.
fn describe_unstructured(status: u16, text: &str) -> (String, String) {
    let line = status_line(status);
    if text.trim().is_empty() {
        return (
            String::new(),
            format!("{line} from the provider, with an empty body"),
        );
    }
    if looks_like_html(text) {
        // A proxy's page: its words (scripts, footers) are not the provider's; only the status counts.
        let what = html_title(text).unwrap_or_else(|| excerpt(text, QUOTE_CHARS));
        return (
            String::new(),
            format!("{line} from the provider, with an HTML page: {what}"),
        );
    }
    let quoted = excerpt(text, QUOTE_CHARS);
    (
        normalize(&quoted),
        format!("{line} from the provider, with a body that is not an Anthropic error: {quoted}"),
    )
}

/// The canonical code from the error type, the normalized wording and the status (module comment).
fn code_for(kind: Option<&str>, text: &str, status: Option<u16>) -> FailureCode {
    let says = |patterns: &[&str]| patterns.iter().any(|p| text.contains(p));
    let server_status = status.is_some_and(|s| s >= 500);

    // 1. Money.
    if kind == Some("billing_error") || says(QUOTA_WORDING) || meaning::says_quota_exhausted(text) {
        return codes::QUOTA_EXCEEDED;
    }
    // 2. Rate limits.
    if kind == Some("rate_limit_error") || (kind.is_none() && status == Some(429)) {
        return codes::RATE_LIMITED;
    }
    // 3. Context overflow, whatever the type or status.
    if says(CONTEXT_WORDING) || meaning::says_context_overflow(text) {
        return codes::CONTEXT_WINDOW_EXCEEDED;
    }
    // 4. Content filter.
    if says(CONTENT_WORDING) {
        return codes::CONTENT_FILTER;
    }
    // 5. The documented error types.
    match kind {
        Some("authentication_error" | "permission_error") => return codes::AUTH,
        Some("overloaded_error") => return codes::OVERLOADED,
        Some("api_error") => return codes::SERVER_ERROR,
        Some("timeout_error") => return codes::TIMEOUT,
        // The request over the API's size limit: only a smaller one can succeed (compaction).
        Some("request_too_large") => return codes::CONTEXT_WINDOW_EXCEEDED,
        Some("invalid_request_error" | "not_found_error") => return codes::INVALID_REQUEST,
        _ => {}
    }
    // 6. Wording without a known type.
    if says(AUTH_WORDING) {
        return codes::AUTH;
    }
    // A 5xx keeps its status's meaning (see step 5); overload wording counts without one.
    if !server_status && meaning::says_overloaded(text) {
        return codes::OVERLOADED;
    }
    if says(&["rate limit", "rate_limit", "too many requests"]) {
        return codes::RATE_LIMITED;
    }
    if (status.is_none() || server_status) && says(&["timed out", "timeout"]) {
        return codes::TIMEOUT;
    }
    // 7. The status; in band (no status), a server-side failure.
    match status {
        Some(401 | 403) => codes::AUTH,
        Some(402) => codes::QUOTA_EXCEEDED,
        Some(408 | 504 | 524) => codes::TIMEOUT,
        // Payload Too Large: as the request_too_large type above.
        Some(413) => codes::CONTEXT_WINDOW_EXCEEDED,
        Some(429) => codes::RATE_LIMITED,
        Some(529) => codes::OVERLOADED,
        // 3xx: a redirect the host would not follow means a wrong base URL; retrying won't help.
        Some(300..=499) => codes::INVALID_REQUEST,
        _ => codes::SERVER_ERROR,
    }
}

/// Matched on normalized text (lower case, backticks removed).
const QUOTA_WORDING: &[&str] = &[
    "credit balance",
    "purchase credits",
    "out of credits",
    "insufficient credits",
    "plans & billing",
    "billing",
    "api usage limits",
    "usage limit",
    "spend limit",
    "quota",
];
const CONTEXT_WORDING: &[&str] = &[
    "prompt is too long",
    "prompt too long",
    "exceed context limit",
    "exceeds context limit",
    "exceed the context limit",
    "exceeds the context",
    "context window",
    "context length",
    "maximum context",
    "too many tokens",
    "input is too long",
];
const CONTENT_WORDING: &[&str] = &[
    "content filtering policy",
    "content policy",
    "output blocked",
    "content filter",
];
const AUTH_WORDING: &[&str] = &[
    "x-api-key",
    "invalid api key",
    "invalid bearer token",
    "authentication",
    "unauthorized",
    "permission",
];

fn string_of(v: &Value) -> Option<String> {
    v.as_str().and_then(non_empty)
}

fn non_empty(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.trim().to_string())
}
