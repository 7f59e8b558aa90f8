//! {{name}}: a dsh-host provider adapter (world `provider-adapter` of dsh:llm@0.2.0, in `wit/0.2.0`).
//!
//! As generated it speaks the OpenAI chat-completions streaming API (what `dsh-host mock` answers,
//! and what many servers offer); change the three functions below to your provider's API. The
//! logic is plain Rust on the SDK's mirrors of the WIT types (`dsh_guest_support::types`), unit-
//! tested natively (`cargo test`); `bindings.rs` is the component export, compiled for wasm32 only.
//!
//! The contract in short (docs/writing-guests.md of dsh-host has it all): `plan_request` says which
//! HTTP call to make, with `{credential}` where the key goes (the host inserts it: the adapter never
//! sees it); `classify_failure` turns a non-2xx answer into one canonical code; a `Decoder` turns the
//! 2xx body, fed in network reads cut anywhere, into chunks. An adapter never retries.

use dsh_guest_support::retry_after::retry_after_ms;
use dsh_guest_support::sse::{SseEvent, SseParser};
use dsh_guest_support::text::{excerpt, status_line};
use dsh_guest_support::types::{
    Chunk, CompletionRequest, Endpoint, FailureCode, Finish, FinishKind, HttpPlan, LlmFailure,
    ResponseHead, Role, Usage, codes,
};
use serde_json::{Value, json};

#[cfg(target_arch = "wasm32")]
mod bindings;

/// The adapter's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "{{name}}";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// How much of an unexpected body a failure message quotes.
const QUOTE_CHARS: usize = 200;

/// The HTTP call for one completion: `POST {base-url}/chat/completions`, streamed.
pub fn plan_request(
    endpoint: &Endpoint,
    request: &CompletionRequest,
) -> Result<HttpPlan, LlmFailure> {
    if request.model.trim().is_empty() {
        return Err(invalid(
            "no model: give one with --model or `model` in dsh.toml",
        ));
    }
    if !request.tools.is_empty() {
        return Err(invalid(
            "this adapter does not send tools yet (run without --tools)",
        ));
    }
    let options = &request.options;
    if options.top_p.is_some()
        || !options.stop.is_empty()
        || options.reasoning_effort.is_some()
        || options.response_format.is_some()
    {
        // Refuse what cannot be sent rather than drop it: the caller asked for it.
        return Err(invalid(
            "this adapter sends only max-output-tokens and temperature among the generation options",
        ));
    }
    let mut messages = Vec::new();
    for message in &request.messages {
        if message.has_images() {
            return Err(invalid("this adapter does not send images"));
        }
        if !message.tool_calls.is_empty() || message.role == Role::Tool {
            return Err(invalid("this adapter does not send tool calls or results"));
        }
        let role = match message.role {
            Role::System => "system",
            Role::User => "user",
            Role::Assistant => "assistant",
            Role::Tool => "tool",
        };
        messages.push(json!({ "role": role, "content": message.text() }));
    }
    let mut body = json!({ "model": request.model, "messages": messages, "stream": true });
    if let Some(max) = options.max_output_tokens {
        body["max_tokens"] = json!(max);
    }
    if let Some(temperature) = options.temperature {
        body["temperature"] = json!(temperature);
    }
    Ok(HttpPlan {
        method: "POST".into(),
        url: format!(
            "{}/chat/completions",
            endpoint.base_url.trim_end_matches('/')
        ),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("authorization".into(), "Bearer {credential}".into()),
        ],
        body: body.to_string().into_bytes(),
    })
}

fn invalid(message: &str) -> LlmFailure {
    LlmFailure::new(codes::INVALID_REQUEST, format!("{NAME}: {message}"))
}

/// A non-2xx answer as one canonical failure. Never fails: an HTML page or garbage is classified
/// by its status alone. This one reads OpenAI's envelope only, to show the parts; the built-in
/// adapters' classification by meaning, for any envelope, is one call away:
/// `dsh_guest_support::classify::classify_failure(head, body, &Provider { .. })`.
pub fn classify_failure(head: &ResponseHead, body: &[u8]) -> LlmFailure {
    let text = String::from_utf8_lossy(body);
    let error = serde_json::from_str::<Value>(&text)
        .ok()
        .and_then(|v| v.get("error").cloned())
        .filter(Value::is_object);
    let provider_message = error
        .as_ref()
        .and_then(|e| e["message"].as_str())
        .filter(|m| !m.trim().is_empty());
    let message = match provider_message {
        Some(m) => m.to_string(),
        None if text.trim().is_empty() => status_line(head.status),
        None => format!(
            "{}: {}",
            status_line(head.status),
            excerpt(&text, QUOTE_CHARS)
        ),
    };
    // OpenAI's machine-readable kind is in `code` or `type`.
    let kind = error
        .as_ref()
        .and_then(|e| e["code"].as_str().or_else(|| e["type"].as_str()))
        .unwrap_or("");
    LlmFailure {
        code: code_for(head.status, kind, &message),
        message,
        status: Some(head.status),
        provider_retry_after_ms: retry_after_ms(head),
        request_id: head.header("x-request-id").map(str::to_string),
    }
}

