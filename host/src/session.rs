//! A session: a conversation with one provider, run turn by turn, every step written to the session
//! log, every failure put through the recovery waterfall. The log is the source of truth: the retry
//! count is read from it, and `resume` rebuilds a session from it.
//!
//! A turn is a loop of steps. Each step is one completion (with its own retry waterfall, per
//! `(turn, step, provider)`). A completion that calls tools runs them through the session's
//! [`ToolRegistry`] (every failure there is a tool result the model can correct, never the end of
//! the turn), appends the assistant message and the tool messages, and the next step begins; a
//! completion without tool calls ends the turn. `max_steps` bounds the loop.

use crate::adapter::{CompletionRequest, GenerationOptions, Message, Role, ToolCall, ToolSpec};
use crate::attempt::{Completion, Provider, StreamEvent, run_attempt};
use crate::cooldown::{self, CoolDownKey, CoolDowns};
use crate::engine::GuestEngine;
use crate::failure::LlmFailure;
use crate::listener::EarlierRetry;
use crate::recovery::{AbortSignal, FailureFacts, Recovery, Verdict};
use crate::resume::{
    PendingToolStep, Rebuilt, RetryRecord, ToolResultRecord, UnfinishedTurn, drop_failed_turn,
    rebuild, step_messages,
};
use crate::store::{SessionLog, SessionRead};
use crate::tools::ToolRegistry;
use serde_json::json;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, SystemTime};

/// The default bound on the steps of one turn (completions, each possibly followed by tool calls).
pub const DEFAULT_MAX_STEPS: u32 = 16;

/// Why a turn did not complete: the provider/adapter failed (a canonical failure), or the host itself
/// could not do its job (the log could not be written). Kept apart so callers never mistake one for
/// the other.
#[derive(Debug, thiserror::Error)]
pub enum TurnError {
    #[error("{0}")]
    Failed(LlmFailure),
    /// The model was still calling tools at the last step the session allows.
    #[error(
        "the turn did not finish within {max_steps} steps: the model was still calling tools at step {max_steps} (max_steps)"
    )]
    StepLimit { max_steps: u32 },
    #[error("host error: {0:#}")]
    Host(#[from] anyhow::Error),
}

/// What a session needs from the process: shared, cheap to clone.
#[derive(Clone)]
pub struct SessionDeps {
    pub provider: Arc<Provider>,
    pub recovery: Arc<Recovery>,
    /// The fleet's cool-downs: held before every attempt, recorded after a rate limit.
    pub cooldowns: Arc<CoolDowns>,
}

impl SessionDeps {
    /// A provider and a waterfall, with cool-downs in this process's memory.
    pub fn new(provider: Arc<Provider>, recovery: Arc<Recovery>) -> Self {
        SessionDeps {
            provider,
            recovery,
            cooldowns: Arc::new(CoolDowns::local()),
        }
    }
}

pub struct Session {
    deps: SessionDeps,
    log: SessionLog,
    messages: Vec<Message>,
    turn: u32,
    retries: Vec<RetryRecord>,
    abort: AbortSignal,
    tools: Arc<ToolRegistry>,
    tool_specs: Vec<ToolSpec>,
    max_steps: u32,
    /// Generation options of the exchange in progress (the CLI's turns use the provider's defaults).
    options: RequestOptions,
    /// Set by a front end once part of the answer has reached its client: from then on a failure is
    /// final, since a retry would repeat what the client already has.
    committed: Option<Arc<AtomicBool>>,
}

/// What a client may set per request (the gateway's `model` route, `max_tokens`, `temperature`,
/// `top_p`, `stop`, `reasoning_effort`, `response_format`): the upstream model, and the generation
/// options handed to the adapter as they are.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RequestOptions {
    pub model: Option<String>,
    pub generation: GenerationOptions,
}

/// One completion for a client that keeps its own conversation and runs its own tools (a gateway
/// request): the messages and tools come from the client, and the completion is returned whether or
/// not it calls tools. Recovery (the waterfall, compaction, the durable retry count) is the same as
/// for a turn.
#[derive(Debug, Clone, Default)]
pub struct Exchange {
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub options: RequestOptions,
    /// Keep the whole conversation in the log. By default an exchange logs the message count and a
    /// digest: a client resends its whole conversation with every request, and logging it each time
    /// would grow the log with the square of an agent loop.
    pub log_messages: bool,
}

