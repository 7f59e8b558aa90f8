//! plan-request: the URL, headers and JSON body of Gemini's native streaming call. Ported case for
//! case from the JavaScript example guest's tests, plus contract 0.2: generation options, thinking,
//! JSON formats, images, thought signatures sent back.

use dsh_guest_gemini::plan::{
    SIGNATURE_PLACEHOLDER, args_object, gemini_schema, provider_data_for, request_body,
    response_object,
};
use dsh_guest_gemini::plan_request;
use dsh_guest_gemini::types::{
    CompletionRequest, ContentPart, Endpoint, GenerationOptions, JsonSchemaFormat, LlmFailure,
    Message, ReasoningEffort, ResponseFormat, Role, ToolCall, ToolSpec,
};
use serde_json::{Value, json};

fn msg(role: Role, text: &str) -> Message {
    Message::new(role, text)
}

fn with_calls(text: &str, calls: &[(&str, &str, &str)]) -> Message {
    Message {
        tool_calls: calls
            .iter()
            .map(|(id, name, args)| ToolCall::new(*id, *name, *args))
            .collect(),
        ..msg(Role::Assistant, text)
    }
}

fn result(text: &str, id: &str) -> Message {
    Message {
        tool_call_id: Some(id.into()),
        ..msg(Role::Tool, text)
    }
}

fn request(messages: Vec<Message>) -> CompletionRequest {
    CompletionRequest {
        model: "gemini-2.5-flash".into(),
        messages,
        tools: vec![],
        options: GenerationOptions::default(),
    }
}

fn endpoint(base: &str) -> Endpoint {
    Endpoint {
        base_url: base.into(),
    }
}

const BASE: &str = "https://generativelanguage.googleapis.com/v1beta";

fn body(req: &CompletionRequest) -> Value {
    request_body(req).expect("a valid request")
}

fn refused(req: &CompletionRequest) -> LlmFailure {
    let f = request_body(req).expect_err("refused");
    assert_eq!(f.code, "INVALID_REQUEST");
    f
}

#[test]
fn the_url_method_and_headers() {
    let plan = plan_request(&endpoint(BASE), &request(vec![msg(Role::User, "Hi")])).unwrap();
    assert_eq!(plan.method, "POST");
    assert_eq!(
        plan.url,
        "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse"
    );
    let headers: Vec<(&str, &str)> = plan
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    assert_eq!(
        headers,
        [
            ("content-type", "application/json"),
            ("accept", "text/event-stream"),
            ("x-goog-api-key", "{credential}"),
        ]
    );
    let sent: Value = serde_json::from_slice(&plan.body).unwrap();
    assert_eq!(
        sent,
        json!({ "contents": [{ "role": "user", "parts": [{ "text": "Hi" }] }] })
    );
    let with_model = |base: &str, model: &str| {
        plan_request(
            &endpoint(base),
            &CompletionRequest {
                model: model.into(),
                ..request(vec![])
            },
        )
        .unwrap()
        .url
    };
    assert_eq!(
        with_model("http://127.0.0.1:8080/v1beta/", "models/gemini-2.0-flash"),
        "http://127.0.0.1:8080/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse"
    );
    assert_eq!(
        with_model(BASE, "tunedModels/my-model-123"),
        "https://generativelanguage.googleapis.com/v1beta/tunedModels/my-model-123:streamGenerateContent?alt=sse"
    );
    assert!(with_model(BASE, "odd name?").contains("models/odd%20name%3F:stream"));
}

#[test]
fn no_model_is_invalid_request() {
    let f = plan_request(
        &endpoint(BASE),
        &CompletionRequest {
            model: " ".into(),
            ..request(vec![])
        },
    )
    .unwrap_err();
    assert_eq!(f.code, "INVALID_REQUEST");
    assert!(f.message.contains("no model"), "{}", f.message);
}

#[test]
fn system_messages_and_generation_config() {
    let mut req = request(vec![
        msg(Role::System, "Be terse."),
        msg(Role::System, "Use French."),
        msg(Role::User, "Hi"),
    ]);
    req.options.max_output_tokens = Some(256);
    req.options.temperature = Some(0.7);
    let b = body(&req);
    assert_eq!(
        b["systemInstruction"],
        json!({ "parts": [{ "text": "Be terse." }, { "text": "Use French." }] })
    );
    assert_eq!(
        b["generationConfig"],
        json!({ "maxOutputTokens": 256, "temperature": 0.7 })
    );
    assert_eq!(
        b["contents"],
        json!([{ "role": "user", "parts": [{ "text": "Hi" }] }])
    );
    assert_eq!(
        body(&request(vec![msg(Role::User, "x")])).get("generationConfig"),
        None
    );
    let mut zero = request(vec![msg(Role::User, "x")]);
    zero.options.temperature = Some(0.0);
    assert_eq!(
        body(&zero)["generationConfig"],
        json!({ "temperature": 0.0 })
    );
}

