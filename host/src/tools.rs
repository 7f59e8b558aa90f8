//! Tools a model may call during a turn (docs/DESIGN.md, "Tool calls").
//!
//! An embedding program registers each tool once: a name, a description, the JSON schema of its
//! arguments (compiled once, here, with the `jsonschema` crate) and an async handler. During a turn
//! the session hands every assembled call to [`ToolRegistry::call`], which
//!
//! 1. parses the argument text as the seed's `parseArguments` does ([`parse_arguments`]): empty or
//!    blank text is `{}`, valid JSON is parsed, anything else is kept as the raw text;
//! 2. validates the parsed value against the tool's schema;
//! 3. runs the handler (in a task of its own: a handler that panics is a tool error, not a crash).
//!
//! Every failure on the way (an unknown tool, arguments that are not JSON, arguments that break the
//! schema, a handler error) becomes a normal tool result whose text starts with `Error:` and says
//! what to fix, so the model can correct itself in the next step. Nothing here ends a turn.

pub mod builtin;

use anyhow::{Result, bail};
use serde_json::{Value, json};
use std::fmt::Write as _;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

use crate::adapter::ToolSpec;

/// What a handler returns: the result text for the model, or an error message (which the model
/// receives as an error result).
pub type ToolFuture = Pin<Box<dyn Future<Output = Result<String, String>> + Send + 'static>>;

type Handler = Arc<dyn Fn(Value) -> ToolFuture + Send + Sync>;

/// The most schema-validation errors quoted back to the model for one call.
const MAX_QUOTED_ERRORS: usize = 8;
/// The most characters of one validation error message, or of the raw text quoted back.
const MAX_QUOTE_CHARS: usize = 400;

/// Argument text after parsing, as the seed's `parseArguments` does.
#[derive(Debug, Clone, PartialEq)]
pub enum Parsed {
    /// Empty or blank text (`{}`), or valid JSON.
    Value(Value),
    /// Not JSON: the text exactly as the model produced it.
    Raw(String),
}

impl Parsed {
    pub fn is_ok(&self) -> bool {
        matches!(self, Parsed::Value(_))
    }

    /// The argument text the conversation keeps (and replays to the provider): the parsed value as
    /// compact JSON when it parsed (so `""` is stored as `{}`), the raw text otherwise.
    pub fn stored_text(&self) -> String {
        match self {
            Parsed::Value(v) => v.to_string(),
            Parsed::Raw(raw) => raw.clone(),
        }
    }
}

/// The seed's `parseArguments`: empty or whitespace-only text is `{}` (models send `""` for a tool
/// without arguments), valid JSON is parsed, anything else is kept as the raw text.
pub fn parse_arguments(text: &str) -> Parsed {
    if text.trim().is_empty() {
        return Parsed::Value(json!({}));
    }
    match serde_json::from_str::<Value>(text) {
        Ok(value) => Parsed::Value(value),
        Err(_) => Parsed::Raw(text.to_string()),
    }
}

/// The result of one call, as the model will see it.
#[derive(Debug, Clone, PartialEq)]
pub struct ToolOutcome {
    /// The text of the tool message. For an error it starts with `Error:` and says what to fix.
    pub content: String,
    pub is_error: bool,
}

impl ToolOutcome {
    fn ok(content: String) -> Self {
        ToolOutcome {
            content,
            is_error: false,
        }
    }

    fn error(content: String) -> Self {
        ToolOutcome {
            content,
            is_error: true,
        }
    }
}

/// A call checked and ready to run, or the error result that replaces it.
pub struct CheckedCall {
    pub parsed: Parsed,
    run: Result<(Handler, Value), String>,
}

impl CheckedCall {
    /// The readable error, if the call cannot run (unknown tool, not JSON, schema violation).
    pub fn error(&self) -> Option<&str> {
        self.run.as_ref().err().map(String::as_str)
    }
}

struct Tool {
    name: String,
    description: String,
    schema: Value,
    validator: jsonschema::Validator,
    handler: Handler,
}

/// The tools a session offers the model. Build it once, share it (`Arc`) between sessions.
#[derive(Default)]
pub struct ToolRegistry {
    tools: Vec<Tool>,
}

