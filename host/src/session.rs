//! A session: a conversation with one provider, run turn by turn, every step written to the session
//! log, every failure put through the recovery waterfall. The log is the source of truth: the retry
//! count is read from it, and `resume` rebuilds a session from it.

use crate::adapter::{CompletionRequest, Message, Role};
use crate::attempt::{Completion, Provider, StreamEvent, run_attempt};
use crate::engine::GuestEngine;
use crate::failure::LlmFailure;
use crate::listener::EarlierRetry;
use crate::log::{SessionLog, SessionRead};
use crate::recovery::{AbortSignal, FailureFacts, Recovery, Verdict};
use crate::resume::{Rebuilt, RetryRecord, UnfinishedTurn, drop_failed_user_message, rebuild};
use serde_json::json;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

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

/// What a session needs from the process: shared, cheap to clone.
#[derive(Clone)]
pub struct SessionDeps {
    pub provider: Arc<Provider>,
    pub recovery: Arc<Recovery>,
}

pub struct Session {
    deps: SessionDeps,
    log: SessionLog,
    messages: Vec<Message>,
    turn: u32,
    retries: Vec<RetryRecord>,
    abort: AbortSignal,
}

/// A retry decided and logged, whose wait has not ended yet.
struct PendingRetry {
    record: RetryRecord,
    wait: Duration,
}

impl Session {
    /// Starts a session and writes its first event.
    pub fn start(
        deps: SessionDeps,
        mut log: SessionLog,
        system: Option<String>,
    ) -> anyhow::Result<Self> {
        let p = &deps.provider;
        log.append(
            "session/start",
            json!({
                "provider": p.config.name,
                "model": p.config.model,
                "base_url": p.config.base_url,
                "adapter": p.adapter.name(),
                "adapter_origin": p.adapter.origin(),
                "listeners": deps.recovery.listener_names(),
                "system": system,
                "host_version": env!("CARGO_PKG_VERSION"),
            }),
        )?;
        let messages = system
            .map(|s| Message::new(Role::System, s))
            .into_iter()
            .collect();
        Ok(Session {
            deps,
            log,
            messages,
            turn: 0,
            retries: Vec::new(),
            abort: AbortSignal::default(),
        })
    }

    /// Continues a session from its log (see [`crate::log::SessionStore::reopen`]). Returns the
    /// session and the turn the process did not finish, if any, for [`Session::continue_turn`].
    pub fn resume(
        deps: SessionDeps,
        mut log: SessionLog,
        read: &SessionRead,
    ) -> anyhow::Result<(Self, Option<UnfinishedTurn>)> {
        let Rebuilt {
            messages,
            turn,
            retries,
            unfinished,
            ..
        } = rebuild(&read.events, SystemTime::now())?;
        log.append(
            "session/resumed",
            json!({
                "unfinished_turn": unfinished.as_ref().map(|t| t.turn),
                "torn_tail": read.torn_tail,
                "provider": deps.provider.config.name,
                "model": deps.provider.config.model,
            }),
        )?;
        let session = Session {
            deps,
            log,
            messages,
            turn,
            retries,
            abort: AbortSignal::default(),
        };
        Ok((session, unfinished))
    }

