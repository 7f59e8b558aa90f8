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
    let contents: Vec<String> = r.messages.iter().map(|m| m.text().into_owned()).collect();
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
    let contents: Vec<String> = rebuilt
        .messages
        .iter()
        .map(|m| m.text().into_owned())
        .collect();
    assert_eq!(contents, ["be brief", "go"]);
}

fn response_with_calls(seq: u64, turn: u32, step: u32, text: &str, calls: Value) -> Event {
    ev(
        seq,
        T0,
        "llm/response",
        json!({"turn": turn, "step": step, "attempt": 1, "text_chars": text.chars().count(),
               "text": text, "tool_calls": calls, "finish_reason": "tool_calls"}),
    )
}

fn tool_result(seq: u64, step: u32, id: &str, content: &str, is_error: bool) -> Event {
    ev(
        seq,
        T0,
        "tool/result",
        json!({"turn": 1, "step": step, "id": id, "name": "calculator", "content": content, "is_error": is_error}),
    )
}

fn two_calls() -> Value {
    json!([{"id": "c1", "name": "calculator", "arguments": "{\"expression\": \"2+\",}"},
           {"id": "c2", "name": "clock", "arguments": ""}])
}

fn summary(messages: &[Message]) -> Vec<String> {
    messages
        .iter()
        .map(|m| {
            let calls: Vec<String> = m
                .tool_calls
                .iter()
                .map(|c| format!("{}({})", c.name, c.arguments))
                .collect();
            format!(
                "{}:{}{}{}",
                serde_json::to_value(m.role).unwrap().as_str().unwrap(),
                m.text(),
                if calls.is_empty() {
                    String::new()
                } else {
                    format!(" calls {}", calls.join(" "))
                },
                m.tool_call_id
                    .as_deref()
                    .map(|id| format!(" answers {id}"))
                    .unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn tool_steps_rebuild_the_assistant_calls_and_the_tool_messages() {
    let events = vec![
        start(),
        ev(
            2,
            T0,
            "turn/start",
            json!({"turn": 1, "user": "sum and time", "tools": ["clock", "calculator"]}),
        ),
        ev(3, T0, "llm/request", json!({"turn": 1, "step": 1})),
        response_with_calls(4, 1, 1, "Let me see.", two_calls()),
        ev(
            5,
            T0,
            "tool/call",
            json!({"turn": 1, "step": 1, "id": "c1"}),
        ),
        tool_result(6, 1, "c1", "Error: not valid JSON", true),
        ev(
            7,
            T0,
            "tool/call",
            json!({"turn": 1, "step": 1, "id": "c2"}),
        ),
        tool_result(8, 1, "c2", "2026-11-29T10:00:00Z", false),
        ev(
            9,
            T0,
            "step/end",
            json!({"turn": 1, "step": 1, "tool_calls": 2, "tool_errors": 1}),
        ),
        ev(10, T0, "llm/request", json!({"turn": 1, "step": 2})),
        ev(
            11,
            T0,
            "llm/response",
            json!({"turn": 1, "step": 2, "tool_calls": []}),
        ),
        ev(
            12,
            T0,
            "turn/end",
            json!({"turn": 1, "outcome": "completed", "assistant": "done", "steps": 2}),
        ),
    ];
    let r = rebuild(&events, at(T0)).unwrap();
    assert!(r.unfinished.is_none());
    assert_eq!(r.tools, ["clock", "calculator"]);
    assert_eq!(
        summary(&r.messages),
        [
            "System:be brief",
            "User:sum and time",
            // Raw text that never parsed stays raw; "" is stored as {}.
            "Assistant:Let me see. calls calculator({\"expression\": \"2+\",}) clock({})",
            "Tool:Error: not valid JSON answers c1",
            "Tool:2026-11-29T10:00:00Z answers c2",
            "Assistant:done",
        ]
    );
}

#[test]
fn a_death_in_step_two_resumes_at_step_two_with_its_own_attempts_and_retries() {
    let mut step2_retry = retry(10, T0, 1, 60_000);
    step2_retry.data.insert("turn".into(), json!(1));
    step2_retry.data.insert("step".into(), json!(2));
    let events = vec![
        start(),
        ev(2, T0, "turn/start", json!({"turn": 1, "user": "go"})),
        ev(3, T0, "llm/request", json!({})),
        ev(4, T0, "llm/failure", json!({})),
        ev(5, T0, "llm/request", json!({})),
        response_with_calls(
            6,
            1,
            1,
            "",
            json!([{"id": "c1", "name": "calculator", "arguments": "{\"expression\":\"1+1\"}"}]),
        ),
        tool_result(7, 1, "c1", "2", false),
        ev(
            8,
            T0,
            "step/end",
            json!({"turn": 1, "step": 1, "tool_calls": 1, "tool_errors": 0}),
        ),
        ev(9, T0, "llm/request", json!({})),
        step2_retry,
    ];
    let r = rebuild(&events, at("2026-11-29T10:00:10Z")).unwrap();
    let t = r.unfinished.unwrap();
    assert_eq!((t.turn, t.step, t.attempts), (1, 2, 1));
    assert!(t.pending_tools.is_none());
    let (record, remaining) = t.pending_retry.unwrap();
    assert_eq!((record.step, record.retry), (2, 1));
    assert_eq!(remaining, Duration::from_secs(50));
    assert_eq!(
        summary(&r.messages),
        [
            "System:be brief",
            "User:go",
            "Assistant: calls calculator({\"expression\":\"1+1\"})",
            "Tool:2 answers c1",
        ]
    );
}

#[test]
fn a_death_while_tools_run_resumes_with_the_calls_that_have_no_result() {
    let events = vec![
        start(),
        ev(
            2,
            T0,
            "turn/start",
            json!({"turn": 1, "user": "go", "tools": ["calculator", "clock"]}),
        ),
        ev(3, T0, "llm/request", json!({})),
        response_with_calls(4, 1, 1, "Working.", two_calls()),
        ev(
            5,
            T0,
            "tool/call",
            json!({"turn": 1, "step": 1, "id": "c1"}),
        ),
        tool_result(6, 1, "c1", "Error: not valid JSON", true),
        ev(
            7,
            T0,
            "tool/call",
            json!({"turn": 1, "step": 1, "id": "c2"}),
        ),
    ];
    let r = rebuild(&events, at(T0)).unwrap();
    let t = r.unfinished.unwrap();
    assert_eq!((t.step, t.attempts), (1, 1));
    let p = t.pending_tools.unwrap();
    assert_eq!(p.text, "Working.");
    assert_eq!(p.calls.len(), 2);
    assert_eq!(p.results.len(), 1);
    assert_eq!(p.results[0].id, "c1");
    // The step's messages are not in the conversation until the step ends.
    assert_eq!(summary(&r.messages), ["System:be brief", "User:go"]);
}

#[test]
fn a_failed_turn_after_tool_steps_leaves_no_trace() {
    let events = vec![
        start(),
        ev(2, T0, "turn/start", json!({"turn": 1, "user": "first"})),
        ev(
            3,
            T0,
            "turn/end",
            json!({"turn": 1, "outcome": "completed", "assistant": "one"}),
        ),
        ev(4, T0, "turn/start", json!({"turn": 2, "user": "second"})),
        response_with_calls(
            5,
            2,
            1,
            "",
            json!([{"id": "c1", "name": "calculator", "arguments": "{}"}]),
        ),
        tool_result(6, 1, "c1", "Error: ...", true),
        ev(7, T0, "step/end", json!({"turn": 2, "step": 1})),
        ev(
            8,
            T0,
            "turn/end",
            json!({"turn": 2, "outcome": "failed", "code": "AUTH"}),
        ),
        ev(9, T0, "turn/start", json!({"turn": 3, "user": "third"})),
        response_with_calls(
            10,
            3,
            1,
            "",
            json!([{"id": "c9", "name": "calculator", "arguments": "{}"}]),
        ),
        ev(11, T0, "step/end", json!({"turn": 3, "step": 1})),
        ev(
            12,
            T0,
            "turn/end",
            json!({"turn": 3, "outcome": "failed", "reason": "step_limit", "max_steps": 1}),
        ),
    ];
    let r = rebuild(&events, at(T0)).unwrap();
    assert!(r.unfinished.is_none());
    assert!(r.tools.is_empty());
    assert_eq!(
        summary(&r.messages),
        ["System:be brief", "User:first", "Assistant:one"]
    );
}

#[test]
fn a_step_end_without_its_response_is_refused() {
    let events = vec![
        start(),
        ev(2, T0, "turn/start", json!({"turn": 1, "user": "go"})),
        ev(3, T0, "step/end", json!({"turn": 1, "step": 1})),
    ];
    let err = rebuild(&events, at(T0)).unwrap_err().to_string();
    assert!(
        err.contains("follows no llm/response with tool calls"),
        "{err}"
    );
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
