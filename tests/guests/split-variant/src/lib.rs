//! An adapter with one bug `dsh-host check` must find: its decoder treats each network read as a
//! whole line, so what it decodes depends on where the network cut the body. Everything else is
//! plausible: a valid plan, classification by status, a finish only after `data: [DONE]`.
#![cfg(target_arch = "wasm32")]

use std::cell::RefCell;

wit_bindgen::generate!({ path: "../../../wit/0.2.0", world: "provider-adapter" });

use dsh::llm::types::{
    Chunk, CompletionRequest, Endpoint, FailureCode, Finish, FinishKind, HttpPlan, LlmFailure,
    ResponseHead,
};
use exports::dsh::llm::adapter::{AdapterInfo, Guest, GuestDecoder};

struct SplitVariant;

impl Guest for SplitVariant {
    type Decoder = Decoder;

    fn info() -> AdapterInfo {
        AdapterInfo {
            name: "split-variant".into(),
            version: "0.0.0".into(),
        }
    }

    fn plan_request(
        endpoint: Endpoint,
        _request: CompletionRequest,
    ) -> Result<HttpPlan, LlmFailure> {
        Ok(HttpPlan {
            method: "POST".into(),
            url: format!("{}/chat/completions", endpoint.base_url),
            headers: vec![("authorization".into(), "Bearer {credential}".into())],
            body: b"{}".to_vec(),
        })
    }

    fn classify_failure(head: ResponseHead, _body: Vec<u8>) -> LlmFailure {
        let code = match head.status {
            401 | 403 => FailureCode::Auth,
            429 => FailureCode::RateLimited,
            503 | 529 => FailureCode::Overloaded,
            504 | 408 => FailureCode::Timeout,
            500..=599 => FailureCode::ServerError,
            _ => FailureCode::InvalidRequest,
        };
        LlmFailure {
            message: format!("HTTP {}", head.status),
            code,
            status: Some(head.status),
            provider_retry_after_ms: None,
            request_id: None,
        }
    }
}

struct Decoder {
    done: RefCell<bool>,
}

impl GuestDecoder for Decoder {
    fn new(_head: ResponseHead) -> Self {
        Decoder {
            done: RefCell::new(false),
        }
    }

    /// The bug: a read is taken for a complete `data:` line.
    fn feed(&self, bytes: Vec<u8>) -> Vec<Chunk> {
        let text = String::from_utf8_lossy(&bytes);
        let mut chunks = Vec::new();
        for line in text.lines() {
            match line.strip_prefix("data: ") {
                Some("[DONE]") => *self.done.borrow_mut() = true,
                Some(data) => chunks.push(Chunk::Text(data.to_string())),
                None => {}
            }
        }
        chunks
    }

    fn end(&self) -> Vec<Chunk> {
        if *self.done.borrow() {
            vec![Chunk::Finish(Finish {
                kind: FinishKind::Stop,
                reason: Some("stop".into()),
                failure: None,
            })]
        } else {
            Vec::new()
        }
    }
}

export!(SplitVariant);
