//! The checks of a recovery listener (docs/check.md): properties that hold for any listener (its
//! configuration refuses what it does not know; each code gets a valid decision, the same one for
//! the same input, with a delay within the bounds the retry policy declares), then the author's
//! scenarios (a failure sequence of one step and the decision it must end in). Every decision goes
//! through `Listener::decide`, the waterfall's own call.

use super::cases::{ExpectDecision, Scenario};
use super::decode::Rng;
use super::report::{Row, clip};
use crate::adapter::{Message, Role};
use crate::engine::{GuestEngine, GuestLimits};
use crate::failure::LlmFailure;
use crate::guests::GuestSource;
use crate::listener::{Decision, EarlierRetry, FailureContext, Listener};
use serde_json::Value;

/// The key no listener knows, to see that configuration is fail-loud.
pub const UNKNOWN_KEY: &str = "dsh_check_unknown_key";

/// The retry policy a check hands every decision: its JSON and the bound on a retry's delay it
/// implies (`max_delay_ms` stretched by the jitter, as llm-retry's backoff can be).
pub struct Policy {
    pub json: String,
    pub max_delay_ms: u64,
}

impl Policy {
    /// `given`: a case file's `retry_policy`, else the host's default.
    pub fn new(given: Option<&Value>) -> Result<Policy, String> {
        let json = match given {
            Some(v) => v.to_string(),
            None => crate::config::RetryPolicy::default().to_json(),
        };
        let value: Value = serde_json::from_str(&json).map_err(|e| e.to_string())?;
        let max = value
            .get("max_delay_ms")
            .and_then(Value::as_u64)
            .unwrap_or(crate::config::RetryPolicy::default().max_delay_ms);
        let jitter = value
            .get("jitter_ratio")
            .and_then(Value::as_f64)
            .unwrap_or(crate::config::RetryPolicy::default().jitter_ratio);
        Ok(Policy {
            json,
            max_delay_ms: (max as f64 * (1.0 + jitter.clamp(0.0, 1.0))).ceil() as u64,
        })
    }
}

pub struct ListenerChecker<'a> {
    engine: &'a GuestEngine,
    source: &'a GuestSource,
    limits: GuestLimits,
    listener: Listener,
    policy: Policy,
}

