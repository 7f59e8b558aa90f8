//! A provider adapter built against the frozen `dsh:llm@0.1.0` (wit/0.1.0), as a guest written
//! before 0.2.0 is: the host must keep loading it and adapt what crosses (requests down, chunks,
//! failures and string codes up). It speaks a minimal OpenAI chat-completions stream, so it runs
//! real turns against the mock, and its request body repeats exactly what the host handed it (the
//! 0.1 request), so a test can read the down-conversion off the mock's recorded request.
//!
//! | model | what it does |
//! | --- | --- |
//! | anything | plans `POST {base}/chat/completions`, decodes the stream |
//! | `bad-code` | classifies every failure with the non-canonical code `rate_limit_exceeded` |
//!
//! Every text delta is preceded by an empty reasoning chunk: 0.1.0's way of reporting progress.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

use serde_json::{Value, json};

wit_bindgen::generate!({ path: "../../../wit/0.1.0", world: "provider-adapter" });

use dsh::llm::types::{
    Chunk, CompletionRequest, Endpoint, Finish, FinishKind, HttpPlan, LlmFailure, Message,
    ResponseHead, Role, ToolCallDelta,
};
use exports::dsh::llm::adapter::{AdapterInfo, Guest, GuestDecoder};

thread_local! {
    static MODE: RefCell<String> = const { RefCell::new(String::new()) };
}

struct V01;

impl Guest for V01 {
    type Decoder = Decoder;

    fn info() -> AdapterInfo {
        AdapterInfo {
            name: "v0.1-adapter".into(),
            version: "0.1.0".into(),
        }
    }

    fn plan_request(
        endpoint: Endpoint,
        request: CompletionRequest,
    ) -> Result<HttpPlan, LlmFailure> {
        MODE.with(|m| *m.borrow_mut() = request.model.clone());
        let messages: Vec<Value> = request.messages.iter().map(message_json).collect();
        let tools: Vec<Value> = request
            .tools
            .iter()
            .map(|t| {
                let parameters: Value = serde_json::from_str(&t.parameters_schema).unwrap_or(json!({}));
                json!({"type": "function", "function": {"name": t.name, "description": t.description, "parameters": parameters}})
            })
            .collect();
        let mut body = json!({"model": request.model, "messages": messages, "stream": true});
        if !tools.is_empty() {
            body["tools"] = json!(tools);
        }
        if let Some(max) = request.max_tokens {
            body["max_tokens"] = json!(max);
        }
        if let Some(t) = request.temperature {
            body["temperature"] = json!(t);
        }
        Ok(HttpPlan {
            method: "POST".into(),
            url: format!("{}/chat/completions", endpoint.base_url),
            headers: vec![
                ("authorization".into(), "Bearer {credential}".into()),
                ("content-type".into(), "application/json".into()),
            ],
            body: body.to_string().into_bytes(),
        })
    }

    fn classify_failure(head: ResponseHead, body: Vec<u8>) -> LlmFailure {
        let code = if MODE.with(|m| m.borrow().as_str() == "bad-code") {
            "rate_limit_exceeded"
        } else {
            match head.status {
                429 => "RATE_LIMITED",
                401 | 403 => "AUTH",
                500..=599 => "SERVER_ERROR",
                _ => "INVALID_REQUEST",
            }
        };
        LlmFailure {
            message: String::from_utf8_lossy(&body).chars().take(200).collect(),
            code: code.into(),
            status: Some(head.status),
            provider_retry_after_ms: None,
            request_id: None,
        }
    }
}

fn message_json(m: &Message) -> Value {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = json!({"role": role, "content": m.content});
    if !m.tool_calls.is_empty() {
        out["tool_calls"] = m
            .tool_calls
            .iter()
            .map(|c| json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}}))
            .collect();
    }
    if let Some(id) = &m.tool_call_id {
        out["tool_call_id"] = json!(id);
    }
    out
}

/// A minimal chat-completions stream decoder: `data:` lines, the first choice's text and tool-call
/// deltas, its finish reason (emitted at `[DONE]` or at the end of the body).
struct Decoder {
    state: RefCell<State>,
}

#[derive(Default)]
struct State {
    buffer: Vec<u8>,
    finish: Option<FinishKind>,
    finished: bool,
}

impl State {
    fn lines(&mut self, at_end: bool) -> Vec<Chunk> {
        let mut out = Vec::new();
        loop {
            let Some(pos) = self.buffer.iter().position(|&b| b == b'\n') else {
                if at_end && !self.buffer.is_empty() {
                    let rest = std::mem::take(&mut self.buffer);
                    self.line(&String::from_utf8_lossy(&rest), &mut out);
                }
                return out;
            };
            let line: Vec<u8> = self.buffer.drain(..=pos).collect();
            self.line(String::from_utf8_lossy(&line).trim(), &mut out);
        }
    }

    fn line(&mut self, line: &str, out: &mut Vec<Chunk>) {
        let Some(data) = line.strip_prefix("data:").map(str::trim) else {
            return;
        };
        if self.finished {
            return;
        }
        if data == "[DONE]" {
            self.end(out);
            return;
        }
        let Ok(event) = serde_json::from_str::<Value>(data) else {
            return;
        };
        let Some(choice) = event.pointer("/choices/0") else {
            return;
        };
        if let Some(text) = choice
            .pointer("/delta/content")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
        {
            // 0.1.0 has no progress chunk: an empty reasoning chunk is how a 0.1 adapter says so.
            out.push(Chunk::Reasoning(String::new()));
            out.push(Chunk::Text(text.into()));
        }
        for call in choice
            .pointer("/delta/tool_calls")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            out.push(Chunk::ToolCall(ToolCallDelta {
                index: call.get("index").and_then(Value::as_u64).unwrap_or(0) as u32,
                id: call.get("id").and_then(Value::as_str).map(Into::into),
                name: call
                    .pointer("/function/name")
                    .and_then(Value::as_str)
                    .map(Into::into),
                arguments: call
                    .pointer("/function/arguments")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .into(),
            }));
        }
        match choice.get("finish_reason").and_then(Value::as_str) {
            Some("length") => self.finish = Some(FinishKind::Length),
            Some("tool_calls") => self.finish = Some(FinishKind::ToolCalls),
            Some(_) => self.finish = Some(FinishKind::Stop),
            None => {}
        }
    }

    fn end(&mut self, out: &mut Vec<Chunk>) {
        if let Some(kind) = self.finish.take() {
            self.finished = true;
            out.push(Chunk::Finish(Finish {
                kind,
                reason: None,
                failure: None,
            }));
        }
    }
}

impl GuestDecoder for Decoder {
    fn new(_head: ResponseHead) -> Self {
        Decoder {
            state: RefCell::new(State::default()),
        }
    }

    fn feed(&self, bytes: Vec<u8>) -> Vec<Chunk> {
        let mut state = self.state.borrow_mut();
        state.buffer.extend_from_slice(&bytes);
        state.lines(false)
    }

    fn end(&self) -> Vec<Chunk> {
        let mut state = self.state.borrow_mut();
        let mut out = state.lines(true);
        state.end(&mut out);
        out
    }
}

export!(V01);
