//! `plan-request`: URL, headers and the Messages body shape.

use dsh_guest_anthropic::plan_request;
use dsh_guest_anthropic::types::{CompletionRequest, Endpoint, Message, Role, ToolCall, ToolSpec};
use serde_json::{Value, json};

fn msg(role: Role, content: &str) -> Message {
    Message {
        role,
        content: content.into(),
        tool_calls: vec![],
        tool_call_id: None,
    }
}

fn tool_result(id: &str, content: &str) -> Message {
    Message {
        tool_call_id: Some(id.into()),
        ..msg(Role::Tool, content)
    }
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    }
}

fn assistant_calls(content: &str, calls: Vec<ToolCall>) -> Message {
    Message {
        tool_calls: calls,
        ..msg(Role::Assistant, content)
    }
}

fn request() -> CompletionRequest {
    CompletionRequest {
        model: "claude-sonnet-4-5".into(),
        messages: vec![msg(Role::System, "be brief"), msg(Role::User, "hi")],
        tools: vec![],
        max_tokens: None,
        temperature: None,
    }
}

fn endpoint() -> Endpoint {
    Endpoint {
        base_url: "https://api.anthropic.com/v1".into(),
    }
}

fn body(req: &CompletionRequest) -> Value {
    let plan = plan_request(&endpoint(), req).expect("a valid request");
    serde_json::from_slice(&plan.body).expect("the body is JSON")
}

fn refused(req: &CompletionRequest) -> String {
    let err = plan_request(&endpoint(), req).expect_err("a refused request");
    assert_eq!(err.code, "INVALID_REQUEST", "{}", err.message);
    assert_eq!(err.status, None);
    assert!(!err.message.trim().is_empty());
    err.message
}

#[test]
fn method_url_and_headers() {
    let plan = plan_request(&endpoint(), &request()).unwrap();
    assert_eq!(plan.method, "POST");
    assert_eq!(plan.url, "https://api.anthropic.com/v1/messages");
    let header = |name: &str| {
        plan.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("x-api-key"), Some("{credential}"));
    assert_eq!(header("anthropic-version"), Some("2023-06-01"));
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("text/event-stream"));
    assert_eq!(header("authorization"), None, "Anthropic takes x-api-key");
    // A stray trailing slash is not doubled.
    let plan = plan_request(
        &Endpoint {
            base_url: "http://127.0.0.1:8080/v1/".into(),
        },
        &request(),
    )
    .unwrap();
    assert_eq!(plan.url, "http://127.0.0.1:8080/v1/messages");
}

#[test]
fn minimal_body_has_system_default_max_tokens_and_streams() {
    assert_eq!(
        body(&request()),
        json!({
            "model": "claude-sonnet-4-5",
            "max_tokens": 4096,
            "stream": true,
            "system": "be brief",
            "messages": [
                {"role": "user", "content": [{"type": "text", "text": "hi"}]},
            ],
        })
    );
}

#[test]
fn system_messages_are_joined_and_omitted_when_absent() {
    let mut req = request();
    req.messages = vec![
        msg(Role::System, "rule one"),
        msg(Role::User, "hi"),
        msg(Role::System, "rule two"),
        msg(Role::System, "  "),
    ];
    assert_eq!(body(&req)["system"], json!("rule one\n\nrule two"));
    req.messages = vec![msg(Role::User, "hi")];
    let b = body(&req);
    assert!(b.get("system").is_none(), "{b}");
}

#[test]
fn max_tokens_and_temperature_when_set() {
    let mut req = request();
    req.max_tokens = Some(256);
    req.temperature = Some(0.7);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(256));
    assert_eq!(b["temperature"], json!(0.7), "0.7f32 is sent as 0.7");
    req.temperature = None;
    assert!(body(&req).get("temperature").is_none());
    req.temperature = Some(f32::NAN);
    refused(&req);
    req.temperature = None;
    req.max_tokens = Some(0);
    assert!(refused(&req).contains("max_tokens"));
}

#[test]
fn consecutive_same_role_messages_merge_to_alternate() {
    let mut req = request();
    req.messages = vec![
        msg(Role::User, "one"),
        msg(Role::User, "two"),
        msg(Role::Assistant, "a"),
        msg(Role::Assistant, "b"),
        msg(Role::User, "three"),
    ];
    assert_eq!(
        body(&req)["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
            {"role": "assistant", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]},
            {"role": "user", "content": [{"type": "text", "text": "three"}]},
        ])
    );
}

#[test]
fn blank_messages_are_dropped_and_the_neighbours_merge() {
    let mut req = request();
    req.messages = vec![
        msg(Role::User, "one"),
        msg(Role::Assistant, " \n"),
        msg(Role::User, "two"),
    ];
    assert_eq!(
        body(&req)["messages"],
        json!([
            {"role": "user", "content": [{"type": "text", "text": "one"}, {"type": "text", "text": "two"}]},
        ])
    );
    req.messages = vec![
        msg(Role::System, "only a system prompt"),
        msg(Role::User, ""),
    ];
    assert!(refused(&req).contains("no user or assistant message"));
}

