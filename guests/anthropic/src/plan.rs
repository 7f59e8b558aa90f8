//! `plan-request`: a completion request as an Anthropic Messages streaming call.
//!
//! The Messages API differs from chat completions in ways that make a naive translation fail with a
//! 400 on the provider's side, so the body is shaped here:
//! - system messages are a top-level `system` field, not messages;
//! - roles must alternate user/assistant: consecutive same-role messages are merged into one message
//!   with several content blocks (tool results are user content, so a tool result followed by a user
//!   message is one user message);
//! - tool calls are `tool_use` blocks whose `input` is a JSON object (never the argument text), and
//!   tool results are `tool_result` blocks, which must come first in their user message;
//! - text blocks must contain non-whitespace text, so blank contents are left out;
//! - `max_tokens` is required;
//! - an assistant message's thinking blocks (its provider data, with their signatures) go back
//!   first in its content, unchanged: Anthropic requires them before a tool call's result.
//!
//! Generation options: `max-output-tokens` is `max_tokens`, `stop` is `stop_sequences`, `top-p` is
//! `top_p`, and a `reasoning-effort` turns extended thinking on with a budget
//! ([`thinking_budget`]). A `response-format` other than text is refused: the Messages API has no
//! such field (ask for JSON in the prompt, or through a tool).

use serde_json::{Map, Value, json};

use crate::types::{
    CompletionRequest, ContentPart, Endpoint, GenerationOptions, HttpPlan, LlmFailure, Message,
    ReasoningEffort, ResponseFormat, Role, ToolCall, ToolSpec, codes,
};

/// The `x-api-key` header value: the host replaces the placeholder with the provider's key.
pub const API_KEY_VALUE: &str = "{credential}";

/// The API version the body and the decoder are written for.
pub const ANTHROPIC_VERSION: &str = "2023-06-01";

/// Anthropic requires `max_tokens`; this is used when the request sets none. 4096 is accepted by
/// every current Claude model (the oldest allow 4096 output tokens at most).
pub const DEFAULT_MAX_TOKENS: u32 = 4096;

/// Plan `POST {base-url}/messages`. An error is a request Anthropic could never accept
/// (`INVALID_REQUEST`), reported before anything is sent.
pub fn plan_request(endpoint: &Endpoint, req: &CompletionRequest) -> Result<HttpPlan, LlmFailure> {
    let body = request_body(req)?;
    // The contract says no trailing slash; tolerate one rather than send `//messages`.
    let base = endpoint.base_url.trim_end_matches('/');
    Ok(HttpPlan {
        method: "POST".to_string(),
        url: format!("{base}/messages"),
        headers: vec![
            ("x-api-key".into(), API_KEY_VALUE.into()),
            ("anthropic-version".into(), ANTHROPIC_VERSION.into()),
            ("content-type".into(), "application/json".into()),
            ("accept".into(), "text/event-stream".into()),
        ],
        body: serde_json::to_vec(&body).unwrap_or_default(),
    })
}

