//! `classify-failure` for Anthropic's Messages API and Anthropic-compatible routes: the shared
//! classification of `dsh_guest_support::classify`, with Anthropic's request-id header and its
//! error types named in the message.
//!
//! Anthropic's envelope `{"type": "error", "error": {"type", "message"}, "request_id"}` is one form
//! of the envelope the shared rules read, and its documented types are labels there
//! (`billing_error` is quota, `request_too_large` an overflow, `overloaded_error` overload, ...).
//! The compatible routes of other providers (Z.ai, Kimi for Coding, MiniMax, relays) answer with
//! their own wordings and envelopes in the same shapes, which is why the rules are shared rather
//! than Anthropic's alone.

use serde_json::Value;

use dsh_guest_support::classify::{self, Provider};

use crate::types::{LlmFailure, ResponseHead};

/// Anthropic's `request-id`, else a gateway's `x-request-id`; the message names the error type
/// ("Overloaded (overloaded_error)"), which Anthropic documents.
const ANTHROPIC: Provider = Provider {
    request_id_headers: &["request-id", "x-request-id"],
    type_in_message: true,
    called: "the provider",
};

/// Classify a non-2xx answer. Never fails: a body that is not JSON (a proxy's HTML page, garbage,
/// nothing) is classified by its status, with the start of the body quoted.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    classify::classify_failure(head, body, &ANTHROPIC)
}

/// Classify an error carried inside a 2xx answer: `value` is the JSON that holds it (the data of an
/// `event: error`, or a JSON error body). There is no status of the error's own (the answer's is
/// 200), so the type and wording decide, else SERVER_ERROR. A 200's `retry-after` does not
/// describe this error: not read.
pub fn classify_in_band(value: &Value, head: &ResponseHead) -> LlmFailure {
    classify::classify_in_band(value, head, &ANTHROPIC)
}

/// Anthropic's `request-id` header, else a gateway's `x-request-id`.
pub fn header_request_id(head: &ResponseHead) -> Option<String> {
    classify::header_request_id(head, &ANTHROPIC)
}