impl std::fmt::Debug for ToolRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ToolRegistry")
            .field("tools", &self.names())
            .finish()
    }
}

impl ToolRegistry {
    pub fn new() -> Self {
        ToolRegistry::default()
    }

    /// Registers a tool. `schema` is the JSON schema of the arguments object; it is compiled here,
    /// once. Refused, naming the tool: a name that providers would reject (1 to 64 of `a-z A-Z 0-9 _
    /// -`), a name already registered, a schema that is not an object schema or not a valid JSON
    /// schema (including a `$ref` to another document: a schema never makes the host fetch).
    ///
    /// ```
    /// # use dsh_host::tools::ToolRegistry;
    /// # use serde_json::json;
    /// let mut tools = ToolRegistry::new();
    /// tools.register(
    ///     "greet",
    ///     "Greets someone by name.",
    ///     json!({"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}),
    ///     |args| async move { Ok(format!("Hello, {}!", args["name"].as_str().unwrap_or("?"))) },
    /// ).unwrap();
    /// ```
    pub fn register<F, Fut>(
        &mut self,
        name: impl Into<String>,
        description: impl Into<String>,
        schema: Value,
        handler: F,
    ) -> Result<&mut Self>
    where
        F: Fn(Value) -> Fut + Send + Sync + 'static,
        Fut: Future<Output = Result<String, String>> + Send + 'static,
    {
        let name = name.into();
        let valid_name = !name.is_empty()
            && name.len() <= 64
            && name
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-');
        if !valid_name {
            bail!(
                "tool {name:?}: a tool name is 1 to 64 letters, digits, '_' or '-' (what OpenAI and Anthropic accept)"
            );
        }
        if self.get(&name).is_some() {
            bail!("tool `{name}` is already registered");
        }
        let Some(object) = schema.as_object() else {
            bail!(
                "tool `{name}`: its schema must be a JSON object (a schema of the arguments object), got {schema}"
            );
        };
        if let Some(t) = object.get("type")
            && t != "object"
        {
            bail!(
                "tool `{name}`: its schema has type {t}; tool arguments are a JSON object, so the schema's type must be \"object\""
            );
        }
        let validator = jsonschema::validator_for(&schema).map_err(|e| {
            anyhow::anyhow!("tool `{name}`: its schema is not a valid JSON schema: {e}")
        })?;
        let handler: Handler = Arc::new(move |args| Box::pin(handler(args)) as ToolFuture);
        self.tools.push(Tool {
            name,
            description: description.into(),
            schema,
            validator,
            handler,
        });
        Ok(self)
    }

    fn get(&self, name: &str) -> Option<&Tool> {
        self.tools.iter().find(|t| t.name == name)
    }

    pub fn is_empty(&self) -> bool {
        self.tools.is_empty()
    }

    /// The tool names, in registration order.
    pub fn names(&self) -> Vec<String> {
        self.tools.iter().map(|t| t.name.clone()).collect()
    }

    /// What the request carries: name, description and schema of every tool.
    pub fn specs(&self) -> Vec<ToolSpec> {
        self.tools
            .iter()
            .map(|t| ToolSpec {
                name: t.name.clone(),
                description: t.description.clone(),
                parameters_schema: t.schema.to_string(),
            })
            .collect()
    }

