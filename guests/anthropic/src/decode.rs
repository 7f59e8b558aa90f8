//! The response-body decoder: Anthropic Messages SSE into chunks.
//!
//! A stream is `message_start`, then per content block `content_block_start`,
//! `content_block_delta`s and `content_block_stop`, then `message_delta` (the stop reason and the
//! output usage) and `message_stop`; `ping`s anywhere. Decisions:
//! - The finish is emitted at `message_stop` only, preceded by one `usage` chunk that combines
//!   `message_start`'s and `message_delta`'s counts. A stream that ends without `message_stop` yields
//!   no finish: the host reports it as STREAM_TRUNCATED.
//! - Usage is reported in the contract's sense (cached tokens are part of the input): Anthropic's
//!   `input_tokens` counts only the uncached part, so `input-tokens` is `input_tokens +
//!   cache_read_input_tokens + cache_creation_input_tokens`, and `cached-input-tokens` is
//!   `cache_read_input_tokens`.
//! - A tool call's index is its content block's index; its id and name come on the delta made from
//!   `content_block_start`, the argument text on the `input_json_delta`s after it.
//! - `event: error` in the 200 stream ends it with an error finish, classified by its error type like
//!   a non-2xx body. After any finish, everything is ignored.
//! - A body without SSE framing is read at `end()` as one JSON document: a non-streaming Message, or
//!   an error.
//! - A thinking block starting is reported as `progress` (the model is at work, though no text may
//!   follow for a long while); a `ping` is a keepalive and yields nothing. The thinking and
//!   redacted-thinking blocks (with their signatures) are kept and emitted whole as the message's
//!   `provider-data` just before the finish: Anthropic requires them back, unchanged, before the
//!   results of the tool calls they led to. A thinking block without a signature cannot be sent
//!   back (Anthropic would refuse it) and is not kept.

use std::borrow::Cow;
use std::collections::BTreeMap;

use serde_json::Value;

use crate::classify::{classify_in_band, header_request_id};
use crate::fast::{self, Str};
use crate::sse::SseEvent;
use crate::text::{QUOTE_CHARS, excerpt, html_title, looks_like_html};
use crate::types::{
    Chunk, Finish, FinishKind, LlmFailure, ResponseHead, ToolCallDelta, Usage, codes,
};
use dsh_guest_support::answer::{self, AnswerHead, UnreadWords, declared_empty};
use dsh_guest_support::body::BodyInput;
use dsh_guest_support::classify::failure_named_by_words;

/// Whether the typed fast path takes the event `data` (tests check it covers the common shapes).
#[doc(hidden)]
pub fn fast_path_takes(data: &str) -> bool {
    fast::parse(data.trim()).is_some()
}

/// What a content block is, as its `content_block_start` said.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Block {
    Text,
    Thinking,
    /// A client tool call. `complete`: its start already carried the whole input, so any
    /// `input_json_delta` would repeat it.
    ToolUse {
        complete: bool,
    },
    /// `redacted_thinking`, `server_tool_use` (run by Anthropic, not by us), results, and types
    /// this adapter does not know: their deltas are not ours to emit.
    Other,
}

/// A block the provider requires back verbatim in later requests.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Kept {
    Thinking { thinking: String, signature: String },
    Redacted { data: String },
}

impl Kept {
    /// The block as Anthropic sent it; `None` for thinking that has no signature.
    fn to_json(&self) -> Option<Value> {
        match self {
            Kept::Thinking { signature, .. } if signature.is_empty() => None,
            Kept::Thinking {
                thinking,
                signature,
            } => Some(
                serde_json::json!({ "type": "thinking", "thinking": thinking, "signature": signature }),
            ),
            Kept::Redacted { data } => {
                Some(serde_json::json!({ "type": "redacted_thinking", "data": data }))
            }
        }
    }
}

