//! Turns scripted events and `completion` shorthands into SSE bytes.
//!
//! The wire shape of a completion is chosen by the request path (`Shape::for_path`), so one script
//! step means "answer with this text" whatever API the adapter speaks: OpenAI Chat Completions,
//! Anthropic Messages or Google Gemini `streamGenerateContent`. Adding a provider is one `Shape`
//! variant, one path rule and one render function.

use super::echo::Echo;
use super::script::{Completion, SseEventSpec};
use serde_json::{Value, json};
use std::borrow::Cow;
use std::iter::once;

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

    /// An `events` entry with data (the validator ensures it has some), its placeholders filled.
    pub fn from_spec(spec: &SseEventSpec, echo: &Echo) -> SseEvent {
        let data = match &spec.data {
            Some(Value::String(s)) => echo.fill(s).into_owned(),
            // Compact: one line, as providers send it.
            Some(other) => echo.fill_json(other).to_string(),
            None => String::new(),
        };
        SseEvent {
            event: spec.event.clone(),
            data,
            delay_ms: spec.delay_ms.unwrap_or(0),
        }
    }
}

/// An SSE comment: one `: ` line per line of text, then the blank line. Clients skip it; providers
/// send them as keepalives.
pub fn sse_comment_bytes(text: &str) -> Vec<u8> {
    let mut out = String::new();
    for line in text.split('\n') {
        out.push_str(": ");
        out.push_str(line);
        out.push('\n');
    }
    out.push('\n');
    out.into_bytes()
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

/// Per-response values that a real provider would generate, and the request to echo.
#[derive(Debug, Clone, Default)]
pub struct RenderCtx {
    /// The index of the step that answers; ids are derived from it (`chatcmpl-mock-STEP`, ...).
    pub step: usize,
    /// Unix seconds, for OpenAI's `created`.
    pub created: u64,
    /// What the request carried, for placeholders in text, thinking and tool-call arguments.
    pub echo: Echo,
}

/// Events generated one at a time as they go out, so a completion of 50,000 pieces never sits in
/// memory whole.
pub type Events<'a> = Box<dyn Iterator<Item = SseEvent> + Send + 'a>;
type Chunks<'a> = Box<dyn Iterator<Item = Value> + Send + 'a>;

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

    /// The events of a completion, each after the completion's `delay_ms`, and whether to end with
    /// `data: [DONE]`. The events are generated as they are taken; what could make the shape refuse
    /// the completion is checked here, before any of them. `Err` says why this shape cannot render
    /// the completion as scripted.
    pub fn render<'a>(
        self,
        c: &'a Completion,
        done: Option<bool>,
        ctx: &'a RenderCtx,
    ) -> Result<(Events<'a>, bool), String> {
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
        let chunks = match self {
            Shape::OpenAiChat => openai_chat(c, ctx),
            Shape::AnthropicMessages => anthropic_messages(c, ctx),
            Shape::GeminiGenerate => gemini_generate(c, ctx)?,
        };
        let delay_ms = c.delay_ms.unwrap_or(0);
        let named = self == Shape::AnthropicMessages;
        let events = chunks.map(move |v| SseEvent {
            // Anthropic names every event after its data's `type`, as the real API does.
            event: named
                .then(|| v["type"].as_str().map(str::to_string))
                .flatten(),
            data: v.to_string(),
            delay_ms,
        });
        Ok((Box::new(events), done.unwrap_or(self.done_by_default())))
    }
}

fn model(c: &Completion) -> &str {
    c.model.as_deref().unwrap_or("mock-model")
}

/// The text pieces: `text`, then `repeat.count` copies of `repeat.text`, placeholders filled.
fn text_pieces<'a>(
    c: &'a Completion,
    ctx: &'a RenderCtx,
) -> impl Iterator<Item = Cow<'a, str>> + Send + 'a {
    let repeated = c
        .repeat
        .iter()
        .flat_map(|r| (0..r.count).map(move |_| r.text.as_str()));
    c.text
        .iter()
        .map(String::as_str)
        .chain(repeated)
        .map(|t| ctx.echo.fill(t))
}

