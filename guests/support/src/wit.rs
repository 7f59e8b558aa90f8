//! The wasm32-only WIT side shared by the Rust guests: the `dsh:llm/types` types generated once,
//! their conversions to and from the plain mirrors of [`crate::types`], and the export glue of the
//! two guest kinds ([`export_adapter!`](crate::export_adapter),
//! [`export_listener!`](crate::export_listener)).
//!
//! A guest's own `generate!` maps `dsh:llm/types` here (`with`), so its exports take and return
//! these types. The records of the exported interfaces (`adapter-info`, the listener records) are
//! still generated per guest: wit-bindgen always generates exported interfaces in the exporting
//! crate, which is why their conversions live in the macros, expanded in each guest.

use crate::types as t;

mod generated {
    wit_bindgen::generate!({
        inline: "
            package dsh:guest-support;
            world shared-types {
                import dsh:llm/types@0.2.0;
            }
        ",
        path: "../../wit/0.2.0",
        with: { "dsh:llm/types@0.2.0": generate },
    });
}

/// The generated `dsh:llm/types` (what the guests' `with` option points to).
pub use generated::dsh::llm::types;

use types as w;

impl From<w::ResponseHead> for t::ResponseHead {
    fn from(h: w::ResponseHead) -> Self {
        t::ResponseHead {
            status: h.status,
            headers: h.headers,
            received_at_ms: h.received_at_ms,
        }
    }
}

impl From<w::Endpoint> for t::Endpoint {
    fn from(e: w::Endpoint) -> Self {
        t::Endpoint {
            base_url: e.base_url,
        }
    }
}

impl From<t::HttpPlan> for w::HttpPlan {
    fn from(p: t::HttpPlan) -> Self {
        w::HttpPlan {
            method: p.method,
            url: p.url,
            headers: p.headers,
            body: p.body,
        }
    }
}

impl From<w::CompletionRequest> for t::CompletionRequest {
    fn from(r: w::CompletionRequest) -> Self {
        t::CompletionRequest {
            model: r.model,
            messages: r.messages.into_iter().map(Into::into).collect(),
            tools: r
                .tools
                .into_iter()
                .map(|s| t::ToolSpec {
                    name: s.name,
                    description: s.description,
                    parameters_schema: s.parameters_schema,
                })
                .collect(),
            options: r.options.into(),
        }
    }
}

impl From<w::GenerationOptions> for t::GenerationOptions {
    fn from(o: w::GenerationOptions) -> Self {
        t::GenerationOptions {
            max_output_tokens: o.max_output_tokens,
            temperature: o.temperature,
            top_p: o.top_p,
            stop: o.stop,
            reasoning_effort: o.reasoning_effort.map(|e| match e {
                w::ReasoningEffort::Minimal => t::ReasoningEffort::Minimal,
                w::ReasoningEffort::Low => t::ReasoningEffort::Low,
                w::ReasoningEffort::Medium => t::ReasoningEffort::Medium,
                w::ReasoningEffort::High => t::ReasoningEffort::High,
            }),
            response_format: o.response_format.map(|f| match f {
                w::ResponseFormat::Text => t::ResponseFormat::Text,
                w::ResponseFormat::JsonObject => t::ResponseFormat::JsonObject,
                w::ResponseFormat::JsonSchema(s) => {
                    t::ResponseFormat::JsonSchema(t::JsonSchemaFormat {
                        name: s.name,
                        schema_json: s.schema_json,
                        strict: s.strict,
                    })
                }
            }),
        }
    }
}

impl From<w::Role> for t::Role {
    fn from(r: w::Role) -> Self {
        match r {
            w::Role::System => t::Role::System,
            w::Role::User => t::Role::User,
            w::Role::Assistant => t::Role::Assistant,
            w::Role::Tool => t::Role::Tool,
        }
    }
}

impl From<t::Role> for w::Role {
    fn from(r: t::Role) -> Self {
        match r {
            t::Role::System => w::Role::System,
            t::Role::User => w::Role::User,
            t::Role::Assistant => w::Role::Assistant,
            t::Role::Tool => w::Role::Tool,
        }
    }
}

impl From<w::ContentPart> for t::ContentPart {
    fn from(p: w::ContentPart) -> Self {
        match p {
            w::ContentPart::Text(s) => t::ContentPart::Text(s),
            w::ContentPart::ImageUrl(s) => t::ContentPart::ImageUrl(s),
        }
    }
}

impl From<t::ContentPart> for w::ContentPart {
    fn from(p: t::ContentPart) -> Self {
        match p {
            t::ContentPart::Text(s) => w::ContentPart::Text(s),
            t::ContentPart::ImageUrl(s) => w::ContentPart::ImageUrl(s),
        }
    }
}

impl From<w::ToolCall> for t::ToolCall {
    fn from(c: w::ToolCall) -> Self {
        t::ToolCall {
            id: c.id,
            name: c.name,
            arguments: c.arguments,
            provider_data: c.provider_data,
        }
    }
}