/// The JSON body of the Messages request.
pub fn request_body(req: &CompletionRequest) -> Result<Value, LlmFailure> {
    if req.model.trim().is_empty() {
        return Err(invalid("the request names no model"));
    }
    let options = &req.options;
    let (max_tokens, thinking) = output_budget(options)?;

    let mut system: Vec<String> = Vec::new();
    let mut turns: Vec<Turn> = Vec::new();
    for (index, m) in req.messages.iter().enumerate() {
        let role = match m.role {
            Role::System => {
                if m.has_images() {
                    return Err(invalid(format!(
                        "message {index} (system) has an image part: Anthropic takes images in user messages only"
                    )));
                }
                let text = m.text();
                if !text.trim().is_empty() {
                    system.push(text.into_owned());
                }
                continue;
            }
            Role::User | Role::Tool => "user",
            Role::Assistant => "assistant",
        };
        let blocks = content_blocks(index, m)?;
        if blocks.is_empty() {
            continue; // nothing Anthropic would accept; merging keeps the alternation
        }
        match turns.last_mut() {
            Some(last) if last.role == role => last.blocks.extend(blocks),
            _ => turns.push(Turn { role, blocks }),
        }
    }
    if turns.is_empty() {
        return Err(invalid(
            "the request has no user or assistant message with content: Anthropic needs at least one",
        ));
    }
    // A final assistant message is a prefill, and Anthropic refuses one that ends in whitespace.
    if let Some(last) = turns.last_mut().filter(|t| t.role == "assistant") {
        trim_prefill(&mut last.blocks);
    }

    let mut body = Map::new();
    body.insert("model".into(), json!(req.model));
    body.insert("max_tokens".into(), json!(max_tokens));
    body.insert("stream".into(), json!(true));
    if !system.is_empty() {
        body.insert("system".into(), json!(system.join("\n\n")));
    }
    let messages = turns.into_iter().map(Turn::into_json).collect();
    body.insert("messages".into(), Value::Array(messages));
    if !req.tools.is_empty() {
        let tools = req
            .tools
            .iter()
            .map(tool_json)
            .collect::<Result<Vec<_>, _>>()?;
        body.insert("tools".into(), Value::Array(tools));
    }
    if let Some(budget) = thinking {
        body.insert(
            "thinking".into(),
            json!({ "type": "enabled", "budget_tokens": budget }),
        );
    }
    if let Some(t) = options.temperature {
        body.insert("temperature".into(), number_json("temperature", t, None)?);
    }
    if let Some(p) = options.top_p {
        body.insert("top_p".into(), number_json("top_p", p, Some(1.0))?);
    }
    if !options.stop.is_empty() {
        // Anthropic refuses a stop sequence made only of whitespace.
        if options.stop.iter().any(|s| s.trim().is_empty()) {
            return Err(invalid(
                "a stop sequence is empty or only whitespace: Anthropic refuses it",
            ));
        }
        body.insert("stop_sequences".into(), json!(options.stop));
    }
    match &options.response_format {
        None | Some(ResponseFormat::Text) => {}
        Some(_) => {
            return Err(invalid(
                "a JSON response format cannot be sent to Anthropic: the Messages API has no \
                 response_format (ask for JSON in the prompt, or offer a tool whose input is the answer)",
            ));
        }
    }
    Ok(Value::Object(body))
}

/// One Anthropic message: a role and its content blocks.
struct Turn {
    role: &'static str,
    blocks: Vec<Value>,
}

impl Turn {
    fn into_json(self) -> Value {
        let mut blocks = self.blocks;
        if self.role == "user" {
            // Tool results answer the previous assistant turn and must come before any text.
            let (mut results, rest): (Vec<Value>, Vec<Value>) =
                blocks.into_iter().partition(is_tool_result);
            results.extend(rest);
            blocks = results;
        }
        json!({ "role": self.role, "content": blocks })
    }
}

fn is_tool_result(block: &Value) -> bool {
    block.get("type").and_then(Value::as_str) == Some("tool_result")
}

/// The content blocks of one user, assistant or tool message.
fn content_blocks(index: usize, m: &Message) -> Result<Vec<Value>, LlmFailure> {
    let mut blocks = Vec::new();
    match m.role {
        Role::Tool => {
            let Some(id) = m.tool_call_id.as_deref().filter(|id| !id.trim().is_empty()) else {
                return Err(invalid(format!(
                    "message {index} has role tool but no tool_call_id: Anthropic cannot match it to a tool_use block"
                )));
            };
            if m.has_images() {
                return Err(invalid(format!(
                    "message {index} (tool) has an image part: this adapter sends tool results as text"
                )));
            }
            let mut block = Map::new();
            block.insert("type".into(), json!("tool_result"));
            block.insert("tool_use_id".into(), json!(id));
            // `content` is optional, and an empty text is refused: a tool with no output sends none.
            let text = m.text();
            if !text.trim().is_empty() {
                block.insert("content".into(), json!(text));
            }
            blocks.push(Value::Object(block));
        }
        _ => {
            if m.role == Role::Assistant {
                if m.has_images() {
                    return Err(invalid(format!(
                        "message {index} (assistant) has an image part: Anthropic takes images in user messages only"
                    )));
                }
                // The thinking blocks that preceded this answer, first and unchanged.
                blocks.extend(thinking_blocks_of(m.provider_data.as_deref()));
            }
            for part in &m.content {
                match part {
                    ContentPart::Text(text) if !text.trim().is_empty() => {
                        blocks.push(json!({ "type": "text", "text": text }));
                    }
                    ContentPart::Text(_) => {}
                    ContentPart::ImageUrl(url) => blocks.push(image_json(index, url)?),
                }
            }
            if m.role == Role::Assistant {
                for call in &m.tool_calls {
                    blocks.push(tool_use_json(index, call)?);
                }
            }
        }
    }
    Ok(blocks)
}