/// Chunks in the order OpenAI sends them: role, content pieces, tool-call deltas (first with id and
/// name, then argument pieces), the finish chunk, then the usage chunk (empty `choices`).
fn openai_chat<'a>(c: &'a Completion, ctx: &'a RenderCtx) -> Chunks<'a> {
    let base = json!({
        "id": format!("chatcmpl-mock-{}", ctx.step), "object": "chat.completion.chunk",
        "created": ctx.created, "model": model(c),
    });
    let with = {
        let base = base.clone();
        move |field: &str, value: Value| {
            let mut v = base.clone();
            v[field] = value;
            v
        }
    };
    let chunk = {
        let with = with.clone();
        move |delta: Value, finish: Value| {
            with(
                "choices",
                json!([{ "index": 0, "delta": delta, "finish_reason": finish }]),
            )
        }
    };
    // OpenAI sends `content: null` in the role chunk of a tool-call-only answer.
    let first_content = if !c.has_text() && !c.tool_calls.is_empty() {
        Value::Null
    } else {
        json!("")
    };
    let role = once(chunk(
        json!({ "role": "assistant", "content": first_content }),
        Value::Null,
    ));
    let text = text_pieces(c, ctx).map({
        let chunk = chunk.clone();
        move |piece| chunk(json!({ "content": piece }), Value::Null)
    });
    let calls = c.tool_calls.iter().enumerate().flat_map({
        let chunk = chunk.clone();
        move |(i, call)| {
            let open = json!({ "index": i, "id": call.id, "type": "function",
                               "function": { "name": call.name, "arguments": "" } });
            let args = call.arguments.iter().map({
                let chunk = chunk.clone();
                move |piece| {
                    let delta =
                        json!({ "index": i, "function": { "arguments": ctx.echo.fill(piece) } });
                    chunk(json!({ "tool_calls": [delta] }), Value::Null)
                }
            });
            once(chunk(json!({ "tool_calls": [open] }), Value::Null)).chain(args)
        }
    });
    let finish = c.finish.iter().map(move |f| chunk(json!({}), json!(f)));
    let usage = c.usage.iter().map(move |u| {
        let mut v = with("choices", json!([]));
        v["usage"] = json!({ "prompt_tokens": u.prompt_tokens,
                             "completion_tokens": u.completion_tokens, "total_tokens": u.total() });
        v
    });
    Box::new(role.chain(text).chain(calls).chain(finish).chain(usage))
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

/// One Anthropic content block: its start, a delta event per delta, its stop.
fn anthropic_block<'a>(
    index: usize,
    start: Value,
    deltas: impl Iterator<Item = Value> + Send + 'a,
) -> impl Iterator<Item = Value> + Send + 'a {
    once(json!({ "type": "content_block_start", "index": index, "content_block": start }))
        .chain(deltas.map(
            move |delta| json!({ "type": "content_block_delta", "index": index, "delta": delta }),
        ))
        .chain(once(
            json!({ "type": "content_block_stop", "index": index }),
        ))
}

