//! Guests of `dsh:llm@0.1.0` (wit/0.1.0, frozen): their bindings, and the conversions between
//! their types and the host's (0.2.0).
//!
//! Down (host → guest), what 0.1.0 cannot carry is refused, never silently dropped, when it would
//! change the answer:
//! - content parts: the text parts are joined into the one string 0.1.0 has (without separator:
//!   the parts of one message are one text); an image part makes `plan-request` fail with
//!   `INVALID_REQUEST` naming the message and the adapter's version;
//! - options: `max-output-tokens` becomes `max-tokens`, `temperature` stays; `stop`, `top-p`,
//!   `reasoning-effort` and a JSON `response-format` are refused the same way when they are set
//!   (a `text` response format is what a request without one gets, and passes);
//! - provider data is not passed: a 0.1.0 adapter never wrote any, so data in the conversation was
//!   written by another adapter, which is not this one's to send.
//!
//! A listener is only told about the conversation, never asked to send it: it sees the messages'
//! text (images and provider data left out), and the codes in their written form.
//!
//! Up (guest → host): a failure code is a string in 0.1.0, checked where it enters
//! ([`LlmFailure::from_guest`], or here for a failure inside a chunk: a code that is not canonical
//! is the guest's fault, `ADAPTER_FAULT` naming the code); an empty `reasoning` chunk, 0.1.0's
//! way of reporting progress without content, becomes a `progress` chunk; a replacement
//! conversation from a listener comes back as text messages.

use crate::adapter::{
    Chunk, CompletionRequest, Endpoint, FailureCode, Finish, FinishKind, GenerationOptions,
    HttpPlan, Message, ResponseFormat, ResponseHead, Role, ToolCall, ToolCallDelta, Usage,
    WitFailure,
};
use crate::failure::LlmFailure;
use crate::listener::{Decision, FailureContext, RetryDecision};

use super::ContractVersion;

pub(crate) mod bindings {
    pub(crate) mod adapter {
        wasmtime::component::bindgen!({
            path: "../wit/0.1.0",
            world: "provider-adapter",
            exports: { default: async },
        });
    }

    pub(crate) mod listener {
        wasmtime::component::bindgen!({
            path: "../wit/0.1.0",
            world: "recovery-listener",
            exports: { default: async },
            with: { "dsh:llm/types": crate::compat::v0_1::bindings::adapter::dsh::llm::types },
        });
    }
}

use bindings::adapter::dsh::llm::types as old;
use bindings::listener::exports::dsh::llm::listener as old_listener;

pub(crate) use bindings::adapter::{ProviderAdapter, ProviderAdapterPre};
pub(crate) use bindings::listener::{RecoveryListener, RecoveryListenerPre};

const VERSION: ContractVersion = ContractVersion::V0_1;

/// A request the adapter's version cannot carry: refused before the guest is called.
fn cannot_carry(adapter: &str, what: &str) -> LlmFailure {
    LlmFailure::new(
        "INVALID_REQUEST",
        format!(
            "adapter '{adapter}' speaks {VERSION}, which cannot carry {what}; the request is refused \
             rather than sent without it. Leave it out, or use an adapter built for {}",
            ContractVersion::NEWEST
        ),
    )
}

/// The request as a 0.1.0 adapter takes it (see the module documentation for what is refused).
pub fn request(adapter: &str, r: &CompletionRequest) -> Result<old::CompletionRequest, LlmFailure> {
    let GenerationOptions {
        max_output_tokens,
        temperature,
        top_p,
        stop,
        reasoning_effort,
        response_format,
    } = &r.options;
    if !stop.is_empty() {
        return Err(cannot_carry(adapter, "stop sequences (`stop`)"));
    }
    if top_p.is_some() {
        return Err(cannot_carry(adapter, "`top-p`"));
    }
    if reasoning_effort.is_some() {
        return Err(cannot_carry(adapter, "a reasoning effort"));
    }
    if matches!(
        response_format,
        Some(ResponseFormat::JsonObject | ResponseFormat::JsonSchema(_))
    ) {
        return Err(cannot_carry(adapter, "a JSON response format"));
    }
    if let Some(i) = r.messages.iter().position(Message::has_images) {
        return Err(cannot_carry(
            adapter,
            &format!("images (message {i} has an image part)"),
        ));
    }
    Ok(old::CompletionRequest {
        model: r.model.clone(),
        messages: r.messages.iter().map(message).collect(),
        tools: r
            .tools
            .iter()
            .map(|t| old::ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters_schema: t.parameters_schema.clone(),
            })
            .collect(),
        max_tokens: *max_output_tokens,
        temperature: *temperature,
    })
}