    pub fn id(&self) -> &str {
        self.log.id()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The session's stop button: aborts the request or the backoff in flight (as `ABORTED`).
    pub fn abort_signal(&self) -> AbortSignal {
        self.abort.clone()
    }

    /// Runs one user turn to completion or failure, streaming text to `sink`.
    pub async fn run_turn(
        &mut self,
        user: &str,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.turn += 1;
        let turn = self.turn;
        self.log
            .append("turn/start", json!({"turn": turn, "user": user}))?;
        self.messages.push(Message::new(Role::User, user));
        self.run_step(turn, 1, 0, None, sink).await
    }

    /// Finishes a turn that a dead process left open, continuing its retry count and its wait.
    pub async fn continue_turn(
        &mut self,
        open: UnfinishedTurn,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        let pending = open
            .pending_retry
            .map(|(record, wait)| PendingRetry { record, wait });
        self.run_step(open.turn, open.step, open.attempts, pending, sink)
            .await
    }

    async fn run_step(
        &mut self,
        turn: u32,
        step: u32,
        mut attempts: u32,
        mut pending: Option<PendingRetry>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        let provider = self.deps.provider.clone();
        let provider_name = provider.config.name.clone();
        loop {
            if let Some(PendingRetry { record, wait }) = pending.take() {
                if !self.abort.sleep(wait).await {
                    let failure = LlmFailure::new(
                        "ABORTED",
                        format!(
                            "aborted during the {} ms backoff before retry {} ({})",
                            record.delay_ms, record.retry, record.policy_key
                        ),
                    );
                    self.log.append("llm/failure", json!({"turn": turn, "step": step, "provider": provider_name, "failure": failure}))?;
                    return self.fail(turn, step, failure, "aborted by the caller", None);
                }
                self.log.append(
                    "llm/retry-started",
                    json!({"turn": turn, "step": step, "provider": provider_name, "policy_key": record.policy_key, "retry": record.retry}),
                )?;
            }

            attempts += 1;
            let request = CompletionRequest {
                model: provider.config.model.clone(),
                messages: self.messages.clone(),
                tools: Vec::new(),
                max_tokens: None,
                temperature: None,
            };
            self.log.append(
                "llm/request",
                json!({"turn": turn, "step": step, "attempt": attempts, "provider": provider_name,
                       "model": request.model, "messages": request.messages.len()}),
            )?;
            let outcome = tokio::select! {
                outcome = run_attempt(&provider, &request, sink) => outcome,
                _ = self.abort.aborted() => Err(LlmFailure::new("ABORTED", "aborted by the caller during the request")),
            };
            let failure = match outcome {
                Ok(completion) => return self.complete(turn, step, attempts, completion),
                Err(failure) => failure,
            };
            self.log.append(
                "llm/failure",
                json!({"turn": turn, "step": step, "attempt": attempts, "provider": provider_name, "failure": failure}),
            )?;

            let earlier: Vec<&RetryRecord> = self
                .retries
                .iter()
                .filter(|r| r.turn == turn && r.step == step && r.provider == provider_name)
                .collect();
            let facts = FailureFacts {
                failure: &failure,
                turn,
                step,
                provider: &provider_name,
                earlier_retries: earlier
                    .iter()
                    .map(|r| EarlierRetry {
                        policy_key: r.policy_key.clone(),
                        retry: r.retry,
                        delay_ms: r.delay_ms,
                        code: r.code.clone(),
                    })
                    .collect(),
                retry_policy_json: provider.config.retry_policy.to_json(),
                messages: &self.messages,
            };
            let (verdict, faults) = self.deps.recovery.decide(facts).await;
            for fault in faults {
                self.log.append(
                    "recovery/listener-fault",
                    json!({"turn": turn, "step": step, "listener": fault.listener, "failure": fault.failure}),
                )?;
            }
            match verdict {
                Verdict::GiveUp { listener, reason } => {
                    return self.fail(turn, step, failure, &reason, listener);
                }
                Verdict::Retry { listener, decision } => {
                    let retry = earlier
                        .iter()
                        .filter(|r| r.policy_key == decision.policy_key)
                        .count() as u32
                        + 1;
                    let record = RetryRecord {
                        turn,
                        step,
                        provider: provider_name.clone(),
                        policy_key: decision.policy_key.clone(),
                        retry,
                        delay_ms: decision.delay_ms,
                        code: failure.code.clone(),
                    };
                    let mut event =
                        serde_json::to_value(&record).expect("a retry record serializes");
                    event["listener"] = json!(listener);
                    if let Some(messages) = decision.replace_messages {
                        if messages.is_empty() {
                            let reason = format!(
                                "listener '{listener}' asked to retry with an empty conversation"
                            );
                            return self.fail(turn, step, failure, &reason, Some(listener));
                        }
                        event["messages_before"] = json!(self.messages.len());
                        event["messages"] = json!(messages);
                        self.messages = messages;
                    }
                    // Durable before the wait: a process that dies now resumes with this count.
                    self.log.append_durable("llm/retry", event)?;
                    self.retries.push(record.clone());
                    sink(StreamEvent::Retrying {
                        code: record.code.clone(),
                        retry: record.retry,
                        delay_ms: record.delay_ms,
                        policy_key: record.policy_key.clone(),
                    });
                    pending = Some(PendingRetry {
                        wait: Duration::from_millis(record.delay_ms),
                        record,
                    });
                }
            }
        }
    }

    fn complete(
        &mut self,
        turn: u32,
        step: u32,
        attempt: u32,
        completion: Completion,
    ) -> Result<Completion, TurnError> {
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
            json!({"turn": turn, "outcome": "completed", "assistant": completion.text, "tool_calls": completion.tool_calls}),
        )?;
        Ok(completion)
    }

    fn fail(
        &mut self,
        turn: u32,
        step: u32,
        failure: LlmFailure,
        reason: &str,
        listener: Option<String>,
    ) -> Result<Completion, TurnError> {
        self.log.append(
            "llm/error",
            json!({"turn": turn, "step": step, "failure": failure, "reason": reason, "listener": listener}),
        )?;
        self.log.append_durable(
            "turn/end",
            json!({"turn": turn, "outcome": "failed", "code": failure.code}),
        )?;
        drop_failed_user_message(&mut self.messages);
        Err(TurnError::Failed(failure))
    }
}

/// The engine the CLI and the demo share: one per process.
pub fn default_engine() -> anyhow::Result<GuestEngine> {
    GuestEngine::new(crate::engine::default_cache_dir())
}
