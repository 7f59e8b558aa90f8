//! The contract's versions: a guest built against the frozen dsh:llm@0.1.0 (from source, by
//! build.rs: tests/guests/v0_1-adapter) loads and runs real turns through the host's adaptation;
//! what 0.1.0 cannot carry is refused before the guest is called; a version the host does not know
//! is refused at load naming the ones it supports; and 0.2.0's provider data goes back to the
//! provider in later steps and turns, also after the session is resumed from its log.
//! (The JavaScript and Python guests, also 0.1.0, are tested in `other_languages`.)

use crate::support::*;
use dsh_host::adapter::{Adapter, CompletionRequest, ContentPart, Message, Role};
use dsh_host::attempt::{Provider, run_attempt};
use dsh_host::compat::ContractVersion;
use dsh_host::config;
use dsh_host::engine::{GuestEngine, GuestLimits};
use dsh_host::guests::GuestSource;
use serde_json::{Value, json};
use std::sync::Arc;

const V0_1: &str = "dsh_test_v0_1_adapter";

async fn v0_1_provider(base_url: &str, model: &str) -> Provider {
    let engine = GuestEngine::new(Some(shared_cache_dir())).unwrap();
    let source = GuestSource::file(&test_guest(V0_1));
    let adapter = Adapter::load(&engine, &source, GuestLimits::default_for(&source))
        .await
        .unwrap();
    assert_eq!(adapter.contract_version(), ContractVersion::V0_1);
    assert_eq!(adapter.name(), "v0.1-adapter");
    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.base_url = base_url.to_string();
    cfg.model = model.to_string();
    Provider::new(cfg, Arc::new(adapter), Some(TEST_KEY.into())).unwrap()
}

/// A turn with a tool call, through the binary, on a 0.1.0 adapter: the calls come up, the clock
/// runs, and the next request carries the call and its result down in 0.1.0's terms.
#[tokio::test]
async fn a_0_1_adapter_built_from_source_runs_a_turn_with_a_tool_call() {
    let mock = mock(
        r#"{"steps":[
        {"completion":{"tool_calls":[{"id":"call_1","name":"clock","arguments":["{", "}"]}],"finish":"tool_calls"}},
        {"completion":{"text":["It is ","noon."]}}]}"#,
    )
    .await;
    let scratch = Scratch::new();
    let adapter = test_guest(V0_1);
    let args = [
        "run",
        "--base-url",
        &mock.base_url(),
        "--model",
        "m",
        "--adapter",
        adapter.to_str().unwrap(),
        "--tools",
        "what time is it?",
    ];
    let out = scratch.run_bin(&args, Some(TEST_KEY)).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last(), Some("It is noon."));

    let requests = mock.requests();
    assert_eq!(requests.len(), 2);
    let first = requests[0].body_json().unwrap();
    assert_eq!(
        first["messages"],
        json!([{"role": "user", "content": "what time is it?"}])
    );
    let second = requests[1].body_json().unwrap();
    assert_eq!(second["messages"][1]["tool_calls"][0]["id"], "call_1");
    assert_eq!(second["messages"][1]["content"], "");
    assert_eq!(second["messages"][2]["role"], "tool");
    assert_eq!(second["messages"][2]["tool_call_id"], "call_1");
    assert!(
        second["messages"][2]["content"]
            .as_str()
            .unwrap()
            .ends_with('Z'),
        "{second}"
    );

    // The log is what it is for any adapter.
    let events = scratch.only_session_events();
    assert_eq!(events[0].data["adapter"], "v0.1-adapter");
    assert_eq!(
        kinds(&events),
        [
            "session/start",
            "turn/start",
            "llm/request",
            "llm/response",
            "tool/call",
            "tool/result",
            "step/end",
            "llm/request",
            "llm/response",
            "turn/end"
        ]
    );
    assert_eq!(
        of_kind(&events, "turn/end")[0].data["assistant"],
        "It is noon."
    );
}

