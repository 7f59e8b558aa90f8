//! Every OpenAI- and DeepSeek-shaped case of the shared provider-failure fixtures, served verbatim by
//! the mock and run through the whole pipeline (built-in adapter in Wasm, transport, host checks).

use crate::support::*;
use dsh_host::adapter::{CompletionRequest, Message, Role};
use dsh_host::attempt::{Provider, run_attempt};
use dsh_host::config;
use dsh_host::engine::{GuestEngine, GuestLimits};
use serde_json::Value;
use std::sync::Arc;

fn cases() -> Vec<Value> {
    let text = include_str!("../fixtures/provider-failures.json");
    let all: Vec<Value> = serde_json::from_str(text).unwrap();
    all.into_iter()
        .filter(|c| {
            let p = c["provider"].as_str().unwrap();
            p.starts_with("openai") || p == "deepseek"
        })
        .collect()
}

#[tokio::test]
async fn every_openai_and_deepseek_fixture_gets_its_canonical_failure() {
    let cases = cases();
    assert!(
        cases.len() >= 20,
        "the fixture file lost its OpenAI cases: {}",
        cases.len()
    );
    let steps: Vec<Value> = cases
        .iter()
        .map(|c| serde_json::json!({"status": c["status"], "headers": c["headers"], "body": c["body"]}))
        .collect();
    let mock = mock(&serde_json::json!({ "steps": steps }).to_string()).await;

    let engine = GuestEngine::new(Some(shared_cache_dir())).unwrap();
    let source = dsh_host::guests::builtin_adapter("openai").unwrap();
    let adapter =
        dsh_host::adapter::Adapter::load(&engine, &source, GuestLimits::default_for(&source))
            .await
            .unwrap();
    let mut cfg = config::preset("openai").unwrap();
    cfg.base_url = mock.base_url();
    let provider = Provider::new(cfg, Arc::new(adapter), Some(TEST_KEY.into())).unwrap();
    let request = CompletionRequest::new("gpt-test", vec![Message::new(Role::User, "hi")]);

    let mut wrong = Vec::new();
    for case in &cases {
        let id = case["id"].as_str().unwrap();
        let got = run_attempt(&provider, &request, &mut |_| {}).await;
        let failure = match got {
            Ok(c) => {
                wrong.push(format!("{id}: succeeded with {c:?}"));
                continue;
            }
            Err(f) => f,
        };
        let expected_code = case["expected_code"].as_str().unwrap();
        let expected_retry = case["expected_retry_after_ms"].as_u64();
        let expected_request_id = case["expected_request_id"].as_str();
        if failure.code != expected_code
            || failure.provider_retry_after_ms != expected_retry
            || failure.request_id.as_deref() != expected_request_id
        {
            wrong.push(format!(
                "{id}: got {} / retry-after {:?} / request id {:?}, expected {expected_code} / {expected_retry:?} / {expected_request_id:?} ({})",
                failure.code, failure.provider_retry_after_ms, failure.request_id, failure.message
            ));
        }
        if failure.message.trim().is_empty() {
            wrong.push(format!("{id}: empty message"));
        }
    }
    assert_eq!(mock.steps_served(), cases.len());
    assert!(
        wrong.is_empty(),
        "{} of {} cases wrong:\n{}",
        wrong.len(),
        cases.len(),
        wrong.join("\n")
    );
}
