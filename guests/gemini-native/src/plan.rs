//! `plan-request`: a completion request as Gemini's native streaming call.
//!
//! ```text
//! POST {base-url}/models/{model}:streamGenerateContent?alt=sse
//! x-goog-api-key: {credential}      (the host puts the key there; the adapter never sees it)
//! {"contents": [...], "systemInstruction": {"parts": [...]}, "tools": [{"functionDeclarations":
//!  [...]}], "generationConfig": {...}}
//! ```
//!
//! Messages:
//! - system messages → `systemInstruction`, one text part each (Gemini has no system role in
//!   `contents`);
//! - user → `{role: "user", parts: [{text} | {inlineData}...]}`; assistant → `{role: "model",
//!   parts: [{text}?, {functionCall: {name, args}, thoughtSignature?}...]}`; a tool result →
//!   `{role: "user", parts: [{functionResponse: {name, response}}]}`, its name looked up from the
//!   call it answers (by id);
//! - consecutive contents of the same role are merged (the results of parallel calls go back in one
//!   content, as Gemini expects); empty texts are dropped (Gemini refuses empty parts);
//! - `args` must be a JSON object: arguments that parse to one are sent as such, empty arguments as
//!   `{}`, anything else as `{"arguments": <the text>}`. A tool's `response` must be an object too:
//!   a result that parses to a JSON object is sent as is, any other as `{"output": <the text>}`;
//! - a tool result whose call is not in the conversation (dropped by compaction, say) cannot be a
//!   functionResponse (Gemini needs the function's name): it goes as user text, marked as a tool
//!   result, rather than failing the turn;
//! - thought signatures: Gemini 3 models refuse a replayed functionCall without the
//!   `thoughtSignature` it came with. The decoder keeps each call's signature as the call's provider
//!   data (`{"gemini": {"thoughtSignature": "..."}}`) and it is sent back here. A model turn whose
//!   first call has none (decoded by another adapter, or before 0.2) gets Google's documented
//!   placeholder `skip_thought_signature_validator` there, which Gemini accepts instead;
//! - images: a `data:` URL is an `inlineData` part; an `http(s):` URL is refused (generateContent
//!   takes only inline data or a Files API `fileData` URI, never a web URL).
//!
//! Generation options: `maxOutputTokens`, `temperature`, `topP`, `stopSequences`; a reasoning effort
//! is a `thinkingConfig` budget ([`thinking_budget`]); a JSON response format is
//! `responseMimeType: application/json` (with `responseSchema`, narrowed as tool schemas are).
//!
//! Tools: the JSON schema goes in `parameters`, which takes Google's OpenAPI subset rather than full
//! JSON Schema, so the schema is narrowed to that subset ([`gemini_schema`]); a tool without
//! parameters is declared without `parameters` (Gemini refuses an object with no properties).

use std::collections::HashMap;

use serde_json::{Map, Value, json};

use crate::types::{
    CompletionRequest, ContentPart, Endpoint, HttpPlan, LlmFailure, ReasoningEffort,
    ResponseFormat, Role, ToolCall, ToolSpec, codes,
};

/// Google's documented stand-in for a thought signature the client no longer has.
pub const SIGNATURE_PLACEHOLDER: &str = "skip_thought_signature_validator";

/// The key of this adapter's provider data: `{"gemini": {"thoughtSignature": "..."}}`. Data
/// without it was written by another adapter and is not sent.
pub const PROVIDER_DATA_KEY: &str = "gemini";

/// A call's provider data, as the decoder writes it.
pub fn provider_data_for(signature: &str) -> String {
    json!({ PROVIDER_DATA_KEY: { "thoughtSignature": signature } }).to_string()
}

/// The thought signature kept in a call's provider data, if this adapter wrote it.
pub fn signature_of(provider_data: Option<&str>) -> Option<String> {
    let value = serde_json::from_str::<Value>(provider_data?).ok()?;
    let s = value
        .get(PROVIDER_DATA_KEY)?
        .get("thoughtSignature")?
        .as_str()?;
    (!s.is_empty()).then(|| s.to_string())
}

/// Plan the streaming call. An error is a request Gemini could never accept (`INVALID_REQUEST`),
/// reported before anything is sent.
pub fn plan_request(endpoint: &Endpoint, req: &CompletionRequest) -> Result<HttpPlan, LlmFailure> {
    let model = req.model.trim();
    if model.is_empty() {
        return Err(invalid(
            "no model given: set `model = \"gemini-2.5-flash\"` (for example) under [providers.NAME] or pass --model",
        ));
    }
    // `gemini-2.5-flash` → models/gemini-2.5-flash; `models/...` and `tunedModels/...` are full names.
    let resource = if model.contains('/') {
        model.to_string()
    } else {
        format!("models/{model}")
    };
    let path: Vec<String> = resource.split('/').map(percent_encode).collect();
    let base = endpoint.base_url.trim_end_matches('/');
    let body = request_body(req)?;
    Ok(HttpPlan {
        method: "POST".into(),
        url: format!("{base}/{}:streamGenerateContent?alt=sse", path.join("/")),
        headers: vec![
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
            ("x-goog-api-key".into(), "{credential}".into()),
        ],
        body: serde_json::to_vec(&body).unwrap_or_default(),
    })
}

