//! `classify-failure` for Gemini: the shared classification of `dsh_guest_support::classify`.
//!
//! Gemini's errors are Google API errors: `{"error": {"code": 429, "message": "...", "status":
//! "RESOURCE_EXHAUSTED", "details": [...]}}` (some front ends wrap it in a one-element array). The
//! shared rules read them as they read every envelope, with Google's own parts:
//! - the quota a `QuotaFailure` names (per day, per minute, a limit of 0) tells quota from a rate
//!   limit, since Gemini words both alike ("You exceeded your current quota, please check your plan
//!   and billing details");
//! - `RetryInfo.retryDelay` is the retry hint, before the headers;
//! - the rpc status (`UNAVAILABLE`, `INTERNAL`, `DEADLINE_EXCEEDED`, ...) over an HTTP status a
//!   relay put on it;
//! - a bad key is AUTH although Gemini sends it as 400 `INVALID_ARGUMENT`.
//!
//! One classifier for all the built-in adapters: Gemini's OpenAI-compatible layer, served by the
//! `openai` adapter, sends the same errors.

use serde_json::Value;

use dsh_guest_support::classify::{self, Provider};

use crate::types::{LlmFailure, ResponseHead};

/// Google's front ends send `x-request-id` (else `request-id`); the messages say "from Gemini".
const GEMINI: Provider = Provider {
    request_id_headers: &["x-request-id", "request-id"],
    type_in_message: false,
    called: "Gemini",
};

/// A non-2xx answer. Never fails: a body that is not a Google error is classified by its status.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    classify::classify_failure(head, body, &GEMINI)
}

/// An error carried inside a 2xx stream (`data: {"error": {...}}`): classified like a non-2xx body,
/// with the status the error carries itself (`code`). The 200's retry-after headers do not describe
/// this error and are not read.
pub fn classify_in_band(value: &Value, head: &ResponseHead) -> LlmFailure {
    classify::classify_in_band(value, head, &GEMINI)
}

/// The request id of a 2xx answer's headers.
pub fn header_request_id(head: &ResponseHead) -> Option<String> {
    classify::header_request_id(head, &GEMINI)
}
