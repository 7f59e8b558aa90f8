//! `dsh-host demo`: the embedded mock provider on an ephemeral loopback port, a built-in script, and
//! one session run against it through the real adapter, transport, recovery waterfall, tools and
//! log. Each turn meets one kind of failure and recovers from it (one of them a malformed tool call
//! that the model corrects); the last shows a failure that must not be retried. No network, no key.

use crate::attempt::StreamEvent;
use crate::config::{self, Config, RetryPolicy};
use crate::mock::{MockScript, MockServer};
use crate::runtime::Runtime;
use crate::session::{Session, TurnError, default_engine};
use crate::store::{Event, SessionStore};
use anyhow::Result;
use std::io::Write;
use std::path::Path;
use std::process::ExitCode;

/// One turn of the demo: what the user asks, what goes wrong first, how it must end.
struct Scene {
    prompt: &'static str,
    trouble: &'static str,
    /// The failure code the turn must recover from (`None`: it must fail for good).
    recovers_from: Option<&'static str>,
    /// For a turn that must fail: the code it fails with.
    fails_with: Option<&'static str>,
    /// The turn's first tool call is refused (the model gets an error result), a later one succeeds.
    corrects_tool_call: bool,
}

const SCENES: &[Scene] = &[
    Scene {
        prompt: "Say hello.",
        trouble: "a 429 with retry-after: 1",
        recovers_from: Some("RATE_LIMITED"),
        fails_with: None,
        corrects_tool_call: false,
    },
    Scene {
        prompt: "What is a retry?",
        trouble: "a 500 server error",
        recovers_from: Some("SERVER_ERROR"),
        fails_with: None,
        corrects_tool_call: false,
    },
    Scene {
        prompt: "Tell me a story.",
        trouble: "the connection reset mid-stream",
        recovers_from: Some("NETWORK"),
        fails_with: None,
        corrects_tool_call: false,
    },
    Scene {
        prompt: "Anything else?",
        trouble: "an empty completion",
        recovers_from: Some("EMPTY_RESPONSE"),
        fails_with: None,
        corrects_tool_call: false,
    },
    Scene {
        prompt: "Now summarise everything.",
        trouble: "the context window overflows",
        recovers_from: Some("CONTEXT_WINDOW_EXCEEDED"),
        fails_with: None,
        corrects_tool_call: false,
    },
    Scene {
        prompt: "What is 6 times 7?",
        trouble: "a malformed tool call (invalid JSON), corrected by the model",
        recovers_from: None,
        fails_with: None,
        corrects_tool_call: true,
    },
    Scene {
        prompt: "One more?",
        trouble: "the key is rejected (401): never retried",
        recovers_from: None,
        fails_with: Some("AUTH"),
        corrects_tool_call: false,
    },
];

/// The mock's answers, one step per attempt, in order.
pub const DEMO_SCRIPT: &str = r#"{
  "steps": [
    { "status": 429, "headers": { "retry-after": "1", "x-request-id": "req_demo_429" },
      "body": "{\"error\":{\"message\":\"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1.\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}" },
    { "completion": { "text": ["Hello", " from the", " mock provider", "!"], "delay_ms": 30,
                      "usage": { "prompt_tokens": 9, "completion_tokens": 6 } } },

    { "status": 500, "headers": { "x-request-id": "req_demo_500" },
      "body": "{\"error\":{\"message\":\"The server had an error processing your request. Sorry about that!\",\"type\":\"server_error\",\"code\":null}}" },
    { "completion": { "text": ["A retry", " is a second", " attempt", " after a failure."], "delay_ms": 30 } },

    { "completion": { "text": ["Once upon", " a time", " there was", " a stream", " that never ended"], "delay_ms": 30 },
      "reset_after_bytes": 420 },
    { "completion": { "text": ["Once upon", " a time,", " a stream", " was retried", " and ended well."], "delay_ms": 30 } },

    { "completion": { "text": [], "finish": "stop" } },
    { "completion": { "text": ["Nothing", " else", " for now."], "delay_ms": 30 } },

    { "status": 400,
      "body": "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}" },
    { "completion": { "text": ["We", " talked", " about", " retries."], "delay_ms": 30 } },

    { "completion": { "tool_calls": [{ "id": "call_demo_1", "name": "calculator", "arguments": ["{\"expression\": ", "\"6 * 7\",}"] }],
                      "finish": "tool_calls", "delay_ms": 30 } },
    { "completion": { "tool_calls": [{ "id": "call_demo_2", "name": "calculator", "arguments": ["{\"expression\": ", "\"6 * 7\"}"] }],
                      "finish": "tool_calls", "delay_ms": 30 } },
    { "completion": { "text": ["6 times 7", " is 42."], "delay_ms": 30 } },

    { "status": 401,
      "body": "{\"error\":{\"message\":\"Incorrect API key provided: demo-key.\",\"type\":\"invalid_request_error\",\"code\":\"invalid_api_key\"}}" }
  ]
}"#;

