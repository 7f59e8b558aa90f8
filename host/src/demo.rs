//! `dsh-host demo`: the embedded mock provider on an ephemeral loopback port, a built-in script, and
//! sessions run against it through the real adapter, transport and log. No network, no key.

use crate::adapter::Adapter;
use crate::config::{self, AdapterRef};
use crate::log::{Event, SessionStore};
use crate::mock::{MockScript, MockServer};
use crate::session::{Provider, Session, StreamEvent, TurnError, default_engine};
use crate::transport::Transport;
use anyhow::Result;
use std::path::Path;
use std::process::ExitCode;
use std::sync::Arc;

/// One scripted scene: what the user asks, and what the mock answers.
struct Scene {
    title: &'static str,
    prompt: &'static str,
    /// The canonical code the host must end with (`None`: a successful answer).
    expect: Option<&'static str>,
}

const SCENES: &[Scene] = &[
    Scene { title: "a streamed answer", prompt: "Say hello.", expect: None },
    Scene { title: "rate limited, with retry-after", prompt: "Are you busy?", expect: Some("RATE_LIMITED") },
    Scene { title: "server error", prompt: "Try again.", expect: Some("SERVER_ERROR") },
    Scene { title: "connection reset mid-stream", prompt: "Tell me a story.", expect: Some("NETWORK") },
    Scene { title: "stream cut without a finish", prompt: "Count to ten.", expect: Some("STREAM_TRUNCATED") },
    Scene { title: "an empty completion", prompt: "Anything?", expect: Some("EMPTY_RESPONSE") },
    Scene { title: "context window exceeded", prompt: "Summarise this book.", expect: Some("CONTEXT_WINDOW_EXCEEDED") },
    Scene { title: "an error inside a 200 stream", prompt: "Go on.", expect: Some("OVERLOADED") },
];

/// The mock's answers, one step per scene, in order.
pub const DEMO_SCRIPT: &str = r#"{
  "steps": [
    { "completion": { "text": ["Hello", " from the", " mock provider", "!"], "delay_ms": 40,
                      "usage": { "prompt_tokens": 9, "completion_tokens": 6 } } },
    { "status": 429, "headers": { "retry-after": "2", "x-request-id": "req_demo_429" },
      "body": "{\"error\":{\"message\":\"Rate limit reached for requests per min (RPM): Limit 3, Used 3, Requested 1.\",\"type\":\"requests\",\"code\":\"rate_limit_exceeded\"}}" },
    { "status": 500, "headers": { "x-request-id": "req_demo_500" },
      "body": "{\"error\":{\"message\":\"The server had an error processing your request. Sorry about that!\",\"type\":\"server_error\",\"code\":null}}" },
    { "completion": { "text": ["Once upon", " a time", " there was", " a stream", " that never ended"], "delay_ms": 30 },
      "reset_after_bytes": 420 },
    { "events": [ { "data": { "choices": [ { "index": 0, "delta": { "content": "One, two," }, "finish_reason": null } ] } } ] },
    { "completion": { "text": [], "finish": "stop" } },
    { "status": 400,
      "body": "{\"error\":{\"message\":\"This model's maximum context length is 8192 tokens. However, your messages resulted in 9001 tokens. Please reduce the length of the messages.\",\"type\":\"invalid_request_error\",\"param\":\"messages\",\"code\":\"context_length_exceeded\"}}" },
    { "events": [
        { "data": { "choices": [ { "index": 0, "delta": { "content": "Going" }, "finish_reason": null } ] } },
        { "data": { "error": { "message": "That model is currently overloaded with other requests.", "type": "server_error", "code": null } }, "delay_ms": 30 }
      ], "done": true }
  ]
}"#;

