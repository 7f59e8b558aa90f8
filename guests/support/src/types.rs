//! Plain Rust mirrors of the `dsh:llm` WIT types (the records of `dsh:llm/types`).
//!
//! The guests' logic works on these so that it can be unit-tested natively; the wasm32-only `wit`
//! module converts between them and the types wit-bindgen generates (once, for all the guests).
//! The listener-only records are in [`crate::listener`].

/// Canonical failure codes (docs/DESIGN.md, "The failure record"). A provider string is never a code.
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
    /// A failure with only a message and a code (no status, hint or request id).
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

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters_schema: String,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub max_tokens: Option<u32>,
    pub temperature: Option<f32>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    pub base_url: String,
}

pub type Headers = Vec<(String, String)>;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpPlan {
    pub method: String,
    pub url: String,
    pub headers: Headers,
    pub body: Vec<u8>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct ResponseHead {
    pub status: u16,
    pub headers: Headers,
    pub received_at_ms: u64,
}

impl ResponseHead {
    /// The first value of header `name`. The contract says names are lower-case; compare without
    /// case anyway, a host bug should not make a retry hint disappear.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_input_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolCallDelta {
    pub index: u32,
    pub id: Option<String>,
    pub name: Option<String>,
    pub arguments: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FinishKind {
    Stop,
    Length,
    ToolCalls,
    ContentFilter,
    Error,
    Aborted,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finish {
    pub kind: FinishKind,
    pub reason: Option<String>,
    pub failure: Option<LlmFailure>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Chunk {
    Text(String),
    Reasoning(String),
    ToolCall(ToolCallDelta),
    Usage(Usage),
    Finish(Finish),
}
