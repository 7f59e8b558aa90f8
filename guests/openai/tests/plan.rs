//! `plan-request`: URL, headers and the JSON body shape.

use dsh_guest_openai::plan::uses_max_completion_tokens;
use dsh_guest_openai::plan_request;
use dsh_guest_openai::types::{
    CompletionRequest, ContentPart, Endpoint, GenerationOptions, JsonSchemaFormat, Message,
    ReasoningEffort, ResponseFormat, Role, ToolCall, ToolSpec,
};
use serde_json::{Value, json};

fn msg(role: Role, content: &str) -> Message {
    Message::new(role, content)
}

fn request() -> CompletionRequest {
    CompletionRequest {
        model: "gpt-4.1".into(),
        messages: vec![msg(Role::System, "be brief"), msg(Role::User, "hi")],
        tools: vec![],
        options: GenerationOptions::default(),
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
    req.options.max_output_tokens = Some(256);
    req.options.temperature = Some(0.7);
    let b = body(&req);
    assert_eq!(b["max_tokens"], json!(256));
    assert!(b.get("max_completion_tokens").is_none(), "{b}");
    assert_eq!(
        b["temperature"],
        json!(0.7),
        "0.7f32 is sent as 0.7, not 0.699999988"
    );
    req.options.temperature = Some(f32::NAN);
    assert_eq!(
        plan_request(&endpoint(), &req).unwrap_err().code,
        "INVALID_REQUEST"
    );
}

/// OpenAI's reasoning models refuse `max_tokens`; every other model (and the compatible servers
/// that only know `max_tokens`) gets `max_tokens`.
#[test]
fn reasoning_models_get_max_completion_tokens() {
    for model in [
        "o1",
        "o1-preview",
        "o3-mini",
        "o4-mini-2025-04-16",
        "gpt-5",
        "gpt-5-mini",
        "GPT-5.1",
        "openai/o3",
    ] {
        assert!(uses_max_completion_tokens(model), "{model}");
        let mut req = request();
        req.model = model.into();
        req.options.max_output_tokens = Some(1000);
        let b = body(&req);
        assert_eq!(b["max_completion_tokens"], json!(1000), "{model}");
        assert!(b.get("max_tokens").is_none(), "{model}: {b}");
    }
    for model in [
        "gpt-4.1",
        "gpt-4o-mini",
        "omni-moderation",
        "llama3.1:8b",
        "deepseek-chat",
        "qwen/o-1",
    ] {
        assert!(!uses_max_completion_tokens(model), "{model}");
    }
}

#[test]
fn stop_top_p_reasoning_effort_and_response_format_by_openai_names() {
    let mut req = request();
    req.options = GenerationOptions {
        top_p: Some(0.9),
        stop: vec!["END".into(), "\n\n".into()],
        reasoning_effort: Some(ReasoningEffort::Low),
        response_format: Some(ResponseFormat::JsonObject),
        ..GenerationOptions::default()
    };
    let b = body(&req);
    assert_eq!(b["top_p"], json!(0.9));
    assert_eq!(b["stop"], json!(["END", "\n\n"]));
    assert_eq!(b["reasoning_effort"], json!("low"));
    assert_eq!(b["response_format"], json!({"type": "json_object"}));

    req.options.response_format = Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
        name: "answer".into(),
        schema_json: r#"{"type":"object","properties":{"n":{"type":"integer"}}}"#.into(),
        strict: true,
    }));
    assert_eq!(
        body(&req)["response_format"],
        json!({"type": "json_schema", "json_schema": {
            "name": "answer", "strict": true,
            "schema": {"type": "object", "properties": {"n": {"type": "integer"}}}}})
    );
    req.options.response_format = Some(ResponseFormat::Text);
    assert_eq!(body(&req)["response_format"], json!({"type": "text"}));
}

