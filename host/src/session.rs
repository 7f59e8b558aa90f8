//! A session: a conversation with one provider, run turn by turn, every step written to the session
//! log. An attempt is: plan (adapter) → send (transport) → classify or decode (adapter) → the checks
//! only the host can make (truncation, empty completion).

use crate::adapter::{
    Adapter, Chunk, CompletionRequest, Endpoint, FinishKind, Message, Role, ToolCall, Usage,
};
use crate::config::ProviderConfig;
use crate::engine::GuestEngine;
use crate::failure::LlmFailure;
use crate::log::SessionLog;
use crate::transport::{Destination, Transport};
use serde_json::json;
use std::sync::Arc;

/// What the caller sees while a turn streams.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    Text(String),
    Reasoning(String),
}

/// A provider ready to serve attempts: its config, its loaded adapter, its key.
pub struct Provider {
    pub config: ProviderConfig,
    pub adapter: Arc<Adapter>,
    credential: Option<String>,
}

impl Provider {
    pub fn new(config: ProviderConfig, adapter: Arc<Adapter>, credential: Option<String>) -> Self {
        Provider { config, adapter, credential: credential.filter(|k| !k.is_empty()) }
    }

    fn destination(&self) -> Destination {
        Destination {
            provider: self.config.name.clone(),
            credential: self.credential.clone(),
            credential_source: format!("the environment variable {}", self.config.api_key_env),
            credential_required: self.config.api_key_required,
            idle_timeout: self.config.stream_idle_timeout,
        }
    }
}

/// The successful result of one attempt.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Completion {
    pub text: String,
    pub reasoning: String,
    pub tool_calls: Vec<ToolCall>,
    pub usage: Option<Usage>,
    pub finish_reason: Option<String>,
    pub truncated_by_length: bool,
}

/// Why a turn did not complete: the provider/adapter failed (a canonical failure), or the host itself
/// could not do its job (the log could not be written). Kept apart so callers never mistake one for
/// the other.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("{0}")]
    Failed(LlmFailure),
    #[error("host error: {0:#}")]
    Host(#[from] anyhow::Error),
}

pub struct Session {
    provider: Arc<Provider>,
    transport: Transport,
    log: SessionLog,
    messages: Vec<Message>,
    turn: u32,
}

impl Session {
    /// Starts a session and writes its first event.
    pub fn start(
        provider: Arc<Provider>,
        transport: Transport,
        mut log: SessionLog,
        system: Option<String>,
    ) -> anyhow::Result<Self> {
        log.append(
            "session/start",
            json!({
                "provider": provider.config.name,
                "model": provider.config.model,
                "base_url": provider.config.base_url,
                "adapter": provider.adapter.name(),
                "adapter_origin": provider.adapter.origin(),
                "host_version": env!("CARGO_PKG_VERSION"),
            }),
        )?;
        let mut messages = Vec::new();
        if let Some(system) = system {
            messages.push(Message::new(Role::System, system));
        }
        Ok(Session { provider, transport, log, messages, turn: 0 })
    }