pub async fn run(sessions_dir: &Path) -> Result<ExitCode> {
    let mock = MockServer::start(
        MockScript::from_json_str(DEMO_SCRIPT)?,
        ([127, 0, 0, 1], 0).into(),
    )
    .await?;
    let mut provider = config::preset("openai-compatible")?;
    provider.name = "mock".into();
    provider.base_url = mock.base_url();
    provider.model = "mock-model".into();
    // Short delays, so the whole demo takes seconds.
    provider.retry_policy = RetryPolicy {
        initial_delay_ms: 250,
        max_delay_ms: 5_000,
        ..RetryPolicy::default()
    };
    let runtime = Runtime::new(Config::builtin(), default_engine()?, None).await?;
    let deps = runtime.deps(runtime.provider(provider).await?);
    // DSH_SESSIONS_URL applies here too: the demo then writes its session to PostgreSQL.
    let store =
        SessionStore::open_configured(sessions_dir, &crate::config::SessionsConfig::default())?;
    let mut session = Session::start(
        deps,
        store.create()?,
        Some("You are a helpful assistant.".into()),
    )?
    .with_tools(std::sync::Arc::new(crate::tools::builtin::builtin_tools()));

    println!(
        "dsh-host demo: the embedded mock provider at {}",
        mock.base_url()
    );
    println!(
        "adapter: built-in openai; recovery listeners: {}; tools: {}",
        runtime.recovery.listener_names().join(" → "),
        session.tools().names().join(", ")
    );
    println!("session {} (log in {})\n", session.id(), store.location());

    let mut surprises = Vec::new();
    let mut seen = 0;
    for (i, scene) in SCENES.iter().enumerate() {
        println!("── turn {}: {} ──", i + 1, scene.trouble);
        println!("user> {}", scene.prompt);
        let mut printed = false;
        let mut calls: Vec<(String, String)> = Vec::new();
        let mut sink = |event: StreamEvent| {
            match event {
                StreamEvent::Text(text) => {
                    if !printed {
                        print!("assistant> ");
                        printed = true;
                    }
                    print!("{text}");
                }
                StreamEvent::Retrying {
                    code,
                    retry,
                    delay_ms,
                    policy_key,
                } => {
                    if printed {
                        println!("  ✗ (cut off)");
                        printed = false;
                    }
                    println!("  ↻ {code}: {policy_key} retry {retry} in {delay_ms} ms");
                }
                StreamEvent::CoolingDown { code, delay_ms } => {
                    println!("  ⏸ {code}: held {delay_ms} ms by the provider's cool-down");
                }
                StreamEvent::ToolCall { id, arguments, .. } => {
                    if printed {
                        println!();
                        printed = false;
                    }
                    calls.push((id, arguments));
                }
                StreamEvent::ToolResult {
                    id, name, content, ..
                } => {
                    let args = calls
                        .iter()
                        .find(|(i, _)| *i == id)
                        .map(|(_, a)| a.as_str())
                        .unwrap_or("");
                    println!("  ⚙ {}", crate::cli::tool_line(&name, args, &content));
                }
                StreamEvent::Reasoning(_)
                | StreamEvent::Compacted { .. }
                | StreamEvent::Attempt { .. }
                | StreamEvent::ResponseHead { .. }
                | StreamEvent::AttemptFailed(_) => {}
            }
            let _ = std::io::stdout().flush();
        };
        let outcome = session.run_turn(scene.prompt, &mut sink).await;
        if printed {
            println!();
        }
        let events = store.read(session.id())?.events;
        for event in &events[seen..] {
            if event.kind != "turn/start" {
                println!("    {}", describe_event(event));
            }
        }
        seen = events.len();
        let retried: Vec<&str> = events
            .iter()
            .filter(|e| e.kind == "llm/retry" && e.data["turn"] == (i + 1) as u64)
            .filter_map(|e| e.data["code"].as_str())
            .collect();
        let tool_errors: Vec<bool> = events
            .iter()
            .filter(|e| e.kind == "tool/result" && e.data["turn"] == (i + 1) as u64)
            .map(|e| e.data["is_error"] == true)
            .collect();
        let corrected = tool_errors.first() == Some(&true) && tool_errors.last() == Some(&false);
        match (&outcome, scene.recovers_from, scene.fails_with) {
            (Ok(_), Some(code), _) if retried == [code] => {}
            (Ok(_), None, None) if scene.corrects_tool_call && corrected && retried.is_empty() => {}
            (Err(TurnError::Failed(f)), None, Some(code))
                if f.code == code && retried.is_empty() =>
            {
                println!("failure: {f}");
            }
            (Err(TurnError::Host(e)), _, _) => return Err(anyhow::anyhow!("{e:#}")),
            _ => surprises.push(format!(
                "turn {}: {:?} after retries {:?}",
                i + 1,
                outcome.as_ref().err().map(|e| e.to_string()),
                retried
            )),
        }
        println!();
    }
    mock.shutdown().await;
    println!(
        "the conversation now holds {} messages (compaction dropped the oldest exchanges)",
        session.messages().len()
    );
    println!(
        "full timeline: dsh-host log {} --sessions {}",
        session.id(),
        store.location()
    );
    if !surprises.is_empty() {
        println!(
            "{} turn(s) did not end as expected:\n  {}",
            surprises.len(),
            surprises.join("\n  ")
        );
        return Ok(ExitCode::from(crate::cli::EXIT_TURN_FAILED));
    }
    println!(
        "every failure arrived as one canonical code; each retryable one was recovered, the rest were not retried; \
         the malformed tool call became a tool error that the model corrected"
    );
    Ok(ExitCode::SUCCESS)
}