#[test]
fn options_it_cannot_send_are_refused_naming_them() {
    let refused = |options: GenerationOptions, word: &str| {
        let mut req = request();
        req.options = options;
        let err = plan_request(&endpoint(), &req).unwrap_err();
        assert_eq!(err.code, "INVALID_REQUEST");
        assert!(err.message.contains(word), "{word}: {}", err.message);
    };
    refused(
        GenerationOptions {
            top_p: Some(1.5),
            ..Default::default()
        },
        "top_p",
    );
    refused(
        GenerationOptions {
            stop: vec![String::new()],
            ..Default::default()
        },
        "stop",
    );
    let schema = |schema_json: &str, name: &str| {
        Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
            name: name.into(),
            schema_json: schema_json.into(),
            strict: false,
        }))
    };
    refused(
        GenerationOptions {
            response_format: schema("[1]", "x"),
            ..Default::default()
        },
        "not a JSON object",
    );
    refused(
        GenerationOptions {
            response_format: schema("{}", " "),
            ..Default::default()
        },
        "no name",
    );
}

#[test]
fn images_go_as_content_parts_in_user_messages_only() {
    let mut req = request();
    req.messages[1].content = vec![
        ContentPart::Text("what is ".into()),
        ContentPart::ImageUrl("https://example.com/cat.png".into()),
        ContentPart::Text("?".into()),
    ];
    assert_eq!(
        body(&req)["messages"][1],
        json!({"role": "user", "content": [
            {"type": "text", "text": "what is "},
            {"type": "image_url", "image_url": {"url": "https://example.com/cat.png"}},
            {"type": "text", "text": "?"},
        ]})
    );
    // One text part is a plain string (what every compatible server takes); several stay parts,
    // as the client gave them, so that no separator is invented.
    req.messages[1].content = vec![ContentPart::Text("a".into())];
    assert_eq!(
        body(&req)["messages"][1],
        json!({"role": "user", "content": "a"})
    );
    req.messages[1].content = vec![ContentPart::Text("a".into()), ContentPart::Text("b".into())];
    assert_eq!(
        body(&req)["messages"][1],
        json!({"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b"}]})
    );

    req.messages[0]
        .content
        .push(ContentPart::ImageUrl("data:image/png;base64,AAAA".into()));
    let err = plan_request(&endpoint(), &req).unwrap_err();
    assert_eq!(err.code, "INVALID_REQUEST");
    assert!(
        err.message.contains("message 0") && err.message.contains("image"),
        "{}",
        err.message
    );
}

/// A tool call's provider data (what the server attached to it, e.g. Gemini's thought signature in
/// `extra_content`) goes back with the call; data another adapter wrote does not.
#[test]
fn a_calls_extra_content_goes_back_with_it() {
    let mut req = request();
    let extra = json!({"google": {"thought_signature": "c2lnbmF0dXJl"}});
    let mut mine = ToolCall::new("call_1", "read", "{}");
    mine.provider_data = Some(dsh_guest_openai::plan::provider_data_for(&extra));
    let mut foreign = ToolCall::new("call_2", "read", "{}");
    foreign.provider_data = Some(r#"{"anthropic":{"thinking":[]}}"#.into());
    req.messages.push(Message {
        tool_calls: vec![mine, foreign],
        ..msg(Role::Assistant, "")
    });
    let b = body(&req);
    assert_eq!(b["messages"][2]["tool_calls"][0]["extra_content"], extra);
    assert!(
        b["messages"][2]["tool_calls"][1]
            .get("extra_content")
            .is_none(),
        "{b}"
    );
}

#[test]
fn tool_calls_and_tool_results_in_openai_shape() {
    let mut req = request();
    let call = |id: &str, name: &str, args: &str| ToolCall::new(id, name, args);
    req.messages.push(Message {
        tool_calls: vec![
            call("call_1", "read", r#"{"path":"a"}"#),
            call("call_2", "now", ""),
        ],
        ..Message::new(Role::Assistant, "")
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
