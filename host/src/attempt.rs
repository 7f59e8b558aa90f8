//! One provider attempt: plan (adapter) → send (transport) → classify or decode (adapter) → the
//! checks only the host can make (truncation, empty completion, in-band errors). The adapter instance
//! and its `Store` live exactly as long as the attempt.

use crate::adapter::{Adapter, Chunk, CompletionRequest, Endpoint, FinishKind, ToolCall, Usage};
use crate::config::ProviderConfig;
use crate::engine::ReturnCaps;
use crate::failure::LlmFailure;
use crate::network::NetworkPolicy;
use crate::transport::{Credential, SystemLookup, Transport};
use crate::watchdog::Watchdog;
use std::collections::HashMap;
use std::sync::Arc;

/// What the caller sees while a turn streams.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    /// An attempt begins (its `llm/request` is logged, `attempt` as there): the text and
    /// reasoning until the next `Attempt` or `Retrying` belong to it.
    Attempt {
        turn: u32,
        step: u32,
        attempt: u32,
    },
    /// The attempt's response head arrived (`status`); its chunks follow, or its failure.
    ResponseHead {
        status: u16,
    },
    /// The attempt failed (as logged in `llm/failure`); `Retrying` follows if a listener retries.
    AttemptFailed(LlmFailure),
    Text(String),
    Reasoning(String),
    /// The attempt failed and a listener decided to retry: any text streamed so far belongs to the
    /// failed attempt, and a fresh attempt will stream the answer again after `delay_ms`.
    Retrying {
        code: String,
        retry: u32,
        delay_ms: u64,
        policy_key: String,
    },
    /// The next attempt waits `delay_ms` first: another session (perhaps in another process) met a
    /// rate limit (`code`) of the same provider, key and model, whose retry-after runs until then.
    CoolingDown {
        code: String,
        delay_ms: u64,
    },
    /// A listener replaced the conversation before the retry (compaction): `before` and `after`
    /// message counts.
    Compacted {
        before: usize,
        after: usize,
    },
    /// The step's completion called a tool, which runs now. `arguments` as the conversation keeps
    /// them: the parsed JSON (`""` is `{}`), or the raw text that did not parse.
    ToolCall {
        id: String,
        name: String,
        arguments: String,
    },
    /// The tool's result, or the error the model is given instead (`is_error`); the next step follows.
    ToolResult {
        id: String,
        name: String,
        content: String,
        is_error: bool,
    },
}

/// A provider ready to serve attempts: its config, its loaded adapter, its transport (network
/// policy, key, watchdog).
pub struct Provider {
    pub config: ProviderConfig,
    pub adapter: Arc<Adapter>,
    pub transport: Transport,
}

impl Provider {
    /// `key`: the API key, if any, sent to this provider's allowed hosts in its credential headers.
    /// The caller reads it from `config.api_key_env` where `config.key_env()` allows (as
    /// `Runtime::provider` does). Fails, naming the setting, on a key no header can carry or a
    /// `ca_file` that cannot be used.
    pub fn new(
        config: ProviderConfig,
        adapter: Arc<Adapter>,
        key: Option<String>,
    ) -> anyhow::Result<Self> {
        let policy =
            NetworkPolicy::for_provider(&config.name, &config.base_url, &config.allowed_hosts)?;
        let credential = Credential {
            key,
            source: format!("the environment variable {}", config.api_key_env),
            missing: match config.key_env() {
                Ok(var) => format!("set the environment variable {var}"),
                Err(why) => why,
            },
            required: config.api_key_required,
            headers: config.credential_headers.clone(),
        };
        let watchdog = Watchdog::new(config.stream_idle_timeout);
        let transport = Transport::build(
            policy,
            credential,
            watchdog,
            Arc::new(SystemLookup),
            config.ca_file.as_deref(),
        )?;
        Ok(Provider {
            config,
            adapter,
            transport,
        })
    }

