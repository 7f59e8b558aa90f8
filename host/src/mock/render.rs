//! Turns scripted events and `completion` shorthands into SSE bytes.
//!
//! The wire shape of a completion is chosen by the request path (`Shape::for_path`), so one script
//! step means "answer with this text" whatever API the adapter speaks: OpenAI Chat Completions,
//! Anthropic Messages or Google Gemini `streamGenerateContent`. Adding a provider is one `Shape`
//! variant, one path rule and one render function.

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
    /// Anthropic Messages: named events (`message_start`, `content_block_*`, `message_delta`,
    /// `message_stop`), no `[DONE]`.
    AnthropicMessages,
    /// Google Gemini `streamGenerateContent?alt=sse`: `GenerateContentResponse` chunks, no `[DONE]`.
    GeminiGenerate,
}

/// Per-response values that a real provider would generate.
#[derive(Debug, Clone)]
pub struct RenderCtx {
    /// The index of the step that answers; ids are derived from it (`chatcmpl-mock-STEP`, ...).
    pub step: usize,
    /// Unix seconds, for OpenAI's `created`.
    pub created: u64,
}

impl Shape {
    /// The shape a request path asks for; `None` when the mock knows no completion API there.
    /// The query (`?alt=sse`) and fragment are ignored.
    pub fn for_path(path: &str) -> Option<Shape> {
        let path = path.split(['?', '#']).next().unwrap_or_default();
        if path.ends_with("/chat/completions") {
            Some(Shape::OpenAiChat)
        } else if path.ends_with("/v1/messages") {
            Some(Shape::AnthropicMessages)
        } else if path.contains("/models/") && path.ends_with(":streamGenerateContent") {
            Some(Shape::GeminiGenerate)
        } else {
            None
        }
    }

    /// For error messages: the paths `for_path` accepts.
    pub const SUPPORTED: &'static str = "POST .../chat/completions (OpenAI), POST .../v1/messages (Anthropic), POST .../models/MODEL:streamGenerateContent?alt=sse (Gemini)";

    /// For error messages.
    pub fn name(self) -> &'static str {
        match self {
            Shape::OpenAiChat => "OpenAI Chat Completions",
            Shape::AnthropicMessages => "Anthropic Messages",
            Shape::GeminiGenerate => "Gemini streamGenerateContent",
        }
    }

    /// Whether a completion ends with `data: [DONE]` unless the step says otherwise. Only OpenAI
    /// sends one; `done: true` for another shape is refused by `render`.
    pub fn done_by_default(self) -> bool {
        self == Shape::OpenAiChat
    }

    /// Refuses what the request's query rules out. Gemini streams SSE only with `alt=sse`; without
    /// it the real API answers with one JSON array, which the mock does not render, so an adapter
    /// that forgets the parameter hears about it here rather than in production.
    pub fn check_query(self, path: &str) -> Result<(), String> {
        if self != Shape::GeminiGenerate {
            return Ok(());
        }
        let query = path.split_once('?').map(|(_, q)| q).unwrap_or_default();
        let query = query.split('#').next().unwrap_or_default();
        if query.split('&').any(|kv| kv == "alt=sse") {
            Ok(())
        } else {
            Err(format!(
                "the Gemini path {path} has no alt=sse query parameter; without it Gemini streams a JSON array, not server-sent events; add ?alt=sse to the request"
            ))
        }
    }

    /// The events of a completion, each after the step's `delay_ms`, and whether to end with
    /// `data: [DONE]`. `Err` says why this shape cannot render the completion as scripted.
    pub fn render(
        self,
        c: &Completion,
        done: Option<bool>,
        ctx: &RenderCtx,
    ) -> Result<(Vec<SseEvent>, bool), String> {
        if self != Shape::AnthropicMessages && !c.thinking.is_empty() {
            return Err(format!(
                "completion.thinking is rendered only for Anthropic Messages (.../v1/messages), and this request is {}; remove thinking or send the request to .../v1/messages",
                self.name()
            ));
        }
        if done == Some(true) && !self.done_by_default() {
            return Err(format!(
                "done: true sends data: [DONE], which {} never sends (only OpenAI does); remove done, or use events to send a stray [DONE]",
                self.name()
            ));
        }
        let data = match self {
            Shape::OpenAiChat => openai_chat(c, ctx),
            Shape::AnthropicMessages => anthropic_messages(c, ctx),
            Shape::GeminiGenerate => gemini_generate(c, ctx)?,
        };
        let delay_ms = c.delay_ms.unwrap_or(0);
        let events = data
            .into_iter()
            .map(|v| SseEvent {
                // Anthropic names every event after its data's `type`, as the real API does.
                event: (self == Shape::AnthropicMessages)
                    .then(|| v["type"].as_str().map(str::to_string))
                    .flatten(),
                data: v.to_string(),
                delay_ms,
            })
            .collect();
        Ok((events, done.unwrap_or(self.done_by_default())))
    }
}

fn model(c: &Completion) -> &str {
    c.model.as_deref().unwrap_or("mock-model")
}

