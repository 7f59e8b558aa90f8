//! Plain Rust mirrors of the `dsh:llm` WIT types a recovery listener sees.
//!
//! The listener's logic works on these so that it can be unit-tested natively; the wasm export layer
//! (`bindings.rs`) only converts between them and the generated types.

/// Canonical failure codes (DESIGN.md, "The failure record"). A provider string is never a code.
pub mod codes {
    pub const CONTEXT_WINDOW_EXCEEDED: &str = "CONTEXT_WINDOW_EXCEEDED";
    pub const EMPTY_RESPONSE: &str = "EMPTY_RESPONSE";
    pub const TIMEOUT: &str = "TIMEOUT";
    pub const ABORTED: &str = "ABORTED";
    pub const RATE_LIMITED: &str = "RATE_LIMITED";
    pub const QUOTA_EXCEEDED: &str = "QUOTA_EXCEEDED";
    pub const OVERLOADED: &str = "OVERLOADED";
    pub const SERVER_ERROR: &str = "SERVER_ERROR";
    pub const NETWORK: &str = "NETWORK";
    pub const STREAM_TRUNCATED: &str = "STREAM_TRUNCATED";
    pub const AUTH: &str = "AUTH";
    pub const INVALID_REQUEST: &str = "INVALID_REQUEST";
    pub const CONTENT_FILTER: &str = "CONTENT_FILTER";
    pub const ADAPTER_FAULT: &str = "ADAPTER_FAULT";

    /// Retryable by default (DESIGN.md): the default `retryable_codes`, and the set `always` mode
    /// retries.
    pub const DEFAULT_RETRYABLE: [&str; 7] = [
        RATE_LIMITED,
        OVERLOADED,
        SERVER_ERROR,
        NETWORK,
        STREAM_TRUNCATED,
        TIMEOUT,
        EMPTY_RESPONSE,
    ];

    /// Never retried by the retry policy, in either mode, whatever `retryable_codes` says.
    pub const NEVER_RETRIED: [&str; 7] = [
        CONTEXT_WINDOW_EXCEEDED,
        ABORTED,
        QUOTA_EXCEEDED,
        AUTH,
        INVALID_REQUEST,
        CONTENT_FILTER,
        ADAPTER_FAULT,
    ];
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmFailure {
    pub message: String,
    pub code: String,
    pub status: Option<u16>,
    pub provider_retry_after_ms: Option<u64>,
    pub request_id: Option<String>,
}

impl LlmFailure {
    /// A failure with only a code and a message (no status, hint or request id).
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        LlmFailure {
            message: message.into(),
            code: code.to_string(),
            status: None,
            provider_retry_after_ms: None,
            request_id: None,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: String,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
}

/// An earlier `llm/retry` event of the same (turn, step, provider), from the session log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierRetry {
    pub policy_key: String,
    pub retry: u32,
    pub delay_ms: u64,
    pub code: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct FailureContext {
    pub failure: LlmFailure,
    pub turn: u32,
    pub step: u32,
    pub provider: String,
    pub earlier_retries: Vec<EarlierRetry>,
    /// The provider's retry policy (`[providers.NAME.retry_policy]`), as a JSON object.
    pub retry_policy_json: String,
    /// The messages of the failed attempt.
    pub messages: Vec<Message>,
    /// A uniform sample in [0, 1) drawn by the host.
    pub random: f64,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RetryDecision {
    pub delay_ms: u64,
    pub policy_key: String,
    pub replace_messages: Option<Vec<Message>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Not mine: ask the next listener.
    Delegate,
    Retry(RetryDecision),
    /// Stop recovering: the turn fails with this reason.
    GiveUp(String),
}