/// A message's text and calls, without what 0.1.0 has no place for (images, provider data).
fn message(m: &Message) -> old::Message {
    old::Message {
        role: match m.role {
            Role::System => old::Role::System,
            Role::User => old::Role::User,
            Role::Assistant => old::Role::Assistant,
            Role::Tool => old::Role::Tool,
        },
        content: m.text().into_owned(),
        tool_calls: m
            .tool_calls
            .iter()
            .map(|c| old::ToolCall {
                id: c.id.clone(),
                name: c.name.clone(),
                arguments: c.arguments.clone(),
            })
            .collect(),
        tool_call_id: m.tool_call_id.clone(),
    }
}

fn message_up(m: old::Message) -> Message {
    Message {
        role: match m.role {
            old::Role::System => Role::System,
            old::Role::User => Role::User,
            old::Role::Assistant => Role::Assistant,
            old::Role::Tool => Role::Tool,
        },
        tool_calls: m
            .tool_calls
            .into_iter()
            .map(|c| ToolCall::new(c.id, c.name, c.arguments))
            .collect(),
        tool_call_id: m.tool_call_id,
        ..Message::new(Role::User, m.content)
    }
}

pub fn endpoint(e: &Endpoint) -> old::Endpoint {
    old::Endpoint {
        base_url: e.base_url.clone(),
    }
}

pub fn response_head(h: &ResponseHead) -> old::ResponseHead {
    old::ResponseHead {
        status: h.status,
        headers: h.headers.clone(),
        received_at_ms: h.received_at_ms,
    }
}

pub fn http_plan(p: old::HttpPlan) -> HttpPlan {
    HttpPlan {
        method: p.method,
        url: p.url,
        headers: p.headers,
        body: p.body,
    }
}

/// A failure as the host keeps it; its string code is checked by `LlmFailure::from_guest`.
pub fn failure(f: old::LlmFailure) -> LlmFailure {
    LlmFailure {
        code: f.code,
        message: f.message,
        status: f.status,
        provider_retry_after_ms: f.provider_retry_after_ms,
        request_id: f.request_id,
    }
}

fn failure_down(f: &WitFailure) -> old::LlmFailure {
    old::LlmFailure {
        message: f.message.clone(),
        code: f.code.as_str().to_string(),
        status: f.status,
        provider_retry_after_ms: f.provider_retry_after_ms,
        request_id: f.request_id.clone(),
    }
}

/// A decoder's chunks in the host's terms. A failure whose code is not canonical cannot be typed:
/// the guest's fault, reported as `ADAPTER_FAULT` naming the code it sent.
pub fn chunks(guest: &str, chunks: Vec<old::Chunk>) -> Result<Vec<Chunk>, LlmFailure> {
    chunks.into_iter().map(|c| chunk(guest, c)).collect()
}

fn chunk(guest: &str, c: old::Chunk) -> Result<Chunk, LlmFailure> {
    Ok(match c {
        old::Chunk::Text(t) => Chunk::Text(t),
        // 0.1.0's way of reporting progress without content.
        old::Chunk::Reasoning(r) if r.is_empty() => Chunk::Progress(String::new()),
        old::Chunk::Reasoning(r) => Chunk::Reasoning(r),
        old::Chunk::ToolCall(d) => Chunk::ToolCall(ToolCallDelta {
            index: d.index,
            id: d.id,
            name: d.name,
            arguments: d.arguments,
            provider_data: None,
        }),
        old::Chunk::Usage(u) => Chunk::Usage(Usage {
            input_tokens: u.input_tokens,
            output_tokens: u.output_tokens,
            cached_input_tokens: u.cached_input_tokens,
            reasoning_tokens: u.reasoning_tokens,
        }),
        old::Chunk::Finish(f) => Chunk::Finish(Finish {
            kind: match f.kind {
                old::FinishKind::Stop => FinishKind::Stop,
                old::FinishKind::Length => FinishKind::Length,
                old::FinishKind::ToolCalls => FinishKind::ToolCalls,
                old::FinishKind::ContentFilter => FinishKind::ContentFilter,
                old::FinishKind::Error => FinishKind::Error,
                old::FinishKind::Aborted => FinishKind::Aborted,
            },
            reason: f.reason,
            failure: f.failure.map(|x| typed(guest, x)).transpose()?,
        }),
    })
}

