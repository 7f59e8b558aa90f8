//! The response-body decoder: Gemini's `streamGenerateContent?alt=sse` stream into chunks.
//!
//! Each `data:` event is one GenerateContentResponse:
//! `{"candidates": [{"content": {"role": "model", "parts": [...]}, "finishReason": "STOP"}],
//!   "usageMetadata": {...}, "promptFeedback": {...}, "modelVersion": "...", "responseId": "..."}`
//!
//! - parts: `text` → text; `text` with `thought: true` → reasoning; `functionCall {name, args, id?}`
//!   → one tool-call delta holding the whole call (Gemini never splits a call across events): index
//!   in order of appearance, id = the call's own `id` if Gemini gives one, else `call_0`,
//!   `call_1`..., arguments = the JSON text of `args` (`{}` when absent), and the part's
//!   `thoughtSignature`, if any, as the call's provider data (sent back by the planner). Other parts
//!   (inline data, code execution) are not part of the contract and are skipped.
//! - usageMetadata (cumulative; the last one counts) → one usage chunk, emitted just before the
//!   finish: input = promptTokenCount, output = candidatesTokenCount + thoughtsTokenCount (Gemini
//!   bills thinking as output), cached-input = cachedContentTokenCount, reasoning =
//!   thoughtsTokenCount.
//! - finishReason (acted on at once: nothing of use follows it): STOP → stop, or tool-calls if a
//!   function call was seen; MAX_TOKENS → length; SAFETY, RECITATION, BLOCKLIST, ... → content-filter;
//!   MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS → error EMPTY_RESPONSE (a
//!   retry usually does better); MISSING_THOUGHT_SIGNATURE → error INVALID_REQUEST; OTHER and
//!   anything unknown → stop.
//! - promptFeedback.blockReason (the prompt itself was blocked) → content-filter.
//! - Nothing produced: a stop/length/tool-calls finish with no text and no function call, or a stream
//!   of well-formed responses without any candidate that ends without a finish, is an error finish
//!   EMPTY_RESPONSE whose message says what Gemini sent; except MAX_TOKENS with no thinking either,
//!   which stays a plain length finish: the silent overflow, concluded by the host for every adapter. A stream cut before any finish is left
//!   without one: the host reports STREAM_TRUNCATED.
//! - `{"error": {...}}` in the stream → error finish, classified like a non-2xx body.
//! - A 2xx body without SSE framing (the endpoint without `alt=sse` answers one JSON array) is read
//!   as JSON at the end; anything else unparseable is a SERVER_ERROR naming what came.

use serde_json::Value;

use crate::classify::{classify_in_band, header_request_id};
use crate::plan::provider_data_for;
use crate::text::{QUOTE_CHARS, excerpt, html_title, looks_like_html, plain_words};
use crate::types::{
    Chunk, Finish, FinishKind, LlmFailure, ResponseHead, ToolCallDelta, Usage, codes,
};
use dsh_guest_support::body::BodyInput;

const CONTENT_FILTER_REASONS: &[&str] = &[
    "SAFETY",
    "RECITATION",
    "BLOCKLIST",
    "PROHIBITED_CONTENT",
    "SPII",
    "LANGUAGE",
    "IMAGE_SAFETY",
    "IMAGE_PROHIBITED_CONTENT",
    "IMAGE_RECITATION",
    "IMAGE_OTHER",
];
const BAD_TOOL_CALL_REASONS: &[&str] = &[
    "MALFORMED_FUNCTION_CALL",
    "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS",
];

pub struct Decoder {
    head: ResponseHead,
    input: BodyInput,
    finished: bool,
    tools: u32,
    /// Text parts with non-whitespace text.
    text: u32,
    reasoning: u32,
    responses: u32,
    candidates: u32,
    usage: Option<Usage>,
}

impl Decoder {
    pub fn new(head: ResponseHead) -> Self {
        Decoder {
            head,
            input: BodyInput::new(),
            finished: false,
            tools: 0,
            text: 0,
            reasoning: 0,
            responses: 0,
            candidates: 0,
            usage: None,
        }
    }