/// `encodeURIComponent`: everything but the unreserved characters and `!'()*` is escaped.
fn percent_encode(segment: &str) -> String {
    let mut out = String::new();
    for b in segment.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.!~*'()".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The JSON body.
pub fn request_body(req: &CompletionRequest) -> Result<Value, LlmFailure> {
    let mut system: Vec<Value> = Vec::new();
    let mut contents: Vec<(&'static str, Vec<Value>)> = Vec::new();
    let mut call_names: HashMap<&str, &str> = HashMap::new();
    let mut push = |role: &'static str, parts: Vec<Value>| {
        if parts.is_empty() {
            return;
        }
        match contents.last_mut() {
            Some((last, existing)) if *last == role => existing.extend(parts),
            _ => contents.push((role, parts)),
        }
    };
    for (index, m) in req.messages.iter().enumerate() {
        match m.role {
            Role::System => {
                if m.has_images() {
                    return Err(invalid(format!(
                        "message {index} (system) has an image part: Gemini's systemInstruction takes text only"
                    )));
                }
                let text = m.text();
                if !text.trim().is_empty() {
                    system.push(json!({ "text": text }));
                }
            }
            Role::User => push("user", content_parts(index, &m.content)?),
            Role::Assistant => {
                if m.has_images() {
                    return Err(invalid(format!(
                        "message {index} (assistant) has an image part: this adapter sends images in user messages only"
                    )));
                }
                let mut parts = content_parts(index, &m.content)?;
                for (i, call) in m.tool_calls.iter().enumerate() {
                    call_names.insert(call.id.as_str(), call.name.as_str());
                    parts.push(function_call_part(call, i == 0));
                }
                push("model", parts);
            }
            Role::Tool => {
                let text = m.text();
                match m.tool_call_id.as_deref().and_then(|id| call_names.get(id)) {
                    Some(name) => push(
                        "user",
                        vec![
                            json!({ "functionResponse": { "name": name, "response": response_object(&text) } }),
                        ],
                    ),
                    None => {
                        let id = m.tool_call_id.as_deref().unwrap_or("(no id)");
                        push(
                            "user",
                            vec![json!({ "text": format!("[result of tool call {id}]\n{text}") })],
                        );
                    }
                }
            }
        }
    }
    let mut body = Map::new();
    let contents: Vec<Value> = contents
        .into_iter()
        .map(|(role, parts)| json!({ "role": role, "parts": parts }))
        .collect();
    body.insert("contents".into(), Value::Array(contents));
    if !system.is_empty() {
        body.insert("systemInstruction".into(), json!({ "parts": system }));
    }
    if !req.tools.is_empty() {
        let declarations = req
            .tools
            .iter()
            .map(declaration)
            .collect::<Result<Vec<_>, _>>()?;
        body.insert(
            "tools".into(),
            json!([{ "functionDeclarations": declarations }]),
        );
    }
    let config = generation_config(req)?;
    if !config.is_empty() {
        body.insert("generationConfig".into(), Value::Object(config));
    }
    Ok(Value::Object(body))
}

/// A message's text and image parts (empty texts dropped).
fn content_parts(index: usize, content: &[ContentPart]) -> Result<Vec<Value>, LlmFailure> {
    let mut parts = Vec::new();
    for part in content {
        match part {
            ContentPart::Text(t) if !t.is_empty() => parts.push(json!({ "text": t })),
            ContentPart::Text(_) => {}
            ContentPart::ImageUrl(url) => parts.push(inline_image(index, url)?),
        }
    }
    Ok(parts)
}

/// A `data:` image URL as an `inlineData` part.
fn inline_image(index: usize, url: &str) -> Result<Value, LlmFailure> {
    if let Some(rest) = url.strip_prefix("data:") {
        return match rest.split_once(";base64,") {
            Some((mime, data)) if !mime.is_empty() => {
                Ok(json!({ "inlineData": { "mimeType": mime, "data": data } }))
            }
            _ => Err(invalid(format!(
                "message {index}: an image data: URL must be base64 with a media type (data:image/png;base64,...)"
            ))),
        };
    }
    let shown: String = url.chars().take(40).collect();
    if url.starts_with("https://") || url.starts_with("http://") {
        return Err(invalid(format!(
            "message {index}: Gemini's generateContent cannot fetch an image from a web URL ({shown:?}): \
             give the image inline as a data: URL (data:image/png;base64,...)"
        )));
    }
    Err(invalid(format!(
        "message {index}: an image must be a data: URL, got {shown:?}"
    )))
}

/// A stored call as a `functionCall` part, with its thought signature (or, first in its turn, the
/// placeholder).
fn function_call_part(call: &ToolCall, first: bool) -> Value {
    let mut part = Map::new();
    part.insert(
        "functionCall".into(),
        json!({ "name": call.name, "args": args_object(&call.arguments) }),
    );
    match signature_of(call.provider_data.as_deref()) {
        Some(signature) => {
            part.insert("thoughtSignature".into(), json!(signature));
        }
        None if first => {
            part.insert("thoughtSignature".into(), json!(SIGNATURE_PLACEHOLDER));
        }
        None => {}
    }
    Value::Object(part)
}

/// A call's argument text as the JSON object Gemini requires.
pub fn args_object(text: &str) -> Value {
    if text.trim().is_empty() {
        return json!({});
    }
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v.is_object() => v,
        _ => json!({ "arguments": text }),
    }
}

