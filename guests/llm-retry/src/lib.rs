//! dsh recovery listener `llm-retry`: the provider's retry policy (exponential backoff with jitter,
//! honouring the provider's retry-after), docs/DESIGN.md "Recovery: the waterfall".
//!
//! A pure function of its input: no clock, no randomness of its own (the host's sample is in the
//! context), no I/O. The logic is plain Rust, tested natively; the wasm component export (`bindings`,
//! wasm32 only) converts the generated WIT types to these.
//!
//! The decision, in order:
//! 1. a code outside the default retryable set (`CONTEXT_WINDOW_EXCEEDED`, `ABORTED`,
//!    `QUOTA_EXCEEDED`, `AUTH`, `INVALID_REQUEST`, `CONTENT_FILTER`, `ADAPTER_FAULT`, or a code this
//!    version does not know) → `delegate`, before the policy is even read, so a compaction listener
//!    further down still gets its overflow;
//! 2. a policy that does not parse → `give-up`, naming the field;
//! 3. normal mode, a code not in `retryable_codes` → `delegate`;
//! 4. retry number = 1 + the earlier `llm/retry` events with policy key `llm-retry` (the count lives
//!    in the log, so a resumed process continues it); normal mode, retry number > `max_retries` →
//!    `give-up`;
//! 5. the provider's retry-after, when positive and within `max_delay_ms`, is the delay, exactly;
//!    longer than the cap: normal mode → `delegate` (gives up downstream), always mode → own delay;
//! 6. otherwise the policy's own backoff ([`RetryPolicy::backoff_ms`]).

pub mod policy;
pub mod types;

#[cfg(target_arch = "wasm32")]
mod bindings;

pub use policy::{Mode, RetryPolicy};
use types::{Decision, FailureContext, RetryDecision, codes};

/// The listener's name: the host prefixes every error about this guest with it.
pub const NAME: &str = "llm-retry";
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The key of this listener's retries in the log (`llm/retry` `policy_key`).
pub const POLICY_KEY: &str = "llm-retry";

/// The listener's own configuration: it has none. `{}` (or an empty string) is accepted; a
/// `retry_policy` is refused with where it belongs; any other key is refused by name.
pub fn configure(config_json: &str) -> Result<(), String> {
    if config_json.trim().is_empty() {
        return Ok(());
    }
    let value: serde_json::Value = serde_json::from_str(config_json)
        .map_err(|e| format!("the llm-retry listener's config is not valid JSON ({e})"))?;
    let serde_json::Value::Object(map) = value else {
        return Err(format!(
            "the llm-retry listener's config must be a JSON object (and empty), got {value}"
        ));
    };
    let mut others: Vec<&str> = map
        .keys()
        .map(String::as_str)
        .filter(|k| *k != "retry_policy")
        .collect();
    others.sort_unstable();
    if map.contains_key("retry_policy") {
        let mut e = "`retry_policy` does not belong in the llm-retry listener's config: the retry \
                     policy belongs to the provider, under [providers.NAME.retry_policy] in dsh.toml"
            .to_string();
        if !others.is_empty() {
            e.push_str(&format!(
                "; also unknown: {} (the llm-retry listener takes no configuration)",
                policy::quoted_list(&others)
            ));
        }
        return Err(e);
    }
    if !others.is_empty() {
        return Err(format!(
            "unknown key{} {} in the llm-retry listener's config: it takes no configuration (its \
             policy is the provider's [providers.NAME.retry_policy] in dsh.toml)",
            if others.len() == 1 { "" } else { "s" },
            policy::quoted_list(&others)
        ));
    }
    Ok(())
}