impl<'a> ListenerChecker<'a> {
    /// Loads the listener with `config_json`, as `[[listeners]]` would. The row says whether it was
    /// accepted; without it nothing else can be checked.
    pub async fn load(
        engine: &'a GuestEngine,
        source: &'a GuestSource,
        limits: GuestLimits,
        config_json: &str,
        policy: Policy,
    ) -> Result<ListenerChecker<'a>, Row> {
        let mut row = Row::new(
            "built-in",
            &format!("configure {}", clip(config_json, 60)),
            "accepted",
        );
        match Listener::load(engine, source, config_json, limits.clone()).await {
            Ok(listener) => Ok(ListenerChecker {
                engine,
                source,
                limits,
                listener,
                policy,
            }),
            Err(e) => {
                row.got = "refused".into();
                row.problem(format!(
                    "{e:#} (give the configuration the listener needs with --listener-config JSON, or `config` in the scenario file)"
                ));
                Err(row)
            }
        }
    }

    pub fn listener(&self) -> &Listener {
        &self.listener
    }

    /// Configuration must be fail-loud: an unknown key and a config that is not an object are
    /// refused at load, with the listener's own words.
    pub async fn configuration(&self, config_json: &str) -> Vec<Row> {
        let mut with_unknown = serde_json::from_str::<Value>(config_json)
            .ok()
            .filter(Value::is_object)
            .unwrap_or_else(|| Value::Object(Default::default()));
        with_unknown[UNKNOWN_KEY] = Value::Bool(true);
        let mut rows = Vec::new();
        for (name, bad) in [
            (
                "configure: an unknown key is refused",
                with_unknown.to_string(),
            ),
            (
                "configure: a config that is not an object is refused",
                "[1, 2]".to_string(),
            ),
        ] {
            let mut row = Row::new("built-in", name, "refused, saying why");
            match Listener::load(self.engine, self.source, &bad, self.limits.clone()).await {
                Ok(_) => {
                    row.got = "accepted".into();
                    row.problem(format!("the configuration {bad} was accepted: a listener refuses what it does not know, so a typo in dsh.toml is not silently ignored"));
                }
                Err(e) => {
                    let why = format!("{e:#}");
                    row.got = format!("refused: {}", clip(&why, 60));
                    if why.contains("ADAPTER_FAULT") || why.contains("configure failed") {
                        row.problem(format!("configure trapped instead of refusing: {why}"));
                    }
                }
            }
            rows.push(row);
        }
        rows
    }

    /// Each canonical code the waterfall can see, as the first failure of a step: a valid decision,
    /// the same for the same input, a delay within the policy's bounds.
    pub async fn every_code(&self, seed: u64) -> Vec<Row> {
        let mut rng = Rng::new(seed);
        let mut rows = Vec::new();
        // ABORTED never reaches listeners: the host gives up on it itself.
        for code in crate::failure::CODES.iter().filter(|c| **c != "ABORTED") {
            let mut row = Row::new(
                "built-in",
                &format!("decide {code}"),
                format!(
                    "valid, deterministic, delay ≤ {} ms",
                    self.policy.max_delay_ms
                ),
            );
            let failure = LlmFailure {
                status: typical_status(code),
                ..LlmFailure::new(code, format!("a {code} failure (dsh-host check)"))
            };
            let random = (rng.next_u64() >> 11) as f64 / (1u64 << 53) as f64;
            let context = self.context(&failure, Vec::new(), default_messages(), random);
            let first = self.listener.decide(&context).await;
            let second = self.listener.decide(&context).await;
            row.got = describe(&first);
            match &first {
                Err(fault) => row.problem(fault.to_string()),
                Ok(decision) => row.problems(self.decision_problems(decision)),
            }
            if first != second {
                row.problem(format!("decided {} the second time, on the same input: a listener must be a pure function of its input", describe(&second)));
            }
            rows.push(row);
        }
        rows
    }

    /// One author scenario: each failure in turn, the retries before the last handed back as the
    /// host would (earlier retries of the step), the last decision held to `expect`. Run twice:
    /// the decisions must be the same.
    pub async fn scenario(&self, source: &str, scenario: &Scenario) -> Row {
        let mut row = Row::new(source, &scenario.name, scenario.expect.describe());
        let first = self.play(scenario).await;
        let second = self.play(scenario).await;
        match &first {
            Err(why) => {
                row.got = "stopped early".into();
                row.problem(why.clone());
            }
            Ok(decision) => {
                row.got = describe(&Ok(decision.clone()));
                row.problems(self.decision_problems(decision));
                row.problems(expectation_problems(decision, &scenario.expect));
            }
        }
        if first != second {
            row.problem("the same scenario ended differently the second time: a listener must be a pure function of its input");
        }
        row
    }

    async fn play(&self, scenario: &Scenario) -> Result<Decision, String> {
        let mut earlier: Vec<EarlierRetry> = Vec::new();
        let mut messages = scenario.messages.clone().unwrap_or_else(default_messages);
        let last = scenario.failures.len() - 1;
        for (i, f) in scenario.failures.iter().enumerate() {
            let failure = LlmFailure {
                status: f.status,
                provider_retry_after_ms: f.retry_after_ms,
                ..LlmFailure::new(
                    &f.code,
                    f.message
                        .clone()
                        .unwrap_or_else(|| format!("a {} failure (dsh-host check)", f.code)),
                )
            };
            let decision = self
                .listener
                .decide(&self.context(&failure, earlier.clone(), messages.clone(), scenario.random))
                .await
                .map_err(|fault| {
                    format!("failure {} of {}: {fault}", i + 1, scenario.failures.len())
                })?;
            if i == last {
                return Ok(decision);
            }
            match decision {
                Decision::Retry(retry) => {
                    let count = earlier
                        .iter()
                        .filter(|r| r.policy_key == retry.policy_key)
                        .count() as u32;
                    earlier.push(EarlierRetry {
                        policy_key: retry.policy_key,
                        retry: count + 1,
                        delay_ms: retry.delay_ms,
                        code: crate::wire::wit_code(&f.code),
                    });
                    if let Some(replaced) = retry.replace_messages {
                        messages = replaced;
                    }
                }
                other => {
                    return Err(format!(
                        "failure {} of {} was decided {}, which ends the step before the sequence does (only a retry continues it)",
                        i + 1,
                        scenario.failures.len(),
                        describe(&Ok(other))
                    ));
                }
            }
        }
        unreachable!("a scenario has at least one failure (checked when read)")
    }

    fn context(
        &self,
        failure: &LlmFailure,
        earlier: Vec<EarlierRetry>,
        messages: Vec<Message>,
        random: f64,
    ) -> FailureContext {
        FailureContext {
            failure: crate::adapter::WitFailure::from(failure),
            turn: 1,
            step: 1,
            provider: "check".into(),
            earlier_retries: earlier,
            retry_policy_json: self.policy.json.clone(),
            messages,
            random,
        }
    }

    /// What any decision must be: a retry with a policy key and a delay within bounds, and a
    /// replacement conversation that is not empty; a give-up with a reason.
    fn decision_problems(&self, decision: &Decision) -> Vec<String> {
        let mut problems = Vec::new();
        match decision {
            Decision::Delegate => {}
            Decision::Retry(retry) => {
                if retry.policy_key.trim().is_empty() {
                    problems.push(
                        "a retry without a policy key: the host counts retries by key".into(),
                    );
                }
                if retry.delay_ms > self.policy.max_delay_ms {
                    problems.push(format!(
                        "a retry after {} ms, beyond what the retry policy allows ({} ms: max_delay_ms with its jitter)",
                        retry.delay_ms, self.policy.max_delay_ms
                    ));
                }
                if retry.replace_messages.as_ref().is_some_and(Vec::is_empty) {
                    problems.push("a retry that replaces the conversation with nothing".into());
                }
            }
            Decision::GiveUp(reason) => {
                if reason.trim().is_empty() {
                    problems.push("a give-up without a reason: the user is told it".into());
                }
            }
        }
        problems
    }
}