impl From<t::ToolCall> for w::ToolCall {
    fn from(c: t::ToolCall) -> Self {
        w::ToolCall {
            id: c.id,
            name: c.name,
            arguments: c.arguments,
            provider_data: c.provider_data,
        }
    }
}

impl From<w::Message> for t::Message {
    fn from(m: w::Message) -> Self {
        t::Message {
            role: m.role.into(),
            content: m.content.into_iter().map(Into::into).collect(),
            tool_calls: m.tool_calls.into_iter().map(Into::into).collect(),
            tool_call_id: m.tool_call_id,
            provider_data: m.provider_data,
        }
    }
}

impl From<t::Message> for w::Message {
    fn from(m: t::Message) -> Self {
        w::Message {
            role: m.role.into(),
            content: m.content.into_iter().map(Into::into).collect(),
            tool_calls: m.tool_calls.into_iter().map(Into::into).collect(),
            tool_call_id: m.tool_call_id,
            provider_data: m.provider_data,
        }
    }
}

impl From<w::FailureCode> for t::FailureCode {
    fn from(c: w::FailureCode) -> Self {
        match c {
            w::FailureCode::ContextWindowExceeded => t::FailureCode::ContextWindowExceeded,
            w::FailureCode::EmptyResponse => t::FailureCode::EmptyResponse,
            w::FailureCode::Timeout => t::FailureCode::Timeout,
            w::FailureCode::Aborted => t::FailureCode::Aborted,
            w::FailureCode::RateLimited => t::FailureCode::RateLimited,
            w::FailureCode::QuotaExceeded => t::FailureCode::QuotaExceeded,
            w::FailureCode::Overloaded => t::FailureCode::Overloaded,
            w::FailureCode::ServerError => t::FailureCode::ServerError,
            w::FailureCode::Network => t::FailureCode::Network,
            w::FailureCode::StreamTruncated => t::FailureCode::StreamTruncated,
            w::FailureCode::Auth => t::FailureCode::Auth,
            w::FailureCode::InvalidRequest => t::FailureCode::InvalidRequest,
            w::FailureCode::ContentFilter => t::FailureCode::ContentFilter,
            w::FailureCode::AdapterFault => t::FailureCode::AdapterFault,
        }
    }
}

impl From<t::FailureCode> for w::FailureCode {
    fn from(c: t::FailureCode) -> Self {
        match c {
            t::FailureCode::ContextWindowExceeded => w::FailureCode::ContextWindowExceeded,
            t::FailureCode::EmptyResponse => w::FailureCode::EmptyResponse,
            t::FailureCode::Timeout => w::FailureCode::Timeout,
            t::FailureCode::Aborted => w::FailureCode::Aborted,
            t::FailureCode::RateLimited => w::FailureCode::RateLimited,
            t::FailureCode::QuotaExceeded => w::FailureCode::QuotaExceeded,
            t::FailureCode::Overloaded => w::FailureCode::Overloaded,
            t::FailureCode::ServerError => w::FailureCode::ServerError,
            t::FailureCode::Network => w::FailureCode::Network,
            t::FailureCode::StreamTruncated => w::FailureCode::StreamTruncated,
            t::FailureCode::Auth => w::FailureCode::Auth,
            t::FailureCode::InvalidRequest => w::FailureCode::InvalidRequest,
            t::FailureCode::ContentFilter => w::FailureCode::ContentFilter,
            t::FailureCode::AdapterFault => w::FailureCode::AdapterFault,
        }
    }
}

impl From<w::LlmFailure> for t::LlmFailure {
    fn from(f: w::LlmFailure) -> Self {
        t::LlmFailure {
            message: f.message,
            code: f.code.into(),
            status: f.status,
            provider_retry_after_ms: f.provider_retry_after_ms,
            request_id: f.request_id,
        }
    }
}

impl From<t::LlmFailure> for w::LlmFailure {
    fn from(f: t::LlmFailure) -> Self {
        w::LlmFailure {
            message: f.message,
            code: f.code.into(),
            status: f.status,
            provider_retry_after_ms: f.provider_retry_after_ms,
            request_id: f.request_id,
        }
    }
}

impl From<t::FinishKind> for w::FinishKind {
    fn from(k: t::FinishKind) -> Self {
        match k {
            t::FinishKind::Stop => w::FinishKind::Stop,
            t::FinishKind::Length => w::FinishKind::Length,
            t::FinishKind::ToolCalls => w::FinishKind::ToolCalls,
            t::FinishKind::ContentFilter => w::FinishKind::ContentFilter,
            t::FinishKind::Error => w::FinishKind::Error,
            t::FinishKind::Aborted => w::FinishKind::Aborted,
        }
    }
}