/// Events in the order Anthropic sends them: `message_start`, a `ping`, one content block each for
/// the thinking, the text and every tool call (`content_block_start`, deltas, `content_block_stop`),
/// then `message_delta` (stop reason, output tokens) and `message_stop`, unless `finish` is null.
fn anthropic_messages<'a>(c: &'a Completion, ctx: &'a RenderCtx) -> Chunks<'a> {
    let (input, output) = c
        .usage
        .as_ref()
        .map_or((0, 0), |u| (u.prompt_tokens, u.completion_tokens));
    let start = [
        json!({ "type": "message_start", "message": {
            "id": format!("msg_mock_{}", ctx.step), "type": "message", "role": "assistant",
            "model": model(c), "content": [], "stop_reason": null, "stop_sequence": null,
            "usage": { "input_tokens": input, "output_tokens": 0 },
        }}),
        json!({ "type": "ping" }),
    ];
    let mut index = 0;
    let mut next_index = || {
        index += 1;
        index - 1
    };
    let thinking = (!c.thinking.is_empty()).then(|| {
        let deltas = c
            .thinking
            .iter()
            .map(|t| json!({ "type": "thinking_delta", "thinking": ctx.echo.fill(t) }))
            // The real API signs every thinking block, and wants the signature back with the block.
            .chain(once(json!({ "type": "signature_delta",
                                "signature": format!("mock-signature-{}", ctx.step) })));
        anthropic_block(
            next_index(),
            json!({ "type": "thinking", "thinking": "" }),
            deltas,
        )
    });
    let text = c.has_text().then(|| {
        let deltas = text_pieces(c, ctx).map(|t| json!({ "type": "text_delta", "text": t }));
        anthropic_block(next_index(), json!({ "type": "text", "text": "" }), deltas)
    });
    let first_call = next_index();
    let calls = c.tool_calls.iter().enumerate().flat_map(move |(i, call)| {
        let deltas = call
            .arguments
            .iter()
            .map(|a| json!({ "type": "input_json_delta", "partial_json": ctx.echo.fill(a) }));
        let start = json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": {} });
        anthropic_block(first_call + i, start, deltas)
    });
    let end = c.finish.iter().flat_map(move |finish| {
        [
            json!({
                "type": "message_delta",
                "delta": { "stop_reason": anthropic_stop_reason(finish), "stop_sequence": null },
                "usage": { "output_tokens": output },
            }),
            json!({ "type": "message_stop" }),
        ]
    });
    Box::new(
        start
            .into_iter()
            .chain(thinking.into_iter().flatten())
            .chain(text.into_iter().flatten())
            .chain(calls)
            .chain(end),
    )
}

/// Gemini's finish reason for a script's (OpenAI-named) finish.
fn gemini_finish_reason(finish: &str) -> &'static str {
    match finish {
        "length" => "MAX_TOKENS",
        "content_filter" => "SAFETY",
        _ => "STOP", // "stop", and "tool_calls": Gemini has no finish reason of its own for calls
    }
}

/// Every tool call as a whole `functionCall` part, its joined arguments parsed (Gemini sends no
/// argument deltas and no call ids). `Err` when the arguments are not a JSON object.
fn gemini_calls(c: &Completion, ctx: &RenderCtx) -> Result<Vec<Value>, String> {
    c.tool_calls
        .iter()
        .enumerate()
        .map(|(i, call)| {
            let text: String = call.arguments.iter().map(|a| ctx.echo.fill(a)).collect();
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
        .collect()
}

/// `GenerateContentResponse` chunks as Gemini streams them: one per text piece, then one holding
/// every tool call. The last chunk carries `finishReason` and `usageMetadata`; with no content, a
/// chunk of its own (a candidate with no `content`, as Gemini sends an empty or blocked answer).
/// `finish: null` sends neither (the stream was cut before its last chunk).
fn gemini_generate<'a>(c: &'a Completion, ctx: &'a RenderCtx) -> Result<Chunks<'a>, String> {
    let calls = gemini_calls(c, ctx)?;
    let mut parts = text_pieces(c, ctx)
        .map(|t| vec![json!({ "text": t })])
        .chain((!calls.is_empty()).then_some(calls))
        .peekable();
    let response_id = format!("mock-response-{}", ctx.step);
    let chunk = move |candidate: Value| json!({ "candidates": [candidate], "modelVersion": model(c), "responseId": response_id });
    let finish = move |chunk: &mut Value| {
        let Some(finish) = &c.finish else { return };
        chunk["candidates"][0]["finishReason"] = json!(gemini_finish_reason(finish));
        if let Some(u) = &c.usage {
            chunk["usageMetadata"] = json!({
                "promptTokenCount": u.prompt_tokens, "candidatesTokenCount": u.completion_tokens,
                "totalTokenCount": u.total(),
            });
        }
    };
    // The finish goes on the last chunk, which is known only by looking one ahead.
    let mut sent_any = false;
    Ok(Box::new(std::iter::from_fn(move || match parts.next() {
        Some(p) => {
            let mut out = chunk(json!({ "content": { "role": "model", "parts": p }, "index": 0 }));
            if parts.peek().is_none() {
                finish(&mut out);
            }
            sent_any = true;
            Some(out)
        }
        None if !sent_any && c.finish.is_some() => {
            sent_any = true;
            let mut out = chunk(json!({ "index": 0 }));
            finish(&mut out);
            Some(out)
        }
        None => None,
    })))
}
