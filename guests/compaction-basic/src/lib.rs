//! dsh recovery listener `compaction-basic`: on `CONTEXT_WINDOW_EXCEEDED`, drops the oldest
//! exchanges of the conversation and retries at once with the shorter message list.
//!
//! - Every other code → `delegate`.
//! - The system message(s) and the latest user turn (the last user message and everything after it)
//!   always stay; the oldest exchanges go first, about half of them per retry (at least one), so that
//!   repeated overflows converge in O(log n) retries; an assistant's tool calls are never separated
//!   from their results ([`compact`]).
//! - Nothing left to drop → `give-up`: the latest user turn alone exceeds the context window.
//!
//! A pure function of its input: no clock, no randomness, no I/O. The logic is plain Rust, tested
//! natively; the wasm component export (`bindings`, wasm32 only) converts the generated WIT types to
//! these.

pub mod compact;
// The WIT mirror types, shared with the other Rust guests (this listener needs nothing of its own).
pub use dsh_guest_support::listener as types;

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use compact::{CannotCompact, Compacted, compact};
use types::{Decision, FailureContext, RetryDecision, codes};

/// The listener's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "compaction-basic";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The key of this listener's retries in the log (`llm/retry` `policy_key`).
pub const POLICY_KEY: &str = "compaction-basic";

/// The listener's own configuration: it has none. `{}` (or an empty string) is accepted; any key is
/// refused by name.
pub fn configure(config_json: &str) -> Result<(), String> {
    if config_json.trim().is_empty() {
        return Ok(());
    }
    let value: serde_json::Value = serde_json::from_str(config_json)
        .map_err(|e| format!("the compaction-basic listener's config is not valid JSON ({e})"))?;
    let serde_json::Value::Object(map) = value else {
        return Err(format!(
            "the compaction-basic listener's config must be a JSON object (and empty), got {value}"
        ));
    };
    if map.is_empty() {
        return Ok(());
    }
    let mut keys: Vec<String> = map.keys().map(|k| format!("`{k}`")).collect();
    keys.sort();
    Err(format!(
        "unknown key{} {} in the compaction-basic listener's config: it takes no configuration",
        if keys.len() == 1 { "" } else { "s" },
        keys.join(", ")
    ))
}