fn expectation_problems(decision: &Decision, expect: &ExpectDecision) -> Vec<String> {
    let mut problems = Vec::new();
    let kind = match decision {
        Decision::Delegate => "delegate",
        Decision::Retry(_) => "retry",
        Decision::GiveUp(_) => "give-up",
    };
    if kind != expect.decision {
        problems.push(format!("decided {kind}, expected {}", expect.decision));
        return problems;
    }
    match decision {
        Decision::Retry(retry) => {
            if let Some(ms) = expect.delay_ms
                && retry.delay_ms != ms
            {
                problems.push(format!("delay {} ms, expected {ms} ms", retry.delay_ms));
            }
            if expect.min_delay_ms.is_some_and(|min| retry.delay_ms < min)
                || expect.max_delay_ms.is_some_and(|max| retry.delay_ms > max)
            {
                problems.push(format!(
                    "delay {} ms, outside {}",
                    retry.delay_ms,
                    expect.describe()
                ));
            }
            if let Some(key) = &expect.policy_key
                && &retry.policy_key != key
            {
                problems.push(format!(
                    "policy key {:?}, expected {key:?}",
                    retry.policy_key
                ));
            }
            if let Some(replaces) = expect.replaces_messages
                && replaces != retry.replace_messages.is_some()
            {
                problems.push(if replaces {
                    "kept the conversation, expected it replaced".into()
                } else {
                    "replaced the conversation, expected it kept".into()
                });
            }
        }
        Decision::GiveUp(reason) => {
            if let Some(words) = &expect.reason_contains
                && !reason.contains(words.as_str())
            {
                problems.push(format!(
                    "the reason {:?} does not say {words:?}",
                    clip(reason, 120)
                ));
            }
        }
        Decision::Delegate => {}
    }
    problems
}