/// An image part as an `image` block: a `data:` URL becomes a base64 source, an `http(s):` URL a
/// URL source.
fn image_json(index: usize, url: &str) -> Result<Value, LlmFailure> {
    if let Some(rest) = url.strip_prefix("data:") {
        let Some((media_type, data)) = rest.split_once(";base64,") else {
            return Err(invalid(format!(
                "message {index}: an image data: URL must be base64 (data:image/png;base64,...)"
            )));
        };
        return Ok(json!({ "type": "image",
                          "source": { "type": "base64", "media_type": media_type, "data": data } }));
    }
    if url.starts_with("https://") || url.starts_with("http://") {
        return Ok(json!({ "type": "image", "source": { "type": "url", "url": url } }));
    }
    Err(invalid(format!(
        "message {index}: an image must be an https: or data: URL, got {:?}",
        url.chars().take(40).collect::<String>()
    )))
}

/// The key of this adapter's provider data: `{"anthropic": {"thinking": [blocks]}}`. Data without
/// it was written by another adapter (the conversation moved between providers) and is not sent.
pub const PROVIDER_DATA_KEY: &str = "anthropic";

/// A message's provider data, as the decoder writes it: the thinking and redacted-thinking blocks
/// of the answer, in order, each as Anthropic sent it (with its signature).
pub fn provider_data_for(thinking_blocks: &[Value]) -> String {
    json!({ PROVIDER_DATA_KEY: { "thinking": thinking_blocks } }).to_string()
}

fn thinking_blocks_of(provider_data: Option<&str>) -> Vec<Value> {
    let Some(mut value) = provider_data.and_then(|d| serde_json::from_str::<Value>(d).ok()) else {
        return Vec::new();
    };
    match value
        .get_mut(PROVIDER_DATA_KEY)
        .and_then(|v| v.get_mut("thinking"))
        .map(Value::take)
    {
        Some(Value::Array(blocks)) => blocks.into_iter().filter(Value::is_object).collect(),
        _ => Vec::new(),
    }
}

/// Extended thinking's budget for a reasoning effort. Anthropic takes no effort level but a number
/// of tokens (at least 1,024, counted in `max_tokens`); these keep `budget + DEFAULT_MAX_TOKENS`
/// within the output limit of every Claude model that thinks (32,000 for Opus 4).
pub fn thinking_budget(effort: ReasoningEffort) -> u32 {
    match effort {
        ReasoningEffort::Minimal => 1_024,
        ReasoningEffort::Low => 4_096,
        ReasoningEffort::Medium => 8_192,
        ReasoningEffort::High => 16_384,
    }
}

/// Anthropic's least thinking budget.
pub const MIN_THINKING_BUDGET: u32 = 1_024;

