//! Rebuilding a session from its log: the conversation, the retry records and, if the process died
//! mid-turn, where that turn stands. Pure: events in, state out (the log is the source of truth).

use crate::adapter::{Message, Role, ToolCall};
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
}

#[derive(Debug, Clone, PartialEq)]
pub struct Rebuilt {
    pub header: SessionHeader,
    pub messages: Vec<Message>,
    /// The number of the last turn started.
    pub turn: u32,
    pub retries: Vec<RetryRecord>,
    pub unfinished: Option<UnfinishedTurn>,
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
    let mut open: Option<UnfinishedTurn> = None;
    // The last llm/retry of the open turn, with its timestamp, until an attempt follows it.
    let mut waiting: Option<(RetryRecord, String)> = None;

    for event in &events[1..] {
        match event.kind.as_str() {
            "turn/start" => {
                turn = u32_field(event, "turn")?;
                let user = str_field(event, "user")?;
                messages.push(Message::new(Role::User, user.clone()));
                open = Some(UnfinishedTurn {
                    turn,
                    step: 1,
                    user,
                    attempts: 0,
                    pending_retry: None,
                });
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
                        role: Role::Assistant,
                        content,
                        tool_calls,
                        tool_call_id: None,
                    });
                } else {
                    drop_failed_user_message(&mut messages);
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
    })
}

/// A failed turn leaves no trace in the conversation: its user message got no answer, and the next
/// prompt stands on its own.
pub fn drop_failed_user_message(messages: &mut Vec<Message>) {
    if messages
        .last()
        .is_some_and(|m| matches!(m.role, Role::User))
    {
        messages.pop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn ev(seq: u64, ts: &str, kind: &str, data: Value) -> Event {
        Event {
            seq,
            ts: ts.into(),
            kind: kind.into(),
            data: data.as_object().unwrap().clone(),
        }
    }

    const T0: &str = "2026-11-29T10:00:00.000Z";

    fn start() -> Event {
        ev(
            1,
            T0,
            "session/start",
            json!({"provider": "openai", "model": "m", "base_url": "http://x/v1", "system": "be brief"}),
        )
    }

    fn retry(seq: u64, ts: &str, n: u32, delay: u64) -> Event {
        ev(
            seq,
            ts,
            "llm/retry",
            json!({"turn": 2, "step": 1, "provider": "openai", "policy_key": "llm-retry",
            "retry": n, "delay_ms": delay, "code": "SERVER_ERROR", "listener": "llm-retry"}),
        )
    }

    fn at(ts: &str) -> SystemTime {
        humantime::parse_rfc3339(ts).unwrap()
    }

    #[test]
    fn finished_turns_rebuild_the_conversation() {
        let events = vec![
            start(),
            ev(2, T0, "turn/start", json!({"turn": 1, "user": "hi"})),
            ev(3, T0, "llm/request", json!({})),
            ev(
                4,
                T0,
                "turn/end",
                json!({"turn": 1, "outcome": "completed", "assistant": "hello"}),
            ),
            ev(5, T0, "turn/start", json!({"turn": 2, "user": "fail me"})),
            ev(
                6,
                T0,
                "turn/end",
                json!({"turn": 2, "outcome": "failed", "code": "AUTH"}),
            ),
        ];
        let r = rebuild(&events, at(T0)).unwrap();
        assert_eq!(r.header.provider, "openai");
        assert_eq!(r.turn, 2);
        assert!(r.unfinished.is_none());
        let contents: Vec<&str> = r.messages.iter().map(|m| m.content.as_str()).collect();
        assert_eq!(contents, ["be brief", "hi", "hello"]);
    }

    #[test]
    fn a_death_during_a_backoff_resumes_with_the_rest_of_the_wait_and_the_count() {
        let events = vec![
            start(),
            ev(2, T0, "turn/start", json!({"turn": 2, "user": "go"})),
            ev(3, T0, "llm/request", json!({})),
            ev(4, T0, "llm/failure", json!({})),
            retry(5, T0, 1, 1000),
            ev(
                6,
                "2026-11-29T10:00:01.000Z",
                "llm/retry-started",
                json!({}),
            ),
            ev(7, "2026-11-29T10:00:01.000Z", "llm/request", json!({})),
            ev(8, "2026-11-29T10:00:01.100Z", "llm/failure", json!({})),
            retry(9, "2026-11-29T10:00:01.100Z", 2, 4000),
        ];
        let r = rebuild(&events, at("2026-11-29T10:00:02.100Z")).unwrap();
        let t = r.unfinished.unwrap();
        assert_eq!(
            (t.turn, t.step, t.attempts, t.user.as_str()),
            (2, 1, 2, "go")
        );
        let (record, remaining) = t.pending_retry.unwrap();
        assert_eq!(record.retry, 2);
        assert_eq!(remaining, Duration::from_millis(3000));
        assert_eq!(r.retries.len(), 2);
    }

    #[test]
    fn a_wait_that_already_elapsed_leaves_nothing_to_wait() {
        let events = vec![
            start(),
            ev(2, T0, "turn/start", json!({"turn": 2, "user": "go"})),
            retry(3, T0, 1, 1000),
        ];
        let r = rebuild(&events, at("2026-11-29T11:00:00Z")).unwrap();
        assert_eq!(
            r.unfinished.unwrap().pending_retry.unwrap().1,
            Duration::ZERO
        );
    }

    #[test]
    fn a_death_mid_attempt_resumes_with_a_fresh_attempt_and_no_wait() {
        let events = vec![
            start(),
            ev(2, T0, "turn/start", json!({"turn": 2, "user": "go"})),
            retry(3, T0, 1, 1000),
            ev(4, T0, "llm/retry-started", json!({})),
            ev(5, T0, "llm/request", json!({})),
        ];
        let t = rebuild(&events, at(T0)).unwrap().unfinished.unwrap();
        assert!(t.pending_retry.is_none());
        assert_eq!(t.attempts, 1);
    }

    #[test]
    fn replaced_messages_replace_the_conversation() {
        let replacement = json!([{"role": "System", "content": "be brief", "tool_calls": [], "tool_call_id": null},
                                 {"role": "User", "content": "go", "tool_calls": [], "tool_call_id": null}]);
        let mut r = retry(3, T0, 1, 0);
        r.data.insert("messages".into(), replacement);
        r.data
            .insert("policy_key".into(), json!("compaction-basic"));
        let events = vec![
            start(),
            ev(2, T0, "turn/start", json!({"turn": 1, "user": "old"})),
            ev(
                3,
                T0,
                "turn/end",
                json!({"turn": 1, "outcome": "completed", "assistant": "old answer"}),
            ),
            ev(4, T0, "turn/start", json!({"turn": 2, "user": "go"})),
            r,
        ];
        let rebuilt = rebuild(&events, at(T0)).unwrap();
        let contents: Vec<&str> = rebuilt
            .messages
            .iter()
            .map(|m| m.content.as_str())
            .collect();
        assert_eq!(contents, ["be brief", "go"]);
    }

    #[test]
    fn a_log_that_does_not_start_a_session_is_refused() {
        let err = rebuild(
            &[ev(1, T0, "turn/start", json!({"turn": 1, "user": "x"}))],
            at(T0),
        )
        .unwrap_err();
        assert!(err.to_string().contains("session/start"));
        assert!(rebuild(&[], at(T0)).is_err());
    }
}
