//! `classify-failure` for OpenAI-compatible servers: the shared classification of
//! `dsh_guest_support::classify` (by meaning, whatever the envelope), with OpenAI's request-id
//! headers.

use serde_json::Value;

use dsh_guest_support::classify::{self, Provider};

use crate::types::{LlmFailure, ResponseHead};

/// `x-request-id` (OpenAI and most compatible servers), else `request-id`; the message is the
/// provider's own, verbatim.
const OPENAI: Provider = Provider {
    request_id_headers: &["x-request-id", "request-id"],
    type_in_message: false,
    called: "the provider",
};

/// Classify a non-2xx answer. Never fails: a body that is not JSON (a proxy's HTML page, garbage,
/// nothing) is classified by its status, with the start of the body quoted.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    classify::classify_failure(head, body, &OPENAI)
}

/// Classify an error carried inside a 2xx stream or body (a chat chunk `{"error": {...}}`, a
/// Responses `response` with its `error`, a flat error object).
pub fn classify_in_band(value: &Value, head: &ResponseHead) -> LlmFailure {
    classify::classify_in_band(value, head, &OPENAI)
}

/// The request id of a 2xx answer's headers.
pub fn header_request_id(head: &ResponseHead) -> Option<String> {
    classify::header_request_id(head, &OPENAI)
}
