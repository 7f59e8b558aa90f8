//! Turns scripted events and `completion` shorthands into SSE bytes.
//!
//! The wire shape of a completion is chosen by the request path (`Shape::for_path`), so one script
//! step means "answer with this text" whatever API the adapter speaks. Adding a provider is one
//! `Shape` variant, one path rule and one render function: `/v1/messages` is meant to become an
//! Anthropic Messages shape (`message_start`, `content_block_delta`, ..., no `[DONE]`).

use super::script::{Completion, SseEventSpec};
use serde_json::{Value, json};

/// One SSE event, ready to send after `delay_ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SseEvent {
    pub event: Option<String>,
    pub data: String,
    pub delay_ms: u64,
}

impl SseEvent {
    /// `event:` line (if named), one `data:` line per line of data, then the blank line.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = String::new();
        if let Some(name) = &self.event {
            out.push_str("event: ");
            out.push_str(name);
            out.push('\n');
        }
        for line in self.data.split('\n') {
            out.push_str("data: ");
            out.push_str(line);
            out.push('\n');
        }
        out.push('\n');
        out.into_bytes()
    }

    pub fn from_spec(spec: &SseEventSpec) -> SseEvent {
        let data = match &spec.data {
            Value::String(s) => s.clone(),
            other => other.to_string(), // compact: one line, as providers send it
        };
        SseEvent {
            event: spec.event.clone(),
            data,
            delay_ms: spec.delay_ms.unwrap_or(0),
        }
    }
}

/// The `data: [DONE]` sentinel that ends an OpenAI stream.
pub const DONE: &[u8] = b"data: [DONE]\n\n";

/// A provider's streaming wire format.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Shape {
    /// OpenAI Chat Completions: `chat.completion.chunk` objects, then `data: [DONE]`.
    OpenAiChat,
}

/// Per-response values that a real provider would generate.
#[derive(Debug, Clone)]
pub struct RenderCtx {
    pub id: String,
    pub created: u64,
}

impl Shape {
    /// The shape a request path asks for; `None` when the mock knows no completion API there.
    pub fn for_path(path: &str) -> Option<Shape> {
        let path = path.split('?').next().unwrap_or_default();
        if path.ends_with("/chat/completions") {
            Some(Shape::OpenAiChat)
        } else {
            None
        }
    }

    /// For error messages: the paths `for_path` accepts.
    pub const SUPPORTED: &'static str = "POST .../chat/completions (OpenAI)";

    /// Whether a completion ends with `data: [DONE]` unless the step says otherwise.
    pub fn done_by_default(self) -> bool {
        match self {
            Shape::OpenAiChat => true,
        }
    }

    pub fn render(self, c: &Completion, ctx: &RenderCtx) -> Vec<SseEvent> {
        let data = match self {
            Shape::OpenAiChat => openai_chat(c, ctx),
        };
        let delay_ms = c.delay_ms.unwrap_or(0);
        data.into_iter()
            .map(|v| SseEvent {
                event: None,
                data: v.to_string(),
                delay_ms,
            })
            .collect()
    }
}

/// Chunks in the order OpenAI sends them: role, content pieces, tool-call deltas (first with id and
/// name, then argument pieces), the finish chunk, then the usage chunk (empty `choices`).
fn openai_chat(c: &Completion, ctx: &RenderCtx) -> Vec<Value> {
    let model = c.model.as_deref().unwrap_or("mock-model");
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": ctx.id, "object": "chat.completion.chunk", "created": ctx.created, "model": model,
            "choices": [{ "index": 0, "delta": delta, "finish_reason": finish }],
        })
    };
    // OpenAI sends `content: null` in the role chunk of a tool-call-only answer.
    let first_content = if c.text.is_empty() && !c.tool_calls.is_empty() {
        Value::Null
    } else {
        json!("")
    };
    let mut out = vec![chunk(
        json!({ "role": "assistant", "content": first_content }),
        Value::Null,
    )];
    for piece in &c.text {
        out.push(chunk(json!({ "content": piece }), Value::Null));
    }
    for (i, call) in c.tool_calls.iter().enumerate() {
        let open = json!({ "index": i, "id": call.id, "type": "function",
                           "function": { "name": call.name, "arguments": "" } });
        out.push(chunk(json!({ "tool_calls": [open] }), Value::Null));
        for piece in &call.arguments {
            let delta = json!({ "index": i, "function": { "arguments": piece } });
            out.push(chunk(json!({ "tool_calls": [delta] }), Value::Null));
        }
    }
    if let Some(finish) = &c.finish {
        out.push(chunk(json!({}), json!(finish)));
    }
    if let Some(u) = &c.usage {
        let total = u
            .total_tokens
            .unwrap_or(u.prompt_tokens + u.completion_tokens);
        out.push(json!({
            "id": ctx.id, "object": "chat.completion.chunk", "created": ctx.created, "model": model,
            "choices": [],
            "usage": { "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                       "total_tokens": total },
        }));
    }
    out
}