/// Decides what happens after a failed request.
pub fn on_failure(ctx: &FailureContext) -> Decision {
    if ctx.failure.code != codes::CONTEXT_WINDOW_EXCEEDED {
        return Decision::Delegate;
    }
    match compact(&ctx.messages) {
        Ok(c) => Decision::Retry(RetryDecision {
            delay_ms: 0,
            policy_key: POLICY_KEY.to_string(),
            replace_messages: Some(c.messages),
        }),
        Err(why) => {
            // The host appends the failure itself (message, status) to the turn's error.
            Decision::GiveUp(format!(
                "compaction-basic: the conversation cannot be shortened further: {}",
                match why {
                    CannotCompact::NothingBeforeLatestTurn =>
                        "only the system message(s) and the latest user turn are left, and the \
                         latest user turn alone exceeds the context window",
                    CannotCompact::NoUserTurn =>
                        "it has no user turn, so no earlier exchange to drop, and it exceeds the \
                         context window",
                    CannotCompact::ToolCallsSpanTurns =>
                        "every earlier exchange has a tool call whose result comes after a later \
                         user message, and a call is never separated from its result",
                }
            ))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::compact::tests::{assistant, call, contents, conversation, result, system, user};
    use crate::types::{LlmFailure, Message};

    fn ctx(code: &str, messages: Vec<Message>) -> FailureContext {
        FailureContext {
            failure: LlmFailure::new(
                crate::types::FailureCode::parse(code).expect("a canonical code"),
                "maximum context length is 8192 tokens",
            ),
            turn: 3,
            step: 1,
            provider: "openai".to_string(),
            earlier_retries: Vec::new(),
            retry_policy_json: "{}".to_string(),
            messages,
            random: 0.5,
        }
    }

    fn replaced(d: Decision) -> Vec<Message> {
        match d {
            Decision::Retry(r) => {
                assert_eq!(r.delay_ms, 0);
                assert_eq!(r.policy_key, "compaction-basic");
                r.replace_messages.expect("a replacement list")
            }
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    #[test]
    fn info() {
        assert_eq!(NAME, "compaction-basic");
        assert_eq!(POLICY_KEY, "compaction-basic");
    }

    #[test]
    fn configure_accepts_only_the_empty_config() {
        assert_eq!(configure("{}"), Ok(()));
        assert_eq!(configure(""), Ok(()));
        assert_eq!(configure(" { }\n"), Ok(()));
        let e = configure(r#"{"min_keep_exchanges":2}"#).unwrap_err();
        assert!(e.contains("unknown key `min_keep_exchanges`"), "{e}");
        let e = configure(r#"{"b":1,"a":2}"#).unwrap_err();
        assert!(e.contains("unknown keys `a`, `b`"), "{e}");
        assert!(
            configure("[]")
                .unwrap_err()
                .contains("must be a JSON object")
        );
        assert!(configure("{").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn other_codes_are_delegated() {
        for code in [
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
        ] {
            assert_eq!(on_failure(&ctx(code, conversation(4))), Decision::Delegate);
        }
    }

    /// A kept message keeps its provider data (Anthropic's thinking signatures): the provider
    /// requires it back, and compaction only drops whole exchanges.
    #[test]
    fn kept_messages_keep_their_provider_data() {
        let mut messages = conversation(4);
        for m in messages
            .iter_mut()
            .filter(|m| m.role == crate::types::Role::Assistant)
        {
            m.provider_data = Some(format!("data of {}", m.text()));
        }
        let ms = replaced(on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", messages)));
        let kept: Vec<_> = ms.iter().filter_map(|m| m.provider_data.clone()).collect();
        assert_eq!(kept, ["data of a2", "data of a3"]);
    }

    #[test]
    fn an_overflow_retries_at_once_with_the_oldest_exchanges_dropped() {
        let ms = replaced(on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", conversation(6))));
        assert_eq!(
            contents(&ms),
            ["sys", "u3", "a3", "u4", "a4", "u5", "a5", "latest"]
        );
    }

    #[test]
    fn tool_calls_stay_with_their_results() {
        let messages = vec![
            system("sys"),
            user("u0"),
            call("c0", &["a"]),
            result("a", "ra"),
            assistant("a0"),
            user("u1"),
            call("c1", &["b", "c"]),
            result("b", "rb"),
            result("c", "rc"),
            assistant("a1"),
            user("latest"),
            call("c2", &["d"]),
            result("d", "rd"),
        ];
        let ms = replaced(on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", messages)));
        assert_eq!(
            contents(&ms),
            ["sys", "u1", "c1", "rb", "rc", "a1", "latest", "c2", "rd"]
        );
        crate::compact::tests::assert_pairs_intact(&ms);
    }

    #[test]
    fn nothing_to_drop_gives_up() {
        let d = on_failure(&ctx(
            "CONTEXT_WINDOW_EXCEEDED",
            vec![
                system("sys"),
                user("latest"),
                call("c", &["x"]),
                result("x", "huge"),
            ],
        ));
        let Decision::GiveUp(reason) = d else {
            panic!("expected give-up, got {d:?}")
        };
        assert!(
            reason.starts_with("compaction-basic: the conversation cannot be shortened further"),
            "{reason}"
        );
        assert!(
            reason.contains("the latest user turn alone exceeds the context window"),
            "{reason}"
        );
        assert!(
            !reason.contains("8192"),
            "the host appends the failure: {reason}"
        );
        let d = on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", vec![system("sys")]));
        assert!(matches!(d, Decision::GiveUp(r) if r.contains("no user turn")));
    }

    #[test]
    fn repeated_overflows_converge_then_give_up() {
        let mut messages = conversation(50);
        let mut retries = 0;
        loop {
            match on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", messages.clone())) {
                Decision::Retry(r) => {
                    let next = r.replace_messages.unwrap();
                    assert!(next.len() < messages.len());
                    messages = next;
                    retries += 1;
                }
                Decision::GiveUp(_) => break,
                Decision::Delegate => panic!("delegated an overflow"),
            }
        }
        // 50 → 25 → 12 → 6 → 3 → 1 → 0 exchanges.
        assert_eq!(retries, 6);
        assert_eq!(contents(&messages), ["sys", "latest"]);
    }
}
