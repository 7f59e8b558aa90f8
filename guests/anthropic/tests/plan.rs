//! `plan-request`: URL, headers and the Messages body shape.

use dsh_guest_anthropic::plan::{provider_data_for, thinking_budget};
use dsh_guest_anthropic::plan_request;
use dsh_guest_anthropic::types::{
    CompletionRequest, ContentPart, Endpoint, GenerationOptions, JsonSchemaFormat, Message,
    ReasoningEffort, ResponseFormat, Role, ToolCall, ToolSpec,
};
use serde_json::{Value, json};

fn msg(role: Role, content: &str) -> Message {
    Message::new(role, content)
}

fn tool_result(id: &str, content: &str) -> Message {
    Message {
        tool_call_id: Some(id.into()),
        ..msg(Role::Tool, content)
    }
}

fn call(id: &str, name: &str, args: &str) -> ToolCall {
    ToolCall::new(id, name, args)
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
        options: GenerationOptions::default(),
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
    req.options.max_output_tokens = Some(256);
    req.options.temperature = Some(0.7);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(256));
    assert_eq!(b["temperature"], json!(0.7), "0.7f32 is sent as 0.7");
    req.options.temperature = None;
    assert!(body(&req).get("temperature").is_none());
    req.options.temperature = Some(f32::NAN);
    refused(&req);
    req.options.temperature = None;
    req.options.max_output_tokens = Some(0);
    assert!(refused(&req).contains("max_tokens"));
}

#[test]
fn stop_and_top_p_by_anthropic_names() {
    let mut req = request();
    req.options.stop = vec!["END".into(), "\n\nHuman:".into()];
    req.options.top_p = Some(0.95);
    let b = body(&req);
    assert_eq!(b["stop_sequences"], json!(["END", "\n\nHuman:"]));
    assert_eq!(b["top_p"], json!(0.95));
    assert!(b.get("stop").is_none(), "{b}");
    req.options.stop = vec!["  ".into()];
    assert!(refused(&req).contains("stop sequence"));
    req.options.stop = vec![];
    req.options.top_p = Some(1.01);
    assert!(refused(&req).contains("top_p"));
}

/// A reasoning effort turns extended thinking on with a budget; without max-output-tokens the
/// answer keeps the default room on top of it, with it the budget fits below it.
#[test]
fn reasoning_effort_is_a_thinking_budget() {
    let mut req = request();
    req.options.reasoning_effort = Some(ReasoningEffort::Medium);
    let b = body(&req);
    let budget = thinking_budget(ReasoningEffort::Medium);
    assert_eq!(
        b["thinking"],
        json!({"type": "enabled", "budget_tokens": budget})
    );
    assert_eq!(b["max_tokens"], json!(budget + 4096));

    req.options.max_output_tokens = Some(5000);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(5000));
    assert_eq!(
        b["thinking"]["budget_tokens"],
        json!(4999),
        "the budget stays below max_tokens"
    );

    req.options.reasoning_effort = Some(ReasoningEffort::Minimal);
    assert_eq!(body(&req)["thinking"]["budget_tokens"], json!(1024));

    req.options.max_output_tokens = Some(1024);
    let e = refused(&req);
    assert!(
        e.contains("reasoning effort minimal") && e.contains("1024"),
        "{e}"
    );
    for effort in [
        ReasoningEffort::Minimal,
        ReasoningEffort::Low,
        ReasoningEffort::Medium,
        ReasoningEffort::High,
    ] {
        assert!(thinking_budget(effort) >= 1024 && thinking_budget(effort) + 4096 <= 32_000);
    }
}

#[test]
fn a_json_response_format_is_refused_and_text_is_the_default() {
    let mut req = request();
    req.options.response_format = Some(ResponseFormat::Text);
    assert!(body(&req).get("response_format").is_none());
    req.options.response_format = Some(ResponseFormat::JsonObject);
    assert!(refused(&req).contains("response_format"));
    req.options.response_format = Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
        name: "a".into(),
        schema_json: "{}".into(),
        strict: true,
    }));
    assert!(refused(&req).contains("response_format"));
}

#[test]
fn images_are_image_blocks_in_user_messages() {
    let mut req = request();
    req.messages[1].content = vec![
        ContentPart::Text("what is this?".into()),
        ContentPart::ImageUrl("data:image/png;base64,iVBORw0KGgo=".into()),
        ContentPart::ImageUrl("https://example.com/cat.jpg".into()),
    ];
    assert_eq!(
        body(&req)["messages"][0]["content"],
        json!([
            {"type": "text", "text": "what is this?"},
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}},
            {"type": "image", "source": {"type": "url", "url": "https://example.com/cat.jpg"}},
        ])
    );
    req.messages[1].content = vec![ContentPart::ImageUrl("ftp://x/y.png".into())];
    assert!(refused(&req).contains("https: or data: URL"));
    req.messages[1].content = vec![ContentPart::ImageUrl("data:image/png,raw".into())];
    assert!(refused(&req).contains("base64"));
    req.messages[1] = msg(Role::User, "hi");
    req.messages[0]
        .content
        .push(ContentPart::ImageUrl("https://example.com/a.png".into()));
    assert!(refused(&req).contains("system"));
}

/// The thinking blocks of an assistant message (its provider data) go back first in its content,
/// unchanged; provider data another adapter wrote is not sent.
#[test]
fn thinking_blocks_go_back_before_the_answer_and_its_calls() {
    let blocks = vec![
        json!({"type": "thinking", "thinking": "Let me check.", "signature": "EqQB"}),
        json!({"type": "redacted_thinking", "data": "EmwK"}),
    ];
    let mut req = request();
    let mut answer = assistant_calls("Checking.", vec![call("toolu_1", "read", "{}")]);
    answer.provider_data = Some(provider_data_for(&blocks));
    req.messages.push(answer.clone());
    req.messages.push(tool_result("toolu_1", "text"));
    let b = body(&req);
    assert_eq!(
        b["messages"][1]["content"],
        json!([
            blocks[0], blocks[1],
            {"type": "text", "text": "Checking."},
            {"type": "tool_use", "id": "toolu_1", "name": "read", "input": {}},
        ])
    );
    answer.provider_data = Some(r#"{"openai":{"extra_content":{}}}"#.into());
    req.messages[2] = answer;
    assert_eq!(
        body(&req)["messages"][1]["content"][0]["type"],
        json!("text")
    );
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