fn typed(guest: &str, f: old::LlmFailure) -> Result<WitFailure, LlmFailure> {
    let Some(code) = FailureCode::parse(&f.code) else {
        return Err(LlmFailure::adapter_fault(
            guest,
            format!(
                "returned the non-canonical failure code {:?} in a stream's finish (message: {})",
                f.code, f.message
            ),
        ));
    };
    Ok(WitFailure {
        message: f.message,
        code,
        status: f.status,
        provider_retry_after_ms: f.provider_retry_after_ms,
        request_id: f.request_id,
    })
}

/// What a 0.1.0 listener is told (see the module documentation).
pub fn failure_context(c: &FailureContext) -> old_listener::FailureContext {
    old_listener::FailureContext {
        failure: failure_down(&c.failure),
        turn: c.turn,
        step: c.step,
        provider: c.provider.clone(),
        earlier_retries: c
            .earlier_retries
            .iter()
            .map(|r| old_listener::EarlierRetry {
                policy_key: r.policy_key.clone(),
                retry: r.retry,
                delay_ms: r.delay_ms,
                code: r.code.as_str().to_string(),
            })
            .collect(),
        retry_policy_json: c.retry_policy_json.clone(),
        messages: c.messages.iter().map(message).collect(),
        random: c.random,
    }
}

