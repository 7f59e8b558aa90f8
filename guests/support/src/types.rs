//! Plain Rust mirrors of the `dsh:llm@0.2.0` WIT types (the records of `dsh:llm/types`, wit/0.2.0).
//!
//! The guests' logic works on these so that it can be unit-tested natively; the wasm32-only `wit`
//! module converts between them and the types wit-bindgen generates (once, for all the guests).
//! The listener-only records are in [`crate::listener`].

/// The canonical failure codes (WIT `failure-code`, docs/DESIGN.md "The failure record"). A
/// provider's own string is never a code: a guest can only send one of these.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FailureCode {
    ContextWindowExceeded,
    EmptyResponse,
    Timeout,
    Aborted,
    RateLimited,
    QuotaExceeded,
    Overloaded,
    ServerError,
    Network,
    StreamTruncated,
    Auth,
    InvalidRequest,
    ContentFilter,
    AdapterFault,
}

impl FailureCode {
    /// Every code, in the WIT's order.
    pub const ALL: [FailureCode; 14] = [
        FailureCode::ContextWindowExceeded,
        FailureCode::EmptyResponse,
        FailureCode::Timeout,
        FailureCode::Aborted,
        FailureCode::RateLimited,
        FailureCode::QuotaExceeded,
        FailureCode::Overloaded,
        FailureCode::ServerError,
        FailureCode::Network,
        FailureCode::StreamTruncated,
        FailureCode::Auth,
        FailureCode::InvalidRequest,
        FailureCode::ContentFilter,
        FailureCode::AdapterFault,
    ];

    /// The code as the session log, the config (`retryable_codes`) and people write it:
    /// `RATE_LIMITED`.
    pub const fn as_str(self) -> &'static str {
        match self {
            FailureCode::ContextWindowExceeded => "CONTEXT_WINDOW_EXCEEDED",
            FailureCode::EmptyResponse => "EMPTY_RESPONSE",
            FailureCode::Timeout => "TIMEOUT",
            FailureCode::Aborted => "ABORTED",
            FailureCode::RateLimited => "RATE_LIMITED",
            FailureCode::QuotaExceeded => "QUOTA_EXCEEDED",
            FailureCode::Overloaded => "OVERLOADED",
            FailureCode::ServerError => "SERVER_ERROR",
            FailureCode::Network => "NETWORK",
            FailureCode::StreamTruncated => "STREAM_TRUNCATED",
            FailureCode::Auth => "AUTH",
            FailureCode::InvalidRequest => "INVALID_REQUEST",
            FailureCode::ContentFilter => "CONTENT_FILTER",
            FailureCode::AdapterFault => "ADAPTER_FAULT",
        }
    }

    /// The code written as [`FailureCode::as_str`] does, exactly (case matters).
    pub fn parse(code: &str) -> Option<FailureCode> {
        FailureCode::ALL.into_iter().find(|c| c.as_str() == code)
    }
}

impl std::fmt::Display for FailureCode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Tests and fixtures compare codes with their written form.
impl PartialEq<str> for FailureCode {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for FailureCode {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for FailureCode {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

/// The codes under the names the guests have always used (`codes::RATE_LIMITED`).
pub mod codes {
    use super::FailureCode;