impl From<t::Chunk> for w::Chunk {
    fn from(c: t::Chunk) -> Self {
        match c {
            t::Chunk::Text(s) => w::Chunk::Text(s),
            t::Chunk::Reasoning(s) => w::Chunk::Reasoning(s),
            t::Chunk::ToolCall(d) => w::Chunk::ToolCall(w::ToolCallDelta {
                index: d.index,
                id: d.id,
                name: d.name,
                arguments: d.arguments,
                provider_data: d.provider_data,
            }),
            t::Chunk::Usage(u) => w::Chunk::Usage(w::Usage {
                input_tokens: u.input_tokens,
                output_tokens: u.output_tokens,
                cached_input_tokens: u.cached_input_tokens,
                reasoning_tokens: u.reasoning_tokens,
            }),
            t::Chunk::Finish(f) => w::Chunk::Finish(w::Finish {
                kind: f.kind.into(),
                reason: f.reason,
                failure: f.failure.map(Into::into),
            }),
            t::Chunk::Progress(s) => w::Chunk::Progress(s),
            t::Chunk::ProviderData(s) => w::Chunk::ProviderData(s),
        }
    }
}

/// The whole component export of a provider adapter (world `provider-adapter`), expanded in the
/// guest crate (in its wasm32-only `bindings` module). The crate root must provide `NAME`, `VERSION`,
/// `plan_request`, `classify_failure` and `Decoder` working on [`crate::types`]; the guest depends on
/// `wit-bindgen` (wasm32) and names this crate `dsh_guest_support`.
///
/// `export_adapter!()` reads the WIT at `../../wit/0.2.0` (a guest in this repository's `guests/`);
/// a project of its own (`dsh-host new`) names its copy: `export_adapter!(wit = "wit/0.2.0")`, a
/// path relative to the guest crate's Cargo.toml. It must be `dsh:llm@0.2.0`, the version of these
/// conversions.
#[macro_export]
#[allow(clippy::crate_in_macro_def)] // `crate::` is meant: the guest's own items, where it expands.
macro_rules! export_adapter {
    () => {
        $crate::export_adapter!(wit = "../../wit/0.2.0");
    };
    (wit = $wit:tt) => {
        wit_bindgen::generate!({
            path: $wit,
            world: "provider-adapter",
            with: { "dsh:llm/types@0.2.0": dsh_guest_support::wit::types },
        });

        use dsh_guest_support::wit::types as w;
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
                crate::plan_request(&endpoint.into(), &request.into())
                    .map(Into::into)
                    .map_err(Into::into)
            }

            fn classify_failure(head: w::ResponseHead, body: Vec<u8>) -> w::LlmFailure {
                crate::classify_failure(&head.into(), &body).into()
            }
        }

        /// The decoder resource: methods take `&self`, so the state lives in a RefCell.
        struct Decoder(::std::cell::RefCell<crate::Decoder>);

        impl GuestDecoder for Decoder {
            fn new(head: w::ResponseHead) -> Self {
                Decoder(::std::cell::RefCell::new(crate::Decoder::new(head.into())))
            }

            fn feed(&self, bytes: Vec<u8>) -> Vec<w::Chunk> {
                self.0.borrow_mut().feed(&bytes).into_iter().map(Into::into).collect()
            }

            fn end(&self) -> Vec<w::Chunk> {
                self.0.borrow_mut().end().into_iter().map(Into::into).collect()
            }
        }

        export!(Component);
    };
}

/// The whole component export of a recovery listener (world `recovery-listener`), expanded in the
/// guest crate (in its wasm32-only `bindings` module). The crate root must provide `NAME`,
/// `VERSION`, `configure` and `on_failure` working on [`crate::listener`]; the guest depends on
/// `wit-bindgen` (wasm32) and names this crate `dsh_guest_support`.
///
/// The WIT path works as for [`export_adapter!`](crate::export_adapter): `export_listener!()` for a
/// guest in this repository, `export_listener!(wit = "wit/0.2.0")` in a project of its own.
#[macro_export]
#[allow(clippy::crate_in_macro_def)] // `crate::` is meant: the guest's own items, where it expands.
macro_rules! export_listener {
    () => {
        $crate::export_listener!(wit = "../../wit/0.2.0");
    };
    (wit = $wit:tt) => {
        wit_bindgen::generate!({
            path: $wit,
            world: "recovery-listener",
            with: { "dsh:llm/types@0.2.0": dsh_guest_support::wit::types },
        });

        use dsh_guest_support::listener as t;
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
                failure: c.failure.into(),
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
                        code: r.code.into(),
                    })
                    .collect(),
                retry_policy_json: c.retry_policy_json,
                messages: c.messages.into_iter().map(Into::into).collect(),
                random: c.random,
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
                        .map(|ms| ms.into_iter().map(Into::into).collect()),
                }),
                t::Decision::GiveUp(reason) => l::Decision::GiveUp(reason),
            }
        }

        export!(Component);
    };
}