#[test]
fn top_p_stop_thinking_and_json_formats_are_generation_config() {
    let mut req = request(vec![msg(Role::User, "x")]);
    req.options.top_p = Some(0.9);
    req.options.stop = vec!["END".into(), "\n\n".into()];
    req.options.reasoning_effort = Some(ReasoningEffort::Low);
    req.options.response_format = Some(ResponseFormat::JsonObject);
    assert_eq!(
        body(&req)["generationConfig"],
        json!({
            "topP": 0.9,
            "stopSequences": ["END", "\n\n"],
            "thinkingConfig": { "thinkingBudget": 2048, "includeThoughts": true },
            "responseMimeType": "application/json",
        })
    );
    req.options = GenerationOptions {
        response_format: Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
            name: "answer".into(),
            schema_json: r#"{"type":"object","additionalProperties":false,"properties":{"n":{"type":["integer","null"]}},"required":["n"]}"#.into(),
            strict: true,
        })),
        ..GenerationOptions::default()
    };
    assert_eq!(
        body(&req)["generationConfig"],
        json!({
            "responseMimeType": "application/json",
            "responseSchema": { "type": "object", "properties": { "n": { "type": "integer", "nullable": true } }, "required": ["n"] },
        })
    );
    req.options = GenerationOptions {
        response_format: Some(ResponseFormat::Text),
        ..GenerationOptions::default()
    };
    assert_eq!(body(&req).get("generationConfig"), None);
}

#[test]
fn options_gemini_cannot_take_are_refused_before_sending() {
    let mut req = request(vec![msg(Role::User, "x")]);
    req.options.max_output_tokens = Some(0);
    assert!(refused(&req).message.contains("max-output-tokens is 0"));
    req.options = GenerationOptions {
        stop: (0..6).map(|i| i.to_string()).collect(),
        ..GenerationOptions::default()
    };
    assert!(refused(&req).message.contains("at most 5"));
    req.options = GenerationOptions {
        top_p: Some(f32::NAN),
        ..GenerationOptions::default()
    };
    assert!(refused(&req).message.contains("top-p"));
    req.options = GenerationOptions {
        response_format: Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
            name: "s".into(),
            schema_json: "{".into(),
            strict: false,
        })),
        ..GenerationOptions::default()
    };
    assert!(refused(&req).message.contains("\"s\""));
}

#[test]
fn a_data_image_is_inline_data_and_a_web_url_is_refused() {
    let image = |url: &str| Message {
        content: vec![
            ContentPart::Text("What is this?".into()),
            ContentPart::ImageUrl(url.into()),
        ],
        ..msg(Role::User, "")
    };
    assert_eq!(
        body(&request(vec![image("data:image/png;base64,iVBORw0KGgo=")]))["contents"],
        json!([{ "role": "user", "parts": [
        { "text": "What is this?" },
        { "inlineData": { "mimeType": "image/png", "data": "iVBORw0KGgo=" } },
    ] }])
    );
    let f = refused(&request(vec![image("https://example.com/cat.png")]));
    assert!(f.message.contains("data: URL"), "{}", f.message);
    assert!(
        refused(&request(vec![image("data:image/png,rawbytes")]))
            .message
            .contains("base64")
    );
    assert!(
        refused(&request(vec![image("ftp://x/y.png")]))
            .message
            .contains("data: URL")
    );
}