/// Decides what happens after a failed request (see the module documentation for the order).
pub fn on_failure(ctx: &FailureContext) -> Decision {
    let failure = &ctx.failure;
    let code = failure.code;
    if !codes::DEFAULT_RETRYABLE.contains(&code) {
        return Decision::Delegate;
    }

    let policy = match RetryPolicy::from_json(&ctx.retry_policy_json) {
        Ok(p) => p,
        Err(e) => {
            return Decision::GiveUp(format!(
                "llm-retry: invalid retry policy of provider {0} ([providers.{0}.retry_policy]): {e}",
                ctx.provider
            ));
        }
    };
    if !policy.retries_code(code) {
        return Decision::Delegate;
    }

    let earlier = ctx
        .earlier_retries
        .iter()
        .filter(|r| r.policy_key == POLICY_KEY)
        .count();
    let earlier = u32::try_from(earlier).unwrap_or(u32::MAX);
    let retry = earlier.saturating_add(1);

    if policy.mode == Mode::Normal && retry > policy.max_retries {
        // The host appends the failure itself (message, status) to the turn's error.
        let reason = if policy.max_retries == 0 {
            format!("llm-retry: retries are off (max_retries = 0); last failure {code}")
        } else {
            format!(
                "llm-retry: {earlier} {} exhausted (max_retries = {}); last failure {code}",
                if earlier == 1 { "retry" } else { "retries" },
                policy.max_retries
            )
        };
        return Decision::GiveUp(reason);
    }

    let delay_ms = match failure.provider_retry_after_ms {
        Some(hint) if hint > 0 && hint <= policy.max_delay_ms => hint,
        Some(hint) if hint > policy.max_delay_ms && policy.mode == Mode::Normal => {
            // Longer than we are willing to wait: not ours to retry; the waterfall continues and, if
            // nothing else acts, the turn ends with this failure.
            return Decision::Delegate;
        }
        _ => policy.backoff_ms(retry, ctx.random),
    };
    Decision::Retry(RetryDecision {
        delay_ms,
        policy_key: POLICY_KEY.to_string(),
        replace_messages: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::types::{EarlierRetry, LlmFailure};

    fn ctx(code: &str, policy: &str, earlier: usize, random: f64) -> FailureContext {
        let code = crate::types::FailureCode::parse(code).expect("a canonical code");
        FailureContext {
            failure: LlmFailure::new(code, "429 Too Many Requests"),
            turn: 1,
            step: 0,
            provider: "openai".to_string(),
            earlier_retries: (1..=earlier)
                .map(|i| EarlierRetry {
                    policy_key: POLICY_KEY.to_string(),
                    retry: i as u32,
                    delay_ms: 1000,
                    code,
                })
                .collect(),
            retry_policy_json: policy.to_string(),
            messages: Vec::new(),
            random,
        }
    }

    fn with_hint(mut c: FailureContext, hint: u64) -> FailureContext {
        c.failure.provider_retry_after_ms = Some(hint);
        c
    }

    fn delay(d: Decision) -> u64 {
        match d {
            Decision::Retry(r) => {
                assert_eq!(r.policy_key, "llm-retry");
                assert_eq!(r.replace_messages, None);
                r.delay_ms
            }
            other => panic!("expected a retry, got {other:?}"),
        }
    }

    fn give_up(d: Decision) -> String {
        match d {
            Decision::GiveUp(reason) => reason,
            other => panic!("expected give-up, got {other:?}"),
        }
    }

    #[test]
    fn info() {
        assert_eq!(NAME, "llm-retry");
        assert_eq!(POLICY_KEY, "llm-retry");
    }

    #[test]
    fn configure_accepts_only_the_empty_config() {
        assert_eq!(configure("{}"), Ok(()));
        assert_eq!(configure(""), Ok(()));
        assert_eq!(configure(" \n"), Ok(()));
        assert_eq!(configure(" { } "), Ok(()));
    }

    #[test]
    fn configure_refuses_a_retry_policy_and_says_where_it_belongs() {
        let e = configure(r#"{"retry_policy":{"max_retries":3}}"#).unwrap_err();
        assert!(e.contains("belongs to the provider"), "{e}");
        assert!(
            e.contains("[providers.NAME.retry_policy] in dsh.toml"),
            "{e}"
        );
        assert!(
            e.contains("not belong in the llm-retry listener's config"),
            "{e}"
        );
        let e = configure(r#"{"retry_policy":{},"foo":1}"#).unwrap_err();
        assert!(e.contains("belongs to the provider"), "{e}");
        assert!(e.contains("`foo`"), "{e}");
    }

    #[test]
    fn configure_refuses_unknown_keys_by_name() {
        let e = configure(r#"{"max_retries":3}"#).unwrap_err();
        assert!(e.contains("unknown key `max_retries`"), "{e}");
        assert!(e.contains("[providers.NAME.retry_policy]"), "{e}");
        let e = configure(r#"{"a":1,"b":2}"#).unwrap_err();
        assert!(e.contains("unknown keys `a`, `b`"), "{e}");
        assert!(
            configure("[]")
                .unwrap_err()
                .contains("must be a JSON object")
        );
        assert!(configure("{").unwrap_err().contains("not valid JSON"));
    }

    #[test]
    fn the_formula_for_retries_one_to_n() {
        let got: Vec<u64> = (0..5)
            .map(|earlier| delay(on_failure(&ctx("RATE_LIMITED", "{}", earlier, 0.5))))
            .collect();
        assert_eq!(got, [1000, 2000, 4000, 8000, 16000]);

        let always = r#"{"mode":"always","initial_delay_ms":500,"max_delay_ms":10000}"#;
        let got: Vec<u64> = (0..8)
            .map(|earlier| delay(on_failure(&ctx("OVERLOADED", always, earlier, 0.5))))
            .collect();
        assert_eq!(got, [500, 1000, 2000, 4000, 8000, 10000, 10000, 10000]);
    }

    #[test]
    fn always_mode_is_unbounded_and_survives_huge_counts() {
        let c = ctx("NETWORK", r#"{"mode":"always"}"#, 2000, 0.5);
        assert_eq!(delay(on_failure(&c)), 120_000);
        // The host sends every field: max_retries and retryable_codes do not bound always mode.
        let policy = r#"{"mode":"always","max_retries":1,"retryable_codes":["TIMEOUT"]}"#;
        assert_eq!(delay(on_failure(&ctx("NETWORK", policy, 10, 0.5))), 120_000);
    }

    #[test]
    fn jitter_uses_the_hosts_sample() {
        assert_eq!(delay(on_failure(&ctx("TIMEOUT", "{}", 0, 0.0))), 800);
        assert_eq!(
            delay(on_failure(&ctx("TIMEOUT", "{}", 0, 1.0 - f64::EPSILON))),
            1200
        );
        assert_eq!(delay(on_failure(&ctx("TIMEOUT", "{}", 2, 0.0))), 3200);
        assert_eq!(
            delay(on_failure(&ctx("TIMEOUT", "{}", 2, 1.0 - f64::EPSILON))),
            4800
        );
    }

    #[test]
    fn retry_after_is_honoured_exactly() {
        for policy in ["{}", r#"{"mode":"always"}"#] {
            // No jitter applied to the provider's hint.
            let c = with_hint(ctx("RATE_LIMITED", policy, 0, 0.0), 7_321);
            assert_eq!(delay(on_failure(&c)), 7_321);
            let c = with_hint(ctx("RATE_LIMITED", policy, 3, 0.99), 1);
            assert_eq!(delay(on_failure(&c)), 1);
            // Exactly the cap is still within it.
            let c = with_hint(ctx("RATE_LIMITED", policy, 0, 0.0), 120_000);
            assert_eq!(delay(on_failure(&c)), 120_000);
        }
    }

    #[test]
    fn a_zero_or_absent_retry_after_means_our_own_delay() {
        for policy in ["{}", r#"{"mode":"always"}"#] {
            let c = with_hint(ctx("RATE_LIMITED", policy, 1, 0.5), 0);
            assert_eq!(delay(on_failure(&c)), 2000);
            let c = ctx("RATE_LIMITED", policy, 1, 0.5);
            assert_eq!(delay(on_failure(&c)), 2000);
        }
    }

    #[test]
    fn a_retry_after_over_the_cap() {
        // normal: not ours, the waterfall continues (and gives up if nothing else acts).
        let c = with_hint(ctx("RATE_LIMITED", "{}", 0, 0.5), 120_001);
        assert_eq!(on_failure(&c), Decision::Delegate);
        let c = with_hint(
            ctx("RATE_LIMITED", r#"{"max_delay_ms":5000}"#, 0, 0.5),
            6000,
        );
        assert_eq!(on_failure(&c), Decision::Delegate);
        // always: our own delay instead.
        let c = with_hint(ctx("RATE_LIMITED", r#"{"mode":"always"}"#, 0, 0.5), 120_001);
        assert_eq!(delay(on_failure(&c)), 1000);
        let c = with_hint(
            ctx("RATE_LIMITED", r#"{"mode":"always"}"#, 9, 0.5),
            u64::MAX,
        );
        assert_eq!(delay(on_failure(&c)), 120_000);
    }

    #[test]
    fn codes_that_are_not_retryable_are_delegated() {
        for policy in ["{}", r#"{"mode":"always"}"#] {
            for code in codes::NEVER_RETRIED {
                let c = with_hint(ctx(code.as_str(), policy, 0, 0.5), 1000);
                assert_eq!(on_failure(&c), Decision::Delegate, "{code} {policy}");
            }
            // A code this listener does not know cannot reach it: since dsh:llm@0.2.0 the code
            // is an enum, and the host refuses a guest's unknown code before any listener sees it.
        }
        // Normal mode: outside the configured allowlist.
        let policy = r#"{"retryable_codes":["NETWORK"]}"#;
        assert_eq!(
            on_failure(&ctx("RATE_LIMITED", policy, 0, 0.5)),
            Decision::Delegate
        );
        assert_eq!(delay(on_failure(&ctx("NETWORK", policy, 0, 0.5))), 1000);
        // Listing a never-retried code does not make it retryable.
        let policy = r#"{"retryable_codes":["AUTH","CONTEXT_WINDOW_EXCEEDED"]}"#;
        assert_eq!(on_failure(&ctx("AUTH", policy, 0, 0.5)), Decision::Delegate);
        assert_eq!(
            on_failure(&ctx("CONTEXT_WINDOW_EXCEEDED", policy, 0, 0.5)),
            Decision::Delegate
        );
        let policy = r#"{"retryable_codes":[]}"#;
        assert_eq!(
            on_failure(&ctx("NETWORK", policy, 0, 0.5)),
            Decision::Delegate
        );
    }

    #[test]
    fn every_default_code_is_retried() {
        for policy in ["{}", r#"{"mode":"always"}"#] {
            for code in codes::DEFAULT_RETRYABLE {
                assert_eq!(delay(on_failure(&ctx(code.as_str(), policy, 0, 0.5))), 1000);
            }
        }
    }

    #[test]
    fn max_retries_exhausted_gives_up() {
        assert_eq!(delay(on_failure(&ctx("RATE_LIMITED", "{}", 4, 0.5))), 16000);
        let reason = give_up(on_failure(&ctx("RATE_LIMITED", "{}", 5, 0.5)));
        assert_eq!(
            reason,
            "llm-retry: 5 retries exhausted (max_retries = 5); last failure RATE_LIMITED"
        );
        // Also when the hint would have been honoured.
        let c = with_hint(ctx("RATE_LIMITED", "{}", 5, 0.5), 10);
        give_up(on_failure(&c));

        let reason = give_up(on_failure(&ctx(
            "SERVER_ERROR",
            r#"{"max_retries":1}"#,
            1,
            0.5,
        )));
        assert!(
            reason.starts_with(
                "llm-retry: 1 retry exhausted (max_retries = 1); last failure SERVER_ERROR"
            ),
            "{reason}"
        );
        let reason = give_up(on_failure(&ctx("NETWORK", r#"{"max_retries":0}"#, 0, 0.5)));
        assert!(
            reason
                .starts_with("llm-retry: retries are off (max_retries = 0); last failure NETWORK"),
            "{reason}"
        );
        // A policy lowered between runs: the log already holds more retries than allowed.
        let reason = give_up(on_failure(&ctx("NETWORK", r#"{"max_retries":2}"#, 4, 0.5)));
        assert!(
            reason.contains("4 retries exhausted (max_retries = 2)"),
            "{reason}"
        );
    }

    #[test]
    fn the_count_comes_from_the_log_and_ignores_other_policy_keys() {
        let mut c = ctx("OVERLOADED", "{}", 2, 0.5);
        for key in ["compaction-basic", "my-listener", "LLM-RETRY", "llm-retry "] {
            c.earlier_retries.push(EarlierRetry {
                policy_key: key.to_string(),
                retry: 1,
                delay_ms: 0,
                code: codes::CONTEXT_WINDOW_EXCEEDED,
            });
        }
        // Two of ours: this is retry 3.
        assert_eq!(delay(on_failure(&c)), 4000);
        // Interleaved, in any order: still only ours count.
        c.earlier_retries.rotate_left(3);
        assert_eq!(delay(on_failure(&c)), 4000);
        // Others alone never exhaust our budget.
        let mut c = ctx("OVERLOADED", r#"{"max_retries":1}"#, 0, 0.5);
        c.earlier_retries = (0..10)
            .map(|i| EarlierRetry {
                policy_key: "compaction-basic".to_string(),
                retry: i,
                delay_ms: 0,
                code: codes::CONTEXT_WINDOW_EXCEEDED,
            })
            .collect();
        assert_eq!(delay(on_failure(&c)), 1000);
    }

    #[test]
    fn a_bad_policy_gives_up_naming_the_field() {
        let cases = [
            (r#"{"max_retries":-1}"#, "max_retries must be"),
            (r#"{"jitter_ratio":2}"#, "jitter_ratio must be"),
            (r#"{"initial_delay_ms":"1s"}"#, "initial_delay_ms must be"),
            (r#"{"max_delay_ms":-1}"#, "max_delay_ms must be"),
            (r#"{"mode":"forever"}"#, "mode must be"),
            (
                r#"{"retryable_codes":["RATE_LIMITTED"]}"#,
                "retryable_codes",
            ),
            (r#"{"initial_delay_ms":0}"#, "initial_delay_ms must be"),
            (r#"{"max_retires":3}"#, "unknown field `max_retires`"),
            ("not json", "not valid JSON"),
        ];
        for (policy, want) in cases {
            let reason = give_up(on_failure(&ctx("RATE_LIMITED", policy, 0, 0.5)));
            assert!(
                reason.starts_with(
                    "llm-retry: invalid retry policy of provider openai \
                     ([providers.openai.retry_policy]): "
                ),
                "{reason}"
            );
            assert!(reason.contains(want), "{policy}: {reason:?} lacks {want:?}");
        }
        // A code that is never ours is delegated before the policy is read: a compaction listener
        // further down still gets the overflow.
        let c = ctx("CONTEXT_WINDOW_EXCEEDED", r#"{"max_retries":-1}"#, 0, 0.5);
        assert_eq!(on_failure(&c), Decision::Delegate);
    }
}