/// The string fields of a `content_block_delta`'s delta (a field that is not a string is `None`).
#[derive(Default)]
struct DeltaText<'a> {
    text: Option<Cow<'a, str>>,
    thinking: Option<Cow<'a, str>>,
    partial_json: Option<Cow<'a, str>>,
    signature: Option<Cow<'a, str>>,
}

/// Anthropic's token counts as reported so far (`message_delta` counts are cumulative).
#[derive(Debug, Default, Clone, Copy)]
struct RawUsage {
    input: Option<u64>,
    output: Option<u64>,
    cache_read: Option<u64>,
    cache_creation: Option<u64>,
}

impl RawUsage {
    fn merge(&mut self, u: &Value) {
        let n = |key: &str| u.get(key).and_then(Value::as_u64);
        self.input = n("input_tokens").or(self.input);
        self.output = n("output_tokens").or(self.output);
        self.cache_read = n("cache_read_input_tokens").or(self.cache_read);
        self.cache_creation = n("cache_creation_input_tokens").or(self.cache_creation);
    }

    fn to_usage(self) -> Option<Usage> {
        let any_input =
            self.input.is_some() || self.cache_read.is_some() || self.cache_creation.is_some();
        let input = any_input.then(|| {
            self.input
                .unwrap_or(0)
                .saturating_add(self.cache_read.unwrap_or(0))
                .saturating_add(self.cache_creation.unwrap_or(0))
        });
        let usage = Usage {
            input_tokens: input,
            output_tokens: self.output,
            cached_input_tokens: self.cache_read,
            reasoning_tokens: None,
        };
        (usage != Usage::default()).then_some(usage)
    }
}

pub struct Decoder {
    head: ResponseHead,
    input: BodyInput,
    /// A finish was emitted: the answer is over.
    finished: bool,
    /// Content blocks by their index.
    blocks: BTreeMap<u64, Block>,
    usage: RawUsage,
    stop_reason: Option<String>,
    saw_tool_call: bool,
    /// The thinking blocks so far, by index, to be sent back with the message.
    kept: BTreeMap<u64, Kept>,
    /// Whether the typed fast path is used (see `fast`); off only to compare it in tests.
    fast_path: bool,
    /// The answer's first words, to tell an error report written as the answer (a proxy's
    /// "Error: ...") from an answer when it finishes.
    answer: AnswerHead,
}

impl Decoder {
    pub fn new(head: ResponseHead) -> Self {
        Decoder {
            head,
            input: BodyInput::new(),
            finished: false,
            blocks: BTreeMap::new(),
            usage: RawUsage::default(),
            stop_reason: None,
            saw_tool_call: false,
            kept: BTreeMap::new(),
            fast_path: true,
            answer: AnswerHead::default(),
        }
    }

    /// A decoder that parses every event into a `serde_json::Value` (no typed fast path): the
    /// reference the fast path is tested against.
    #[doc(hidden)]
    pub fn without_fast_path(head: ResponseHead) -> Self {
        Decoder {
            fast_path: false,
            ..Decoder::new(head)
        }
    }

