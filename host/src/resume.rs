//! Rebuilding a session from its log: the conversation, the retry records and, if the process died
//! mid-turn, where that turn stands (its step, the attempts and wait of that step, and the tool calls
//! of that step still to run). Pure: events in, state out (the log is the source of truth).
//!
//! A turn's messages come from its events: `turn/start` (the user message), each `step/end` (the
//! step's assistant message from its `llm/response`, with its tool calls as the conversation stores
//! them, then one tool message per call from the `tool/result` events), `turn/end` (the final
//! answer; a failed turn is dropped whole).

use crate::adapter::{FailureCode, Message, Role, ToolCall};
use crate::log::Event;
use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::time::{Duration, SystemTime};

/// One `llm/retry` event: the retry count lives in the log, not in memory.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct RetryRecord {
    pub turn: u32,
    pub step: u32,
    pub provider: String,
    pub policy_key: String,
    pub retry: u32,
    pub delay_ms: u64,
    pub code: String,
}

/// What `session/start` recorded.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionHeader {
    pub provider: String,
    pub model: String,
    pub base_url: String,
    pub system: Option<String>,
}

/// One `tool/result` event: what a call returned (or the error the model was given instead).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolResultRecord {
    pub id: String,
    pub name: String,
    pub content: String,
    pub is_error: bool,
}

/// A step whose completion asked for tools, cut short before its `step/end`: the calls as the
/// provider sent them, and the results already recorded (those calls are not run again).
#[derive(Debug, Clone, PartialEq)]
pub struct PendingToolStep {
    pub text: String,
    pub calls: Vec<ToolCall>,
    pub results: Vec<ToolResultRecord>,
    /// The message's provider data (`llm/response` `provider_data`), kept with the message.
    pub provider_data: Option<String>,
}

/// A turn the process did not finish.
#[derive(Debug, Clone, PartialEq)]
pub struct UnfinishedTurn {
    pub turn: u32,
    pub step: u32,
    pub user: String,
    /// Attempts already made in this step.
    pub attempts: u32,
    /// A retry was decided (and made durable) but its wait never ended: what is left of it.
    pub pending_retry: Option<(RetryRecord, Duration)>,
    /// The step's completion arrived and asked for tools, but the step did not end: its remaining
    /// calls run before the next step.
    pub pending_tools: Option<PendingToolStep>,
    /// An exchange (a gateway request: the client sends the conversation, runs its own tools): the
    /// digest of the conversation it was started with, which a continuation must match.
    pub exchange_digest: Option<String>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    pub header: SessionHeader,
    pub messages: Vec<Message>,
    /// The number of the last turn started.
    pub turn: u32,
    pub retries: Vec<RetryRecord>,
    pub unfinished: Option<UnfinishedTurn>,
    /// The tools the last turn offered (`turn/start` `tools`): a program resuming the session offers
    /// them again (the CLI re-enables its built-in set).
    pub tools: Vec<String>,
}

fn field<'a>(event: &'a Event, key: &str) -> Result<&'a Value> {
    event
        .data
        .get(key)
        .with_context(|| format!("event #{} ({}) has no '{key}'", event.seq, event.kind))
}

fn str_field(event: &Event, key: &str) -> Result<String> {
    field(event, key)?
        .as_str()
        .map(str::to_string)
        .with_context(|| {
            format!(
                "event #{} ({}): '{key}' is not a string",
                event.seq, event.kind
            )
        })
}

/// An optional string field: absent or null is `None`, anything else but a string is an error.
fn opt_str(event: &Event, key: &str) -> Result<Option<String>> {
    match event.data.get(key) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s.clone())),
        Some(_) => bail!(
            "event #{} ({}): '{key}' is not a string",
            event.seq,
            event.kind
        ),
    }
}

fn u32_field(event: &Event, key: &str) -> Result<u32> {
    field(event, key)?
        .as_u64()
        .and_then(|n| u32::try_from(n).ok())
        .with_context(|| {
            format!(
                "event #{} ({}): '{key}' is not a number",
                event.seq, event.kind
            )
        })
}