    /// A provider with a transport built by the caller (a pinned name lookup, a body cap).
    pub fn with_transport(
        config: ProviderConfig,
        adapter: Arc<Adapter>,
        transport: Transport,
    ) -> Self {
        Provider {
            config,
            adapter,
            transport,
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
    /// What the adapter attached to the answer's message (`chunk.provider-data`): the provider
    /// requires it back in later requests, so the conversation keeps it with the message.
    pub provider_data: Option<String>,
}

/// One provider attempt on a fresh adapter instance. The instance (and its store) is dropped when
/// this returns, whatever happened. Every failure leaves with the key redacted from it.
pub async fn run_attempt(
    provider: &Provider,
    request: &CompletionRequest,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<Completion, LlmFailure> {
    attempt(provider, request, sink)
        .await
        .map_err(|f| provider.transport.redact_failure(f))
}

async fn attempt(
    provider: &Provider,
    request: &CompletionRequest,
    sink: &mut (dyn FnMut(StreamEvent) + Send),
) -> Result<Completion, LlmFailure> {
    let mut adapter = provider.adapter.instantiate().await?;
    let endpoint = Endpoint {
        base_url: provider.config.base_url.clone(),
    };
    let plan = adapter.plan_request(&endpoint, request).await?;
    let mut response = provider
        .transport
        .send(&plan, adapter.name(), request)
        .await?;
    sink(StreamEvent::ResponseHead {
        status: response.head.status,
    });

    if !response.is_success() {
        let body = response.read_capped_body().await;
        let mut failure = adapter.classify_failure(&response.head, &body).await;
        failure.status.get_or_insert(response.head.status);
        return Err(failure);
    }

    adapter.open_decoder(&response.head).await?;
    let guest = adapter.name().to_string();
    let mut assembly = Assembly::new(&guest, provider.adapter.limits().returns);
    // The watchdog counts progress from the head on: only a chunk moves it (docs/DESIGN.md).
    let mut idle = provider.transport.watchdog().arm();
    loop {
        let (chunks, at_end) = match response.next_read(&idle).await? {
            Some(bytes) => (adapter.feed(&bytes).await?, false),
            None => (adapter.end().await?, true),
        };
        let progress = chunks.iter().any(is_progress);
        assembly.absorb(chunks, sink)?;
        if progress {
            // After the consumer took the chunks: its time is never the provider's.
            idle.progress();
        }
        if at_end || assembly.finished() {
            // The answer is complete; a provider that keeps the connection open must not hold us.
            break;
        }
    }
    assembly.conclude(response.head.status)
}

/// Whether a chunk is progress for the watchdog. Empty text or reasoning is not (a server that
/// streams empty deltas as keepalives must not hold a session forever); a `progress` chunk is how an
/// adapter reports progress without content (a thinking block starting). A dsh:llm@0.1.0 adapter
/// had no such chunk and sent an empty reasoning chunk instead: `compat` turns that into progress.
pub(crate) fn is_progress(chunk: &Chunk) -> bool {
    match chunk {
        Chunk::Text(text) | Chunk::Reasoning(text) => !text.is_empty(),
        Chunk::Progress(_)
        | Chunk::ProviderData(_)
        | Chunk::ToolCall(_)
        | Chunk::Usage(_)
        | Chunk::Finish(_) => true,
    }
}

/// The chunks of one attempt, put together, within the host's caps on what a guest may return.
/// `dsh-host check` assembles its decoded cases through it too, so that a case ends exactly as an
/// attempt would (truncation, empty completion, in-band errors).
pub(crate) struct Assembly<'a> {
    guest: &'a str,
    caps: ReturnCaps,
    completion: Completion,
    /// The calls in order of first appearance, and where each index is: assembly stays linear in
    /// the number of deltas however many calls a guest invents.
    tool_calls: Vec<ToolCall>,
    call_at: HashMap<u32, usize>,
    /// Text, reasoning and tool-call bytes so far.
    bytes: usize,
    finish: Option<crate::adapter::Finish>,
}

impl<'a> Assembly<'a> {
    pub(crate) fn new(guest: &'a str, caps: ReturnCaps) -> Self {
        Assembly {
            guest,
            caps,
            completion: Completion::default(),
            tool_calls: Vec::new(),
            call_at: HashMap::new(),
            bytes: 0,
            finish: None,
        }
    }

    /// Whether a finish arrived: the answer is complete, whatever the connection does next.
    pub(crate) fn finished(&self) -> bool {
        self.finish.is_some()
    }

    /// Counts `more` bytes against the completion's size cap.
    fn grow(&mut self, more: usize) -> Result<(), LlmFailure> {
        self.bytes += more;
        if self.bytes > self.caps.max_completion_bytes {
            return Err(LlmFailure::adapter_fault(
                self.guest,
                format!(
                    "returned more than {} MiB of completion (text, reasoning and tool arguments), the cap \
                     max_completion_mb; raise it under [providers.NAME.adapter_limits] if a model really answers that much",
                    self.caps.max_completion_bytes >> 20
                ),
            ));
        }
        Ok(())
    }

    /// Takes the chunks of one network read. Consecutive text (or reasoning) pieces of one read go to
    /// the sink as one event: a consumer that writes each event to a terminal pays one write per
    /// read, not one per token.
    pub(crate) fn absorb(
        &mut self,
        chunks: Vec<Chunk>,
        sink: &mut (dyn FnMut(StreamEvent) + Send),
    ) -> Result<(), LlmFailure> {
        let mut text = String::new();
        let mut reasoning = String::new();
        let flush = |text: &mut String,
                     reasoning: &mut String,
                     sink: &mut (dyn FnMut(StreamEvent) + Send)| {
            if !reasoning.is_empty() {
                sink(StreamEvent::Reasoning(std::mem::take(reasoning)));
            }
            if !text.is_empty() {
                sink(StreamEvent::Text(std::mem::take(text)));
            }
        };
        for chunk in chunks {
            if self.finish.is_some() {
                // Only usage may trail a finish (OpenAI sends it in a last chunk).
                if let Chunk::Usage(usage) = chunk {
                    self.completion.usage = Some(usage);
                }
                continue;
            }
            match chunk {
                Chunk::Text(piece) => {
                    self.grow(piece.len())?;
                    if !reasoning.is_empty() {
                        flush(&mut text, &mut reasoning, sink);
                    }
                    self.completion.text.push_str(&piece);
                    text.push_str(&piece);
                }
                Chunk::Reasoning(piece) => {
                    self.grow(piece.len())?;
                    if !text.is_empty() {
                        flush(&mut text, &mut reasoning, sink);
                    }
                    self.completion.reasoning.push_str(&piece);
                    reasoning.push_str(&piece);
                }
                Chunk::ToolCall(delta) => {
                    self.grow(
                        delta.arguments.len()
                            + delta.name.as_ref().map_or(0, String::len)
                            + delta.provider_data.as_ref().map_or(0, String::len),
                    )?;
                    let pos = match self.call_at.get(&delta.index) {
                        Some(&pos) => pos,
                        None => {
                            if self.tool_calls.len() >= self.caps.max_tool_calls {
                                return Err(LlmFailure::adapter_fault(
                                    self.guest,
                                    format!(
                                        "returned more than {} tool calls in one completion, the cap max_tool_calls; \
                                         raise it under [providers.NAME.adapter_limits] if a model really makes that many",
                                        self.caps.max_tool_calls
                                    ),
                                ));
                            }
                            self.tool_calls.push(ToolCall::new("", "", ""));
                            self.call_at.insert(delta.index, self.tool_calls.len() - 1);
                            self.tool_calls.len() - 1
                        }
                    };
                    let call = &mut self.tool_calls[pos];
                    if let Some(id) = delta.id {
                        call.id = id;
                    }
                    if let Some(name) = delta.name {
                        call.name.push_str(&name);
                    }
                    call.arguments.push_str(&delta.arguments);
                    if delta.provider_data.is_some() {
                        // Whole each time (the contract says so): the last one given stands.
                        call.provider_data = delta.provider_data;
                    }
                }
                Chunk::ProviderData(data) => {
                    self.grow(data.len())?;
                    self.completion.provider_data = Some(data);
                }
                // Progress moves the watchdog (see `is_progress`) and carries nothing to keep.
                Chunk::Progress(_) => {}
                Chunk::Usage(usage) => self.completion.usage = Some(usage),
                Chunk::Finish(finish) => self.finish = Some(finish),
            }
        }
        flush(&mut text, &mut reasoning, sink);
        Ok(())
    }

    /// The failures only the host can see: no finish, an error finish, an empty completion (the
    /// silent overflow when it ended by length).
    pub(crate) fn conclude(mut self, status: u16) -> Result<Completion, LlmFailure> {
        let guest = self.guest;
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
        self.completion.tool_calls = self.tool_calls;
        let in_band = finish
            .failure
            .clone()
            .map(|f| LlmFailure::from_guest(guest, f.into()));
        match finish.kind {
            FinishKind::Error => {
                let f = in_band.unwrap_or_else(|| {
                    LlmFailure::adapter_fault(guest, "ended the stream with an error finish but gave no failure")
                });
                Err(LlmFailure { status: f.status.or(Some(status)), ..f })
            }
            // The provider stopped the generation on its side (Gemini's CANCELLED, a cancelled
            // response): a provider failure for the waterfall. ABORTED is the caller's alone.
            FinishKind::Aborted => {
                let detail = in_band.map(|f| format!(": {}", f.message)).unwrap_or_default();
                Err(LlmFailure::new(
                    "SERVER_ERROR",
                    format!("the provider aborted the generation on its side{detail}"),
                )
                .with_status(status))
            }
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
                let answered = !self.completion.text.trim().is_empty() || !self.completion.tool_calls.is_empty();
                let thought = !self.completion.reasoning.trim().is_empty();
                let by_length = matches!(finish.kind, FinishKind::Length);
                if dsh_guest_support::meaning::is_silent_overflow(by_length, answered || thought) {
                    return Err(LlmFailure::new(
                        "CONTEXT_WINDOW_EXCEEDED",
                        format!(
                            "the provider stopped at its length limit ({}) before any output: the prompt \
                             fills the model's context (a server that does not refuse an over-long prompt \
                             answers this way)",
                            finish.reason.as_deref().unwrap_or("length")
                        ),
                    )
                    .with_status(status));
                }
                if !answered {
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::Finish;

    fn concluded(chunks: Vec<Chunk>, kind: FinishKind) -> Result<Completion, LlmFailure> {
        let mut assembly = Assembly::new("test-guest", ReturnCaps::default());
        let mut all = chunks;
        all.push(Chunk::Finish(Finish {
            kind,
            reason: None,
            failure: None,
        }));
        assembly.absorb(all, &mut |_| {}).expect("within the caps");
        assembly.conclude(200)
    }

    #[test]
    fn a_length_finish_with_no_output_is_the_silent_overflow() {
        let f = concluded(vec![], FinishKind::Length).unwrap_err();
        assert_eq!(f.code, "CONTEXT_WINDOW_EXCEEDED");
        assert!(f.message.contains("length limit"), "{}", f.message);
        assert_eq!(f.status, Some(200));
    }

    #[test]
    fn an_empty_stop_stays_an_empty_response_and_thinking_is_not_an_overflow() {
        assert_eq!(
            concluded(vec![], FinishKind::Stop).unwrap_err().code,
            "EMPTY_RESPONSE"
        );
        // Reasoning that spent the whole output budget: the budget, not the context.
        let thought = vec![Chunk::Reasoning("thinking...".into())];
        assert_eq!(
            concluded(thought, FinishKind::Length).unwrap_err().code,
            "EMPTY_RESPONSE"
        );
        let answered =
            concluded(vec![Chunk::Text("cut off mid".into())], FinishKind::Length).unwrap();
        assert!(answered.truncated_by_length);
    }
}
