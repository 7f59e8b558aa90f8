//! Plain Rust mirrors of the records of the `dsh:llm/listener` WIT interface (recovery listeners).
//!
//! Kept apart from [`crate::types`] because only the listener guests use them; the records they
//! share with the adapters (`LlmFailure`, `Message`) are re-exported from there.

pub use crate::types::{ContentPart, FailureCode, LlmFailure, Message, Role, ToolCall, codes};

/// An earlier `llm/retry` event of the same (turn, step, provider), from the session log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EarlierRetry {
    pub policy_key: String,
    pub retry: u32,
    pub delay_ms: u64,
    pub code: FailureCode,
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