/// Content parts are joined into 0.1.0's one string and the options it has are mapped; what it
/// cannot carry (stop, top-p, reasoning effort, a JSON format, images) is refused before the guest
/// is called and before anything is sent, naming the adapter and its version.
#[tokio::test]
async fn a_0_1_adapter_gets_text_and_its_options_and_is_never_sent_what_it_cannot_carry() {
    let mock = mock(r#"{"steps":[{"completion":{"text":["ok"]}}]}"#).await;
    let provider = v0_1_provider(&mock.base_url(), "m").await;
    let mut user = Message::new(Role::User, "");
    user.content = vec![
        ContentPart::Text("what ".into()),
        ContentPart::Text("time is it?".into()),
    ];
    let mut request =
        CompletionRequest::new("m", vec![Message::new(Role::System, "be brief"), user]);
    request.options.max_output_tokens = Some(64);
    request.options.temperature = Some(0.5);
    let done = run_attempt(&provider, &request, &mut |_| {}).await.unwrap();
    assert_eq!(done.text, "ok");
    let body = mock.requests()[0].body_json().unwrap();
    assert_eq!(
        body["messages"],
        json!([{"role": "system", "content": "be brief"}, {"role": "user", "content": "what time is it?"}])
    );
    assert_eq!(
        (body["max_tokens"].clone(), body["temperature"].clone()),
        (json!(64), json!(0.5))
    );

    type Change = fn(&mut CompletionRequest);
    let refusals: [(&str, Change); 3] = [
        ("stop", |r| r.options.stop = vec!["END".into()]),
        ("top-p", |r| r.options.top_p = Some(0.9)),
        ("message 1 has an image part", |r| {
            r.messages[1]
                .content
                .push(ContentPart::ImageUrl("https://example.com/a.png".into()))
        }),
    ];
    for (what, change) in refusals {
        let mut refused = request.clone();
        change(&mut refused);
        let f = run_attempt(&provider, &refused, &mut |_| {})
            .await
            .unwrap_err();
        assert_eq!(f.code, "INVALID_REQUEST", "{what}: {f}");
        assert!(
            f.message.contains("'v0.1-adapter'")
                && f.message.contains("dsh:llm@0.1.0")
                && f.message.contains(what),
            "{what}: {f}"
        );
    }
    assert_eq!(
        mock.requests().len(),
        1,
        "nothing refused reached the provider"
    );
}

/// 0.1.0's codes are strings: a canonical one comes up as the same code, anything else is the
/// guest's fault, named.
#[tokio::test]
async fn a_0_1_adapters_string_codes_are_checked_where_they_enter() {
    let mock =
        mock(r#"{"steps":[{"status":429,"body":"slow down"},{"status":429,"body":"slow down"}]}"#)
            .await;
    let f = run_attempt(
        &v0_1_provider(&mock.base_url(), "m").await,
        &CompletionRequest::new("m", vec![Message::new(Role::User, "hi")]),
        &mut |_| {},
    )
    .await
    .unwrap_err();
    assert_eq!(
        (f.code.as_str(), f.status),
        ("RATE_LIMITED", Some(429)),
        "{f}"
    );

    let provider = v0_1_provider(&mock.base_url(), "bad-code").await;
    let f = run_attempt(
        &provider,
        &CompletionRequest::new("bad-code", vec![Message::new(Role::User, "hi")]),
        &mut |_| {},
    )
    .await
    .unwrap_err();
    assert_eq!(f.code, "ADAPTER_FAULT", "{f}");
    assert!(
        f.message.contains("v0.1-adapter") && f.message.contains("rate_limit_exceeded"),
        "{f}"
    );
}

/// A component that exports the adapter interface of a version this host does not know is refused
/// at load, with the versions it supports and the fix.
#[tokio::test]
async fn a_component_of_an_unknown_contract_version_is_refused_naming_the_supported_ones() {
    let scratch = Scratch::new();
    let future = test_guest("dsh_test_future_version");
    let args = [
        "run",
        "--base-url",
        "http://127.0.0.1:9/v1",
        "--model",
        "m",
        "--adapter",
        future.to_str().unwrap(),
        "hi",
    ];
    let out = scratch.run_bin(&args, Some(TEST_KEY)).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let err = stderr(&out);
    assert!(
        err.contains("dsh_test_future_version.wasm") && err.contains("dsh:llm/adapter@0.3.0"),
        "{err}"
    );
    assert!(
        err.contains("it supports dsh:llm@0.2.0 and dsh:llm@0.1.0"),
        "{err}"
    );
    assert!(err.contains("wit/0.2.0"), "{err}");
}

fn sse_event(data: Value) -> Value {
    json!({"event": data["type"], "data": data})
}

/// A streamed Anthropic message of `blocks` (thinking with its signature, tool_use, text).
pub(crate) fn anthropic_stream(blocks: &[Value], stop_reason: &str) -> Value {
    let mut events = vec![sse_event(
        json!({"type": "message_start", "message": {"id": "msg_1", "type": "message",
        "role": "assistant", "content": [], "model": "claude-test", "usage": {"input_tokens": 5, "output_tokens": 1}}}),
    )];
    for (index, block) in blocks.iter().enumerate() {
        let start = match block["type"].as_str().unwrap() {
            "thinking" => json!({"type": "thinking", "thinking": "", "signature": ""}),
            "tool_use" => {
                json!({"type": "tool_use", "id": block["id"], "name": block["name"], "input": {}})
            }
            _ => json!({"type": "text", "text": ""}),
        };
        events.push(sse_event(
            json!({"type": "content_block_start", "index": index, "content_block": start}),
        ));
        let deltas = match block["type"].as_str().unwrap() {
            "thinking" => vec![
                json!({"type": "thinking_delta", "thinking": block["thinking"]}),
                json!({"type": "signature_delta", "signature": block["signature"]}),
            ],
            "tool_use" => vec![json!({"type": "input_json_delta", "partial_json": "{}"})],
            _ => vec![json!({"type": "text_delta", "text": block["text"]})],
        };
        for delta in deltas {
            events.push(sse_event(
                json!({"type": "content_block_delta", "index": index, "delta": delta}),
            ));
        }
        events.push(sse_event(
            json!({"type": "content_block_stop", "index": index}),
        ));
    }
    events.push(sse_event(json!({"type": "message_delta", "delta": {"stop_reason": stop_reason}, "usage": {"output_tokens": 9}})));
    events.push(sse_event(json!({"type": "message_stop"})));
    json!({"events": events})
}

/// Anthropic's thinking blocks (with their signatures) are the answer's provider data: the host
/// keeps them with the message, the adapter sends them back first in it, in the next step, in the
/// next turn, and after the session is resumed from its log by another process.
#[tokio::test]
async fn thinking_signatures_go_back_to_anthropic_across_steps_turns_and_a_resume() {
    let thinking1 =
        json!({"type": "thinking", "thinking": "The clock knows.", "signature": "sig-one"});
    let thinking2 = json!({"type": "thinking", "thinking": "Now answer.", "signature": "sig-two"});
    let call = json!({"type": "tool_use", "id": "toolu_1", "name": "clock"});
    let script = json!({"steps": [
        anthropic_stream(&[thinking1.clone(), call], "tool_use"),
        anthropic_stream(&[thinking2.clone(), json!({"type": "text", "text": "It is noon."})], "end_turn"),
        {"completion": {"text": ["You are welcome."]}},
    ]});
    let mock = mock(&script.to_string()).await;
    let scratch = Scratch::new();
    let base_url = mock.base_url();
    let run = |rest: &[&str]| {
        // The mock is not api.anthropic.com: the key goes there only when named.
        let mut args = vec![
            "run",
            "--provider",
            "anthropic",
            "--base-url",
            &base_url,
            "--api-key-env",
            "ANTHROPIC_API_KEY",
        ];
        args.extend_from_slice(rest);
        let mut cmd = scratch.command(&args, None);
        cmd.env("ANTHROPIC_API_KEY", TEST_KEY);
        cmd
    };
    let out = run(&["--tools", "what time is it?"])
        .output()
        .await
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    assert_eq!(stdout(&out).lines().last(), Some("It is noon."));

    // The next step: the thinking block first in the assistant message, unchanged.
    let signed = |block: &Value| json!({"type": "thinking", "thinking": block["thinking"], "signature": block["signature"]});
    let second = mock.requests()[1].body_json().unwrap();
    assert_eq!(
        second["messages"][1]["content"][0],
        signed(&thinking1),
        "{second}"
    );
    assert_eq!(second["messages"][1]["content"][1]["type"], "tool_use");

    // The log keeps it (the answer's too), so another process can send it back.
    let events = scratch.only_session_events();
    let responses = of_kind(&events, "llm/response");
    assert!(
        responses[0].data["provider_data"]
            .as_str()
            .unwrap()
            .contains("sig-one")
    );
    assert!(
        of_kind(&events, "turn/end")[0].data["provider_data"]
            .as_str()
            .unwrap()
            .contains("sig-two")
    );

    let id = scratch.only_session_id();
    let out = run(&["--resume", &id, "thanks"]).output().await.unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let third = mock.requests()[2].body_json().unwrap();
    let messages = third["messages"].as_array().unwrap();
    let assistants: Vec<&Value> = messages
        .iter()
        .filter(|m| m["role"] == "assistant")
        .collect();
    assert_eq!(assistants.len(), 2, "{third}");
    assert_eq!(assistants[0]["content"][0], signed(&thinking1));
    assert_eq!(assistants[1]["content"][0], signed(&thinking2));
    assert_eq!(
        assistants[1]["content"][1],
        json!({"type": "text", "text": "It is noon."})
    );
}
