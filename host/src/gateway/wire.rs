//! The OpenAI chat-completions wire format, as the gateway speaks it: requests parsed and checked
//! into an [`Exchange`], completions written back as a JSON body or as SSE chunks. Pure code.
//!
//! Every field is either honoured, accepted because it is harmless (listed in the README), or
//! refused with a 400 that names it: a value the gateway cannot honour is never dropped silently.

use crate::adapter::{
    ContentPart, GenerationOptions, JsonSchemaFormat, Message, ReasoningEffort, ResponseFormat,
    Role, ToolCall, ToolSpec,
};
use crate::attempt::Completion;
use crate::session::{Exchange, RequestOptions};
use serde::Deserialize;
use serde_json::{Value, json};

/// A request the gateway refuses, with the parameter it names.
#[derive(Debug, Clone, PartialEq)]
pub struct BadRequest {
    pub message: String,
    pub param: Option<String>,
}

fn bad(param: &str, message: impl Into<String>) -> BadRequest {
    BadRequest {
        message: message.into(),
        param: Some(param.to_string()),
    }
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChatRequest {
    pub model: String,
    pub messages: Vec<WireMessage>,
    #[serde(default)]
    pub stream: bool,
    pub stream_options: Option<StreamOptions>,
    #[serde(default)]
    pub tools: Vec<WireTool>,
    pub tool_choice: Option<Value>,
    pub parallel_tool_calls: Option<bool>,
    pub max_tokens: Option<u32>,
    pub max_completion_tokens: Option<u32>,
    pub temperature: Option<f32>,
    pub top_p: Option<f32>,
    pub stop: Option<Value>,
    pub n: Option<u32>,
    pub user: Option<String>,
    pub store: Option<bool>,
    pub metadata: Option<Value>,
    // Known to the SDKs, refused unless harmless: named so that the error can say why.
    pub audio: Option<Value>,
    pub modalities: Option<Vec<String>>,
    pub logprobs: Option<bool>,
    pub top_logprobs: Option<u32>,
    pub logit_bias: Option<Value>,
    pub presence_penalty: Option<f32>,
    pub frequency_penalty: Option<f32>,
    pub seed: Option<i64>,
    pub response_format: Option<Value>,
    pub reasoning_effort: Option<String>,
    pub service_tier: Option<String>,
    pub prediction: Option<Value>,
    pub functions: Option<Value>,
    pub function_call: Option<Value>,
    pub web_search_options: Option<Value>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StreamOptions {
    #[serde(default)]
    pub include_usage: bool,
    pub include_obfuscation: Option<bool>,
}

#[derive(Debug, Deserialize)]
pub struct WireMessage {
    pub role: String,
    #[serde(default)]
    pub content: Option<Value>,
    #[serde(default)]
    pub tool_calls: Vec<WireToolCall>,
    pub tool_call_id: Option<String>,
    pub name: Option<String>,
    /// Some clients replay a reasoning model's output; it is not sent back to the provider.
    pub reasoning_content: Option<Value>,
    pub refusal: Option<Value>,
    /// What an earlier response carried as `extra_content.dsh.provider_data` (see [`extra_content`]).
    pub extra_content: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct WireToolCall {
    pub id: String,
    #[serde(rename = "type", default)]
    pub kind: Option<String>,
    pub function: WireFunctionCall,
    pub extra_content: Option<Value>,
}

#[derive(Debug, Deserialize)]
pub struct WireFunctionCall {
    pub name: String,
    #[serde(default)]
    pub arguments: String,
}

#[derive(Debug, Deserialize)]
pub struct WireTool {
    #[serde(rename = "type")]
    pub kind: String,
    pub function: WireFunction,
}

#[derive(Debug, Deserialize)]
pub struct WireFunction {
    pub name: String,
    #[serde(default)]
    pub description: Option<String>,
    pub parameters: Option<Value>,
    pub strict: Option<bool>,
}

/// What the gateway runs for a request.
#[derive(Debug)]
pub struct Parsed {
    pub client_model: String,
    pub stream: bool,
    pub include_usage: bool,
    pub exchange: Exchange,
}

/// Parses a request body. Unknown fields, and values the gateway cannot honour, are 400s.
pub fn parse(body: &[u8]) -> Result<Parsed, BadRequest> {
    let request: ChatRequest = serde_json::from_slice(body).map_err(|e| {
        let text = e.to_string();
        let param = text.split('`').nth(1).map(str::to_string);
        BadRequest {
            message: format!(
                "the request body is not a chat.completions request this gateway accepts: {text}. Accepted: model, messages, \
                 stream, stream_options, tools, tool_choice (\"auto\"), parallel_tool_calls, max_tokens, \
                 max_completion_tokens, temperature, top_p, stop, reasoning_effort, response_format, n (1), user, \
                 store (false), metadata"
            ),
            param,
        }
    })?;
    refuse_unhonourable(&request)?;
    if request.model.trim().is_empty() {
        return Err(bad("model", "model is required"));
    }
    if request.messages.is_empty() {
        return Err(bad("messages", "messages must hold at least one message"));
    }
    let messages = request
        .messages
        .iter()
        .enumerate()
        .map(|(i, m)| message(i, m))
        .collect::<Result<Vec<_>, _>>()?;
    let tools = request
        .tools
        .iter()
        .enumerate()
        .map(|(i, t)| tool(i, t))
        .collect::<Result<Vec<_>, _>>()?;
    let generation = generation_options(&request)?;
    Ok(Parsed {
        client_model: request.model.clone(),
        stream: request.stream,
        include_usage: request
            .stream_options
            .as_ref()
            .is_some_and(|o| o.include_usage),
        exchange: Exchange {
            messages,
            tools,
            options: RequestOptions {
                model: None,
                generation,
            },
            log_messages: false,
        },
    })
}

/// OpenAI's limit on stop sequences.
const MAX_STOP_SEQUENCES: usize = 4;

/// The generation options of a request, checked against the ranges OpenAI documents, so that a
/// client gets the same 400 from the gateway whichever provider its route reaches. Whether a
/// provider can honour an option is its adapter's call (an adapter that cannot refuses the request
/// with INVALID_REQUEST, which reaches the client as a 400).
fn generation_options(request: &ChatRequest) -> Result<GenerationOptions, BadRequest> {
    if let Some(t) = request.temperature
        && !(0.0..=2.0).contains(&t)
    {
        return Err(bad(
            "temperature",
            format!("temperature is {t}; it must be between 0 and 2"),
        ));
    }
    if let Some(p) = request.top_p
        && !(p > 0.0 && p <= 1.0)
    {
        return Err(bad(
            "top_p",
            format!("top_p is {p}; it must be greater than 0 and at most 1"),
        ));
    }
    let max_output_tokens = match (request.max_tokens, request.max_completion_tokens) {
        (Some(a), Some(b)) if a != b => {
            return Err(bad(
                "max_completion_tokens",
                "max_tokens and max_completion_tokens disagree; give one",
            ));
        }
        (a, b) => b.or(a),
    };
    if max_output_tokens == Some(0) {
        return Err(bad(
            "max_completion_tokens",
            "max_completion_tokens must be at least 1",
        ));
    }
    Ok(GenerationOptions {
        max_output_tokens,
        temperature: request.temperature,
        top_p: request.top_p,
        stop: stop_sequences(request.stop.as_ref())?,
        reasoning_effort: request
            .reasoning_effort
            .as_deref()
            .map(reasoning_effort)
            .transpose()?,
        response_format: request
            .response_format
            .as_ref()
            .map(response_format)
            .transpose()?,
    })
}

fn stop_sequences(stop: Option<&Value>) -> Result<Vec<String>, BadRequest> {
    let shape = || {
        bad(
            "stop",
            format!(
                "stop must be a string or a list of at most {MAX_STOP_SEQUENCES} non-empty strings"
            ),
        )
    };
    let stop = match stop {
        None | Some(Value::Null) => return Ok(Vec::new()),
        Some(Value::String(s)) => vec![s.clone()],
        Some(Value::Array(items)) => items
            .iter()
            .map(|v| v.as_str().map(str::to_string).ok_or_else(shape))
            .collect::<Result<_, _>>()?,
        Some(_) => return Err(shape()),
    };
    if stop.len() > MAX_STOP_SEQUENCES || stop.iter().any(String::is_empty) {
        return Err(shape());
    }
    Ok(stop)
}

fn reasoning_effort(effort: &str) -> Result<ReasoningEffort, BadRequest> {
    match effort {
        "minimal" => Ok(ReasoningEffort::Minimal),
        "low" => Ok(ReasoningEffort::Low),
        "medium" => Ok(ReasoningEffort::Medium),
        "high" => Ok(ReasoningEffort::High),
        other => Err(bad(
            "reasoning_effort",
            format!(
                "reasoning_effort {other:?} is not supported; use minimal, low, medium or high"
            ),
        )),
    }
}

fn response_format(format: &Value) -> Result<ResponseFormat, BadRequest> {
    match format.get("type").and_then(Value::as_str) {
        Some("text") => Ok(ResponseFormat::Text),
        Some("json_object") => Ok(ResponseFormat::JsonObject),
        Some("json_schema") => {
            let spec = format.get("json_schema").and_then(Value::as_object).ok_or_else(|| {
                bad("response_format.json_schema", "a json_schema response format needs {\"json_schema\": {\"name\", \"schema\"}}")
            })?;
            let name = spec
                .get("name")
                .and_then(Value::as_str)
                .filter(|n| !n.is_empty())
                .ok_or_else(|| {
                    bad(
                        "response_format.json_schema.name",
                        "the JSON schema needs a name (letters, digits, _ and -)",
                    )
                })?;
            let schema = match spec.get("schema") {
                Some(schema @ Value::Object(_)) => schema.to_string(),
                None => "{}".to_string(),
                Some(_) => {
                    return Err(bad(
                        "response_format.json_schema.schema",
                        "the schema must be a JSON object",
                    ));
                }
            };
            let strict = spec.get("strict").and_then(Value::as_bool).unwrap_or(false);
            Ok(ResponseFormat::JsonSchema(JsonSchemaFormat {
                name: name.to_string(),
                schema_json: schema,
                strict,
            }))
        }
        other => Err(bad(
            "response_format",
            format!(
                "response_format of type {:?} is not supported; use text, json_object or json_schema",
                other.unwrap_or("?")
            ),
        )),
    }
}

/// The fields an SDK may send that this gateway cannot honour: a clear 400, never a silent drop.
fn refuse_unhonourable(r: &ChatRequest) -> Result<(), BadRequest> {
    let cannot = |param: &str, why: &str| {
        Err(bad(
            param,
            format!("{param} is not supported by this gateway: {why}"),
        ))
    };
    if r.n.is_some_and(|n| n != 1) {
        return cannot("n", "it returns one choice per request (n = 1)");
    }
    if r.audio.is_some()
        || r.modalities
            .as_ref()
            .is_some_and(|m| m.iter().any(|m| m != "text"))
    {
        return cannot(
            "modalities",
            "audio output is not supported; the answer is text",
        );
    }
    if r.logprobs == Some(true) || r.top_logprobs.is_some() {
        return cannot("logprobs", "the adapters do not carry log probabilities");
    }
    if r.logit_bias
        .as_ref()
        .is_some_and(|b| b.as_object().is_none_or(|o| !o.is_empty()))
    {
        return cannot("logit_bias", "the adapters do not carry logit biases");
    }
    if r.presence_penalty.is_some_and(|p| p != 0.0) {
        return cannot("presence_penalty", "the adapters do not carry penalties");
    }
    if r.frequency_penalty.is_some_and(|p| p != 0.0) {
        return cannot("frequency_penalty", "the adapters do not carry penalties");
    }
    if r.seed.is_some() {
        return cannot("seed", "the adapters do not carry a sampling seed");
    }
    if r.service_tier
        .as_deref()
        .is_some_and(|t| !matches!(t, "auto" | "default"))
    {
        return cannot("service_tier", "only \"auto\" or \"default\"");
    }
    if r.prediction.is_some() {
        return cannot("prediction", "predicted outputs are not carried");
    }
    if r.functions.is_some() || r.function_call.is_some() {
        return cannot("functions", "the legacy functions API; use tools");
    }
    if r.web_search_options.is_some() {
        return cannot(
            "web_search_options",
            "web search is not available through adapters",
        );
    }
    if r.store == Some(true) {
        return cannot(
            "store",
            "the gateway does not store completions with the provider",
        );
    }
    match &r.tool_choice {
        None => {}
        Some(Value::String(s)) if s == "auto" => {}
        Some(_) => {
            return cannot(
                "tool_choice",
                "only \"auto\": the adapters cannot force or forbid tool calls",
            );
        }
    }
    Ok(())
}

fn message(i: usize, m: &WireMessage) -> Result<Message, BadRequest> {
    let at = |field: &str| format!("messages[{i}].{field}");
    let role = match m.role.as_str() {
        "system" | "developer" => Role::System,
        "user" => Role::User,
        "assistant" => Role::Assistant,
        "tool" => Role::Tool,
        other => {
            return Err(bad(
                &at("role"),
                format!(
                    "messages[{i}] has role {other:?}; use system, developer, user, assistant or tool"
                ),
            ));
        }
    };
    let content = match &m.content {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::String(s)) if s.is_empty() => Vec::new(),
        Some(Value::String(s)) => vec![ContentPart::Text(s.clone())],
        Some(Value::Array(parts)) => parts
            .iter()
            .enumerate()
            .map(|(j, part)| content_part(i, j, role, part))
            .collect::<Result<_, _>>()?,
        Some(_) => {
            return Err(bad(
                &at("content"),
                "content must be a string, null, or a list of content parts",
            ));
        }
    };
    if role == Role::Tool && m.tool_call_id.as_deref().is_none_or(str::is_empty) {
        return Err(bad(
            &at("tool_call_id"),
            "a tool message must name the call it answers (tool_call_id)",
        ));
    }
    if role != Role::Assistant && !m.tool_calls.is_empty() {
        return Err(bad(
            &at("tool_calls"),
            "only assistant messages carry tool calls",
        ));
    }
    let tool_calls = m
        .tool_calls
        .iter()
        .enumerate()
        .map(|(j, c)| {
            let provider_data = provider_data_of(
                c.extra_content.as_ref(),
                &format!("messages[{i}].tool_calls[{j}].extra_content"),
            )?;
            Ok(ToolCall {
                provider_data,
                ..ToolCall::new(
                    c.id.clone(),
                    c.function.name.clone(),
                    c.function.arguments.clone(),
                )
            })
        })
        .collect::<Result<_, BadRequest>>()?;
    let provider_data = match role {
        Role::Assistant => provider_data_of(m.extra_content.as_ref(), &at("extra_content"))?,
        _ => None,
    };
    let _ = (&m.name, &m.reasoning_content, &m.refusal);
    Ok(Message {
        content,
        tool_calls,
        tool_call_id: m.tool_call_id.clone(),
        provider_data,
        ..Message::new(role, "")
    })
}

/// One part of a message's content: text in any message, images in user messages (where OpenAI
/// takes them). Audio and files are refused by name.
fn content_part(i: usize, j: usize, role: Role, part: &Value) -> Result<ContentPart, BadRequest> {
    let at = format!("messages[{i}].content[{j}]");
    match part.get("type").and_then(Value::as_str) {
        Some("text") => match part.get("text").and_then(Value::as_str) {
            Some(text) => Ok(ContentPart::Text(text.to_string())),
            None => Err(bad(
                &format!("{at}.text"),
                "a text part needs a string \"text\"",
            )),
        },
        Some("image_url") if role == Role::User => {
            let url = part
                .get("image_url")
                .and_then(|i| i.get("url"))
                .and_then(Value::as_str);
            match url {
                Some(url)
                    if url.starts_with("https://")
                        || url.starts_with("http://")
                        || url.starts_with("data:") =>
                {
                    Ok(ContentPart::ImageUrl(url.to_string()))
                }
                _ => Err(bad(
                    &format!("{at}.image_url.url"),
                    "an image part needs {\"image_url\": {\"url\"}} with an http(s): or data: URL",
                )),
            }
        }
        Some("image_url") => Err(bad(&at, "image parts are accepted in user messages only")),
        kind => Err(bad(
            &at,
            format!(
                "content part of type {:?} is not supported: text and image_url parts only",
                kind.unwrap_or("?")
            ),
        )),
    }
}

fn tool(i: usize, t: &WireTool) -> Result<ToolSpec, BadRequest> {
    if t.kind != "function" {
        return Err(bad(
            &format!("tools[{i}].type"),
            format!(
                "tool type {:?} is not supported: function tools only",
                t.kind
            ),
        ));
    }
    let schema = t
        .function
        .parameters
        .clone()
        .unwrap_or_else(|| json!({"type": "object", "properties": {}}));
    let _ = t.function.strict;
    Ok(ToolSpec {
        name: t.function.name.clone(),
        description: t.function.description.clone().unwrap_or_default(),
        parameters_schema: schema.to_string(),
    })
}

/// OpenAI's finish reason for a completion.
pub fn finish_reason(c: &Completion) -> &'static str {
    if !c.tool_calls.is_empty() {
        "tool_calls"
    } else if c.truncated_by_length {
        "length"
    } else {
        "stop"
    }
}

fn usage_json(c: &Completion) -> Value {
    match &c.usage {
        Some(u) => {
            let input = u.input_tokens.unwrap_or(0);
            let output = u.output_tokens.unwrap_or(0);
            let mut usage = json!({"prompt_tokens": input, "completion_tokens": output, "total_tokens": input + output});
            if let Some(cached) = u.cached_input_tokens {
                usage["prompt_tokens_details"] = json!({"cached_tokens": cached});
            }
            if let Some(reasoning) = u.reasoning_tokens {
                usage["completion_tokens_details"] = json!({"reasoning_tokens": reasoning});
            }
            usage
        }
        None => json!({"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}),
    }
}

fn tool_calls_json(calls: &[ToolCall], with_index: bool) -> Value {
    Value::Array(
        calls
            .iter()
            .enumerate()
            .map(|(i, c)| {
                let mut call = json!({"id": c.id, "type": "function", "function": {"name": c.name, "arguments": c.arguments}});
                if with_index {
                    call["index"] = json!(i);
                }
                if let Some(data) = &c.provider_data {
                    call["extra_content"] = extra_content(data);
                }
                call
            })
            .collect(),
    )
}

/// What an adapter asked to get back with a call or a message in later requests (Anthropic's
/// signed thinking blocks, Gemini's thought signatures): the gateway keeps no conversation, so it
/// hands the opaque text to the client, in the place Gemini's own OpenAI-compatible endpoint uses
/// (`extra_content`), under our name. An SDK keeps unknown fields on the message it returns, so a
/// client that sends that message back (as agent loops do) sends it back too.
fn extra_content(provider_data: &str) -> Value {
    json!({"dsh": {"provider_data": provider_data}})
}

/// The provider data a client sent back in `extra_content`; other vendors' extra content is not
/// ours and is left alone.
fn provider_data_of(extra: Option<&Value>, param: &str) -> Result<Option<String>, BadRequest> {
    let Some(ours) = extra.and_then(|e| e.get("dsh")) else {
        return Ok(None);
    };
    match ours.get("provider_data") {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(data)) => Ok(Some(data.clone())),
        Some(_) => Err(bad(
            &format!("{param}.dsh.provider_data"),
            "provider_data must be the string an earlier response carried",
        )),
    }
}

/// The non-streaming response body.
pub fn completion_body(id: &str, created: u64, model: &str, c: &Completion) -> Value {
    let mut message = json!({"role": "assistant", "content": if c.text.is_empty() && !c.tool_calls.is_empty() { Value::Null } else { json!(c.text) }, "refusal": null});
    if !c.tool_calls.is_empty() {
        message["tool_calls"] = tool_calls_json(&c.tool_calls, false);
    }
    if !c.reasoning.is_empty() {
        message["reasoning_content"] = json!(c.reasoning);
    }
    if let Some(data) = &c.provider_data {
        message["extra_content"] = extra_content(data);
    }
    json!({
        "id": id, "object": "chat.completion", "created": created, "model": model,
        "choices": [{"index": 0, "message": message, "logprobs": null, "finish_reason": finish_reason(c)}],
        "usage": usage_json(c),
    })
}

/// Writes the SSE chunks of one streamed response, all carrying the same id, time and model.
pub struct ChunkWriter {
    pub id: String,
    pub created: u64,
    pub model: String,
}

impl ChunkWriter {
    fn chunk(&self, delta: Value, finish: Option<&str>) -> String {
        let chunk = json!({
            "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
            "choices": [{"index": 0, "delta": delta, "logprobs": null, "finish_reason": finish}],
        });
        format!("data: {chunk}\n\n")
    }

    /// The first chunk: the role, as OpenAI sends it.
    pub fn role(&self) -> String {
        self.chunk(json!({"role": "assistant", "content": ""}), None)
    }

    pub fn text(&self, text: &str) -> String {
        self.chunk(json!({"content": text}), None)
    }

    pub fn reasoning(&self, text: &str) -> String {
        self.chunk(json!({"reasoning_content": text}), None)
    }

    /// The end of a completion: its tool calls (if any), the finish reason, the usage when asked
    /// for, and `[DONE]`.
    pub fn end(&self, c: &Completion, include_usage: bool) -> String {
        let mut out = String::new();
        if !c.tool_calls.is_empty() {
            out.push_str(&self.chunk(
                json!({"tool_calls": tool_calls_json(&c.tool_calls, true)}),
                None,
            ));
        }
        let last = match &c.provider_data {
            Some(data) => json!({"extra_content": extra_content(data)}),
            None => json!({}),
        };
        out.push_str(&self.chunk(last, Some(finish_reason(c))));
        if include_usage {
            let chunk = json!({
                "id": self.id, "object": "chat.completion.chunk", "created": self.created, "model": self.model,
                "choices": [], "usage": usage_json(c),
            });
            out.push_str(&format!("data: {chunk}\n\n"));
        }
        out.push_str("data: [DONE]\n\n");
        out
    }

    /// A failure after the head: an error event the SDKs raise (no `event:` line, no `[DONE]`).
    pub fn error(&self, body: &Value) -> String {
        format!("data: {body}\n\n")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_json(v: Value) -> Result<Parsed, BadRequest> {
        parse(v.to_string().as_bytes())
    }

    #[test]
    fn a_full_request_becomes_an_exchange() {
        let p = parse_json(json!({
            "model": "gpt-4o", "stream": true, "stream_options": {"include_usage": true},
            "messages": [
                {"role": "developer", "content": "Be terse."},
                {"role": "user", "content": [{"type": "text", "text": "Hi"}, {"type": "image_url", "image_url": {"url": "https://x/cat.png", "detail": "low"}}]},
                {"role": "assistant", "content": null, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "clock", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "c1", "content": "12:00"}
            ],
            "tools": [{"type": "function", "function": {"name": "clock", "description": "time", "parameters": {"type": "object"}}}],
            "tool_choice": "auto", "parallel_tool_calls": true, "n": 1, "user": "u1",
            "max_completion_tokens": 64, "temperature": 0.5, "top_p": 0.9, "stop": "END", "reasoning_effort": "low",
            "response_format": {"type": "json_schema", "json_schema": {"name": "answer", "schema": {"type": "object"}, "strict": true}}
        }))
        .unwrap();
        assert!(p.stream && p.include_usage);
        let m = &p.exchange.messages;
        assert_eq!((m[0].role, &*m[0].text()), (Role::System, "Be terse."));
        assert_eq!(
            m[1].content,
            vec![
                ContentPart::Text("Hi".into()),
                ContentPart::ImageUrl("https://x/cat.png".into())
            ]
        );
        assert_eq!(m[2].tool_calls[0].name, "clock");
        assert_eq!(m[3].tool_call_id.as_deref(), Some("c1"));
        assert_eq!(p.exchange.tools[0].name, "clock");
        let g = &p.exchange.options.generation;
        assert_eq!(
            (g.max_output_tokens, g.temperature, g.top_p),
            (Some(64), Some(0.5), Some(0.9))
        );
        assert_eq!(g.stop, vec!["END".to_string()]);
        assert_eq!(g.reasoning_effort, Some(ReasoningEffort::Low));
        assert_eq!(
            g.response_format,
            Some(ResponseFormat::JsonSchema(JsonSchemaFormat {
                name: "answer".into(),
                schema_json: r#"{"type":"object"}"#.into(),
                strict: true
            }))
        );
    }

    #[test]
    fn generation_options_outside_openais_ranges_are_400s_naming_them() {
        let base = || json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
        for (field, value, param) in [
            ("top_p", json!(0), "top_p"),
            ("top_p", json!(1.5), "top_p"),
            ("temperature", json!(3), "temperature"),
            ("stop", json!(["a", "b", "c", "d", "e"]), "stop"),
            ("stop", json!([""]), "stop"),
            ("stop", json!(7), "stop"),
            ("reasoning_effort", json!("extreme"), "reasoning_effort"),
            ("max_completion_tokens", json!(0), "max_completion_tokens"),
            (
                "response_format",
                json!({"type": "grammar"}),
                "response_format",
            ),
            (
                "response_format",
                json!({"type": "json_schema", "json_schema": {"schema": {}}}),
                "response_format.json_schema.name",
            ),
        ] {
            let mut r = base();
            r[field] = value;
            let e = parse_json(r).unwrap_err();
            assert_eq!(e.param.as_deref(), Some(param), "{field}: {}", e.message);
        }
        let mut r = base();
        r["stop"] = json!(["a", "b"]);
        r["response_format"] = json!({"type": "json_object"});
        let g = parse_json(r).unwrap().exchange.options.generation;
        assert_eq!(
            (g.stop.len(), g.response_format),
            (2, Some(ResponseFormat::JsonObject))
        );
    }

    #[test]
    fn what_cannot_be_honoured_is_a_400_naming_it() {
        let base = || json!({"model": "m", "messages": [{"role": "user", "content": "x"}]});
        for (field, value) in [
            ("n", json!(2)),
            ("audio", json!({"voice": "alloy"})),
            ("logprobs", json!(true)),
            ("seed", json!(1)),
            ("tool_choice", json!("required")),
            ("presence_penalty", json!(0.5)),
            ("functions", json!([])),
            ("store", json!(true)),
        ] {
            let mut r = base();
            r[field] = value;
            let e = parse_json(r).unwrap_err();
            assert!(
                e.message.contains("not supported"),
                "{field}: {}",
                e.message
            );
        }
        let mut r = base();
        r["frobnicate"] = json!(1);
        let e = parse_json(r).unwrap_err();
        assert!(
            e.message.contains("frobnicate") && e.message.contains("Accepted"),
            "{}",
            e.message
        );
        let mut r = base();
        r["messages"] = json!([{"role": "user", "content": [{"type": "input_audio", "input_audio": {"data": "x"}}]}]);
        assert_eq!(
            parse_json(r).unwrap_err().param.as_deref(),
            Some("messages[0].content[0]")
        );
        let mut r = base();
        r["messages"] = json!([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "file:///etc/passwd"}}]}]);
        assert_eq!(
            parse_json(r).unwrap_err().param.as_deref(),
            Some("messages[0].content[0].image_url.url")
        );
        let mut r = base();
        r["messages"] = json!([{"role": "system", "content": [{"type": "image_url", "image_url": {"url": "https://x/a.png"}}]}]);
        assert!(
            parse_json(r)
                .unwrap_err()
                .message
                .contains("user messages only")
        );
        let mut r = base();
        r["messages"] = json!([{"role": "tool", "content": "x"}]);
        assert!(parse_json(r).unwrap_err().message.contains("tool_call_id"));
    }

    #[test]
    fn provider_data_goes_out_as_extra_content_and_comes_back_with_the_message() {
        let mut call = ToolCall::new("call_1", "clock", "{}");
        call.provider_data = Some("call-data".into());
        let c = Completion {
            tool_calls: vec![call],
            provider_data: Some("message-data".into()),
            ..Completion::default()
        };
        let body = completion_body("chatcmpl-x", 1, "m", &c);
        let message = &body["choices"][0]["message"];
        assert_eq!(
            message["extra_content"],
            json!({"dsh": {"provider_data": "message-data"}})
        );
        assert_eq!(
            message["tool_calls"][0]["extra_content"],
            json!({"dsh": {"provider_data": "call-data"}})
        );
        let streamed = ChunkWriter {
            id: "x".into(),
            created: 1,
            model: "m".into(),
        }
        .end(&c, false);
        assert!(
            streamed.contains(r#""extra_content":{"dsh":{"provider_data":"call-data"}}"#),
            "{streamed}"
        );
        assert!(
            streamed.contains(r#""extra_content":{"dsh":{"provider_data":"message-data"}}"#),
            "{streamed}"
        );

        // The client sends the message back as it got it (an SDK keeps the unknown field).
        let mut back = message.clone();
        back["extra_content"]["google"] = json!({"thought_signature": "not ours"});
        let p = parse_json(
            json!({"model": "m", "messages": [{"role": "user", "content": "time?"}, back,
            {"role": "tool", "tool_call_id": "call_1", "content": "noon"}]}),
        )
        .unwrap();
        let assistant = &p.exchange.messages[1];
        assert_eq!(assistant.provider_data.as_deref(), Some("message-data"));
        assert_eq!(
            assistant.tool_calls[0].provider_data.as_deref(),
            Some("call-data")
        );
        let e = parse_json(
            json!({"model": "m", "messages": [{"role": "assistant", "content": "x",
            "extra_content": {"dsh": {"provider_data": 7}}}]}),
        )
        .unwrap_err();
        assert_eq!(
            e.param.as_deref(),
            Some("messages[0].extra_content.dsh.provider_data")
        );
    }

    #[test]
    fn harmless_values_are_accepted() {
        let r = json!({"model": "m", "messages": [{"role": "user", "content": "x", "name": "ann"}], "n": 1,
            "tool_choice": "auto", "parallel_tool_calls": false, "user": "u", "store": false, "metadata": {"a": "b"},
            "stream_options": {"include_usage": false}, "service_tier": "auto", "logprobs": false,
            "presence_penalty": 0, "frequency_penalty": 0, "response_format": {"type": "text"}, "stop": null});
        parse_json(r).unwrap();
    }

    #[test]
    fn responses_have_openais_shape() {
        let c = Completion {
            text: String::new(),
            tool_calls: vec![ToolCall::new("call_1", "clock", "{}")],
            usage: Some(crate::adapter::Usage {
                input_tokens: Some(3),
                output_tokens: Some(4),
                cached_input_tokens: None,
                reasoning_tokens: None,
            }),
            ..Completion::default()
        };
        let body = completion_body("chatcmpl-x", 1, "fast", &c);
        assert_eq!(body["choices"][0]["finish_reason"], "tool_calls");
        assert!(body["choices"][0]["message"]["content"].is_null());
        assert_eq!(
            body["choices"][0]["message"]["tool_calls"][0]["function"]["name"],
            "clock"
        );
        assert_eq!(body["usage"]["total_tokens"], 7);
        assert_eq!(body["model"], "fast");
        let w = ChunkWriter {
            id: "chatcmpl-x".into(),
            created: 1,
            model: "fast".into(),
        };
        let end = w.end(&c, true);
        assert!(
            end.contains("\"index\":0") && end.contains("\"finish_reason\":\"tool_calls\""),
            "{end}"
        );
        assert!(
            end.contains("\"choices\":[],") && end.ends_with("data: [DONE]\n\n"),
            "{end}"
        );
        let e = w.error(&json!({"error": {"message": "m"}}));
        assert!(
            e.starts_with("data: {\"error\"") && !e.contains("event:") && !e.contains("[DONE]")
        );
    }
}