/// By meaning, not by status alone: a 429 that waiting cannot cure is a quota, a 400 that says the
/// context is too long is an overflow (compaction may cure it).
fn code_for(status: u16, kind: &str, message: &str) -> FailureCode {
    let lower = message.to_lowercase();
    let overflow = kind == "context_length_exceeded"
        || lower.contains("maximum context length")
        || lower.contains("context window");
    match status {
        401 | 403 => codes::AUTH,
        402 => codes::QUOTA_EXCEEDED, // Payment Required: billing, which waiting will not cure
        429 if kind == "insufficient_quota" => codes::QUOTA_EXCEEDED,
        429 => codes::RATE_LIMITED,
        400 | 413 | 422 if overflow => codes::CONTEXT_WINDOW_EXCEEDED,
        408 | 504 => codes::TIMEOUT,
        503 | 529 => codes::OVERLOADED,
        400..=499 => codes::INVALID_REQUEST,
        _ => codes::SERVER_ERROR,
    }
}

/// One per 2xx answer: the body's server-sent events into chunks. The SDK's `SseParser` cuts lines
/// on bytes, so a read that ends inside a line or a UTF-8 character changes nothing.
pub struct Decoder {
    sse: SseParser,
}

impl Decoder {
    pub fn new(_head: ResponseHead) -> Self {
        Decoder {
            sse: SseParser::new(),
        }
    }

    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Chunk> {
        let events = self.sse.feed(bytes);
        let mut chunks: Vec<Chunk> = events.iter().flat_map(chunks_of).collect();
        // One read's pieces of text as one chunk: each chunk crosses into the host as a string of
        // its own, and the host treats adjacent text as the one text it says.
        Chunk::join_adjacent_text(&mut chunks);
        chunks
    }

    pub fn end(&mut self) -> Vec<Chunk> {
        let events = self.sse.finish();
        events.iter().flat_map(chunks_of).collect()
    }
}

/// The chunks of one event. Keepalives and empty deltas give none: they are not progress.
fn chunks_of(event: &SseEvent) -> Vec<Chunk> {
    if event.data == "[DONE]" {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_str::<Value>(&event.data) else {
        return vec![error_finish(
            codes::SERVER_ERROR,
            format!("unparseable event: {}", excerpt(&event.data, QUOTE_CHARS)),
        )];
    };
    if let Some(error) = value.get("error").filter(|e| e.is_object()) {
        let message = error["message"]
            .as_str()
            .unwrap_or("an error inside the stream");
        return vec![error_finish(codes::SERVER_ERROR, message.to_string())];
    }
    let mut chunks = Vec::new();
    let choice = &value["choices"][0];
    if let Some(text) = choice["delta"]["content"]
        .as_str()
        .filter(|t| !t.is_empty())
    {
        chunks.push(Chunk::Text(text.to_string()));
    }
    if let Some(reason) = choice["finish_reason"].as_str() {
        let kind = match reason {
            "length" => FinishKind::Length,
            "tool_calls" => FinishKind::ToolCalls,
            "content_filter" => FinishKind::ContentFilter,
            _ => FinishKind::Stop,
        };
        chunks.push(Chunk::Finish(Finish {
            kind,
            reason: Some(reason.to_string()),
            failure: None,
        }));
    }
    if let Some(usage) = value.get("usage").filter(|u| u.is_object()) {
        chunks.push(Chunk::Usage(Usage {
            input_tokens: usage["prompt_tokens"].as_u64(),
            output_tokens: usage["completion_tokens"].as_u64(),
            ..Usage::default()
        }));
    }
    chunks
}

fn error_finish(code: FailureCode, message: String) -> Chunk {
    Chunk::Finish(Finish {
        kind: FinishKind::Error,
        reason: None,
        failure: Some(LlmFailure::new(code, message)),
    })
}