/// Chunks in the order OpenAI sends them: role, content pieces, tool-call deltas (first with id and
/// name, then argument pieces), the finish chunk, then the usage chunk (empty `choices`).
fn openai_chat(c: &Completion, ctx: &RenderCtx) -> Vec<Value> {
    let model = model(c);
    let id = format!("chatcmpl-mock-{}", ctx.step);
    let chunk = |delta: Value, finish: Value| {
        json!({
            "id": id, "object": "chat.completion.chunk", "created": ctx.created, "model": model,
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
        out.push(json!({
            "id": id, "object": "chat.completion.chunk", "created": ctx.created, "model": model,
            "choices": [],
            "usage": { "prompt_tokens": u.prompt_tokens, "completion_tokens": u.completion_tokens,
                       "total_tokens": u.total() },
        }));
    }
    out
}

/// Anthropic's stop reason for a script's (OpenAI-named) finish.
fn anthropic_stop_reason(finish: &str) -> &'static str {
    match finish {
        "length" => "max_tokens",
        "tool_calls" => "tool_use",
        "content_filter" => "refusal",
        _ => "end_turn", // "stop"; the validator admits nothing else
    }
}

/// Events in the order Anthropic sends them: `message_start`, a `ping`, one content block each for
/// the thinking, the text and every tool call (`content_block_start`, deltas, `content_block_stop`),
/// then `message_delta` (stop reason, output tokens) and `message_stop`, unless `finish` is null.
fn anthropic_messages(c: &Completion, ctx: &RenderCtx) -> Vec<Value> {
    let (input, output) = c
        .usage
        .as_ref()
        .map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    let mut out = vec![
        json!({ "type": "message_start", "message": {
            "id": format!("msg_mock_{}", ctx.step), "type": "message", "role": "assistant",
            "model": model(c), "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": input, "output_tokens": 0 },
        }}),
        json!({ "type": "ping" }),
    ];
    let mut blocks = Vec::new();
    if !c.thinking.is_empty() {
        let mut deltas: Vec<Value> = c
            .thinking
            .iter()
            .map(|t| json!({ "type": "thinking_delta", "thinking": t }))
            .collect();
        // The real API signs every thinking block, and wants the signature back with the block.
        deltas.push(json!({ "type": "signature_delta", "signature": format!("mock-signature-{}", ctx.step) }));
        blocks.push((json!({ "type": "thinking", "thinking": "" }), deltas));
    }
    if !c.text.is_empty() {
        let deltas = c
            .text
            .iter()
            .map(|t| json!({ "type": "text_delta", "text": t }))
            .collect();
        blocks.push((json!({ "type": "text", "text": "" }), deltas));
    }
    for call in &c.tool_calls {
        let deltas = call
            .arguments
            .iter()
            .map(|a| json!({ "type": "input_json_delta", "partial_json": a }))
            .collect();
        let start = json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": {} });
        blocks.push((start, deltas));
    }
    for (index, (start, deltas)) in blocks.into_iter().enumerate() {
        out.push(json!({ "type": "content_block_start", "index": index, "content_block": start }));
        for delta in deltas {
            out.push(json!({ "type": "content_block_delta", "index": index, "delta": delta }));
        }
        out.push(json!({ "type": "content_block_stop", "index": index }));
    }
    if let Some(finish) = &c.finish {
        out.push(json!({
            "type": "message_delta",
            "delta": { "stop_reason": anthropic_stop_reason(finish), "stop_sequence": null },
            "usage": { "output_tokens": output },
        }));
        out.push(json!({ "type": "message_stop" }));
    }
    out
}

/// Gemini's finish reason for a script's (OpenAI-named) finish.
fn gemini_finish_reason(finish: &str) -> &'static str {
    match finish {
        "length" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => "STOP", // "stop", and "tool_calls": Gemini has no finish reason of its own for calls
    }
}

/// `GenerateContentResponse` chunks as Gemini streams them: one per text piece, then one holding
/// every tool call as a whole `functionCall` part (Gemini sends no argument deltas and no call ids).
/// The last chunk carries `finishReason` and `usageMetadata`; with no content, a chunk of its own
/// (a candidate with no `content`, as Gemini sends an empty or blocked answer). `finish: null` sends
/// neither (the stream was cut before its last chunk).
fn gemini_generate(c: &Completion, ctx: &RenderCtx) -> Result<Vec<Value>, String> {
    let response_id = format!("mock-response-{}", ctx.step);
    let mut parts_per_chunk: Vec<Vec<Value>> =
        c.text.iter().map(|t| vec![json!({ "text": t })]).collect();
    if !c.tool_calls.is_empty() {
        let calls = c
            .tool_calls
            .iter()
            .enumerate()
            .map(|(i, call)| {
                let text = call.arguments.concat();
                let args = if text.trim().is_empty() {
                    json!({})
                } else {
                    serde_json::from_str::<Value>(&text).map_err(|e| {
                        format!("completion.tool_calls[{i}].arguments join to {text:?}, which is not JSON ({e}); Gemini sends whole arguments as a JSON object, so give valid JSON (or use events for a malformed call)")
                    })?
                };
                if !args.is_object() {
                    return Err(format!(
                        "completion.tool_calls[{i}].arguments join to {text}, which is not a JSON object; Gemini's functionCall.args is always an object"
                    ));
                }
                Ok(json!({ "functionCall": { "name": call.name, "args": args } }))
            })
            .collect::<Result<Vec<_>, String>>()?;
        parts_per_chunk.push(calls);
    }
    let chunk = |candidate: Value| json!({ "candidates": [candidate], "modelVersion": model(c), "responseId": response_id });
    let mut out: Vec<Value> = parts_per_chunk
        .into_iter()
        .map(|parts| chunk(json!({ "content": { "role": "model", "parts": parts }, "index": 0 })))
        .collect();
    if let Some(finish) = &c.finish {
        if out.is_empty() {
            out.push(chunk(json!({ "index": 0 })));
        }
        let last = out.last_mut().expect("a chunk was just ensured");
        last["candidates"][0]["finishReason"] = json!(gemini_finish_reason(finish));
        if let Some(u) = &c.usage {
            last["usageMetadata"] = json!({
                "promptTokenCount": u.prompt_tokens, "candidatesTokenCount": u.completion_tokens,
                "totalTokenCount": u.total(),
            });
        }
    }
    Ok(out)
}