    /// Parses and validates one call without running it.
    pub fn check(&self, name: &str, arguments: &str) -> CheckedCall {
        let parsed = parse_arguments(arguments);
        let Some(tool) = self.get(name) else {
            let known = if self.tools.is_empty() {
                "no tools are available in this conversation".to_string()
            } else {
                format!(
                    "the available tools are: {}",
                    self.tools
                        .iter()
                        .map(|t| format!("`{}`", t.name))
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            };
            let what = if name.trim().is_empty() {
                "the call names no tool".to_string()
            } else {
                format!("there is no tool named `{name}`")
            };
            return CheckedCall {
                parsed,
                run: Err(format!("Error: {what}; {known}. The call did not run.")),
            };
        };
        let run = match &parsed {
            Parsed::Raw(raw) => {
                let why = serde_json::from_str::<Value>(raw)
                    .err()
                    .map(|e| e.to_string())
                    .unwrap_or_default();
                Err(format!(
                    "Error: the arguments of `{}` are not valid JSON ({why}), so the tool did not run. \
                     You sent: {}\nCall `{}` again with its arguments as one JSON object that matches its schema: {}",
                    tool.name,
                    excerpt(raw),
                    tool.name,
                    tool.schema
                ))
            }
            Parsed::Value(value) => match schema_errors(tool, value) {
                None => Ok((tool.handler.clone(), value.clone())),
                Some(errors) => Err(format!(
                    "Error: the arguments of `{}` do not match its schema, so the tool did not run:\n{errors}\
                     Call `{}` again with corrected arguments. Its schema: {}",
                    tool.name, tool.name, tool.schema
                )),
            },
        };
        CheckedCall { parsed, run }
    }

    /// Runs a checked call: its error result, or the handler's outcome. The handler runs in a task
    /// of its own (aborted if this future is dropped), so a panic is a tool error with its message.
    pub async fn run(checked: CheckedCall, name: &str) -> ToolOutcome {
        let (handler, args) = match checked.run {
            Ok(ready) => ready,
            Err(error) => return ToolOutcome::error(error),
        };
        match AbortOnDrop(tokio::spawn(handler(args))).await {
            Ok(Ok(content)) => ToolOutcome::ok(content),
            Ok(Err(message)) => ToolOutcome::error(format!("Error: `{name}` failed: {message}")),
            Err(join) => {
                let why = if join.is_panic() {
                    let payload = join.into_panic();
                    payload
                        .downcast_ref::<&str>()
                        .map(|s| s.to_string())
                        .or_else(|| payload.downcast_ref::<String>().cloned())
                        .unwrap_or_else(|| "a panic".to_string())
                } else {
                    "it was cancelled".to_string()
                };
                ToolOutcome::error(format!("Error: `{name}` failed: the tool crashed ({why})"))
            }
        }
    }

    /// Parses, validates and runs one call (see the module documentation).
    pub async fn call(&self, name: &str, arguments: &str) -> (Parsed, ToolOutcome) {
        let checked = self.check(name, arguments);
        let parsed = checked.parsed.clone();
        (parsed, Self::run(checked, name).await)
    }
}

/// The schema errors of `value`, one readable line each (which field, what was expected), or `None`.
fn schema_errors(tool: &Tool, value: &Value) -> Option<String> {
    let errors: Vec<_> = tool.validator.iter_errors(value).collect();
    if errors.is_empty() {
        return None;
    }
    let mut out = String::new();
    for error in errors.iter().take(MAX_QUOTED_ERRORS) {
        let path = error.instance_path();
        let at = if path.is_empty() {
            "the arguments object".to_string()
        } else {
            let mut field = String::new();
            for segment in path.segments() {
                match segment {
                    jsonschema::paths::LocationSegment::Property(p) => {
                        if !field.is_empty() {
                            field.push('.');
                        }
                        field.push_str(&p);
                    }
                    jsonschema::paths::LocationSegment::Index(i) => {
                        let _ = write!(field, "[{i}]");
                    }
                }
            }
            format!("`{field}`")
        };
        let _ = writeln!(out, "- {at}: {}", excerpt(&error.to_string()));
    }
    if errors.len() > MAX_QUOTED_ERRORS {
        let _ = writeln!(out, "- ... and {} more", errors.len() - MAX_QUOTED_ERRORS);
    }
    Some(out)
}

fn excerpt(text: &str) -> String {
    if text.chars().count() <= MAX_QUOTE_CHARS {
        return text.to_string();
    }
    let cut: String = text.chars().take(MAX_QUOTE_CHARS).collect();
    format!("{cut}…")
}

/// A spawned handler that is aborted when the session stops waiting for it (Ctrl-C).
struct AbortOnDrop<T>(tokio::task::JoinHandle<T>);

impl<T> Drop for AbortOnDrop<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

impl<T> Future for AbortOnDrop<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(
        mut self: Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

#[cfg(test)]
mod tests;
