//! Helpers shared by the integration tests: the shared ones from `dsh_guest_support::fixtures`,
//! the decoding helpers over this adapter's `Decoder`, and Gemini's SSE body format.
#![allow(
    dead_code,
    unused_imports,
    reason = "each test crate uses a different subset"
)]

pub use dsh_guest_support::fixtures::{finish_of, finishes, head, text_of, tool_deltas};
use serde_json::{Value, json};

dsh_guest_support::decoding_helpers!(dsh_guest_gemini::Decoder);

/// SSE body from GenerateContentResponses, each as one `data:` event, CRLF-framed as Google sends.
pub fn sse(responses: &[Value]) -> String {
    responses
        .iter()
        .map(|r| format!("data: {r}\r\n\r\n"))
        .collect()
}

/// A text part (with extra fields, e.g. `{"thought": true}`).
pub fn part(text: &str, extra: Value) -> Value {
    let mut p = json!({ "text": text });
    if let (Some(p), Value::Object(extra)) = (p.as_object_mut(), extra) {
        p.extend(extra);
    }
    p
}

/// One GenerateContentResponse with one candidate.
pub fn response(parts: Value, finish_reason: Option<&str>, usage: Option<Value>) -> Value {
    let mut candidate = json!({ "content": { "parts": parts, "role": "model" }, "index": 0 });
    if let Some(r) = finish_reason {
        candidate["finishReason"] = json!(r);
    }
    let mut r = json!({ "candidates": [candidate], "modelVersion": "gemini-2.5-flash", "responseId": "resp-1" });
    if let Some(u) = usage {
        r["usageMetadata"] = u;
    }
    r
}

/// A Google API error body.
pub fn google_error(code: u16, status: &str, message: &str, details: Option<Value>) -> Value {
    let mut e = json!({ "error": { "code": code, "message": message, "status": status } });
    if let Some(d) = details {
        e["error"]["details"] = d;
    }
    e
}
