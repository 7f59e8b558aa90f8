//! The wasm component export: converts between the generated WIT types and the library's.

use crate::types as t;

wit_bindgen::generate!({
    path: "../../wit",
    world: "recovery-listener",
});

use dsh::llm::types as w;
use exports::dsh::llm::listener as l;

struct Component;

impl l::Guest for Component {
    fn info() -> l::ListenerInfo {
        l::ListenerInfo {
            name: crate::NAME.to_string(),
            version: crate::VERSION.to_string(),
        }
    }

    fn configure(config_json: String) -> Result<(), String> {
        crate::configure(&config_json)
    }

    fn on_failure(context: l::FailureContext) -> l::Decision {
        decision_to(crate::on_failure(&context_from(context)))
    }
}

fn context_from(c: l::FailureContext) -> t::FailureContext {
    t::FailureContext {
        failure: t::LlmFailure {
            message: c.failure.message,
            code: c.failure.code,
            status: c.failure.status,
            provider_retry_after_ms: c.failure.provider_retry_after_ms,
            request_id: c.failure.request_id,
        },
        turn: c.turn,
        step: c.step,
        provider: c.provider,
        earlier_retries: c
            .earlier_retries
            .into_iter()
            .map(|r| t::EarlierRetry {
                policy_key: r.policy_key,
                retry: r.retry,
                delay_ms: r.delay_ms,
                code: r.code,
            })
            .collect(),
        retry_policy_json: c.retry_policy_json,
        messages: c.messages.into_iter().map(message_from).collect(),
        random: c.random,
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

fn message_to(m: t::Message) -> w::Message {
    w::Message {
        role: match m.role {
            t::Role::System => w::Role::System,
            t::Role::User => w::Role::User,
            t::Role::Assistant => w::Role::Assistant,
            t::Role::Tool => w::Role::Tool,
        },
        content: m.content,
        tool_calls: m
            .tool_calls
            .into_iter()
            .map(|c| w::ToolCall {
                id: c.id,
                name: c.name,
                arguments: c.arguments,
            })
            .collect(),
        tool_call_id: m.tool_call_id,
    }
}

fn decision_to(d: t::Decision) -> l::Decision {
    match d {
        t::Decision::Delegate => l::Decision::Delegate,
        t::Decision::Retry(r) => l::Decision::Retry(l::RetryDecision {
            delay_ms: r.delay_ms,
            policy_key: r.policy_key,
            replace_messages: r
                .replace_messages
                .map(|ms| ms.into_iter().map(message_to).collect()),
        }),
        t::Decision::GiveUp(reason) => l::Decision::GiveUp(reason),
    }
}

export!(Component);
