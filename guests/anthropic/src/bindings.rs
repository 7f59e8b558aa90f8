//! The wasm component export: converts between the generated WIT types and the library's.

use std::cell::RefCell;

use crate::types as t;

wit_bindgen::generate!({
    path: "../../wit",
    world: "provider-adapter",
});

use dsh::llm::types as w;
use exports::dsh::llm::adapter::{AdapterInfo, Guest, GuestDecoder};

struct Component;

impl Guest for Component {
    type Decoder = Decoder;

    fn info() -> AdapterInfo {
        AdapterInfo {
            name: crate::NAME.to_string(),
            version: crate::VERSION.to_string(),
        }
    }

    fn plan_request(
        endpoint: w::Endpoint,
        request: w::CompletionRequest,
    ) -> Result<w::HttpPlan, w::LlmFailure> {
        let endpoint = t::Endpoint {
            base_url: endpoint.base_url,
        };
        crate::plan_request(&endpoint, &request_from(request))
            .map(|p| w::HttpPlan {
                method: p.method,
                url: p.url,
                headers: p.headers,
                body: p.body,
            })
            .map_err(failure_to)
    }

    fn classify_failure(head: w::ResponseHead, body: Vec<u8>) -> w::LlmFailure {
        failure_to(crate::classify_failure(&head_from(head), &body))
    }
}

/// The decoder resource: methods take `&self`, so the state lives in a RefCell.
struct Decoder(RefCell<crate::Decoder>);

impl GuestDecoder for Decoder {
    fn new(head: w::ResponseHead) -> Self {
        Decoder(RefCell::new(crate::Decoder::new(head_from(head))))
    }

    fn feed(&self, bytes: Vec<u8>) -> Vec<w::Chunk> {
        self.0
            .borrow_mut()
            .feed(&bytes)
            .into_iter()
            .map(chunk_to)
            .collect()
    }

    fn end(&self) -> Vec<w::Chunk> {
        self.0
            .borrow_mut()
            .end()
            .into_iter()
            .map(chunk_to)
            .collect()
    }
}

fn head_from(h: w::ResponseHead) -> t::ResponseHead {
    t::ResponseHead {
        status: h.status,
        headers: h.headers,
        received_at_ms: h.received_at_ms,
    }
}

fn request_from(r: w::CompletionRequest) -> t::CompletionRequest {
    t::CompletionRequest {
        model: r.model,
        messages: r.messages.into_iter().map(message_from).collect(),
        tools: r
            .tools
            .into_iter()
            .map(|s| t::ToolSpec {
                name: s.name,
                description: s.description,
                parameters_schema: s.parameters_schema,
            })
            .collect(),
        max_tokens: r.max_tokens,
        temperature: r.temperature,
    }
}

fn message_from(m: w::Message) -> t::Message {
    t::Message {
        role: match m.role {
            w::Role::System => t::Role::System,
            w::Role::User => t::Role::User,
            w::Role::Assistant => t::Role::Assistant,
            w::Role::Tool => t::Role::Tool,
        },
        content: m.content,
        tool_calls: m
            .tool_calls
            .into_iter()
            .map(|c| t::ToolCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect(),
        tool_call_id: m.tool_call_id,
    }
}

fn failure_to(f: t::LlmFailure) -> w::LlmFailure {
    w::LlmFailure {
        message: f.message,
        code: f.code,
        status: f.status,
        provider_retry_after_ms: f.provider_retry_after_ms,
        request_id: f.request_id,
    }
}

fn chunk_to(c: t::Chunk) -> w::Chunk {
    match c {
        t::Chunk::Text(s) => w::Chunk::Text(s),
        t::Chunk::Reasoning(s) => w::Chunk::Reasoning(s),
        t::Chunk::ToolCall(d) => w::Chunk::ToolCall(w::ToolCallDelta {
            index: d.index,
            id: d.id,
            name: d.name,
            arguments: d.arguments,
        }),
        t::Chunk::Usage(u) => w::Chunk::Usage(w::Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cached_input_tokens: u.cached_input_tokens,
            reasoning_tokens: u.reasoning_tokens,
        }),
        t::Chunk::Finish(f) => w::Chunk::Finish(w::Finish {
            kind: match f.kind {
                t::FinishKind::Stop => w::FinishKind::Stop,
                t::FinishKind::Length => w::FinishKind::Length,
                t::FinishKind::ToolCalls => w::FinishKind::ToolCalls,
                t::FinishKind::ContentFilter => w::FinishKind::ContentFilter,
                t::FinishKind::Error => w::FinishKind::Error,
                t::FinishKind::Aborted => w::FinishKind::Aborted,
            },
            reason: f.reason,
            failure: f.failure.map(failure_to),
        }),
    }
}

export!(Component);