    /// One network read, as it came.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        let events = self.input.feed(bytes);
        for event in events {
            self.on_event(event, &mut out);
        }
        Chunk::join_adjacent_text(&mut out);
        self.answer.note(&out);
        out
    }

    /// The body is complete.
    pub fn end(&mut self) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        for event in self.input.finish() {
            self.on_event(event, &mut out);
        }
        if !self.finished && !self.input.saw_framing() {
            self.decode_plain_body(&mut out);
        }
        // Without `message_stop` nothing more is emitted: the host reports STREAM_TRUNCATED.
        out
    }

    fn on_event(&mut self, event: SseEvent, out: &mut Vec<Chunk>) {
        if self.finished {
            return;
        }
        let data = event.data.trim();
        // `content_block_delta`s, typed (see `fast`); everything else below, as a `Value`.
        if self.fast_path
            && event
                .event
                .as_deref()
                .is_none_or(|n| n == "content_block_delta")
            && let Some(e) = fast::parse(data)
        {
            // As `on_json` does: no index or no delta, nothing to do (a `null` delta does nothing).
            if let (Some(index), Some(delta)) = (e.index, e.delta) {
                let kind = delta.kind;
                let fields = DeltaText {
                    text: delta.text.map(|s| s.0),
                    thinking: delta.thinking.map(|s| s.0),
                    partial_json: delta.partial_json.map(|s| s.0),
                    signature: delta.signature.map(|s| s.0),
                };
                self.on_block_delta(index, kind.as_ref().map_or("", Str::as_str), fields, out);
            }
            return;
        }
        match serde_json::from_str::<Value>(data) {
            Ok(value) => self.on_json(event.event.as_deref(), &value, out),
            // `event: error` with a text payload is still an error.
            Err(_) if event.event.as_deref() == Some("error") => {
                let text = Value::String(excerpt(data, QUOTE_CHARS));
                self.emit_error(classify_in_band(&text, &self.head), out);
            }
            // A payload that is not JSON (a cut-off last event, a proxy's odd keep-alive) carries
            // nothing we can use; a stream made only of them ends without a finish: truncated.
            Err(_) => {}
        }
    }

    fn on_json(&mut self, event_name: Option<&str>, v: &Value, out: &mut Vec<Chunk>) {
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(event_name)
            .unwrap_or("");
        match kind {
            "message_start" => {
                if let Some(u) = v.pointer("/message/usage") {
                    self.usage.merge(u);
                }
            }
            "content_block_start" => {
                let (Some(index), Some(block)) = (index_of(v), v.get("content_block")) else {
                    return;
                };
                self.on_block_start(index, block, out);
            }
            "content_block_delta" => {
                let (Some(index), Some(delta)) = (index_of(v), v.get("delta")) else {
                    return;
                };
                let text = |key: &str| delta.get(key).and_then(Value::as_str).map(Cow::Borrowed);
                let fields = DeltaText {
                    text: text("text"),
                    thinking: text("thinking"),
                    partial_json: text("partial_json"),
                    signature: text("signature"),
                };
                let kind = delta.get("type").and_then(Value::as_str).unwrap_or("");
                self.on_block_delta(index, kind, fields, out);
            }
            "message_delta" => {
                if let Some(reason) = v.pointer("/delta/stop_reason").and_then(Value::as_str) {
                    self.stop_reason = Some(reason.to_string());
                }
                if let Some(u) = v.get("usage") {
                    self.usage.merge(u);
                }
            }
            "message_stop" => {
                self.emit_kept(out);
                if let Some(usage) = self.usage.to_usage() {
                    out.push(Chunk::Usage(usage));
                }
                let finish = self.finish_for(self.stop_reason.clone().as_deref());
                self.emit_finish(finish, out);
            }
            "error" => self.emit_error(classify_in_band(v, &self.head), out),
            // `ping`, `content_block_stop`, and events added after this adapter was written.
            _ => {}
        }
    }

    fn on_block_start(&mut self, index: u64, block: &Value, out: &mut Vec<Chunk>) {
        let kind = match block.get("type").and_then(Value::as_str).unwrap_or("") {
            "text" => {
                push_text(out, Chunk::Text, block.get("text"));
                Block::Text
            }
            // A thinking block starting is the model at work, though no text may follow for a long
            // while: progress for the host's watchdog. A `ping` says nothing of the kind and yields
            // nothing.
            "thinking" => {
                out.push(Chunk::Progress("thinking".to_string()));
                let text = block.get("thinking").and_then(Value::as_str).unwrap_or("");
                push_text(out, Chunk::Reasoning, block.get("thinking"));
                let signature = block.get("signature").and_then(Value::as_str).unwrap_or("");
                self.kept.insert(
                    index,
                    Kept::Thinking {
                        thinking: text.to_string(),
                        signature: signature.to_string(),
                    },
                );
                Block::Thinking
            }
            "redacted_thinking" => {
                out.push(Chunk::Progress("redacted thinking".to_string()));
                if let Some(data) = block.get("data").and_then(Value::as_str) {
                    self.kept.insert(
                        index,
                        Kept::Redacted {
                            data: data.to_string(),
                        },
                    );
                }
                Block::Other
            }
            "tool_use" => {
                // Streams start with `input: {}` and send the input as `input_json_delta`s; a start
                // that already holds a non-empty input (some proxies) is the whole call.
                let arguments = match block.get("input") {
                    Some(Value::Object(o)) if !o.is_empty() => Value::Object(o.clone()).to_string(),
                    _ => String::new(),
                };
                let complete = !arguments.is_empty();
                self.push_tool_call(
                    out,
                    index,
                    block.get("id").and_then(Value::as_str),
                    block.get("name").and_then(Value::as_str),
                    arguments,
                );
                Block::ToolUse { complete }
            }
            _ => Block::Other,
        };
        self.blocks.insert(index, kind);
    }

    /// A delta: its `type` and its string fields.
    fn on_block_delta(
        &mut self,
        index: u64,
        kind: &str,
        fields: DeltaText<'_>,
        out: &mut Vec<Chunk>,
    ) {
        let block = self.blocks.get(&index).copied();
        match kind {
            // Text without a block start is still text; text in a block that is not a text block
            // (a citation's, a server tool's) is not the answer.
            "text_delta" if matches!(block, None | Some(Block::Text)) => {
                push_cow(out, Chunk::Text, fields.text);
            }
            "thinking_delta" if matches!(block, None | Some(Block::Thinking)) => {
                if let (Some(Kept::Thinking { thinking, .. }), Some(piece)) =
                    (self.kept.get_mut(&index), fields.thinking.as_deref())
                {
                    thinking.push_str(piece);
                }
                push_cow(out, Chunk::Reasoning, fields.thinking);
            }
            "signature_delta" if block == Some(Block::Thinking) => {
                if let (Some(Kept::Thinking { signature, .. }), Some(piece)) =
                    (self.kept.get_mut(&index), fields.signature.as_deref())
                {
                    signature.push_str(piece);
                }
            }
            // A tool call's arguments only after its start: without one there is no name to call.
            "input_json_delta" if block == Some(Block::ToolUse { complete: false }) => {
                if let Some(partial) = fields.partial_json.filter(|p| !p.is_empty()) {
                    self.push_tool_call(out, index, None, None, partial.into_owned());
                }
            }
            // `citations_delta`, and deltas of blocks that are not ours.
            _ => {}
        }
    }

    /// The kept thinking blocks, in order, as the message's provider data (nothing if none).
    fn emit_kept(&mut self, out: &mut Vec<Chunk>) {
        let blocks: Vec<Value> = self.kept.values().filter_map(Kept::to_json).collect();
        if !blocks.is_empty() {
            out.push(Chunk::ProviderData(crate::plan::provider_data_for(&blocks)));
        }
    }

    /// A body without SSE framing: a non-streaming Message, an error object, or garbage. An empty
    /// body yields nothing (truncated).
    fn decode_plain_body(&mut self, out: &mut Vec<Chunk>) {
        let raw = self.input.take_raw();
        let text = String::from_utf8_lossy(&raw);
        if text.trim().is_empty() && !self.input.raw_too_large() {
            // A body declared empty is complete, and empty; any other is left to the host, which
            // says truncated.
            if declared_empty(&self.head) {
                let failure = answer::empty_response(
                    &self.head,
                    header_request_id(&self.head),
                    answer::DECLARED_EMPTY,
                );
                self.emit_error(failure, out);
            }
            return;
        }
        let value = match serde_json::from_str::<Value>(text.trim()) {
            Ok(value) if !self.input.raw_too_large() => value,
            _ => return self.emit_error(self.meaning_or_unparseable(&text, &text), out),
        };
        // A bare JSON string is read as plain words.
        if let Value::String(said) = &value {
            return self.emit_error(self.meaning_or_unparseable(said, &text), out);
        }
        let kind = value.get("type").and_then(Value::as_str).unwrap_or("");
        if kind == "error" || value.get("error").is_some_and(|e| !e.is_null()) {
            return self.emit_error(classify_in_band(&value, &self.head), out);
        }
        let content = value.get("content").and_then(Value::as_array);
        let Some(content) = content.filter(|_| kind == "message" || kind.is_empty()) else {
            // A JSON body in no shape of Anthropic's (a relay's or a chat bot's own envelope,
            // `{"code": 2, "detail": "Too many requests, please retry later"}`): the words
            // inside, read as the OpenAI adapter reads a foreign body's last, else unparseable.
            let failure = UnreadWords::of_json_outside_messages([&value])
                .failure(|v| classify_in_band(v, &self.head))
                .unwrap_or_else(|| self.unparseable(&text));
            return self.emit_error(failure, out);
        };
        // A message whose `stop_reason` names an error ("Proxy error (HTTP 429 Too Many
        // Requests)", khanon's oai-reverse-proxy answering its errors as messages): its text is
        // the error's report, not an answer.
        if let Some(reason) = value
            .get("stop_reason")
            .and_then(Value::as_str)
            .filter(|r| r.to_ascii_lowercase().contains("error"))
        {
            let said: String = content
                .iter()
                .filter_map(|b| b.get("text").and_then(Value::as_str))
                .collect::<Vec<_>>()
                .join("\n");
            let failure = failure_named_by_words(&said, |v| classify_in_band(v, &self.head))
                .unwrap_or_else(|| {
                    LlmFailure::new(
                        codes::SERVER_ERROR,
                        format!("the provider ended the message with stop_reason {reason:?}"),
                    )
                });
            return self.emit_error(failure, out);
        }
        for (index, block) in content.iter().enumerate() {
            match block.get("type").and_then(Value::as_str).unwrap_or("") {
                "text" => push_text(out, Chunk::Text, block.get("text")),
                "thinking" => {
                    push_text(out, Chunk::Reasoning, block.get("thinking"));
                    let text = |key: &str| {
                        block
                            .get(key)
                            .and_then(Value::as_str)
                            .unwrap_or("")
                            .to_string()
                    };
                    self.kept.insert(
                        index as u64,
                        Kept::Thinking {
                            thinking: text("thinking"),
                            signature: text("signature"),
                        },
                    );
                }
                "redacted_thinking" => {
                    if let Some(data) = block.get("data").and_then(Value::as_str) {
                        self.kept.insert(
                            index as u64,
                            Kept::Redacted {
                                data: data.to_string(),
                            },
                        );
                    }
                }
                "tool_use" => {
                    let arguments = match block.get("input") {
                        None | Some(Value::Null) => String::new(),
                        Some(input) => input.to_string(),
                    };
                    self.push_tool_call(
                        out,
                        index as u64,
                        block.get("id").and_then(Value::as_str),
                        block.get("name").and_then(Value::as_str),
                        arguments,
                    );
                }
                _ => {}
            }
        }
        if let Some(u) = value.get("usage") {
            self.usage.merge(u);
        }
        self.emit_kept(out);
        if let Some(usage) = self.usage.to_usage() {
            out.push(Chunk::Usage(usage));
        }
        let reason = value.get("stop_reason").and_then(Value::as_str);
        let finish = self.finish_for(reason);
        self.emit_finish(finish, out);
    }

    /// A 2xx body that is neither a Message nor an error but a proxy's or a guard's words (a
    /// gateway's "Rejected by guardrails moderation"): read as an error's, and a meaning they name
    /// replaces the "unparseable body" failure; what an in-band error without a meaning falls to
    /// does not, since the unparseable failure says more. `said` is the words, `body` the whole
    /// body (for that failure's excerpt).
    fn meaning_or_unparseable(&self, said: &str, body: &str) -> LlmFailure {
        failure_named_by_words(said, |v| classify_in_band(v, &self.head))
            .unwrap_or_else(|| self.unparseable(body))
    }

    fn unparseable(&self, text: &str) -> LlmFailure {
        let content_type = self.head.header("content-type").unwrap_or("none");
        let start = if looks_like_html(text) {
            html_title(text).map_or_else(
                || excerpt(text, QUOTE_CHARS),
                |t| format!("an HTML page titled {t:?}"),
            )
        } else {
            format!("{:?}", excerpt(text, QUOTE_CHARS))
        };
        let size = if self.input.raw_too_large() {
            " (too large to be one JSON document)"
        } else {
            ""
        };
        LlmFailure {
            request_id: header_request_id(&self.head),
            ..LlmFailure::new(
                codes::SERVER_ERROR,
                format!(
                    "the provider sent an unparseable response body{size}: neither an Anthropic \
                     event stream nor a Message (HTTP {}, content-type {content_type}); it starts \
                     with {start}",
                    self.head.status
                ),
            )
        }
    }

    fn push_tool_call(
        &mut self,
        out: &mut Vec<Chunk>,
        index: u64,
        id: Option<&str>,
        name: Option<&str>,
        arguments: String,
    ) {
        let id = id.filter(|s| !s.is_empty());
        let name = name.filter(|s| !s.is_empty());
        if id.is_none() && name.is_none() && arguments.is_empty() {
            return;
        }
        self.saw_tool_call = true;
        out.push(Chunk::ToolCall(ToolCallDelta {
            // Content block indices are small; one past u32 would be a broken stream, kept distinct.
            index: u32::try_from(index).unwrap_or(u32::MAX),
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments,
            // Anthropic attaches nothing to a call itself: its thinking is the message's.
            provider_data: None,
        }));
    }

    /// The finish for Anthropic's `stop_reason` (`None`: the message ended without one).
    fn finish_for(&self, reason: Option<&str>) -> Finish {
        let kind = match reason.unwrap_or("") {
            "end_turn" | "stop_sequence" | "pause_turn" => FinishKind::Stop,
            "max_tokens" | "model_context_window_exceeded" => FinishKind::Length,
            "tool_use" => FinishKind::ToolCalls,
            "refusal" => FinishKind::ContentFilter,
            // No reason, or one added after this adapter was written: the calls are what matter.
            _ if self.saw_tool_call => FinishKind::ToolCalls,
            _ => FinishKind::Stop,
        };
        Finish {
            kind,
            reason: reason.map(str::to_string),
            failure: None,
        }
    }

    fn emit_error(&mut self, failure: LlmFailure, out: &mut Vec<Chunk>) {
        let finish = Finish {
            kind: FinishKind::Error,
            reason: None,
            failure: Some(failure),
        };
        self.emit_finish(finish, out);
    }

    fn emit_finish(&mut self, finish: Finish, out: &mut Vec<Chunk>) {
        // An answer that is an error report, finished as an answer (see `AnswerHead`).
        let finish = self.answer.finish(finish, out, self.saw_tool_call, |v| {
            classify_in_band(v, &self.head)
        });
        self.finished = true;
        self.input.discard_raw();
        out.push(Chunk::Finish(finish));
    }
}

fn index_of(v: &Value) -> Option<u64> {
    v.get("index").and_then(Value::as_u64)
}

fn push_text(out: &mut Vec<Chunk>, make: fn(String) -> Chunk, v: Option<&Value>) {
    if let Some(s) = v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        out.push(make(s.to_string()));
    }
}

fn push_cow(out: &mut Vec<Chunk>, make: fn(String) -> Chunk, s: Option<Cow<'_, str>>) {
    if let Some(s) = s.filter(|s| !s.is_empty()) {
        out.push(make(s.into_owned()));
    }
}
