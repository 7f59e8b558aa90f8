//! `plan-request`: URL, headers and the JSON body shape.

use dsh_guest_openai::plan_request;
use dsh_guest_openai::types::{CompletionRequest, Endpoint, Message, Role, ToolCall, ToolSpec};
use serde_json::{Value, json};

fn msg(role: Role, content: &str) -> Message {
    Message {
        role,
        content: content.into(),
        tool_calls: vec![],
        tool_call_id: None,
    }
}

fn request() -> CompletionRequest {
    CompletionRequest {
        model: "gpt-4.1".into(),
        messages: vec![msg(Role::System, "be brief"), msg(Role::User, "hi")],
        tools: vec![],
        max_tokens: None,
        temperature: None,
    }
}

fn endpoint() -> Endpoint {
    Endpoint {
        base_url: "https://api.openai.com/v1".into(),
    }
}

fn body(req: &CompletionRequest) -> Value {
    let plan = plan_request(&endpoint(), req).expect("a valid request");
    serde_json::from_slice(&plan.body).expect("the body is JSON")
}

#[test]
fn method_url_and_headers() {
    let plan = plan_request(&endpoint(), &request()).unwrap();
    assert_eq!(plan.method, "POST");
    assert_eq!(plan.url, "https://api.openai.com/v1/chat/completions");
    let header = |name: &str| {
        plan.headers
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    };
    assert_eq!(header("content-type"), Some("application/json"));
    assert_eq!(header("accept"), Some("text/event-stream"));
    assert_eq!(header("authorization"), Some("Bearer {credential}"));
    // A stray trailing slash is not doubled.
    let plan = plan_request(
        &Endpoint {
            base_url: "http://localhost:8000/v1/".into(),
        },
        &request(),
    )
    .unwrap();
    assert_eq!(plan.url, "http://localhost:8000/v1/chat/completions");
}

#[test]
fn minimal_body_streams_with_usage_and_omits_unset_fields() {
    assert_eq!(
        body(&request()),
        json!({
            "model": "gpt-4.1",
            "messages": [
                {"role": "system", "content": "be brief"},
                {"role": "user", "content": "hi"},
            ],
            "stream": true,
            "stream_options": {"include_usage": true},
        })
    );
}

#[test]
fn max_tokens_and_temperature_when_set() {
    let mut req = request();
    req.max_tokens = Some(256);
    req.temperature = Some(0.7);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(256));
    assert_eq!(
        b["temperature"],
        json!(0.7),
        "0.7f32 is sent as 0.7, not 0.699999988"
    );
    req.temperature = Some(f32::NAN);
    assert_eq!(
        plan_request(&endpoint(), &req).unwrap_err().code,
        "INVALID_REQUEST"
    );
}

#[test]
fn tool_calls_and_tool_results_in_openai_shape() {
    let mut req = request();
    let call = |id: &str, name: &str, args: &str| ToolCall {
        id: id.into(),
        name: name.into(),
        arguments: args.into(),
    };
    req.messages.push(Message {
        role: Role::Assistant,
        content: String::new(),
        tool_calls: vec![
            call("call_1", "read", r#"{"path":"a"}"#),
            call("call_2", "now", ""),
        ],
        tool_call_id: None,
    });
    req.messages.push(Message {
        tool_call_id: Some("call_1".into()),
        ..msg(Role::Tool, "file text")
    });
    req.messages.push(msg(Role::Assistant, "done"));
    let b = body(&req);
    assert_eq!(
        b["messages"][2],
        json!({
            "role": "assistant",
            "content": null,
            "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "read", "arguments": "{\"path\":\"a\"}"}},
                {"id": "call_2", "type": "function", "function": {"name": "now", "arguments": "{}"}},
            ],
        })
    );
    assert_eq!(
        b["messages"][3],
        json!({"role": "tool", "content": "file text", "tool_call_id": "call_1"})
    );
    assert_eq!(
        b["messages"][4],
        json!({"role": "assistant", "content": "done"})
    );
}

#[test]
fn tool_message_without_call_id_is_refused() {
    let mut req = request();
    req.messages.push(msg(Role::Tool, "orphan"));
    let err = plan_request(&endpoint(), &req).unwrap_err();
    assert_eq!(err.code, "INVALID_REQUEST");
    assert!(err.message.contains("tool_call_id"), "{}", err.message);
}

#[test]
fn tools_carry_the_parsed_schema() {
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
    ];
    let b = body(&req);
    assert_eq!(
        b["tools"],
        json!([
            {"type": "function", "function": {
                "name": "read",
                "description": "Read a file",
                "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
            }},
            {"type": "function", "function": {"name": "now", "parameters": {"type": "object", "properties": {}}}},
        ])
    );
}

#[test]
fn invalid_schema_names_the_tool() {
    let mut req = request();
    for schema in ["{not json", "[1, 2]"] {
        req.tools = vec![ToolSpec {
            name: "broken_tool".into(),
            description: "x".into(),
            parameters_schema: schema.into(),
        }];
        let err = plan_request(&endpoint(), &req).unwrap_err();
        assert_eq!(err.code, "INVALID_REQUEST");
        assert!(err.message.contains("broken_tool"), "{}", err.message);
        assert_eq!(err.status, None);
    }
}

#[test]
fn empty_model_is_refused() {
    let mut req = request();
    req.model = " ".into();
    assert_eq!(
        plan_request(&endpoint(), &req).unwrap_err().code,
        "INVALID_REQUEST"
    );
}
