//! `plan-request`: a completion request as an OpenAI chat-completions streaming call.

use serde_json::{Map, Value, json};

use crate::types::{
    CompletionRequest, Endpoint, HttpPlan, LlmFailure, Message, Role, ToolSpec, codes,
};

/// The header value the host fills with the provider's key: the adapter never sees it.
pub const AUTHORIZATION_VALUE: &str = "Bearer {credential}";

/// Plan `POST {base-url}/chat/completions`. An error is a request no provider could accept
/// (`INVALID_REQUEST`), reported before anything is sent.
pub fn plan_request(endpoint: &Endpoint, req: &CompletionRequest) -> Result<HttpPlan, LlmFailure> {
    let body = request_body(req)?;
    // The contract says no trailing slash; tolerate one rather than send `//chat/completions`.
    let base = endpoint.base_url.trim_end_matches('/');
    Ok(HttpPlan {
        method: "POST".to_string(),
        url: format!("{base}/chat/completions"),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
            ("authorization".into(), AUTHORIZATION_VALUE.into()),
        ],
        body: serde_json::to_vec(&body).unwrap_or_default(),
    })
}

/// The JSON body of the chat-completions request.
pub fn request_body(req: &CompletionRequest) -> Result<Value, LlmFailure> {
    if req.model.trim().is_empty() {
        return Err(invalid("the request names no model"));
    }
    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    let messages = req
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| message_json(i, m))
        .collect::<Result<Vec<_>, _>>()?;
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(tool_json)
            .collect::<Result<Vec<_>, _>>()?;
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(max) = req.max_tokens {
        body.insert("max_tokens".into(), json!(max));
    }
    if let Some(t) = req.temperature {
        body.insert("temperature".into(), temperature_json(t)?);
    }
    body.insert("stream".into(), json!(true));
    // Without this OpenAI sends no usage at all in a stream.
    body.insert("stream_options".into(), json!({ "include_usage": true }));
    Ok(Value::Object(body))
}

fn message_json(index: usize, m: &Message) -> Result<Value, LlmFailure> {
    let role = match m.role {
        Role::System => "system",
        Role::User => "user",
        Role::Assistant => "assistant",
        Role::Tool => "tool",
    };
    let mut out = Map::new();
    out.insert("role".into(), json!(role));
    match m.role {
        Role::Assistant if !m.tool_calls.is_empty() => {
            // OpenAI's own shape for a pure tool-call turn is `content: null`; some compatible
            // servers reject an empty string next to tool calls.
            let content = if m.content.is_empty() {
                Value::Null
            } else {
                json!(m.content)
            };
            out.insert("content".into(), content);
            let calls = m
                .tool_calls
                .iter()
                .map(|c| {
                    json!({
                        "id": c.id,
                        "type": "function",
                        "function": { "name": c.name, "arguments": replay_arguments(&c.arguments) },
                    })
                })
                .collect();
            out.insert("tool_calls".into(), Value::Array(calls));
        }
        Role::Tool => {
            let Some(id) = m.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
                return Err(invalid(format!(
                    "message {index} has role tool but no tool_call_id: OpenAI cannot match it to a call"
                )));
            };
            out.insert("content".into(), json!(m.content));
            out.insert("tool_call_id".into(), json!(id));
        }
        _ => {
            out.insert("content".into(), json!(m.content));
        }
    }
    Ok(Value::Object(out))
}

/// Models emit `""` for tools without arguments (see tests/fixtures/tool-arguments.json); sending it
/// back makes servers that parse arguments (llama.cpp, Ollama, some proxies) reject the history.
/// `{}` means the same and every server accepts it.
fn replay_arguments(arguments: &str) -> String {
    if arguments.trim().is_empty() {
        "{}".to_string()
    } else {
        arguments.to_string()
    }
}

fn tool_json(tool: &ToolSpec) -> Result<Value, LlmFailure> {
    let name = &tool.name;
    if name.trim().is_empty() {
        return Err(invalid("a tool has an empty name"));
    }
    // An empty schema is read as "no arguments", like empty argument text (docs/DESIGN.md, Tool calls).
    let parameters = if tool.parameters_schema.trim().is_empty() {
        json!({ "type": "object", "properties": {} })
    } else {
        serde_json::from_str::<Value>(&tool.parameters_schema).map_err(|e| {
            invalid(format!(
                "tool `{name}`: its parameters schema is not valid JSON ({e})"
            ))
        })?
    };
    if !parameters.is_object() {
        return Err(invalid(format!(
            "tool `{name}`: its parameters schema must be a JSON object"
        )));
    }
    let mut function = Map::new();
    function.insert("name".into(), json!(name));
    if !tool.description.is_empty() {
        function.insert("description".into(), json!(tool.description));
    }
    function.insert("parameters".into(), parameters);
    Ok(json!({ "type": "function", "function": function }))
}

/// `0.7f32 as f64` is 0.699999988079071; go through the shortest decimal text so the body says 0.7.
fn temperature_json(t: f32) -> Result<Value, LlmFailure> {
    let shortest: f64 = t.to_string().parse().unwrap_or(f64::from(t));
    serde_json::Number::from_f64(shortest)
        .filter(|_| t.is_finite() && t >= 0.0)
        .map(Value::Number)
        .ok_or_else(|| {
            invalid(format!(
                "temperature {t} is not a finite, non-negative number"
            ))
        })
}

fn invalid(message: impl Into<String>) -> LlmFailure {
    LlmFailure::new(codes::INVALID_REQUEST, message)
}
