//! The listener against recorded failures (tests/recorded.json): each gets its decision, and the
//! configuration is refused loudly when it is wrong.

use dsh_guest_support::listener::{
    Decision, EarlierRetry, FailureCode, FailureContext, LlmFailure,
};
use serde_json::Value;

fn recorded() -> Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/recorded.json");
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn code(v: &Value) -> FailureCode {
    FailureCode::parse(v.as_str().unwrap()).unwrap_or_else(|| panic!("unknown code {v}"))
}

fn context(case: &Value) -> FailureContext {
    let f = &case["failure"];
    FailureContext {
        failure: LlmFailure {
            message: f["message"].as_str().unwrap().to_string(),
            code: code(&f["code"]),
            status: f["status"].as_u64().map(|s| s as u16),
            provider_retry_after_ms: f["provider_retry_after_ms"].as_u64(),
            request_id: f["request_id"].as_str().map(str::to_string),
        },
        turn: 1,
        step: 1,
        provider: "mock".into(),
        earlier_retries: case["earlier_retries"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| EarlierRetry {
                policy_key: r["policy_key"].as_str().unwrap().to_string(),
                retry: r["retry"].as_u64().unwrap() as u32,
                delay_ms: r["delay_ms"].as_u64().unwrap(),
                code: code(&r["code"]),
            })
            .collect(),
        retry_policy_json: "{}".into(),
        messages: Vec::new(),
        random: 0.5,
    }
}

#[test]
fn recorded_failures_get_their_decision() {
    let recorded = recorded();
    {{module}}::configure(recorded["config"].as_str().unwrap()).unwrap();
    let cases = recorded["cases"].as_array().unwrap();
    assert!(!cases.is_empty(), "tests/recorded.json has no cases");
    for case in cases {
        let name = &case["name"];
        let expected = &case["expected"];
        match (
            {{module}}::on_failure(&context(case)),
            expected["decision"].as_str().unwrap(),
        ) {
            (Decision::Retry(r), "retry") => {
                assert_eq!(Some(r.delay_ms), expected["delay_ms"].as_u64(), "{name}");
                assert_eq!(r.policy_key, {{module}}::POLICY_KEY, "{name}");
                assert_eq!(r.replace_messages, None, "{name}");
            }
            (Decision::GiveUp(reason), "give-up") => {
                assert!(reason.starts_with("{{name}}: "), "{name}: {reason}")
            }
            (Decision::Delegate, "delegate") => {}
            (got, want) => panic!("{name}: expected {want}, got {got:?}"),
        }
    }
}

#[test]
fn a_wrong_configuration_is_refused_by_name() {
    let err = {{module}}::configure(r#"{"max_retrys": 3}"#).unwrap_err();
    assert!(err.contains("unknown config key `max_retrys`"), "{err}");
    let err = {{module}}::configure(r#"{"delay_ms": -1}"#).unwrap_err();
    assert!(err.contains("delay_ms must be"), "{err}");
    assert_eq!(
        {{module}}::parse_config(""),
        Ok({{module}}::Config::default())
    );
}