/// A tool result as the JSON object Gemini requires.
pub fn response_object(text: &str) -> Value {
    match serde_json::from_str::<Value>(text) {
        Ok(v) if v.is_object() => v,
        _ => json!({ "output": text }),
    }
}

fn declaration(tool: &ToolSpec) -> Result<Value, LlmFailure> {
    let mut d = Map::new();
    d.insert("name".into(), json!(tool.name));
    if !tool.description.is_empty() {
        d.insert("description".into(), json!(tool.description));
    }
    if !tool.parameters_schema.trim().is_empty() {
        let schema = serde_json::from_str::<Value>(&tool.parameters_schema).map_err(|e| {
            invalid(format!(
                "the parameters schema of tool {:?} is not valid JSON ({e})",
                tool.name
            ))
        })?;
        if let Some(parameters) = gemini_schema(&schema) {
            let empty_object = parameters.get("type").and_then(Value::as_str) == Some("object")
                && parameters
                    .get("properties")
                    .and_then(Value::as_object)
                    .is_none_or(Map::is_empty);
            if !empty_object {
                d.insert("parameters".into(), parameters);
            }
        }
    }
    Ok(Value::Object(d))
}

const SCHEMA_KEYS: &[&str] = &[
    "type",
    "format",
    "title",
    "description",
    "nullable",
    "enum",
    "maxItems",
    "minItems",
    "properties",
    "required",
    "minProperties",
    "maxProperties",
    "minLength",
    "maxLength",
    "pattern",
    "example",
    "anyOf",
    "propertyOrdering",
    "default",
    "items",
    "minimum",
    "maximum",
];

/// A JSON value as JavaScript's `String(v)` writes it (enum values become strings).
fn js_string(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    }
}