#[test]
fn a_tool_round_trip_function_call_with_the_signature_placeholder_function_response_by_name() {
    let b = body(&request(vec![
        msg(Role::User, "Weather in Paris and Rome?"),
        with_calls(
            "Checking.",
            &[
                ("call_0", "get_weather", r#"{"city":"Paris"}"#),
                ("call_1", "get_weather", r#"{"city":"Rome"}"#),
            ],
        ),
        result(r#"{"temp_c":21}"#, "call_0"),
        result("sunny, 25 C", "call_1"),
        msg(Role::Assistant, "Paris 21, Rome 25."),
        msg(Role::User, "Thanks"),
    ]));
    assert_eq!(
        b["contents"],
        json!([
            { "role": "user", "parts": [{ "text": "Weather in Paris and Rome?" }] },
            { "role": "model", "parts": [
                { "text": "Checking." },
                { "functionCall": { "name": "get_weather", "args": { "city": "Paris" } }, "thoughtSignature": SIGNATURE_PLACEHOLDER },
                { "functionCall": { "name": "get_weather", "args": { "city": "Rome" } } }] },
            { "role": "user", "parts": [
                { "functionResponse": { "name": "get_weather", "response": { "temp_c": 21 } } },
                { "functionResponse": { "name": "get_weather", "response": { "output": "sunny, 25 C" } } }] },
            { "role": "model", "parts": [{ "text": "Paris 21, Rome 25." }] },
            { "role": "user", "parts": [{ "text": "Thanks" }] },
        ])
    );
}

#[test]
fn the_thought_signature_gemini_sent_goes_back_with_its_call() {
    let mut assistant = with_calls("", &[("call_0", "f", "{}"), ("call_1", "g", "{}")]);
    assistant.tool_calls[0].provider_data = Some(provider_data_for("sig-A"));
    assistant.tool_calls[1].provider_data = Some(provider_data_for("sig-B"));
    let b = body(&request(vec![msg(Role::User, "go"), assistant.clone()]));
    assert_eq!(
        b["contents"][1]["parts"],
        json!([
            { "functionCall": { "name": "f", "args": {} }, "thoughtSignature": "sig-A" },
            { "functionCall": { "name": "g", "args": {} }, "thoughtSignature": "sig-B" },
        ])
    );
    // Another adapter's provider data is not Gemini's signature: the placeholder goes instead.
    assistant.tool_calls[0].provider_data = Some(r#"{"anthropic":{"thinking":[]}}"#.into());
    assistant.tool_calls[1].provider_data = None;
    let b = body(&request(vec![msg(Role::User, "go"), assistant]));
    assert_eq!(
        b["contents"][1]["parts"][0]["thoughtSignature"],
        json!(SIGNATURE_PLACEHOLDER)
    );
    assert_eq!(b["contents"][1]["parts"][1].get("thoughtSignature"), None);
}

#[test]
fn an_assistant_message_with_only_tool_calls_and_consecutive_user_messages_merged() {
    let b = body(&request(vec![
        msg(Role::User, "a"),
        msg(Role::User, "b"),
        with_calls("", &[("x", "ls", "")]),
        result("", "x"),
        msg(Role::User, "c"),
    ]));
    assert_eq!(
        b["contents"],
        json!([
            { "role": "user", "parts": [{ "text": "a" }, { "text": "b" }] },
            { "role": "model", "parts": [{ "functionCall": { "name": "ls", "args": {} }, "thoughtSignature": SIGNATURE_PLACEHOLDER }] },
            { "role": "user", "parts": [{ "functionResponse": { "name": "ls", "response": { "output": "" } } }, { "text": "c" }] },
        ])
    );
}

#[test]
fn a_tool_result_whose_call_is_gone_goes_as_marked_user_text() {
    let b = body(&request(vec![msg(Role::User, "q"), result("42", "call_9")]));
    assert_eq!(
        b["contents"],
        json!([{ "role": "user", "parts": [{ "text": "q" }, { "text": "[result of tool call call_9]\n42" }] }])
    );
}

#[test]
fn arguments_and_results_that_are_not_json_objects() {
    assert_eq!(args_object(""), json!({}));
    assert_eq!(args_object("  "), json!({}));
    assert_eq!(args_object(r#"{"a":1}"#), json!({ "a": 1 }));
    assert_eq!(args_object(r#"{"a":"#), json!({ "arguments": r#"{"a":"# }));
    assert_eq!(args_object("[1,2]"), json!({ "arguments": "[1,2]" }));
    assert_eq!(response_object(r#"{"ok":true}"#), json!({ "ok": true }));
    assert_eq!(
        response_object(r#""text""#),
        json!({ "output": r#""text""# })
    );
    assert_eq!(response_object("plain"), json!({ "output": "plain" }));
}

#[test]
fn tools_become_function_declarations_with_a_gemini_shaped_schema() {
    let schema = json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "type": "object",
        "additionalProperties": false,
        "properties": {
            "path": { "type": "string", "description": "file path", "minLength": 1 },
            "mode": { "type": ["string", "null"], "enum": ["r", "w", null] },
            "lines": { "type": "array", "items": { "type": "integer", "minimum": 1 }, "maxItems": 3 },
            "kind": { "const": "file" },
            "either": { "oneOf": [{ "type": "string" }, { "type": "number" }] },
        },
        "required": ["path", "ghost"],
    });
    let mut req = request(vec![msg(Role::User, "x")]);
    req.tools = vec![
        ToolSpec {
            name: "read".into(),
            description: "Read a file".into(),
            parameters_schema: schema.to_string(),
        },
        ToolSpec {
            name: "now".into(),
            description: String::new(),
            parameters_schema: r#"{"type":"object","properties":{}}"#.into(),
        },
        ToolSpec {
            name: "ping".into(),
            description: "no schema".into(),
            parameters_schema: String::new(),
        },
    ];
    assert_eq!(
        body(&req)["tools"],
        json!([{ "functionDeclarations": [
        { "name": "read", "description": "Read a file", "parameters": {
            "type": "object",
            "properties": {
                "path": { "type": "string", "description": "file path", "minLength": 1 },
                "mode": { "nullable": true, "type": "string", "enum": ["r", "w"] },
                "lines": { "type": "array", "items": { "type": "integer", "minimum": 1 }, "maxItems": 3 },
                "kind": { "enum": ["file"] },
                "either": { "anyOf": [{ "type": "string" }, { "type": "number" }] },
            },
            "required": ["path"],
        } },
        { "name": "now" },
        { "name": "ping", "description": "no schema" },
    ] }])
    );
    assert_eq!(
        gemini_schema(&json!({ "type": ["string", "integer"] })),
        Some(json!({ "anyOf": [{ "type": "string" }, { "type": "integer" }] }))
    );
}

#[test]
fn a_schema_that_is_not_json_is_invalid_request_naming_the_tool() {
    let mut req = request(vec![msg(Role::User, "x")]);
    req.tools = vec![ToolSpec {
        name: "bad".into(),
        description: String::new(),
        parameters_schema: "{".into(),
    }];
    assert!(refused(&req).message.contains(r#"tool "bad""#));
}