/// Replays `events` (in log order). `now` measures how much of an interrupted wait is left.
pub fn rebuild(events: &[Event], now: SystemTime) -> Result<Rebuilt> {
    let Some(first) = events.first() else {
        bail!("the session log is empty")
    };
    if first.kind != "session/start" {
        bail!(
            "the session log does not begin with session/start (it begins with {})",
            first.kind
        );
    }
    let system = first
        .data
        .get("system")
        .and_then(Value::as_str)
        .map(str::to_string);
    let header = SessionHeader {
        provider: str_field(first, "provider")?,
        model: str_field(first, "model")?,
        base_url: str_field(first, "base_url")?,
        system: system.clone(),
    };
    let mut messages: Vec<Message> = system
        .into_iter()
        .map(|s| Message::new(Role::System, s))
        .collect();
    let mut turn = 0;
    let mut retries = Vec::new();
    let mut tools = Vec::new();
    let mut open: Option<UnfinishedTurn> = None;
    // The last llm/retry of the open turn, with its timestamp, until an attempt follows it.
    let mut waiting: Option<(RetryRecord, String)> = None;

    for event in &events[1..] {
        match event.kind.as_str() {
            "turn/start" => {
                turn = u32_field(event, "turn")?;
                // An exchange carries the client's whole conversation, logged as a digest (and in full
                // when configured); a continuation gets the conversation from the client again.
                let exchange_digest = event.data.get("exchange").map(|x| {
                    x.get("digest")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string()
                });
                let user = if exchange_digest.is_some() {
                    messages = match event.data.get("messages") {
                        Some(v) => serde_json::from_value(v.clone()).with_context(|| {
                            format!("event #{} (turn/start): 'messages' is malformed", event.seq)
                        })?,
                        None => Vec::new(),
                    };
                    String::new()
                } else {
                    let user = str_field(event, "user")?;
                    messages.push(Message::new(Role::User, user.clone()));
                    user
                };
                tools = match event.data.get("tools") {
                    Some(v) => serde_json::from_value(v.clone()).with_context(|| {
                        format!("event #{} (turn/start): 'tools' is malformed", event.seq)
                    })?,
                    None => Vec::new(),
                };
                open = Some(UnfinishedTurn {
                    turn,
                    step: 1,
                    user,
                    attempts: 0,
                    pending_retry: None,
                    pending_tools: None,
                    exchange_digest,
                });
                waiting = None;
            }
            "llm/response" => {
                let calls: Vec<ToolCall> = match event.data.get("tool_calls") {
                    Some(v) => serde_json::from_value(v.clone()).with_context(|| {
                        format!(
                            "event #{} (llm/response): 'tool_calls' is malformed",
                            event.seq
                        )
                    })?,
                    None => Vec::new(),
                };
                if let Some(t) = open.as_mut()
                    && !calls.is_empty()
                {
                    let text = event
                        .data
                        .get("text")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    t.pending_tools = Some(PendingToolStep {
                        text,
                        calls,
                        results: Vec::new(),
                        provider_data: opt_str(event, "provider_data")?,
                    });
                }
            }
            "tool/result" => {
                let record: ToolResultRecord = serde_json::from_value(Value::Object(
                    event.data.clone(),
                ))
                .with_context(|| format!("event #{} (tool/result) is malformed", event.seq))?;
                if let Some(p) = open.as_mut().and_then(|t| t.pending_tools.as_mut()) {
                    p.results.push(record);
                }
            }
            "step/end" => {
                if let Some(t) = open.as_mut() {
                    let step = u32_field(event, "step")?;
                    let p = t.pending_tools.take().with_context(|| {
                        format!(
                            "event #{} (step/end of step {step}) follows no llm/response with tool calls",
                            event.seq
                        )
                    })?;
                    messages.extend(step_messages(p));
                    t.step = step + 1;
                    t.attempts = 0;
                }
                waiting = None;
            }
            "llm/request" => {
                if let Some(t) = open.as_mut() {
                    t.attempts += 1;
                }
                waiting = None;
            }
            "llm/retry-started" => waiting = None,
            "llm/retry" => {
                let record: RetryRecord = serde_json::from_value(Value::Object(event.data.clone()))
                    .with_context(|| format!("event #{} (llm/retry) is malformed", event.seq))?;
                // Listeners are told this code, typed: it must be one they can know.
                if FailureCode::parse(&record.code).is_none() {
                    bail!(
                        "event #{} (llm/retry): {:?} is not a canonical failure code",
                        event.seq,
                        record.code
                    );
                }
                if let Some(replacement) = event.data.get("messages") {
                    messages = serde_json::from_value(replacement.clone()).with_context(|| {
                        format!("event #{} (llm/retry): 'messages' is malformed", event.seq)
                    })?;
                }
                retries.push(record.clone());
                waiting = Some((record, event.ts.clone()));
            }
            "turn/end" => {
                if event.data.get("outcome").and_then(Value::as_str) == Some("completed") {
                    let content = event
                        .data
                        .get("assistant")
                        .and_then(Value::as_str)
                        .unwrap_or_default()
                        .to_string();
                    let tool_calls: Vec<ToolCall> = match event.data.get("tool_calls") {
                        Some(v) => serde_json::from_value(v.clone()).with_context(|| {
                            format!("event #{} (turn/end): 'tool_calls' is malformed", event.seq)
                        })?,
                        None => Vec::new(),
                    };
                    messages.push(Message {
                        tool_calls,
                        provider_data: opt_str(event, "provider_data")?,
                        ..Message::new(Role::Assistant, content)
                    });
                } else {
                    drop_failed_turn(&mut messages);
                }
                open = None;
                waiting = None;
            }
            _ => {}
        }
    }
    if let (Some(t), Some((record, ts))) = (open.as_mut(), waiting) {
        let decided_at = humantime::parse_rfc3339(&ts)
            .with_context(|| format!("the llm/retry event has an unreadable timestamp {ts:?}"))?;
        let elapsed = now.duration_since(decided_at).unwrap_or_default();
        let remaining = Duration::from_millis(record.delay_ms).saturating_sub(elapsed);
        t.pending_retry = Some((record, remaining));
    }
    Ok(Rebuilt {
        header,
        messages,
        turn,
        retries,
        unfinished: open,
        tools,
    })
}

