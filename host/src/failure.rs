//! The canonical failure record as the host sees it, and the codes it may carry.
//!
//! Guests produce `llm-failure` records over WIT; the host converts them into [`LlmFailure`] and adds
//! the failures only it can see (transport errors, truncated streams, empty completions, guest faults).

use serde::{Deserialize, Serialize};
use std::fmt;

/// Every canonical code of docs/DESIGN.md. A guest that sends anything else is reported as an adapter fault.
pub const CODES: &[&str] = &[
    "CONTEXT_WINDOW_EXCEEDED",
    "EMPTY_RESPONSE",
    "TIMEOUT",
    "ABORTED",
    "RATE_LIMITED",
    "QUOTA_EXCEEDED",
    "OVERLOADED",
    "SERVER_ERROR",
    "NETWORK",
    "STREAM_TRUNCATED",
    "AUTH",
    "INVALID_REQUEST",
    "CONTENT_FILTER",
    "ADAPTER_FAULT",
];

/// Codes the retry policy may retry by default.
pub const RETRYABLE_BY_DEFAULT: &[&str] = &[
    "RATE_LIMITED",
    "OVERLOADED",
    "SERVER_ERROR",
    "NETWORK",
    "STREAM_TRUNCATED",
    "TIMEOUT",
    "EMPTY_RESPONSE",
];

pub fn is_canonical(code: &str) -> bool {
    CODES.contains(&code)
}

/// One failure of one attempt, whatever its origin.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct LlmFailure {
    pub code: String,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub status: Option<u16>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub provider_retry_after_ms: Option<u64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub request_id: Option<String>,
}

impl LlmFailure {
    pub fn new(code: &str, message: impl Into<String>) -> Self {
        debug_assert!(is_canonical(code), "not a canonical code: {code}");
        LlmFailure {
            code: code.to_string(),
            message: message.into(),
            status: None,
            provider_retry_after_ms: None,
            request_id: None,
        }
    }

    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }

    /// A guest misbehaved (trap, limit, bad output): always prefixed with the guest's name.
    pub fn adapter_fault(guest: &str, what: impl fmt::Display) -> Self {
        LlmFailure::new("ADAPTER_FAULT", format!("guest '{guest}': {what}"))
    }

    /// Checks a record that came from a guest: a non-canonical code is the guest's bug, reported as
    /// such (with the code it sent) rather than passed on to listeners that cannot know it.
    ///
    /// `ABORTED` belongs to the caller (Ctrl-C, a dropped client) and never reaches the listeners; a
    /// guest that reports it is describing the provider cancelling on its side, a provider failure
    /// that goes through the waterfall as `SERVER_ERROR`.
    pub fn from_guest(guest: &str, failure: LlmFailure) -> Self {
        if failure.code == "ABORTED" {
            LlmFailure {
                code: "SERVER_ERROR".into(),
                message: format!(
                    "the provider aborted the request on its side: {}",
                    failure.message
                ),
                ..failure
            }
        } else if is_canonical(&failure.code) {
            failure
        } else {
            LlmFailure {
                code: "ADAPTER_FAULT".into(),
                message: format!(
                    "guest '{guest}' returned the non-canonical failure code {:?} (message: {})",
                    failure.code, failure.message
                ),
                ..failure
            }
        }
    }
}

impl fmt::Display for LlmFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.code)?;
        if let Some(status) = self.status {
            write!(f, " (HTTP {status})")?;
        }
        write!(f, ": {}", self.message)?;
        if let Some(ms) = self.provider_retry_after_ms {
            write!(f, " [provider asks to retry after {ms} ms]")?;
        }
        if let Some(id) = &self.request_id {
            write!(f, " [request id {id}]")?;
        }
        Ok(())
    }
}

impl std::error::Error for LlmFailure {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_canonical_guest_code_becomes_adapter_fault_naming_the_guest() {
        let f = LlmFailure {
            code: "rate_limit_exceeded".into(),
            message: "slow down".into(),
            status: Some(429),
            provider_retry_after_ms: None,
            request_id: None,
        };
        let checked = LlmFailure::from_guest("openai", f);
        assert_eq!(checked.code, "ADAPTER_FAULT");
        assert!(checked.message.contains("guest 'openai'"));
        assert!(checked.message.contains("rate_limit_exceeded"));
        assert_eq!(checked.status, Some(429));
    }

    #[test]
    fn canonical_guest_code_is_kept() {
        let f = LlmFailure::new("RATE_LIMITED", "slow down").with_status(429);
        assert_eq!(LlmFailure::from_guest("openai", f.clone()), f);
    }

    #[test]
    fn display_shows_code_status_and_hints() {
        let mut f = LlmFailure::new("RATE_LIMITED", "slow down").with_status(429);
        f.provider_retry_after_ms = Some(2000);
        f.request_id = Some("req_1".into());
        assert_eq!(
            f.to_string(),
            "RATE_LIMITED (HTTP 429): slow down [provider asks to retry after 2000 ms] [request id req_1]"
        );
    }

    #[test]
    fn retryable_codes_are_canonical() {
        assert!(RETRYABLE_BY_DEFAULT.iter().all(|c| is_canonical(c)));
    }
}