#[test]
fn tool_calls_become_tool_use_and_results_tool_result() {
    let mut req = request();
    req.messages.push(assistant_calls(
        "Let me look.",
        vec![
            call("toolu_1", "read", r#"{"path":"a"}"#),
            call("toolu_2", "now", ""),
            call("toolu_3", "ping", " \n "),
        ],
    ));
    req.messages.push(tool_result("toolu_1", "file text"));
    req.messages.push(tool_result("toolu_2", "12:00"));
    req.messages.push(tool_result("toolu_3", ""));
    req.messages.push(msg(Role::Assistant, "done"));
    let b = body(&req);
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "text", "text": "Let me look."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {"path": "a"}},
            {"type": "tool_use", "id": "toolu_2", "name": "now", "input": {}},
            {"type": "tool_use", "id": "toolu_3", "name": "ping", "input": {}},
        ]})
    );
    assert_eq!(
        b["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "file text"},
            {"type": "tool_result", "tool_use_id": "toolu_2", "content": "12:00"},
            {"type": "tool_result", "tool_use_id": "toolu_3"},
        ]}),
        "consecutive tool results are one user message; an empty result has no content"
    );
    assert_eq!(
        b["messages"][3],
        json!({"role": "assistant", "content": [{"type": "text", "text": "done"}]})
    );
    assert_eq!(b["messages"].as_array().unwrap().len(), 4);
}

#[test]
fn pure_tool_call_turn_has_no_text_block_and_results_come_before_user_text() {
    let mut req = request();
    req.messages
        .push(assistant_calls("", vec![call("toolu_1", "now", "{}")]));
    // A user message after the results merges into the same user turn, after them; a user message
    // before them (odd, but possible) is moved after them too.
    req.messages.push(tool_result("toolu_1", "12:00"));
    req.messages.push(msg(Role::User, "thanks"));
    let b = body(&req);
    assert_eq!(
        b["messages"][1],
        json!({"role": "assistant", "content": [
            {"type": "tool_use", "id": "toolu_1", "name": "now", "input": {}},
        ]})
    );
    assert_eq!(
        b["messages"][2],
        json!({"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "12:00"},
            {"type": "text", "text": "thanks"},
        ]})
    );

    let mut req = request();
    req.messages
        .push(assistant_calls("", vec![call("toolu_1", "now", "{}")]));
    req.messages.push(msg(Role::User, "by the way"));
    req.messages.push(tool_result("toolu_1", "12:00"));
    assert_eq!(
        body(&req)["messages"][2]["content"],
        json!([
            {"type": "tool_result", "tool_use_id": "toolu_1", "content": "12:00"},
            {"type": "text", "text": "by the way"},
        ])
    );
}

#[test]
fn unparsed_tool_arguments_are_replayed_as_an_empty_object() {
    for args in [
        "",
        "  ",
        "{\"city\": \"Paris\", }",
        "{\"path\": \"src/ma",
        "[1, 2]",
        "\"text\"",
    ] {
        let mut req = request();
        req.messages.push(assistant_calls(
            "",
            vec![
                call("toolu_ok", "fine", "{\"a\":1}"),
                call("toolu_bad", "get_weather", args),
            ],
        ));
        req.messages.push(tool_result("toolu_ok", "ok"));
        req.messages
            .push(tool_result("toolu_bad", "error: invalid arguments"));
        let b = body(&req);
        let blocks = b["messages"][1]["content"].as_array().unwrap();
        assert_eq!(blocks[0]["input"], serde_json::json!({"a": 1}), "{args}");
        assert_eq!(blocks[1]["input"], serde_json::json!({}), "{args}");
    }
}

#[test]
fn a_tool_call_without_id_is_refused() {
    let mut req = request();
    req.messages
        .push(assistant_calls("", vec![call("", "now", "{}")]));
    assert!(refused(&req).contains("no id"));
}

#[test]
fn tool_message_without_call_id_is_refused() {
    let mut req = request();
    req.messages.push(msg(Role::Tool, "orphan"));
    assert!(refused(&req).contains("tool_call_id"));
}

#[test]
fn tools_carry_name_description_and_input_schema() {
    let mut req = request();
    req.tools = vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters_schema:
                r#"{"type":"object","properties":{"path":{"type":"string"}},"required":["path"]}"#
                    .into(),
        },
        ToolSpec {
            name: "now".into(),
            description: String::new(),
            parameters_schema: String::new(),
        },
        ToolSpec {
            name: "untyped".into(),
            description: "x".into(),
            parameters_schema: r#"{"properties":{}}"#.into(),
        },
    ];
    assert_eq!(
        body(&req)["tools"],
        json!([
            {
                "name": "read",
                "description": "Read a file",
                "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            },
            {"name": "now", "input_schema": {"type": "object", "properties": {}}},
            {"name": "untyped", "description": "x", "input_schema": {"type": "object", "properties": {}}},
        ])
    );
    req.tools.clear();
    assert!(body(&req).get("tools").is_none());
}

#[test]
fn invalid_schema_names_the_tool() {
    let mut req = request();
    for schema in ["{not json", "[1, 2]", r#"{"type":"string"}"#] {
        req.tools = vec![ToolSpec {
            name: "broken_tool".into(),
            description: "x".into(),
            parameters_schema: schema.into(),
        }];
        let message = refused(&req);
        assert!(message.contains("broken_tool"), "{message}");
    }
}

#[test]
fn a_final_assistant_prefill_loses_its_trailing_whitespace() {
    let mut req = request();
    req.messages.push(msg(Role::Assistant, "The answer is "));
    assert_eq!(
        body(&req)["messages"][1],
        json!({"role": "assistant", "content": [{"type": "text", "text": "The answer is"}]})
    );
}

#[test]
fn empty_model_is_refused() {
    let mut req = request();
    req.model = " ".into();
    refused(&req);
}
