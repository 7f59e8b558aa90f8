//! The `dsh:llm` WIT mirror types this listener sees: the shared ones from `dsh-guest-support`, plus
//! the retry policy's own code sets.

pub use dsh_guest_support::listener::{
    Decision, EarlierRetry, FailureCode, FailureContext, LlmFailure, Message, RetryDecision, Role,
    ToolCall,
};

/// Canonical failure codes (shared), plus the sets the retry policy is defined by. The sets stay
/// here: they are this listener's policy, not part of the WIT contract.
pub mod codes {
    use dsh_guest_support::types::FailureCode;
    pub use dsh_guest_support::types::codes::*;

    /// Retryable by default (docs/DESIGN.md): the default `retryable_codes`, and the set `always` mode
    /// retries.
    pub const DEFAULT_RETRYABLE: [FailureCode; 7] = [
        RATE_LIMITED,
        OVERLOADED,
        SERVER_ERROR,
        NETWORK,
        STREAM_TRUNCATED,
        TIMEOUT,
        EMPTY_RESPONSE,
    ];

    /// Never retried by the retry policy, in either mode, whatever `retryable_codes` says.
    pub const NEVER_RETRIED: [FailureCode; 7] = [
        CONTEXT_WINDOW_EXCEEDED,
        ABORTED,
        QUOTA_EXCEEDED,
        AUTH,
        INVALID_REQUEST,
        CONTENT_FILTER,
        ADAPTER_FAULT,
    ];
}