/// A JSON Schema narrowed to the OpenAPI subset Gemini's `parameters` accepts: unknown keywords
/// (`$schema`, `additionalProperties`, `$ref`, ...) are dropped, `type: ["string", "null"]` becomes
/// `type: "string", nullable: true`, `const` becomes a one-value `enum`, `oneOf` becomes `anyOf`,
/// `enum` values become strings (Gemini's enums are strings), and `required` keeps only names that
/// are among the properties.
pub fn gemini_schema(schema: &Value) -> Option<Value> {
    let Value::Object(schema) = schema else {
        return (schema == &Value::Bool(true)).then(|| json!({}));
    };
    let mut out = Map::new();
    for (k, v) in schema {
        match k.as_str() {
            "type" => match v {
                Value::Array(types) => {
                    let kept: Vec<&Value> = types
                        .iter()
                        .filter(|t| t.as_str() != Some("null"))
                        .collect();
                    if kept.len() != types.len() {
                        out.insert("nullable".into(), json!(true));
                    }
                    match kept.as_slice() {
                        [] => {}
                        [one] => {
                            out.insert("type".into(), (*one).clone());
                        }
                        many => {
                            let any: Vec<Value> =
                                many.iter().map(|t| json!({ "type": t })).collect();
                            out.insert("anyOf".into(), Value::Array(any));
                        }
                    }
                }
                Value::String(_) => {
                    out.insert("type".into(), v.clone());
                }
                _ => {}
            },
            "const" => {
                out.insert("enum".into(), json!([js_string(v)]));
            }
            "oneOf" | "anyOf" => {
                if let Value::Array(items) = v {
                    out.insert(
                        "anyOf".into(),
                        Value::Array(items.iter().filter_map(gemini_schema).collect()),
                    );
                }
            }
            "properties" => {
                if let Value::Object(props) = v {
                    let narrowed: Map<String, Value> = props
                        .iter()
                        .filter_map(|(name, sub)| gemini_schema(sub).map(|s| (name.clone(), s)))
                        .collect();
                    out.insert("properties".into(), Value::Object(narrowed));
                }
            }
            "items" => {
                let item = match v {
                    Value::Array(items) => items.first(),
                    other => Some(other),
                };
                if let Some(s) = item.and_then(gemini_schema) {
                    out.insert("items".into(), s);
                }
            }
            "enum" => {
                if let Value::Array(values) = v {
                    let strings: Vec<Value> = values
                        .iter()
                        .filter(|x| !x.is_null())
                        .map(|x| json!(js_string(x)))
                        .collect();
                    out.insert("enum".into(), Value::Array(strings));
                }
            }
            key if SCHEMA_KEYS.contains(&key) => {
                out.insert(k.clone(), v.clone());
            }
            _ => {}
        }
    }
    if out.get("type").and_then(Value::as_str) == Some("object")
        && let Some(Value::Array(required)) = out.get("required")
    {
        let props = out.get("properties").and_then(Value::as_object);
        let kept: Vec<Value> = required
            .iter()
            .filter(|n| {
                n.as_str()
                    .is_some_and(|n| props.is_some_and(|p| p.contains_key(n)))
            })
            .cloned()
            .collect();
        if kept.is_empty() {
            out.remove("required");
        } else {
            out.insert("required".into(), Value::Array(kept));
        }
    }
    if out
        .get("anyOf")
        .and_then(Value::as_array)
        .is_some_and(Vec::is_empty)
    {
        out.remove("anyOf");
    }
    Some(Value::Object(out))
}

/// Gemini's thinking budget (tokens) for a reasoning effort. Gemini 2.5 Pro thinks at least 128
/// tokens and Flash at most 24,576: these stay within both.
pub fn thinking_budget(effort: ReasoningEffort) -> u32 {
    match effort {
        ReasoningEffort::Minimal => 512,
        ReasoningEffort::Low => 2_048,
        ReasoningEffort::Medium => 8_192,
        ReasoningEffort::High => 24_576,
    }
}

/// `generationConfig`: every option the request sets, by Gemini's names.
fn generation_config(req: &CompletionRequest) -> Result<Map<String, Value>, LlmFailure> {
    let o = &req.options;
    let mut config = Map::new();
    if let Some(max) = o.max_output_tokens {
        if max == 0 {
            return Err(invalid(
                "max-output-tokens is 0: Gemini requires at least 1",
            ));
        }
        config.insert("maxOutputTokens".into(), json!(max));
    }
    if let Some(t) = o.temperature {
        config.insert("temperature".into(), f32_json("temperature", t)?);
    }
    if let Some(p) = o.top_p {
        config.insert("topP".into(), f32_json("top-p", p)?);
    }
    if !o.stop.is_empty() {
        if o.stop.len() > 5 {
            return Err(invalid(format!(
                "{} stop sequences given: Gemini takes at most 5",
                o.stop.len()
            )));
        }
        config.insert("stopSequences".into(), json!(o.stop));
    }
    if let Some(effort) = o.reasoning_effort {
        config.insert(
            "thinkingConfig".into(),
            json!({ "thinkingBudget": thinking_budget(effort), "includeThoughts": true }),
        );
    }
    match &o.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(ResponseFormat::JsonObject) => {
            config.insert("responseMimeType".into(), json!("application/json"));
        }
        Some(ResponseFormat::JsonSchema(format)) => {
            let schema = serde_json::from_str::<Value>(&format.schema_json).map_err(|e| {
                invalid(format!(
                    "the response schema {:?} is not valid JSON ({e})",
                    format.name
                ))
            })?;
            config.insert("responseMimeType".into(), json!("application/json"));
            if let Some(s) = gemini_schema(&schema) {
                config.insert("responseSchema".into(), s);
            }
        }
    }
    Ok(config)
}

/// An f32 option as the decimal the caller wrote (0.7 crosses the boundary as 0.699999988...).
fn f32_json(what: &str, v: f32) -> Result<Value, LlmFailure> {
    if !v.is_finite() || v < 0.0 {
        return Err(invalid(format!(
            "{what} is {v}: it must be a finite number, at least 0"
        )));
    }
    let rounded = (f64::from(v) * 1e6).round() / 1e6;
    Ok(json!(rounded))
}

fn invalid(message: impl Into<String>) -> LlmFailure {
    LlmFailure::new(codes::INVALID_REQUEST, message)
}