    pub const CONTEXT_WINDOW_EXCEEDED: FailureCode = FailureCode::ContextWindowExceeded;
    pub const EMPTY_RESPONSE: FailureCode = FailureCode::EmptyResponse;
    pub const TIMEOUT: FailureCode = FailureCode::Timeout;
    pub const ABORTED: FailureCode = FailureCode::Aborted;
    pub const RATE_LIMITED: FailureCode = FailureCode::RateLimited;
    pub const QUOTA_EXCEEDED: FailureCode = FailureCode::QuotaExceeded;
    pub const OVERLOADED: FailureCode = FailureCode::Overloaded;
    pub const SERVER_ERROR: FailureCode = FailureCode::ServerError;
    pub const NETWORK: FailureCode = FailureCode::Network;
    pub const STREAM_TRUNCATED: FailureCode = FailureCode::StreamTruncated;
    pub const AUTH: FailureCode = FailureCode::Auth;
    pub const INVALID_REQUEST: FailureCode = FailureCode::InvalidRequest;
    pub const CONTENT_FILTER: FailureCode = FailureCode::ContentFilter;
    pub const ADAPTER_FAULT: FailureCode = FailureCode::AdapterFault;
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LlmFailure {
    pub message: String,
    pub code: FailureCode,
    pub status: Option<u16>,
    pub provider_retry_after_ms: Option<u64>,
    pub request_id: Option<String>,
}

impl LlmFailure {
    /// A failure with only a message and a code (no status, hint or request id).
    pub fn new(code: FailureCode, message: impl Into<String>) -> Self {
        LlmFailure {
            message: message.into(),
            code,
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
    /// What the adapter that decoded the call attached to it, given back verbatim (WIT
    /// `tool-call.provider-data`).
    pub provider_data: Option<String>,
}

impl ToolCall {
    /// A call without provider data.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        arguments: impl Into<String>,
    ) -> Self {
        ToolCall {
            id: id.into(),
            name: name.into(),
            arguments: arguments.into(),
            provider_data: None,
        }
    }
}

/// One part of a message's content (WIT `content-part`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ContentPart {
    Text(String),
    /// An `https:` or `data:` URL.
    ImageUrl(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub role: Role,
    pub content: Vec<ContentPart>,
    pub tool_calls: Vec<ToolCall>,
    pub tool_call_id: Option<String>,
    /// What the adapter that decoded this (assistant) message attached to it, given back verbatim
    /// (WIT `message.provider-data`).
    pub provider_data: Option<String>,
}

impl Message {
    /// A message of one text part (none when `text` is empty), no calls, no provider data.
    pub fn new(role: Role, text: impl Into<String>) -> Self {
        let text = text.into();
        Message {
            role,
            content: if text.is_empty() {
                Vec::new()
            } else {
                vec![ContentPart::Text(text)]
            },
            tool_calls: Vec::new(),
            tool_call_id: None,
            provider_data: None,
        }
    }

    /// The text parts, joined (without separator: parts of one message are one text).
    pub fn text(&self) -> std::borrow::Cow<'_, str> {
        let mut texts = self.content.iter().filter_map(|p| match p {
            ContentPart::Text(t) => Some(t.as_str()),
            ContentPart::ImageUrl(_) => None,
        });
        match (texts.next(), texts.next()) {
            (None, _) => "".into(),
            (Some(one), None) => one.into(),
            (Some(a), Some(b)) => {
                let mut joined = format!("{a}{b}");
                joined.extend(texts);
                joined.into()
            }
        }
    }