pub async fn run(sessions_dir: &Path) -> Result<ExitCode> {
    let script = MockScript::from_json_str(DEMO_SCRIPT)?;
    let mock = MockServer::start(script, ([127, 0, 0, 1], 0).into()).await?;
    let engine = default_engine()?;
    let mut cfg = config::preset("openai-compatible")?;
    cfg.name = "mock".into();
    cfg.base_url = mock.base_url();
    cfg.model = "mock-model".into();
    cfg.adapter = AdapterRef::Builtin("openai".into());
    let adapter = Arc::new(Adapter::load(&engine, &crate::cli::adapter_source(&cfg.adapter)?).await?);
    let provider = Arc::new(Provider::new(cfg, adapter, Some("demo-key".into())));
    let store = SessionStore::open(sessions_dir)?;
    let transport = Transport::new()?;

    println!("dsh-host demo: the embedded mock provider at {}, the built-in openai adapter", mock.base_url());
    println!("session logs in {}\n", store.path().display());
    let mut surprises = 0;
    for (i, scene) in SCENES.iter().enumerate() {
        println!("── {}. {} ──", i + 1, scene.title);
        println!("user> {}", scene.prompt);
        let mut session = Session::start(provider.clone(), transport.clone(), store.create()?, None)?;
        let mut printed = false;
        let mut sink = |event: StreamEvent| {
            if let StreamEvent::Text(text) = event {
                if !printed {
                    print!("assistant> ");
                    printed = true;
                }
                print!("{text}");
                use std::io::Write;
                let _ = std::io::stdout().flush();
            }
        };
        let outcome = session.run_turn(scene.prompt, &mut sink).await;
        if printed {
            println!();
        }
        let got = match &outcome {
            Ok(_) => None,
            Err(TurnError::Failed(f)) => {
                println!("failure: {f}");
                Some(f.code.as_str())
            }
            Err(TurnError::Host(e)) => return Err(anyhow::anyhow!("{e:#}")),
        };
        if got != scene.expect {
            surprises += 1;
            println!("!! expected {:?}, got {:?}", scene.expect, got);
        }
        println!("timeline of session {}:", session.id());
        for event in store.read(session.id())?.events {
            println!("  {}", describe_event(&event));
        }
        println!();
    }
    mock.shutdown().await;
    if surprises > 0 {
        println!("{surprises} scene(s) did not end as expected");
        return Ok(ExitCode::from(crate::cli::EXIT_TURN_FAILED));
    }
    println!("every scene ended as expected: each failure arrived as one canonical code");
    Ok(ExitCode::SUCCESS)
}

/// One readable line per event, for `dsh-host log` and the demo.
pub fn describe_event(event: &Event) -> String {
    let d = &event.data;
    let s = |k: &str| d.get(k).map(|v| v.as_str().map(str::to_string).unwrap_or_else(|| v.to_string())).unwrap_or_default();
    let detail = match event.kind.as_str() {
        "session/start" => format!("provider {} model {} via adapter {}", s("provider"), s("model"), s("adapter")),
        "turn/start" => format!("turn {}: user says {:?}", s("turn"), s("user")),
        "llm/request" => format!("turn {} step {} attempt {}: request to {} ({} messages)", s("turn"), s("step"), s("attempt"), s("provider"), s("messages")),
        "llm/response" => format!("answer: {} characters, finish {}", s("text_chars"), s("finish_reason")),
        "llm/failure" | "llm/error" => {
            let f = d.get("failure").cloned().unwrap_or_default();
            let code = f.get("code").and_then(|c| c.as_str()).unwrap_or("?");
            let msg = f.get("message").and_then(|c| c.as_str()).unwrap_or("");
            let status = f.get("status").map(|s| format!(" HTTP {s}")).unwrap_or_default();
            format!("{code}{status}: {msg}")
        }
        "turn/end" => format!("turn {} {}{}", s("turn"), s("outcome"), d.get("code").map(|c| format!(" ({})", c.as_str().unwrap_or(""))).unwrap_or_default()),
        _ => serde_json::to_string(d).unwrap_or_default(),
    };
    format!("#{:<3} {} {:<14} {}", event.seq, event.ts, event.kind, detail)
}