pub fn describe(decision: &Result<Decision, LlmFailure>) -> String {
    match decision {
        Ok(Decision::Delegate) => "delegate".into(),
        Ok(Decision::Retry(r)) => format!(
            "retry {} ms ({}){}",
            r.delay_ms,
            r.policy_key,
            r.replace_messages
                .as_ref()
                .map_or(String::new(), |m| format!(", {} messages", m.len()))
        ),
        Ok(Decision::GiveUp(reason)) => format!("give-up: {}", clip(reason, 50)),
        Err(fault) => format!("ADAPTER_FAULT: {}", fault.message),
    }
}

/// The status a failure of this code usually carries.
fn typical_status(code: &str) -> Option<u16> {
    Some(match code {
        "RATE_LIMITED" | "QUOTA_EXCEEDED" => 429,
        "OVERLOADED" => 529,
        "SERVER_ERROR" => 500,
        "AUTH" => 401,
        "INVALID_REQUEST" | "CONTEXT_WINDOW_EXCEEDED" => 400,
        "TIMEOUT" => 504,
        _ => return None,
    })
}

/// A conversation long enough to compact: a system message and three exchanges.
fn default_messages() -> Vec<Message> {
    let mut messages = vec![Message::new(Role::System, "Be terse.")];
    for i in 1..=3 {
        messages.push(Message::new(Role::User, format!("question {i}")));
        messages.push(Message::new(Role::Assistant, format!("answer {i}")));
    }
    messages.push(Message::new(Role::User, "the last question"));
    messages
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::listener::RetryDecision;

    fn expect(json: &str) -> ExpectDecision {
        serde_json::from_str(json).unwrap()
    }

    fn retry(delay_ms: u64, key: &str) -> Decision {
        Decision::Retry(RetryDecision {
            delay_ms,
            policy_key: key.into(),
            replace_messages: None,
        })
    }

    #[test]
    fn the_policy_bound_includes_the_jitter() {
        assert_eq!(Policy::new(None).unwrap().max_delay_ms, 144_000);
        let p = Policy::new(Some(
            &serde_json::json!({"max_delay_ms": 1000, "jitter_ratio": 0}),
        ))
        .unwrap();
        assert_eq!(p.max_delay_ms, 1000);
    }

    #[test]
    fn decisions_are_held_to_the_scenario() {
        assert!(expectation_problems(&retry(900, "llm-retry"), &expect(r#"{"decision": "retry", "min_delay_ms": 800, "max_delay_ms": 1200, "policy_key": "llm-retry"}"#)).is_empty());
        let p = expectation_problems(
            &retry(1300, "other"),
            &expect(r#"{"decision": "retry", "max_delay_ms": 1200, "policy_key": "llm-retry"}"#),
        );
        assert!(
            p[0].contains("delay 1300 ms, outside retry ..1200 ms")
                && p[1].contains("policy key \"other\""),
            "{p:?}"
        );
        let p = expectation_problems(&Decision::Delegate, &expect(r#"{"decision": "give-up"}"#));
        assert_eq!(p, vec!["decided delegate, expected give-up"]);
        let p = expectation_problems(
            &Decision::GiveUp("quota spent".into()),
            &expect(r#"{"decision": "give-up", "reason_contains": "budget"}"#),
        );
        assert!(p[0].contains("does not say \"budget\""), "{p:?}");
    }
}