    /// One network read, as it came.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        for event in self.input.feed(bytes) {
            self.on_event(&event.data, &mut out);
        }
        Chunk::join_adjacent_text(&mut out);
        out
    }

    /// The body is complete.
    pub fn end(&mut self) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        for event in self.input.finish() {
            self.on_event(&event.data, &mut out);
        }
        if self.finished {
            return out;
        }
        if !self.input.saw_framing() {
            self.decode_plain_body(&mut out);
            if self.finished {
                return out;
            }
        }
        if self.responses > 0 && self.candidates == 0 {
            let failure = LlmFailure {
                request_id: header_request_id(&self.head),
                ..LlmFailure::new(
                    codes::EMPTY_RESPONSE,
                    format!(
                        "Gemini's answer had no candidates ({} response(s), no finishReason, no promptFeedback)",
                        self.responses
                    ),
                )
            };
            self.emit_error(failure, &mut out);
        }
        // Otherwise: no finish; the host reports STREAM_TRUNCATED.
        out
    }

    fn on_event(&mut self, data: &str, out: &mut Vec<Chunk>) {
        if self.finished {
            return;
        }
        let data = data.trim();
        if data.is_empty() || data == "[DONE]" {
            return;
        }
        // A payload that is not JSON (a cut-off last event) carries nothing usable; a stream made
        // only of them ends without a finish: truncated.
        if let Ok(value) = serde_json::from_str::<Value>(data) {
            self.on_json(&value, out);
        }
    }

    fn on_json(&mut self, v: &Value, out: &mut Vec<Chunk>) {
        if self.finished {
            return;
        }
        if let Value::Array(items) = v {
            for item in items {
                self.on_json(item, out);
            }
            return;
        }
        let Some(obj) = v.as_object() else {
            return;
        };
        if obj.get("error").is_some_and(|e| !e.is_null()) {
            let failure = classify_in_band(v, &self.head);
            self.emit_error(failure, out);
            return;
        }
        self.responses += 1;
        if let Some(u) = obj.get("usageMetadata").filter(|u| u.is_object()) {
            self.usage = usage_of(u).or(self.usage);
        }
        if let Some(blocked) = v
            .pointer("/promptFeedback/blockReason")
            .and_then(Value::as_str)
            && !blocked.is_empty()
            && blocked != "BLOCK_REASON_UNSPECIFIED"
        {
            self.emit_finish(FinishKind::ContentFilter, Some(blocked), None, out);
            return;
        }
        let Some(candidate) = v.pointer("/candidates/0").filter(|c| c.is_object()) else {
            return;
        };
        self.candidates += 1;
        if let Some(parts) = candidate
            .pointer("/content/parts")
            .and_then(Value::as_array)
        {
            for part in parts {
                self.on_part(part, out);
            }
        }
        if let Some(reason) = candidate.get("finishReason").and_then(Value::as_str)
            && !reason.is_empty()
            && reason != "FINISH_REASON_UNSPECIFIED"
        {
            self.on_finish_reason(reason, out);
        }
    }

    fn on_part(&mut self, part: &Value, out: &mut Vec<Chunk>) {
        let Some(part) = part.as_object() else {
            return;
        };
        if let Some(text) = part
            .get("text")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            if part.get("thought") == Some(&Value::Bool(true)) {
                self.reasoning += 1;
                out.push(Chunk::Reasoning(text.to_string()));
            } else {
                if !text.trim().is_empty() {
                    self.text += 1;
                }
                out.push(Chunk::Text(text.to_string()));
            }
        }
        if let Some(call) = part.get("functionCall").and_then(Value::as_object) {
            let index = self.tools;
            self.tools += 1;
            let id = call
                .get("id")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map_or_else(|| format!("call_{index}"), str::to_string);
            let arguments = match call.get("args") {
                None | Some(Value::Null) => "{}".to_string(),
                Some(args) => args.to_string(),
            };
            let signature = part
                .get("thoughtSignature")
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty());
            out.push(Chunk::ToolCall(ToolCallDelta {
                index,
                id: Some(id),
                name: Some(
                    call.get("name")
                        .and_then(Value::as_str)
                        .unwrap_or("")
                        .to_string(),
                ),
                arguments,
                provider_data: signature.map(provider_data_for),
            }));
        }
    }

    fn on_finish_reason(&mut self, reason: &str, out: &mut Vec<Chunk>) {
        let request_id = header_request_id(&self.head);
        let failure = |code, message: String| LlmFailure {
            request_id: request_id.clone(),
            ..LlmFailure::new(code, message)
        };
        if CONTENT_FILTER_REASONS.contains(&reason) {
            return self.emit_finish(FinishKind::ContentFilter, Some(reason), None, out);
        }
        if BAD_TOOL_CALL_REASONS.contains(&reason) {
            let f = failure(
                codes::EMPTY_RESPONSE,
                format!(
                    "Gemini produced no usable answer: its tool call failed (finishReason {reason}); a retry usually does better"
                ),
            );
            return self.emit_finish(FinishKind::Error, Some(reason), Some(f), out);
        }
        if reason == "MISSING_THOUGHT_SIGNATURE" {
            let f = failure(
                codes::INVALID_REQUEST,
                "Gemini refused the conversation: a function call in it lacks its thought signature (finishReason MISSING_THOUGHT_SIGNATURE)".into(),
            );
            return self.emit_finish(FinishKind::Error, Some(reason), Some(f), out);
        }
        let kind = if reason == "MAX_TOKENS" {
            FinishKind::Length
        } else if self.tools > 0 {
            FinishKind::ToolCalls
        } else {
            FinishKind::Stop
        };
        if self.text == 0 && self.tools == 0 {
            let thought =
                self.reasoning > 0 || self.usage.is_some_and(|u| u.reasoning_tokens.is_some());
            if reason == "MAX_TOKENS" && !thought {
                // Nothing at all before the length limit: the silent overflow, which the host
                // concludes for every adapter alike (CONTEXT_WINDOW_EXCEEDED, compaction's job).
                return self.emit_finish(FinishKind::Length, Some(reason), None, out);
            }
            let why = if reason == "MAX_TOKENS" {
                format!(
                    "Gemini reached the output token limit (finishReason MAX_TOKENS) before any text{}",
                    if thought {
                        ": thinking used the whole budget; raise max-tokens"
                    } else {
                        ""
                    }
                )
            } else {
                format!("Gemini finished (finishReason {reason}) without any text or function call")
            };
            let f = failure(codes::EMPTY_RESPONSE, why);
            return self.emit_finish(FinishKind::Error, Some(reason), Some(f), out);
        }
        self.emit_finish(kind, Some(reason), None, out);
    }

    fn emit_error(&mut self, failure: LlmFailure, out: &mut Vec<Chunk>) {
        self.emit_finish(FinishKind::Error, None, Some(failure), out);
    }

    fn emit_finish(
        &mut self,
        kind: FinishKind,
        reason: Option<&str>,
        failure: Option<LlmFailure>,
        out: &mut Vec<Chunk>,
    ) {
        if let Some(usage) = self.usage {
            out.push(Chunk::Usage(usage));
        }
        out.push(Chunk::Finish(Finish {
            kind,
            reason: reason.map(str::to_string),
            failure,
        }));
        self.finished = true;
        self.input.discard_raw();
    }

    /// A body without SSE framing: one JSON document (an array of responses, or one response).
    fn decode_plain_body(&mut self, out: &mut Vec<Chunk>) {
        let raw = self.input.take_raw();
        let text = String::from_utf8_lossy(&raw);
        if text.trim().is_empty() && !self.input.raw_too_large() {
            return;
        }
        let value = match serde_json::from_str::<Value>(text.trim()) {
            Ok(v) if !self.input.raw_too_large() => v,
            _ => return self.emit_error(self.unparseable(&text), out),
        };
        let items: Vec<&Value> = match &value {
            Value::Array(items) => items.iter().collect(),
            one => vec![one],
        };
        let understood = items.iter().any(|v| {
            v.as_object().is_some_and(|o| {
                ["candidates", "usageMetadata", "promptFeedback", "error"]
                    .iter()
                    .any(|k| o.contains_key(*k))
            })
        });
        if !understood {
            return self.emit_error(self.unparseable(&text), out);
        }
        if let Some(failure) = self.gateway_refusal(&items) {
            return self.emit_error(failure, out);
        }
        self.on_json(&value, out);
    }

    /// A whole answer that no model wrote: a candidate's text with no `usageMetadata` anywhere,
    /// which Gemini always sends. Gateways answer their guards' refusals so (Apigee's Model Armor
    /// samples: "Your prompt contains PII info, which is not allowed for privacy reasons" as the
    /// candidate's text). Its text is read as an error's, and only a refusal by the content rules
    /// makes it a failure: an answer merely without usage is still delivered. (The OpenAI adapter
    /// reads a completion that counts no output tokens so, and a short one for any meaning: a
    /// completion's zero is a count, where Gemini's missing usage only says who wrote it.)
    fn gateway_refusal(&self, items: &[&Value]) -> Option<LlmFailure> {
        if items.iter().any(|v| v.get("usageMetadata").is_some()) {
            return None;
        }
        let text: String = items
            .iter()
            .filter_map(|v| v.pointer("/candidates/0/content/parts")?.as_array())
            .flatten()
            .filter_map(|part| part.get("text").and_then(Value::as_str))
            .collect();
        let said = plain_words(&text)?;
        let failure = classify_in_band(&serde_json::json!({ "message": said }), &self.head);
        (failure.code == codes::CONTENT_FILTER).then_some(failure)
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
                    "Gemini sent an unparseable response body{size}: neither an SSE stream nor JSON \
                     (HTTP {}, content-type {content_type}); it starts with {start}",
                    self.head.status
                ),
            )
        }
    }
}

/// Gemini's usageMetadata as a usage record, or `None` if it says nothing.
pub fn usage_of(u: &Value) -> Option<Usage> {
    let n = |k: &str| u.get(k).and_then(Value::as_u64);
    let candidates = n("candidatesTokenCount");
    let thoughts = n("thoughtsTokenCount");
    let usage = Usage {
        input_tokens: n("promptTokenCount"),
        output_tokens: if candidates.is_none() && thoughts.is_none() {
            None
        } else {
            Some(candidates.unwrap_or(0) + thoughts.unwrap_or(0))
        },
        cached_input_tokens: n("cachedContentTokenCount"),
        reasoning_tokens: thoughts,
    };
    (usage != Usage::default()).then_some(usage)
}