/// `max_tokens`, and the thinking budget when a reasoning effort is set. Without
/// `max-output-tokens`, thinking adds its budget to the default (the answer keeps its room); with
/// it, it is the bound on everything, thinking included (as OpenAI's `max_completion_tokens`), and
/// the budget shrinks to fit below it, down to Anthropic's least.
fn output_budget(o: &GenerationOptions) -> Result<(u32, Option<u32>), LlmFailure> {
    if o.max_output_tokens == Some(0) {
        return Err(invalid("max_tokens is 0: Anthropic requires at least 1"));
    }
    let Some(effort) = o.reasoning_effort else {
        return Ok((o.max_output_tokens.unwrap_or(DEFAULT_MAX_TOKENS), None));
    };
    let budget = thinking_budget(effort);
    match o.max_output_tokens {
        None => Ok((budget + DEFAULT_MAX_TOKENS, Some(budget))),
        Some(max) if max > MIN_THINKING_BUDGET => Ok((max, Some(budget.min(max - 1)))),
        Some(max) => Err(invalid(format!(
            "reasoning effort {} needs max-output-tokens above {MIN_THINKING_BUDGET} with Anthropic \
             (thinking takes at least {MIN_THINKING_BUDGET} tokens of max_tokens), got {max}",
            effort.as_str()
        ))),
    }
}

/// A stored tool call as a `tool_use` block. Its `input` must be a JSON object: the argument text is
/// parsed (empty or blank text means no arguments, `{}`; see tests/fixtures/tool-arguments.json),
/// and text that is not a JSON object is refused here rather than sent and refused by Anthropic
/// ("tool_use.input: Input should be a valid dictionary").
fn tool_use_json(index: usize, call: &ToolCall) -> Result<Value, LlmFailure> {
    let what = || {
        format!(
            "message {index}: tool call `{}` (id {:?})",
            call.name, call.id
        )
    };
    if call.id.trim().is_empty() {
        return Err(invalid(format!(
            "{} has no id: Anthropic needs one to match its tool_result",
            what()
        )));
    }
    if call.name.trim().is_empty() {
        return Err(invalid(format!("{} has no tool name", what())));
    }
    // Arguments that never parsed into an object (the host keeps invalid JSON as raw text, and has
    // already told the model so in the tool result) are replayed as `{}`: Anthropic refuses any other
    // tool_use input, and failing the request would end the conversation the model could still mend.
    let input = match serde_json::from_str::<Value>(call.arguments.trim()) {
        Ok(value) if value.is_object() => value,
        _ => json!({}),
    };
    Ok(json!({ "type": "tool_use", "id": call.id, "name": call.name, "input": input }))
}

/// Trim the trailing whitespace of a prefill's last text block (dropping it if nothing is left).
fn trim_prefill(blocks: &mut Vec<Value>) {
    let Some(last) = blocks.last_mut() else {
        return;
    };
    let Some(text) = last.get("text").and_then(Value::as_str) else {
        return;
    };
    let trimmed = text.trim_end().to_string();
    if trimmed.is_empty() {
        blocks.pop();
    } else {
        last["text"] = json!(trimmed);
    }
}

fn tool_json(tool: &ToolSpec) -> Result<Value, LlmFailure> {
    let name = &tool.name;
    if name.trim().is_empty() {
        return Err(invalid("a tool has an empty name"));
    }
    // An empty schema is read as "no arguments", like empty argument text (docs/DESIGN.md, Tool calls).
    let mut schema = if tool.parameters_schema.trim().is_empty() {
        json!({ "type": "object", "properties": {} })
    } else {
        serde_json::from_str::<Value>(&tool.parameters_schema).map_err(|e| {
            invalid(format!(
                "tool `{name}`: its parameters schema is not valid JSON ({e})"
            ))
        })?
    };
    let Some(object) = schema.as_object_mut() else {
        return Err(invalid(format!(
            "tool `{name}`: its parameters schema must be a JSON object"
        )));
    };
    // Anthropic requires `input_schema.type` to be "object"; a schema that leaves it out means one.
    match object.get("type") {
        None => {
            object.insert("type".into(), json!("object"));
        }
        Some(t) if t == "object" => {}
        Some(t) => {
            return Err(invalid(format!(
                "tool `{name}`: its parameters schema has type {t}; Anthropic requires an object schema"
            )));
        }
    }
    let mut out = Map::new();
    out.insert("name".into(), json!(name));
    if !tool.description.is_empty() {
        out.insert("description".into(), json!(tool.description));
    }
    out.insert("input_schema".into(), schema);
    Ok(Value::Object(out))
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