impl Exchange {
    /// A digest of the conversation (SHA-256 of its JSON): what the log keeps, and what a
    /// continuation of the exchange must match.
    pub fn digest(&self) -> String {
        use sha2::{Digest, Sha256};
        let json = serde_json::to_vec(&(&self.messages, &self.tools)).expect("messages serialize");
        hex::encode(Sha256::digest(json))
    }
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
            tools: Arc::default(),
            tool_specs: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            options: RequestOptions::default(),
            committed: None,
        })
    }

    /// Continues a session from its log, opened for appending (see
    /// [`crate::store::SessionClaim::open_for_append`]). Returns the session and the turn the process
    /// did not finish, if any, for [`Session::continue_turn`].
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
                "torn_tail_file": read.torn_tail_file,
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
            tools: Arc::default(),
            tool_specs: Vec::new(),
            max_steps: DEFAULT_MAX_STEPS,
            options: RequestOptions::default(),
            committed: None,
        };
        Ok((session, unfinished))
    }

    /// The tools offered to the model from the next turn on (none by default). Every request carries
    /// their specs; each turn's `turn/start` names them. A resumed session needs its tools again
    /// ([`Rebuilt::tools`] names those of its last turn) before [`Session::continue_turn`].
    pub fn with_tools(mut self, tools: Arc<ToolRegistry>) -> Self {
        self.tool_specs = tools.specs();
        self.tools = tools;
        self
    }

    /// The most steps one turn may take (default [`DEFAULT_MAX_STEPS`]; at least 1). A turn whose
    /// model still calls tools at the last step ends with [`TurnError::StepLimit`].
    pub fn with_max_steps(mut self, max_steps: u32) -> Self {
        self.max_steps = max_steps.max(1);
        self
    }

    /// `flag`: set it once part of an answer has reached the client; failures are final from then on.
    pub fn with_commit_flag(mut self, flag: Arc<AtomicBool>) -> Self {
        self.committed = Some(flag);
        self
    }

    /// Runs one exchange: a new turn of one step whose conversation and tools are the client's.
    pub async fn run_exchange(
        &mut self,
        exchange: Exchange,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.abort.reset();
        self.turn += 1;
        let turn = self.turn;
        let mut start = json!({
            "turn": turn,
            "exchange": {"messages": exchange.messages.len(), "digest": exchange.digest(),
                         "tools": exchange.tools.iter().map(|t| &t.name).collect::<Vec<_>>()},
        });
        if exchange.log_messages {
            start["messages"] = json!(exchange.messages);
        }
        if let Some(model) = &exchange.options.model {
            start["model"] = json!(model);
        }
        self.log.append("turn/start", start)?;
        self.enter_exchange(exchange);
        let completion = self.run_step(turn, 1, 0, None, sink).await?;
        self.end_exchange(turn, completion)
    }

    /// Continues an exchange a dead process left open (its retry count and wait from the log), given
    /// the conversation again by the client: it must be the one the exchange began with.
    pub async fn continue_exchange(
        &mut self,
        open: UnfinishedTurn,
        exchange: Exchange,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.abort.reset();
        let Some(recorded) = &open.exchange_digest else {
            return Err(TurnError::Host(anyhow::anyhow!(
                "session '{}' turn {} is not an exchange: continue it with `dsh-host run --resume`",
                self.id(),
                open.turn
            )));
        };
        if *recorded != exchange.digest() {
            return Err(TurnError::Host(anyhow::anyhow!(
                "session '{}' was begun with another conversation: an idempotency key or session id \
                 continues only the request it was first sent with",
                self.id()
            )));
        }
        self.turn = open.turn;
        self.enter_exchange(exchange);
        // The completion arrived before the process died: it is the answer.
        if let Some(done) = open.pending_tools {
            let completion = Completion {
                text: done.text,
                tool_calls: done.calls,
                provider_data: done.provider_data,
                ..Completion::default()
            };
            return self.end_exchange(open.turn, completion);
        }
        let pending = open
            .pending_retry
            .map(|(record, wait)| PendingRetry { record, wait });
        let completion = self
            .run_step(open.turn, open.step, open.attempts, pending, sink)
            .await?;
        self.end_exchange(open.turn, completion)
    }

    fn enter_exchange(&mut self, exchange: Exchange) {
        self.messages = exchange.messages;
        self.tool_specs = exchange.tools;
        self.options = exchange.options;
    }

    /// An exchange's completion, tool calls and all: the durable end of its turn, with everything a
    /// replay needs to answer the same request again without the provider.
    fn end_exchange(&mut self, turn: u32, completion: Completion) -> Result<Completion, TurnError> {
        self.messages.push(Message {
            tool_calls: completion.tool_calls.clone(),
            provider_data: completion.provider_data.clone(),
            ..Message::new(Role::Assistant, completion.text.clone())
        });
        let mut end = json!({"turn": turn, "outcome": "completed", "assistant": completion.text, "steps": 1,
                             "tool_calls": completion.tool_calls, "finish_reason": completion.finish_reason,
                             "usage": completion.usage, "reasoning": completion.reasoning});
        if let Some(data) = &completion.provider_data {
            end["provider_data"] = json!(data);
        }
        self.log.append_committed("turn/end", end)?;
        Ok(completion)
    }

    /// Appends a front end's own event (e.g. the gateway's `gateway/request`) to the log.
    pub fn note(&mut self, kind: &str, data: serde_json::Value) -> anyhow::Result<()> {
        self.log.append(kind, data).map(|_| ())
    }

    /// Continues with another provider (a route's fallback), logged with the reason. Its retries
    /// are counted apart: the count is per (turn, step, provider).
    pub fn switch_provider(&mut self, provider: Arc<Provider>, reason: &str) -> anyhow::Result<()> {
        self.log.append(
            "session/provider",
            json!({"provider": provider.config.name, "model": provider.config.model, "reason": reason}),
        )?;
        self.deps.provider = provider;
        Ok(())
    }

    pub fn tools(&self) -> &ToolRegistry {
        &self.tools
    }

    pub fn max_steps(&self) -> u32 {
        self.max_steps
    }

    pub fn id(&self) -> &str {
        self.log.id()
    }

    pub fn messages(&self) -> &[Message] {
        &self.messages
    }

    /// The session's stop button: aborts the turn in flight (its request, backoff or tool call) as
    /// `ABORTED`. Each turn starts un-aborted, so the same handle stops later turns too.
    pub fn abort_signal(&self) -> AbortSignal {
        self.abort.clone()
    }

    /// Runs one user turn to completion or failure, streaming text and tool activity to `sink`.
    /// Returns the final step's completion (the answer); the steps before it are in
    /// [`Session::messages`] and the log.
    pub async fn run_turn(
        &mut self,
        user: &str,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.abort.reset();
        self.turn += 1;
        let turn = self.turn;
        let mut start = json!({"turn": turn, "user": user});
        if !self.tools.is_empty() {
            start["tools"] = json!(self.tools.names());
        }
        self.log.append("turn/start", start)?;
        self.messages.push(Message::new(Role::User, user));
        self.run_steps(turn, 1, 0, None, None, sink).await
    }

    /// Finishes a turn that a dead process left open: at its step, continuing that step's retry
    /// count and wait, or running the tool calls of that step that have no result yet.
    pub async fn continue_turn(
        &mut self,
        open: UnfinishedTurn,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        self.abort.reset();
        let pending = open
            .pending_retry
            .map(|(record, wait)| PendingRetry { record, wait });
        self.run_steps(
            open.turn,
            open.step,
            open.attempts,
            pending,
            open.pending_tools,
            sink,
        )
        .await
    }

    /// The step loop: a completion, its tools, the next step; until a completion calls no tool.
    async fn run_steps(
        &mut self,
        turn: u32,
        mut step: u32,
        mut attempts: u32,
        mut pending: Option<PendingRetry>,
        mut tools_step: Option<PendingToolStep>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Completion, TurnError> {
        loop {
            let (completion, done) = match tools_step.take() {
                Some(p) => (
                    Completion {
                        text: p.text,
                        tool_calls: p.calls,
                        provider_data: p.provider_data,
                        ..Completion::default()
                    },
                    p.results,
                ),
                None => {
                    let completion = self
                        .run_step(turn, step, attempts, pending.take(), sink)
                        .await?;
                    (completion, Vec::new())
                }
            };
            if completion.tool_calls.is_empty() {
                return self.end_turn(turn, step, completion);
            }
            if step >= self.max_steps {
                return self.fail_step_limit(turn, step);
            }
            self.run_tools(turn, step, completion, done, sink).await?;
            step += 1;
            attempts = 0;
        }
    }

    /// Runs the tool calls of a step (those without a recorded result), then appends the step's
    /// assistant message and tool messages and makes the step durable (`step/end`).
    async fn run_tools(
        &mut self,
        turn: u32,
        step: u32,
        completion: Completion,
        mut results: Vec<ToolResultRecord>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<(), TurnError> {
        for call in &completion.tool_calls {
            if results.iter().any(|r| r.id == call.id) {
                continue; // ran before the process died; its result is in the log
            }
            let checked = self.tools.check(&call.name, &call.arguments);
            self.log.append(
                "tool/call",
                json!({"turn": turn, "step": step, "id": call.id, "name": call.name,
                       "arguments": call.arguments, "parsed_ok": checked.parsed.is_ok()}),
            )?;
            sink(StreamEvent::ToolCall {
                id: call.id.clone(),
                name: call.name.clone(),
                arguments: checked.parsed.stored_text(),
            });
            let outcome = tokio::select! {
                outcome = ToolRegistry::run(checked, &call.name) => Some(outcome),
                _ = self.abort.aborted() => None,
            };
            let Some(outcome) = outcome else {
                let failure = LlmFailure::new(
                    "ABORTED",
                    format!("aborted by the caller while the tool `{}` ran", call.name),
                );
                return self
                    .fail(turn, step, failure, "aborted by the caller", None)
                    .map(|_| ());
            };
            let record = ToolResultRecord {
                id: call.id.clone(),
                name: call.name.clone(),
                content: outcome.content,
                is_error: outcome.is_error,
            };
            let mut event = serde_json::to_value(&record).expect("a tool result serializes");
            event["turn"] = json!(turn);
            event["step"] = json!(step);
            self.log.append("tool/result", event)?;
            sink(StreamEvent::ToolResult {
                id: record.id.clone(),
                name: record.name.clone(),
                content: record.content.clone(),
                is_error: record.is_error,
            });
            results.push(record);
        }
        let calls = completion.tool_calls.len();
        let errors = completion
            .tool_calls
            .iter()
            .filter(|c| results.iter().any(|r| r.id == c.id && r.is_error))
            .count();
        self.messages.extend(step_messages(PendingToolStep {
            text: completion.text,
            calls: completion.tool_calls,
            results,
            provider_data: completion.provider_data,
        }));
        self.log.append_committed(
            "step/end",
            json!({"turn": turn, "step": step, "tool_calls": calls, "tool_errors": errors}),
        )?;
        Ok(())
    }

    /// One step: attempts (and the waterfall between them) until a completion or the turn's failure.
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

            let request = CompletionRequest {
                model: self
                    .options
                    .model
                    .clone()
                    .unwrap_or_else(|| provider.config.model.clone()),
                messages: self.messages.clone(),
                tools: self.tool_specs.clone(),
                options: self.options.generation.clone(),
            };
            let limited = CoolDownKey {
                provider: provider_name.clone(),
                key_id: provider.transport.key_id(),
                model: request.model.clone(),
            };
            if let Some(aborted) = self.hold_for_cooldown(turn, step, &limited, sink).await? {
                return self.fail(turn, step, aborted, "aborted by the caller", None);
            }

            attempts += 1;
            self.log.append(
                "llm/request",
                json!({"turn": turn, "step": step, "attempt": attempts, "provider": provider_name,
                       "model": request.model, "messages": request.messages.len()}),
            )?;
            sink(StreamEvent::Attempt {
                turn,
                step,
                attempt: attempts,
            });
            let outcome = tokio::select! {
                outcome = run_attempt(&provider, &request, sink) => outcome,
                _ = self.abort.aborted() => Err(LlmFailure::new("ABORTED", "aborted by the caller during the request")),
            };
            let failure = match outcome {
                Ok(completion) => return self.respond(turn, step, attempts, completion),
                Err(failure) => failure,
            };
            self.log.append(
                "llm/failure",
                json!({"turn": turn, "step": step, "attempt": attempts, "provider": provider_name, "failure": failure}),
            )?;
            sink(StreamEvent::AttemptFailed(failure.clone()));
            // The provider asked every request on this key and model to wait: the others too.
            if let Some(wait) = cooldown::requested(&failure) {
                self.deps
                    .cooldowns
                    .record(&limited, wait, &failure.code, self.log.id())?;
            }

            if self
                .committed
                .as_ref()
                .is_some_and(|c| c.load(Ordering::SeqCst))
            {
                let reason =
                    "part of this answer already reached the client; a retry would repeat it";
                return self.fail(turn, step, failure, reason, None);
            }
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
                        code: crate::wire::wit_code(&r.code),
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
                        sink(StreamEvent::Compacted {
                            before: self.messages.len(),
                            after: messages.len(),
                        });
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

    /// Waits out a cool-down that another session recorded for this provider, key and model (see
    /// [`crate::cooldown`]), at most the retry policy's `max_delay_ms`, logged before the wait.
    /// `Some(failure)`: the caller aborted during the wait (logged as the step's failure).
    async fn hold_for_cooldown(
        &mut self,
        turn: u32,
        step: u32,
        limited: &CoolDownKey,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<Option<LlmFailure>, TurnError> {
        let Some(running) = self.deps.cooldowns.hold(limited, self.log.id())? else {
            return Ok(None);
        };
        let cap = Duration::from_millis(self.deps.provider.config.retry_policy.max_delay_ms);
        let place = cooldown::spread_place(self.log.id());
        let Some(wait) = cooldown::hold_for(running.remaining, cap, place) else {
            return Ok(None);
        };
        let wait_ms = wait.as_millis() as u64;
        // Durable: `log --follow` on another machine shows why nothing is sent, while it lasts.
        self.log.append_durable(
            "llm/cooldown",
            json!({"turn": turn, "step": step, "provider": limited.provider, "model": limited.model,
                   "code": running.code, "wait_ms": wait_ms,
                   "remaining_ms": running.remaining.as_millis() as u64}),
        )?;
        sink(StreamEvent::CoolingDown {
            code: running.code.clone(),
            delay_ms: wait_ms,
        });
        if self.abort.sleep(wait).await {
            return Ok(None);
        }
        let failure = LlmFailure::new(
            "ABORTED",
            format!(
                "aborted during the {wait_ms} ms cool-down of {} ({}) for {}",
                limited.provider, running.code, limited.model
            ),
        );
        self.log.append(
            "llm/failure",
            json!({"turn": turn, "step": step, "provider": limited.provider, "failure": failure}),
        )?;
        Ok(Some(failure))
    }

    /// A step's completion arrived: logged (with its text when it calls tools, so that a process that
    /// dies before the step ends can rebuild the step's assistant message).
    fn respond(
        &mut self,
        turn: u32,
        step: u32,
        attempt: u32,
        mut completion: Completion,
    ) -> Result<Completion, TurnError> {
        name_every_call(turn, step, &mut completion.tool_calls);
        let mut event = json!({
            "turn": turn, "step": step, "attempt": attempt,
            "text_chars": completion.text.chars().count(),
            "tool_calls": completion.tool_calls,
            "finish_reason": completion.finish_reason,
            "usage": completion.usage,
        });
        if !completion.tool_calls.is_empty() {
            event["text"] = json!(completion.text);
        }
        if let Some(data) = &completion.provider_data {
            // The provider requires it back: a resumed session must have it for this message.
            event["provider_data"] = json!(data);
        }
        self.log.append("llm/response", event)?;
        Ok(completion)
    }

    /// A completion without tool calls: the answer, and the durable end of the turn.
    fn end_turn(
        &mut self,
        turn: u32,
        step: u32,
        completion: Completion,
    ) -> Result<Completion, TurnError> {
        self.messages.push(Message {
            provider_data: completion.provider_data.clone(),
            ..Message::new(Role::Assistant, completion.text.clone())
        });
        let mut end = json!({"turn": turn, "outcome": "completed", "assistant": completion.text, "steps": step});
        if let Some(data) = &completion.provider_data {
            end["provider_data"] = json!(data);
        }
        self.log.append_committed("turn/end", end)?;
        Ok(completion)
    }

    /// The model still calls tools at the last step allowed: the calls do not run, the turn fails.
    fn fail_step_limit(&mut self, turn: u32, step: u32) -> Result<Completion, TurnError> {
        let error = TurnError::StepLimit {
            max_steps: self.max_steps,
        };
        self.log.append_committed(
            "turn/end",
            json!({"turn": turn, "outcome": "failed", "reason": "step_limit", "steps": step,
                   "max_steps": self.max_steps, "message": error.to_string()}),
        )?;
        drop_failed_turn(&mut self.messages);
        Err(error)
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
        self.log.append_committed(
            "turn/end",
            json!({"turn": turn, "outcome": "failed", "code": failure.code}),
        )?;
        drop_failed_turn(&mut self.messages);
        Err(TurnError::Failed(failure))
    }
}

/// Every call of a step gets a unique, non-empty id: the tool messages answer calls by id, and some
/// providers and proxies send none or repeat one. Named before `llm/response` is logged, so a
/// resumed process reads the same ids; a name given here is `call_dsh_TURN_STEP_N`.
fn name_every_call(turn: u32, step: u32, calls: &mut [ToolCall]) {
    let mut seen = std::collections::HashSet::new();
    for (i, call) in calls.iter_mut().enumerate() {
        if call.id.trim().is_empty() || seen.contains(&call.id) {
            call.id = format!("call_dsh_{turn}_{step}_{}", i + 1);
        }
        seen.insert(call.id.clone());
    }
}

/// The engine the CLI and the demo share: one per process.
pub fn default_engine() -> anyhow::Result<GuestEngine> {
    GuestEngine::new(crate::engine::default_cache_dir())
}