/// The messages one tool step adds to the conversation: the assistant message with its calls (their
/// arguments as the conversation stores them: parsed JSON, or the raw text that did not parse), then
/// one tool message per call, in call order. The session builds the same messages live.
pub fn step_messages(step: PendingToolStep) -> Vec<Message> {
    let stored: Vec<ToolCall> = step
        .calls
        .iter()
        .map(|c| ToolCall {
            arguments: crate::tools::parse_arguments(&c.arguments).stored_text(),
            ..c.clone()
        })
        .collect();
    let mut out = vec![Message {
        tool_calls: stored,
        provider_data: step.provider_data,
        ..Message::new(Role::Assistant, step.text)
    }];
    for call in &step.calls {
        let content = step
            .results
            .iter()
            .find(|r| r.id == call.id)
            .map(|r| r.content.clone())
            .unwrap_or_else(|| "Error: the result of this call was not recorded.".to_string());
        out.push(Message {
            tool_call_id: Some(call.id.clone()),
            ..Message::new(Role::Tool, content)
        });
    }
    out
}

/// A failed turn leaves no trace in the conversation: its user message got no answer, and the next
/// prompt stands on its own. Everything from the turn's user message on goes, including the
/// assistant and tool messages of the steps it finished.
pub fn drop_failed_turn(messages: &mut Vec<Message>) {
    if let Some(at) = messages.iter().rposition(|m| matches!(m.role, Role::User)) {
        messages.truncate(at);
    }
}

#[cfg(test)]
#[path = "resume_tests.rs"]
mod tests;
