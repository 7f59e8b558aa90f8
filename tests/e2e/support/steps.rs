//! Builders for the mock provider's script steps (docs/mock-script.md) that several test files use:
//! the script itself, raw SSE steps, and OpenAI's error answers.

use serde_json::{Value, json};

/// A mock script of these steps, served in order.
pub fn script(steps: &[Value]) -> String {
    json!({ "steps": steps }).to_string()
}

/// A mock script of steps written as JSON text.
pub fn script_of(steps: &[&str]) -> String {
    format!(r#"{{"steps":[{}]}}"#, steps.join(","))
}

/// A raw SSE step: one `data:` event per value, sent byte for byte as its JSON text.
pub fn sse(events: &[Value]) -> Value {
    json!({ "events": events.iter().map(|e| json!({ "data": e.to_string() })).collect::<Vec<_>>() })
}

/// A non-2xx answer in OpenAI's error shape, with `headers` added to its JSON content type.
pub fn openai_error(
    status: u16,
    message: &str,
    kind: &str,
    code: impl Into<Value>,
    headers: Value,
) -> Value {
    let mut h = json!({"content-type": "application/json"});
    h.as_object_mut()
        .unwrap()
        .extend(headers.as_object().cloned().unwrap_or_default());
    json!({"status": status, "headers": h,
           "body": json!({"error": {"message": message, "type": kind, "param": null, "code": code.into()}}).to_string()})
}

/// OpenAI's 429 for a request-rate limit, with a `retry-after` header when given.
pub fn rate_limited(retry_after: Option<&str>) -> Value {
    let headers = retry_after.map_or(json!({}), |s| json!({"retry-after": s}));
    openai_error(
        429,
        "Rate limit reached for requests",
        "requests",
        "rate_limit_exceeded",
        headers,
    )
}