    /// Whether any part is not text.
    pub fn has_images(&self) -> bool {
        self.content
            .iter()
            .any(|p| matches!(p, ContentPart::ImageUrl(_)))
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters_schema: String,
}

/// WIT `reasoning-effort`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReasoningEffort {
    Minimal,
    Low,
    Medium,
    High,
}

impl ReasoningEffort {
    /// The word OpenAI (and most OpenAI-compatible servers) use for it.
    pub fn as_str(self) -> &'static str {
        match self {
            ReasoningEffort::Minimal => "minimal",
            ReasoningEffort::Low => "low",
            ReasoningEffort::Medium => "medium",
            ReasoningEffort::High => "high",
        }
    }
}

/// WIT `json-schema-format`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JsonSchemaFormat {
    pub name: String,
    pub schema_json: String,
    pub strict: bool,
}

/// WIT `response-format`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ResponseFormat {
    Text,
    JsonObject,
    JsonSchema(JsonSchemaFormat),
}

/// WIT `generation-options`: every field unset or empty by default.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct GenerationOptions {
    pub max_output_tokens: Option<u32>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub stop: Vec<String>,
    pub reasoning_effort: Option<ReasoningEffort>,
    pub response_format: Option<ResponseFormat>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct CompletionRequest {
    pub model: String,
    pub messages: Vec<Message>,
    pub tools: Vec<ToolSpec>,
    pub options: GenerationOptions,
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
    /// The call's provider data, whole (the host keeps the last value for the index).
    pub provider_data: Option<String>,
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
    /// Real progress without content (WIT `chunk.progress`): the host's watchdog counts it.
    Progress(String),
    /// The response's message provider data, whole (WIT `chunk.provider-data`); before the finish.
    ProviderData(String),
}

impl Chunk {
    /// Joins each run of adjacent `Text` chunks, and each of adjacent `Reasoning` chunks, into one,
    /// in order. A decoder calls it on what one network read gave before returning it: the host
    /// lifts every returned chunk into a string of its own as it crosses the component boundary (a
    /// fifth of the decode time, one chunk per event, BENCHMARKS.md), and the host, the gateway and
    /// `dsh-host check` treat adjacent pieces of text as the one text they say.
    pub fn join_adjacent_text(chunks: &mut Vec<Chunk>) {
        if chunks.len() < 2 {
            return;
        }
        let mut joined: Vec<Chunk> = Vec::with_capacity(chunks.len());
        for chunk in chunks.drain(..) {
            let chunk = match (joined.last_mut(), chunk) {
                (Some(Chunk::Text(text)), Chunk::Text(more)) => {
                    text.push_str(&more);
                    continue;
                }
                (Some(Chunk::Reasoning(text)), Chunk::Reasoning(more)) => {
                    text.push_str(&more);
                    continue;
                }
                (_, chunk) => chunk,
            };
            joined.push(chunk);
        }
        *chunks = joined;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_text_and_adjacent_reasoning_join_and_nothing_else_moves() {
        let text = |s: &str| Chunk::Text(s.into());
        let reasoning = |s: &str| Chunk::Reasoning(s.into());
        let usage = Chunk::Usage(Usage::default());
        let mut chunks = vec![
            reasoning("Let me"),
            reasoning(" think"),
            text("Hel"),
            text("lo "),
            text("☃"),
            usage.clone(),
            text("!"),
            reasoning("again"),
            text(""),
            text("done"),
        ];
        Chunk::join_adjacent_text(&mut chunks);
        assert_eq!(
            chunks,
            vec![
                reasoning("Let me think"),
                text("Hello ☃"),
                usage,
                text("!"),
                reasoning("again"),
                text("done"),
            ]
        );
        let mut one = vec![text("only")];
        Chunk::join_adjacent_text(&mut one);
        assert_eq!(one, vec![text("only")]);
    }

    #[test]
    fn every_code_reads_back_from_its_written_form_and_nothing_else_does() {
        for code in FailureCode::ALL {
            assert_eq!(FailureCode::parse(code.as_str()), Some(code));
            assert_eq!(code, code.as_str());
        }
        for written in ["rate_limited", "RATE_LIMITTED", "", " RATE_LIMITED"] {
            assert_eq!(FailureCode::parse(written), None, "{written:?}");
        }
    }

    #[test]
    fn a_messages_text_joins_its_text_parts_only() {
        assert_eq!(Message::new(Role::User, "").content, vec![]);
        assert_eq!(Message::new(Role::User, "").text(), "");
        assert_eq!(Message::new(Role::User, "hi").text(), "hi");
        let m = Message {
            content: vec![
                ContentPart::Text("a".into()),
                ContentPart::ImageUrl("https://x/y.png".into()),
                ContentPart::Text("b".into()),
                ContentPart::Text("c".into()),
            ],
            ..Message::new(Role::User, "")
        };
        assert_eq!(m.text(), "abc");
        assert!(m.has_images());
    }
}