pub fn decision(d: old_listener::Decision) -> Decision {
    match d {
        old_listener::Decision::Delegate => Decision::Delegate,
        old_listener::Decision::Retry(r) => Decision::Retry(RetryDecision {
            delay_ms: r.delay_ms,
            policy_key: r.policy_key,
            replace_messages: r
                .replace_messages
                .map(|ms| ms.into_iter().map(message_up).collect()),
        }),
        old_listener::Decision::GiveUp(reason) => Decision::GiveUp(reason),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::adapter::{ContentPart, JsonSchemaFormat, ReasoningEffort};
    use crate::listener::EarlierRetry;

    fn conversation() -> CompletionRequest {
        let mut user = Message::new(Role::User, "");
        user.content = vec![
            ContentPart::Text("what ".into()),
            ContentPart::Text("now?".into()),
        ];
        let mut call = ToolCall::new("c1", "clock", "{}");
        call.provider_data = Some("sig".into());
        let assistant = Message {
            tool_calls: vec![call],
            provider_data: Some("thinking".into()),
            ..Message::new(Role::Assistant, "")
        };
        let mut request = CompletionRequest::new(
            "m",
            vec![Message::new(Role::System, "be brief"), user, assistant],
        );
        request.options.max_output_tokens = Some(100);
        request.options.temperature = Some(0.5);
        request
    }

    #[test]
    fn a_request_goes_down_as_text_with_max_tokens_and_temperature() {
        let old = request("gemini", &conversation()).unwrap();
        let contents: Vec<&str> = old.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["be brief", "what now?", ""]);
        assert_eq!(old.messages[2].tool_calls[0].id, "c1");
        assert_eq!((old.max_tokens, old.temperature), (Some(100), Some(0.5)));
        // A text response format is what a request without one gets: nothing to refuse.
        let mut r = conversation();
        r.options.response_format = Some(ResponseFormat::Text);
        assert!(request("gemini", &r).is_ok());
    }

    #[test]
    fn what_0_1_cannot_carry_is_refused_naming_the_adapter_and_its_version() {
        let refused = |change: &dyn Fn(&mut CompletionRequest), what: &str| {
            let mut r = conversation();
            change(&mut r);
            let f = request("gemini", &r).unwrap_err();
            assert_eq!(f.code, "INVALID_REQUEST");
            assert!(
                f.message.contains("'gemini'")
                    && f.message.contains("dsh:llm@0.1.0")
                    && f.message.contains(what),
                "{what}: {}",
                f.message
            );
        };
        refused(&|r| r.options.stop = vec!["END".into()], "stop");
        refused(&|r| r.options.top_p = Some(0.9), "top-p");
        refused(
            &|r| r.options.reasoning_effort = Some(ReasoningEffort::High),
            "reasoning effort",
        );
        refused(
            &|r| r.options.response_format = Some(ResponseFormat::JsonObject),
            "JSON response format",
        );
        refused(
            &|r| {
                r.options.response_format = Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
                    name: "a".into(),
                    schema_json: "{}".into(),
                    strict: true,
                }))
            },
            "JSON response format",
        );
        refused(
            &|r| {
                r.messages[1]
                    .content
                    .push(ContentPart::ImageUrl("https://x/y.png".into()))
            },
            "message 1",
        );
    }

    #[test]
    fn an_empty_reasoning_chunk_is_progress_and_codes_are_checked() {
        let up = chunks(
            "g",
            vec![
                old::Chunk::Reasoning(String::new()),
                old::Chunk::Reasoning("hm".into()),
                old::Chunk::Finish(old::Finish {
                    kind: old::FinishKind::Error,
                    reason: None,
                    failure: Some(old::LlmFailure {
                        message: "slow down".into(),
                        code: "RATE_LIMITED".into(),
                        status: Some(429),
                        provider_retry_after_ms: Some(5),
                        request_id: None,
                    }),
                }),
            ],
        )
        .unwrap();
        assert_eq!(up[0], Chunk::Progress(String::new()));
        assert_eq!(up[1], Chunk::Reasoning("hm".into()));
        let Chunk::Finish(f) = &up[2] else {
            panic!("{up:?}")
        };
        assert_eq!(
            f.failure
                .as_ref()
                .map(|x| (x.code, x.provider_retry_after_ms)),
            Some((FailureCode::RateLimited, Some(5)))
        );

        let bad = old::Chunk::Finish(old::Finish {
            kind: old::FinishKind::Error,
            reason: None,
            failure: Some(old::LlmFailure {
                message: "x".into(),
                code: "rate_limit_exceeded".into(),
                status: None,
                provider_retry_after_ms: None,
                request_id: None,
            }),
        });
        let f = chunks("g", vec![bad]).unwrap_err();
        assert_eq!(f.code, "ADAPTER_FAULT");
        assert!(
            f.message.contains("guest 'g'") && f.message.contains("rate_limit_exceeded"),
            "{}",
            f.message
        );
    }

    #[test]
    fn a_listener_sees_text_and_written_codes_and_its_replacement_comes_back_as_text() {
        let r = conversation();
        let ctx = FailureContext {
            failure: WitFailure {
                message: "too long".into(),
                code: FailureCode::ContextWindowExceeded,
                status: Some(400),
                provider_retry_after_ms: None,
                request_id: None,
            },
            turn: 1,
            step: 2,
            provider: "p".into(),
            earlier_retries: vec![EarlierRetry {
                policy_key: "llm-retry".into(),
                retry: 1,
                delay_ms: 10,
                code: FailureCode::Network,
            }],
            retry_policy_json: "{}".into(),
            messages: r.messages.clone(),
            random: 0.25,
        };
        let old_ctx = failure_context(&ctx);
        assert_eq!(old_ctx.failure.code, "CONTEXT_WINDOW_EXCEEDED");
        assert_eq!(old_ctx.earlier_retries[0].code, "NETWORK");
        assert_eq!(old_ctx.messages[1].content, "what now?");

        let back = decision(old_listener::Decision::Retry(old_listener::RetryDecision {
            delay_ms: 0,
            policy_key: "compaction".into(),
            replace_messages: Some(old_ctx.messages),
        }));
        let Decision::Retry(retry) = back else {
            panic!()
        };
        let messages = retry.replace_messages.unwrap();
        assert_eq!(messages[1].text(), "what now?");
        assert_eq!(messages[1].role, Role::User);
        assert_eq!(
            messages[2].tool_calls,
            vec![ToolCall::new("c1", "clock", "{}")]
        );
        assert_eq!(messages[0], Message::new(Role::System, "be brief"));
    }
}
