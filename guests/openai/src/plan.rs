//! `plan-request`: a completion request as an OpenAI chat-completions streaming call.
//!
//! Generation options go by the names OpenAI gives them (`max_tokens` or `max_completion_tokens`
//! by model family, `stop`, `top_p`, `reasoning_effort`, `response_format`); content parts become
//! OpenAI's `text` and `image_url` parts; a tool call's provider data is the `extra_content` that
//! OpenAI-compatible servers attach to it (Gemini's thought signature), sent back as it came.

use serde_json::{Map, Value, json};

use crate::types::{
    CompletionRequest, ContentPart, Endpoint, GenerationOptions, HttpPlan, LlmFailure, Message,
    ResponseFormat, Role, ToolCall, ToolSpec, codes,
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
    options_json(&req.model, &req.options, &mut body)?;
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
    // Only user messages may carry images in chat completions.
    if m.role != Role::User && m.has_images() {
        return Err(invalid(format!(
            "message {index} ({role}) has an image part: OpenAI takes images in user messages only"
        )));
    }
    let mut out = Map::new();
    out.insert("role".into(), json!(role));
    match m.role {
        Role::Assistant if !m.tool_calls.is_empty() => {
            // OpenAI's own shape for a pure tool-call turn is `content: null`; some compatible
            // servers reject an empty string next to tool calls.
            let text = m.text();
            let content = if text.is_empty() {
                Value::Null
            } else {
                json!(text)
            };
            out.insert("content".into(), content);
            let calls = m.tool_calls.iter().map(tool_call_json).collect();
            out.insert("tool_calls".into(), Value::Array(calls));
        }
        Role::Tool => {
            let Some(id) = m.tool_call_id.as_deref().filter(|id| !id.is_empty()) else {
                return Err(invalid(format!(
                    "message {index} has role tool but no tool_call_id: OpenAI cannot match it to a call"
                )));
            };
            out.insert("content".into(), json!(m.text()));
            out.insert("tool_call_id".into(), json!(id));
        }
        // Several parts go as OpenAI's list of parts, as the client gave them (joining texts would
        // have to pick a separator the provider does not use); one text part as a plain string,
        // which every OpenAI-compatible server takes.
        Role::User | Role::System if m.has_images() || m.content.len() > 1 => {
            out.insert("content".into(), content_parts_json(&m.content));
        }
        _ => {
            out.insert("content".into(), json!(m.text()));
        }
    }
    Ok(Value::Object(out))
}

/// Content of several parts: OpenAI's list of parts, in order.
fn content_parts_json(parts: &[ContentPart]) -> Value {
    parts
        .iter()
        .map(|p| match p {
            ContentPart::Text(text) => json!({ "type": "text", "text": text }),
            ContentPart::ImageUrl(url) => {
                json!({ "type": "image_url", "image_url": { "url": url } })
            }
        })
        .collect()
}

fn tool_call_json(c: &ToolCall) -> Value {
    let mut call = json!({
        "id": c.id,
        "type": "function",
        "function": { "name": c.name, "arguments": replay_arguments(&c.arguments) },
    });
    if let Some(extra) = c.provider_data.as_deref().and_then(extra_content_of) {
        call["extra_content"] = extra;
    }
    call
}

/// The key of this adapter's provider data: `{"openai": {"extra_content": ...}}`. Data without it
/// was written by another adapter (the conversation moved between providers) and is not sent.
pub const PROVIDER_DATA_KEY: &str = "openai";

/// A tool call's provider data, as the decoder writes it: the `extra_content` object the server
/// attached to the call.
pub fn provider_data_for(extra_content: &Value) -> String {
    json!({ PROVIDER_DATA_KEY: { "extra_content": extra_content } }).to_string()
}

fn extra_content_of(provider_data: &str) -> Option<Value> {
    let mut value: Value = serde_json::from_str(provider_data).ok()?;
    value
        .get_mut(PROVIDER_DATA_KEY)?
        .get_mut("extra_content")
        .map(Value::take)
        .filter(Value::is_object)
}

/// Whether `model` is one of OpenAI's reasoning families (o1, o3, o4-mini, gpt-5, ...), which
/// refuse `max_tokens` and want `max_completion_tokens`. Other models, and the OpenAI-compatible
/// servers that only know `max_tokens` (older vLLM, llama.cpp, Ollama), get `max_tokens`. A
/// routing prefix (`openai/o3-mini` on OpenRouter) is looked through.
pub fn uses_max_completion_tokens(model: &str) -> bool {
    let name = model
        .rsplit('/')
        .next()
        .unwrap_or(model)
        .to_ascii_lowercase();
    let o_series = name
        .strip_prefix('o')
        .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()));
    o_series || name.starts_with("gpt-5")
}

/// The generation options, by OpenAI's names. Only what is set is sent.
fn options_json(
    model: &str,
    o: &GenerationOptions,
    body: &mut Map<String, Value>,
) -> Result<(), LlmFailure> {
    if let Some(max) = o.max_output_tokens {
        let name = if uses_max_completion_tokens(model) {
            "max_completion_tokens"
        } else {
            "max_tokens"
        };
        body.insert(name.into(), json!(max));
    }
    if let Some(t) = o.temperature {
        body.insert("temperature".into(), number_json("temperature", t, None)?);
    }
    if let Some(p) = o.top_p {
        body.insert("top_p".into(), number_json("top_p", p, Some(1.0))?);
    }
    if !o.stop.is_empty() {
        if o.stop.iter().any(String::is_empty) {
            return Err(invalid("a stop sequence is empty"));
        }
        body.insert("stop".into(), json!(o.stop));
    }
    if let Some(effort) = o.reasoning_effort {
        body.insert("reasoning_effort".into(), json!(effort.as_str()));
    }
    match &o.response_format {
        None => {}
        Some(ResponseFormat::Text) => {
            body.insert("response_format".into(), json!({ "type": "text" }));
        }
        Some(ResponseFormat::JsonObject) => {
            body.insert("response_format".into(), json!({ "type": "json_object" }));
        }
        Some(ResponseFormat::JsonSchema(f)) => {
            if f.name.trim().is_empty() {
                return Err(invalid(
                    "response format json-schema has no name: OpenAI requires one",
                ));
            }
            let schema = serde_json::from_str::<Value>(&f.schema_json)
                .ok()
                .filter(Value::is_object)
                .ok_or_else(|| {
                    invalid(format!(
                        "response format json-schema `{}`: its schema is not a JSON object",
                        f.name
                    ))
                })?;
            body.insert(
                "response_format".into(),
                json!({ "type": "json_schema",
                        "json_schema": { "name": f.name, "schema": schema, "strict": f.strict } }),
            );
        }
    }
    Ok(())
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
/// `max`: the largest value allowed (none: any non-negative number).
fn number_json(name: &str, x: f32, max: Option<f32>) -> Result<Value, LlmFailure> {
    let shortest: f64 = x.to_string().parse().unwrap_or(f64::from(x));
    serde_json::Number::from_f64(shortest)
        .filter(|_| x.is_finite() && x >= 0.0 && max.is_none_or(|m| x <= m))
        .map(Value::Number)
        .ok_or_else(|| match max {
            Some(m) => invalid(format!("{name} {x} is not a number from 0 to {m}")),
            None => invalid(format!("{name} {x} is not a finite, non-negative number")),
        })
}

fn invalid(message: impl Into<String>) -> LlmFailure {
    LlmFailure::new(codes::INVALID_REQUEST, message)
}