    pub fn id(&self) -> &str {
        self.log.id()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// Runs one user turn to completion or failure, streaming text to `sink`.
    pub async fn run_turn(
        &mut self,
        user: &str,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.turn += 1;
        let turn = self.turn;
        self.log.append("turn/start", json!({"turn": turn, "user": user}))?;
        self.messages.push(Message::new(Role::User, user));

        let step = 1;
        let attempt = 1;
        let request = CompletionRequest {
            model: self.provider.config.model.clone(),
            messages: self.messages.clone(),
            tools: Vec::new(),
            max_tokens: None,
            temperature: None,
        };
        self.log.append(
            "llm/request",
            json!({
                "turn": turn, "step": step, "attempt": attempt,
                "provider": self.provider.config.name, "model": request.model,
                "messages": request.messages.len(),
            }),
        )?;
        let outcome = run_attempt(&self.provider, &self.transport, &request, sink).await;
        match outcome {
            Ok(completion) => {
                self.log.append(
                    "llm/response",
                    json!({
                        "turn": turn, "step": step, "attempt": attempt,
                        "text_chars": completion.text.chars().count(),
                        "tool_calls": completion.tool_calls,
                        "finish_reason": completion.finish_reason,
                        "usage": completion.usage,
                    }),
                )?;
                self.messages.push(Message {
                    role: Role::Assistant,
                    content: completion.text.clone(),
                    tool_calls: completion.tool_calls.clone(),
                    tool_call_id: None,
                });
                self.log.append_durable(
                    "turn/end",
                    json!({"turn": turn, "outcome": "completed", "assistant": completion.text}),
                )?;
                Ok(completion)
            }
            Err(failure) => {
                self.log.append(
                    "llm/failure",
                    json!({"turn": turn, "step": step, "attempt": attempt, "provider": self.provider.config.name, "failure": failure}),
                )?;
                self.log.append("llm/error", json!({"turn": turn, "step": step, "failure": failure}))?;
                self.log.append_durable("turn/end", json!({"turn": turn, "outcome": "failed", "code": failure.code}))?;
                Err(TurnError::Failed(failure))
            }
        }
    }
}

/// One provider attempt on a fresh adapter instance. The instance (and its store) is dropped when
/// this returns, whatever happened.
pub async fn run_attempt(
    provider: &Provider,
    transport: &Transport,
    request: &CompletionRequest,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<Completion, LlmFailure> {
    let mut adapter = provider.adapter.instantiate().await?;
    let endpoint = Endpoint { base_url: provider.config.base_url.clone() };
    let plan = adapter.plan_request(&endpoint, request).await?;
    let mut response = transport.send(&plan, &provider.destination()).await?;

    if !response.is_success() {
        let body = response.read_capped_body().await;
        let mut failure = adapter.classify_failure(&response.head, &body).await;
        failure.status.get_or_insert(response.head.status);
        return Err(failure);
    }

    adapter.open_decoder(&response.head).await?;
    let mut assembly = Assembly::default();
    loop {
        let chunks = match response.next_read().await? {
            Some(bytes) => adapter.feed(&bytes).await?,
            None => {
                let chunks = adapter.end().await?;
                assembly.absorb(chunks, sink);
                break;
            }
        };
        assembly.absorb(chunks, sink);
        if assembly.finish.is_some() {
            // The answer is complete; a provider that keeps the connection open must not hold us.
            break;
        }
    }
    assembly.conclude(adapter.name(), response.head.status)
}

/// The chunks of one attempt, put together.
#[derive(Default)]
struct Assembly {
    completion: Completion,
    tool_calls: Vec<(u32, ToolCall)>,
    finish: Option<crate::adapter::Finish>,
}

impl Assembly {
    fn absorb(&mut self, chunks: Vec<Chunk>, sink: &mut (dyn FnMut(StreamEvent) + Send)) {
        for chunk in chunks {
            if self.finish.is_some() {
                // Only usage may trail a finish (OpenAI sends it in a last chunk).
                if let Chunk::Usage(usage) = chunk {
                    self.completion.usage = Some(usage);
                }
                continue;
            }
            match chunk {
                Chunk::Text(text) => {
                    self.completion.text.push_str(&text);
                    sink(StreamEvent::Text(text));
                }
                Chunk::Reasoning(text) => {
                    self.completion.reasoning.push_str(&text);
                    sink(StreamEvent::Reasoning(text));
                }
                Chunk::ToolCall(delta) => {
                    let pos = match self.tool_calls.iter().position(|(i, _)| *i == delta.index) {
                        Some(pos) => pos,
                        None => {
                            self.tool_calls.push((delta.index, ToolCall { id: String::new(), name: String::new(), arguments: String::new() }));
                            self.tool_calls.len() - 1
                        }
                    };
                    let call = &mut self.tool_calls[pos].1;
                    if let Some(id) = delta.id {
                        call.id = id;
                    }
                    if let Some(name) = delta.name {
                        call.name.push_str(&name);
                    }
                    call.arguments.push_str(&delta.arguments);
                }
                Chunk::Usage(usage) => self.completion.usage = Some(usage),
                Chunk::Finish(finish) => self.finish = Some(finish),
            }
        }
    }

    /// The failures only the host can see: no finish, an error finish, an empty completion.
    fn conclude(mut self, guest: &str, status: u16) -> Result<Completion, LlmFailure> {
        let Some(finish) = self.finish else {
            return Err(LlmFailure::new(
                "STREAM_TRUNCATED",
                format!(
                    "the stream ended without a finish after {} characters of text and {} tool call(s)",
                    self.completion.text.chars().count(),
                    self.tool_calls.len()
                ),
            )
            .with_status(status));
        };
        self.completion.finish_reason = finish.reason.clone();
        self.completion.tool_calls = self.tool_calls.into_iter().map(|(_, c)| c).collect();
        let in_band = finish.failure.clone().map(|f| LlmFailure::from_guest(guest, f.into()));
        match finish.kind {
            FinishKind::Error => {
                let f = in_band.unwrap_or_else(|| {
                    LlmFailure::adapter_fault(guest, "ended the stream with an error finish but gave no failure")
                });
                Err(LlmFailure { status: f.status.or(Some(status)), ..f })
            }
            FinishKind::Aborted => Err(in_band.unwrap_or_else(|| {
                LlmFailure::new("ABORTED", "the provider reports the request as aborted").with_status(status)
            })),
            FinishKind::ContentFilter => Err(LlmFailure::new(
                "CONTENT_FILTER",
                format!(
                    "the provider's content filter stopped the answer (reason {:?}) after {} characters",
                    finish.reason.as_deref().unwrap_or("content_filter"),
                    self.completion.text.chars().count()
                ),
            )
            .with_status(status)),
            FinishKind::Stop | FinishKind::Length | FinishKind::ToolCalls => {
                if self.completion.text.trim().is_empty() && self.completion.tool_calls.is_empty() {
                    return Err(LlmFailure::new(
                        "EMPTY_RESPONSE",
                        format!(
                            "the provider finished ({}) with no text and no tool call",
                            finish.reason.as_deref().unwrap_or("stop")
                        ),
                    )
                    .with_status(status));
                }
                self.completion.truncated_by_length = matches!(finish.kind, FinishKind::Length);
                Ok(self.completion)
            }
        }
    }
}

/// The engine the CLI and the demo share: one per process.
pub fn default_engine() -> anyhow::Result<GuestEngine> {
    GuestEngine::new(crate::engine::default_cache_dir(), Default::default())
}