/// One readable line per event, for `dsh-host log` and the demo: what happened and why.
pub fn describe_event(event: &Event) -> String {
    format!(
        "#{:<3} {} {:<17} {}",
        event.seq,
        event.ts,
        event.kind,
        describe_detail(event)
    )
}

/// What an event says, in words: the timeline line after its number, time and type.
pub fn describe_detail(event: &Event) -> String {
    let d = &event.data;
    let s = |k: &str| {
        d.get(k)
            .map(|v| {
                v.as_str()
                    .map(str::to_string)
                    .unwrap_or_else(|| v.to_string())
            })
            .unwrap_or_default()
    };
    let failure = |v: Option<&serde_json::Value>| {
        let f = v.cloned().unwrap_or_default();
        let code = f
            .get("code")
            .and_then(|c| c.as_str())
            .unwrap_or("?")
            .to_string();
        let msg = f.get("message").and_then(|c| c.as_str()).unwrap_or("");
        let status = f
            .get("status")
            .map(|s| format!(" (HTTP {s})"))
            .unwrap_or_default();
        let hint = f
            .get("provider_retry_after_ms")
            .map(|ms| format!(" [provider: retry after {ms} ms]"))
            .unwrap_or_default();
        format!("{code}{status}: {msg}{hint}")
    };
    match event.kind.as_str() {
        "session/start" => format!(
            "provider {} model {} via adapter {}",
            s("provider"),
            s("model"),
            s("adapter")
        ),
        "session/resumed" => {
            let torn = match d.get("torn_tail_file").and_then(|f| f.as_str()) {
                Some(file) => format!("; a torn tail was moved to {file}"),
                None => String::new(),
            };
            format!("resumed (unfinished turn: {}{torn})", s("unfinished_turn"))
        }
        "turn/start" => format!("turn {}: user says {:?}", s("turn"), s("user")),
        "llm/request" => format!(
            "attempt {} of turn {} step {}: {} messages to {}",
            s("attempt"),
            s("turn"),
            s("step"),
            s("messages"),
            s("provider")
        ),
        "llm/response" => {
            let calls = d
                .get("tool_calls")
                .and_then(|c| c.as_array())
                .map_or(0, Vec::len);
            if calls == 0 {
                format!(
                    "answer: {} characters, finish {}",
                    s("text_chars"),
                    s("finish_reason")
                )
            } else {
                format!(
                    "answer: {} characters and {calls} tool call(s), finish {}",
                    s("text_chars"),
                    s("finish_reason")
                )
            }
        }
        "tool/call" => format!(
            "step {}: the model calls {}({}){}",
            s("step"),
            s("name"),
            s("arguments"),
            if d.get("parsed_ok") == Some(&serde_json::Value::Bool(false)) {
                " (not valid JSON)"
            } else {
                ""
            }
        ),
        "tool/result" => {
            let content = s("content");
            let first = content.lines().next().unwrap_or("");
            let more = if first.len() < content.trim_end().len() {
                " …"
            } else {
                ""
            };
            let kind = if d.get("is_error") == Some(&serde_json::Value::Bool(true)) {
                "error result"
            } else {
                "result"
            };
            format!("{} {kind}: {first}{more}", s("name"))
        }
        "step/end" => format!(
            "step {} ends: {} tool result(s) ({} error(s)) go back to the model in step {} (durable)",
            s("step"),
            s("tool_calls"),
            s("tool_errors"),
            d.get("step").and_then(|v| v.as_u64()).map_or(0, |n| n + 1)
        ),
        "llm/failure" => failure(d.get("failure")),
        "llm/retry" => {
            let compacted = match (
                d.get("messages_before"),
                d.get("messages").and_then(|m| m.as_array()),
            ) {
                (Some(before), Some(after)) => format!(
                    ", conversation compacted from {before} to {} messages",
                    after.len()
                ),
                _ => String::new(),
            };
            format!(
                "{} decides: retry {} of {} in {} ms{compacted} (durable before the wait)",
                s("listener"),
                s("retry"),
                s("code"),
                s("delay_ms")
            )
        }
        "llm/cooldown" => format!(
            "held {} ms before the next attempt: {} of {} for model {} met by another session (the fleet's cool-down)",
            s("wait_ms"),
            s("code"),
            s("provider"),
            s("model")
        ),
        "llm/retry-started" => format!(
            "waited; retry {} ({}) starts on a fresh adapter instance",
            s("retry"),
            s("policy_key")
        ),
        "llm/error" => format!("no retry: {} ({})", s("reason"), failure(d.get("failure"))),
        "recovery/listener-fault" => format!(
            "listener {} faulted and was skipped: {}",
            s("listener"),
            failure(d.get("failure"))
        ),
        "turn/end" => format!(
            "turn {} {}{}{}",
            s("turn"),
            s("outcome"),
            d.get("code")
                .map(|c| format!(" ({})", c.as_str().unwrap_or("")))
                .unwrap_or_default(),
            d.get("message")
                .and_then(|m| m.as_str())
                .map(|m| format!(": {m}"))
                .unwrap_or_default()
        ),
        _ => serde_json::to_string(d).unwrap_or_default(),
    }
}
