//! Tool calls through the binary (`run --tools`, the built-in clock and calculator) and the mock, for
//! both built-in adapters: the step loop, tool results in each provider's request shape, malformed
//! and schema-violating calls that the model corrects, a stream cut inside tool arguments, the step
//! limit, and resume after SIGKILL in the middle of a turn's second step.

use crate::support::*;
use dsh_host::log::Event;
use serde_json::{Value, json};
use std::process::Output;
use std::time::{Duration, Instant};

#[derive(Clone, Copy, Debug)]
enum Preset {
    OpenAi,
    Anthropic,
}

const BOTH: [Preset; 2] = [Preset::OpenAi, Preset::Anthropic];

impl Preset {
    fn name(self) -> &'static str {
        match self {
            Preset::OpenAi => "openai",
            Preset::Anthropic => "anthropic",
        }
    }

    fn path(self) -> &'static str {
        match self {
            Preset::OpenAi => "/v1/chat/completions",
            Preset::Anthropic => "/v1/messages",
        }
    }

    /// A call id as this provider spells them.
    fn id(self, n: u32) -> String {
        match self {
            Preset::OpenAi => format!("call_{n}"),
            Preset::Anthropic => format!("toolu_{n}"),
        }
    }

    fn server_error(self) -> Value {
        let body = match self {
            Preset::OpenAi => {
                json!({"error": {"message": "The server had an error", "type": "server_error"}})
            }
            Preset::Anthropic => {
                json!({"type": "error", "error": {"type": "api_error", "message": "Internal server error"}})
            }
        };
        json!({"status": 500, "body": body.to_string()})
    }

    /// `dsh-host ARGS`: `run --provider P --base-url URL` first, then `rest`; the key in P's variable.
    fn command(self, scratch: &Scratch, url: &str, rest: &[&str]) -> tokio::process::Command {
        // The mock is not the preset's own host: its key goes there only when named explicitly.
        let var = match self {
            Preset::OpenAi => "OPENAI_API_KEY",
            Preset::Anthropic => "ANTHROPIC_API_KEY",
        };
        let mut args = vec![
            "run",
            "--provider",
            self.name(),
            "--base-url",
            url,
            "--api-key-env",
            var,
        ];
        args.extend_from_slice(rest);
        let mut cmd = scratch.command(&args, None);
        cmd.env(var, TEST_KEY);
        cmd
    }

    async fn run(self, scratch: &Scratch, url: &str, rest: &[&str]) -> Output {
        self.command(scratch, url, rest)
            .output()
            .await
            .expect("dsh-host runs")
    }

    /// The tool results a request carries, as (call id, content), in order.
    fn tool_results(self, body: &Value) -> Vec<(String, String)> {
        let messages = body["messages"].as_array().unwrap();
        match self {
            Preset::OpenAi => messages
                .iter()
                .filter(|m| m["role"] == "tool")
                .map(|m| (s(&m["tool_call_id"]), s(&m["content"])))
                .collect(),
            Preset::Anthropic => messages
                .iter()
                .filter(|m| m["role"] == "user")
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .filter(|b| b["type"] == "tool_result")
                .map(|b| (s(&b["tool_use_id"]), s(&b["content"])))
                .collect(),
        }
    }

    /// The tool calls a request replays, as (id, name, arguments as JSON text), in order.
    fn replayed_calls(self, body: &Value) -> Vec<(String, String, String)> {
        let messages = body["messages"].as_array().unwrap();
        match self {
            Preset::OpenAi => messages
                .iter()
                .filter(|m| m["role"] == "assistant")
                .flat_map(|m| m["tool_calls"].as_array().cloned().unwrap_or_default())
                .map(|c| {
                    (
                        s(&c["id"]),
                        s(&c["function"]["name"]),
                        s(&c["function"]["arguments"]),
                    )
                })
                .collect(),
            Preset::Anthropic => messages
                .iter()
                .filter(|m| m["role"] == "assistant")
                .flat_map(|m| m["content"].as_array().cloned().unwrap_or_default())
                .filter(|b| b["type"] == "tool_use")
                .map(|b| (s(&b["id"]), s(&b["name"]), b["input"].to_string()))
                .collect(),
        }
    }

    /// The names of the tools a request offers.
    fn offered_tools(self, body: &Value) -> Vec<String> {
        body["tools"]
            .as_array()
            .map(|tools| {
                tools
                    .iter()
                    .map(|t| match self {
                        Preset::OpenAi => s(&t["function"]["name"]),
                        Preset::Anthropic => s(&t["name"]),
                    })
                    .collect()
            })
            .unwrap_or_default()
    }
}

fn s(v: &Value) -> String {
    v.as_str()
        .map(str::to_string)
        .unwrap_or_else(|| v.to_string())
}

fn script(steps: Vec<Value>) -> String {
    json!({ "steps": steps }).to_string()
}

/// A completion that calls one tool, its arguments streamed in `pieces`.
fn call(id: &str, name: &str, pieces: &[&str]) -> Value {
    json!({"completion": {"tool_calls": [{"id": id, "name": name, "arguments": pieces}],
                          "finish": "tool_calls", "delay_ms": 2}})
}

fn answer(text: &str) -> Value {
    json!({"completion": {"text": [text]}})
}

fn body(mock: &dsh_host::mock::MockServer, i: usize) -> Value {
    let requests = mock.requests();
    serde_json::from_slice(&requests[i].body).unwrap()
}

fn data<'a>(events: &'a [Event], kind: &str) -> Vec<&'a serde_json::Map<String, Value>> {
    of_kind(events, kind).into_iter().map(|e| &e.data).collect()
}

#[tokio::test]
async fn a_calculator_call_runs_and_its_result_goes_back_to_the_model() {
    for p in BOTH {
        let mock = mock(&script(vec![
            call(&p.id(1), "calculator", &["{\"expression\"", ": \"2+2\"}"]),
            answer("2 + 2 = 4"),
        ]))
        .await;
        let scratch = Scratch::new();
        let out = p
            .run(&scratch, &mock.base_url(), &["--tools", "What is 2+2?"])
            .await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert_eq!(stdout(&out).trim_end(), "2 + 2 = 4", "{p:?}");
        assert!(
            stderr(&out).contains(r#"[tool calculator({"expression":"2+2"}) → 4]"#),
            "{p:?}: {}",
            stderr(&out)
        );

        let requests = mock.requests();
        assert_eq!(requests.len(), 2, "{p:?}");
        assert!(requests.iter().all(|r| r.path == p.path()), "{p:?}");
        let first = body(&mock, 0);
        assert_eq!(p.offered_tools(&first), ["clock", "calculator"], "{p:?}");
        assert!(p.tool_results(&first).is_empty());
        let second = body(&mock, 1);
        assert_eq!(p.offered_tools(&second), ["clock", "calculator"], "{p:?}");
        assert_eq!(
            p.replayed_calls(&second),
            [(
                p.id(1),
                "calculator".into(),
                r#"{"expression":"2+2"}"#.into()
            )],
            "{p:?}"
        );
        assert_eq!(p.tool_results(&second), [(p.id(1), "4".into())], "{p:?}");
        if let Preset::Anthropic = p {
            // The tool result is a user turn's tool_result block, right after the assistant's tool_use.
            let messages = second["messages"].as_array().unwrap();
            assert_eq!(messages.len(), 3, "{second}");
            assert_eq!(messages[1]["role"], "assistant");
            assert_eq!(messages[2]["role"], "user");
            assert_eq!(messages[2]["content"][0]["type"], "tool_result");
        }

        let events = scratch.only_session_events();
        assert_eq!(
            kinds(&events),
            [
                "session/start",
                "turn/start",
                "llm/request",
                "llm/response",
                "tool/call",
                "tool/result",
                "step/end",
                "llm/request",
                "llm/response",
                "turn/end"
            ],
            "{p:?}"
        );
        let tool_call = data(&events, "tool/call")[0];
        assert_eq!(
            tool_call["arguments"], r#"{"expression": "2+2"}"#,
            "raw, as the model sent it"
        );
        assert_eq!(tool_call["parsed_ok"], true);
        assert_eq!(
            (tool_call["turn"].as_u64(), tool_call["step"].as_u64()),
            (Some(1), Some(1))
        );
        let result = data(&events, "tool/result")[0];
        assert_eq!(
            (result["content"].as_str(), result["is_error"].as_bool()),
            (Some("4"), Some(false))
        );
        assert_eq!(data(&events, "llm/request")[1]["step"], 2);
        assert_eq!(
            data(&events, "turn/start")[0]["tools"],
            json!(["clock", "calculator"])
        );
        let end = data(&events, "turn/end")[0];
        assert_eq!(
            (end["assistant"].as_str(), end["steps"].as_u64()),
            (Some("2 + 2 = 4"), Some(2))
        );
    }
}

#[tokio::test]
async fn a_malformed_call_gets_a_readable_error_and_the_model_corrects_it() {
    for p in BOTH {
        let mock = mock(&script(vec![
            call(
                &p.id(1),
                "calculator",
                &["{\"expression\": ", "\"6 * 7\",}"],
            ),
            call(&p.id(2), "calculator", &["{\"expression\": ", "\"6 * 7\"}"]),
            answer("42"),
        ]))
        .await;
        let scratch = Scratch::new();
        let out = p
            .run(&scratch, &mock.base_url(), &["--tools", "6 times 7?"])
            .await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert_eq!(stdout(&out).trim_end(), "42");
        let err = stderr(&out);
        assert!(
            err.contains(r#"[tool calculator({"expression": "6 * 7",}) → Error: the arguments of `calculator` are not valid JSON (trailing comma"#),
            "{p:?}: {err}"
        );
        assert!(
            err.contains(r#"[tool calculator({"expression":"6 * 7"}) → 42]"#),
            "{p:?}: {err}"
        );

        // Step 2's request: the malformed call and the error the model must read.
        let second = body(&mock, 1);
        let results = p.tool_results(&second);
        assert_eq!(results.len(), 1);
        let error = &results[0].1;
        assert!(
            error.starts_with("Error: the arguments of `calculator` are not valid JSON"),
            "{error}"
        );
        assert!(error.contains("so the tool did not run"), "{error}");
        assert!(
            error.contains(r#"You sent: {"expression": "6 * 7",}"#),
            "{error}"
        );
        assert!(
            error.contains(r#""required":["expression"]"#),
            "the schema is quoted: {error}"
        );
        let replayed = p.replayed_calls(&second);
        match p {
            // The raw text, as the model produced it (OpenAI's arguments are a string).
            Preset::OpenAi => assert_eq!(replayed[0].2, r#"{"expression": "6 * 7",}"#),
            // Anthropic's input must be an object: text that never parsed is replayed as {}.
            Preset::Anthropic => assert_eq!(replayed[0].2, "{}"),
        }
        // Step 3's request: both steps, both results.
        let third = body(&mock, 2);
        let results = p.tool_results(&third);
        assert_eq!(results.len(), 2, "{p:?}");
        assert_eq!(results[1], (p.id(2), "42".into()));

        let events = scratch.only_session_events();
        let parsed: Vec<bool> = data(&events, "tool/call")
            .iter()
            .map(|d| d["parsed_ok"] == true)
            .collect();
        assert_eq!(parsed, [false, true]);
        let errors: Vec<bool> = data(&events, "tool/result")
            .iter()
            .map(|d| d["is_error"] == true)
            .collect();
        assert_eq!(errors, [true, false]);
        let ends: Vec<u64> = data(&events, "step/end")
            .iter()
            .map(|d| d["tool_errors"].as_u64().unwrap())
            .collect();
        assert_eq!(ends, [1, 0]);
        assert!(
            of_kind(&events, "llm/failure").is_empty(),
            "a malformed call is not a failure"
        );
        assert_eq!(data(&events, "turn/end")[0]["steps"], 3);
    }
}

#[tokio::test]
async fn empty_arguments_to_the_clock_are_an_empty_object() {
    for p in BOTH {
        let mock = mock(&script(vec![
            call(&p.id(1), "clock", &[]),
            call(&p.id(2), "clock", &["", "  "]),
            answer("It is late."),
        ]))
        .await;
        let scratch = Scratch::new();
        let out = p
            .run(&scratch, &mock.base_url(), &["--tools", "What time is it?"])
            .await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert_eq!(
            stderr(&out).matches("[tool clock({}) → 20").count(),
            2,
            "{p:?}: {}",
            stderr(&out)
        );
        let third = body(&mock, 2);
        let replayed: Vec<String> = p.replayed_calls(&third).into_iter().map(|c| c.2).collect();
        assert_eq!(replayed, ["{}", "{}"], "{p:?}: stored and replayed as {{}}");
        for (_, time) in p.tool_results(&third) {
            let t = humantime::parse_rfc3339(&time).expect("an RFC 3339 time");
            let age = std::time::SystemTime::now()
                .duration_since(t)
                .unwrap_or_default();
            assert!(age < Duration::from_secs(600), "{time}");
            assert!(time.ends_with('Z'), "UTC: {time}");
        }
        let events = scratch.only_session_events();
        let args: Vec<(String, bool)> = data(&events, "tool/call")
            .iter()
            .map(|d| (s(&d["arguments"]), d["parsed_ok"] == true))
            .collect();
        assert_eq!(
            args,
            [(String::new(), true), ("  ".to_string(), true)],
            "{p:?}"
        );
        assert!(
            data(&events, "tool/result")
                .iter()
                .all(|d| d["is_error"] == false)
        );
    }
}

#[tokio::test]
async fn a_schema_violation_gets_a_readable_error_and_the_model_corrects_it() {
    for p in BOTH {
        let mock = mock(&script(vec![
            call(&p.id(1), "calculator", &["{\"expr\": \"2*21\"}"]),
            call(&p.id(2), "calculator", &["{\"expression\": 42}"]),
            call(&p.id(3), "calculator", &["{\"expression\": \"2*21\"}"]),
            answer("42"),
        ]))
        .await;
        let scratch = Scratch::new();
        let out = p
            .run(&scratch, &mock.base_url(), &["--tools", "2 times 21?"])
            .await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert_eq!(stdout(&out).trim_end(), "42");

        let missing = &p.tool_results(&body(&mock, 1))[0].1;
        assert!(
            missing.starts_with("Error: the arguments of `calculator` do not match its schema, so the tool did not run:"),
            "{missing}"
        );
        assert!(
            missing.contains(r#"- the arguments object: "expression" is a required property"#),
            "{missing}"
        );
        assert!(missing.contains("('expr' was unexpected)"), "{missing}");
        assert!(
            missing.contains("Call `calculator` again with corrected arguments"),
            "{missing}"
        );
        let wrong_type = &p.tool_results(&body(&mock, 2))[1].1;
        assert!(
            wrong_type.contains(r#"- `expression`: 42 is not of type "string""#),
            "{wrong_type}"
        );
        assert_eq!(p.tool_results(&body(&mock, 3))[2], (p.id(3), "42".into()));

        let events = scratch.only_session_events();
        let errors: Vec<bool> = data(&events, "tool/result")
            .iter()
            .map(|d| d["is_error"] == true)
            .collect();
        assert_eq!(errors, [true, true, false], "{p:?}");
        // Valid JSON both times: the schema refused it.
        assert!(
            data(&events, "tool/call")
                .iter()
                .all(|d| d["parsed_ok"] == true)
        );
    }
}

#[tokio::test]
async fn a_stream_cut_inside_tool_arguments_is_truncated_and_retried_never_run() {
    for p in BOTH {
        let cut = json!({"completion": {
            "tool_calls": [{"id": p.id(1), "name": "calculator", "arguments": ["{\"expression\": \"2+"]}],
            "finish": null}});
        let mock = mock(&script(vec![
            cut,
            call(&p.id(2), "calculator", &["{\"expression\": \"2+2\"}"]),
            answer("4"),
        ]))
        .await;
        let scratch = Scratch::new();
        scratch.config(&format!(
            "[providers.{}.retry_policy]\ninitial_delay_ms = 50\n",
            p.name()
        ));
        let out = p
            .run(&scratch, &mock.base_url(), &["--tools", "2+2?"])
            .await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert!(
            stderr(&out).contains("[STREAM_TRUNCATED: llm-retry retry 1 in"),
            "{p:?}: {}",
            stderr(&out)
        );
        assert_eq!(
            stderr(&out).matches("[tool calculator(").count(),
            1,
            "{}",
            stderr(&out)
        );

        let events = scratch.only_session_events();
        assert_eq!(
            failure_code(&events).as_deref(),
            Some("STREAM_TRUNCATED"),
            "{p:?}"
        );
        let retry = data(&events, "llm/retry")[0];
        assert_eq!(
            (retry["step"].as_u64(), retry["code"].as_str()),
            (Some(1), Some("STREAM_TRUNCATED"))
        );
        // The cut call never became a call: one tool ran, the complete one.
        let calls = data(&events, "tool/call");
        assert_eq!(calls.len(), 1, "{p:?}");
        assert_eq!(calls[0]["id"], p.id(2));
        // Nor is it in the conversation: step 2's request holds only the complete call.
        assert_eq!(p.replayed_calls(&body(&mock, 2)).len(), 1, "{p:?}");
        assert_eq!(mock.steps_served(), 3);
    }
}

/// Waits until the session log holds `n` events of `kind`.
async fn wait_for(scratch: &Scratch, kind: &str, n: usize) -> Vec<Event> {
    let deadline = Instant::now() + Duration::from_secs(60);
    loop {
        if let Ok(entries) = std::fs::read_dir(scratch.sessions())
            && entries.count() == 1
        {
            let events = scratch.only_session_events();
            if of_kind(&events, kind).len() >= n {
                return events;
            }
        }
        assert!(
            Instant::now() < deadline,
            "no {n} {kind} events within a minute"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn killed_in_step_two_then_resumed_continues_at_step_two_with_the_tool_messages() {
    for p in BOTH {
        let mock = mock(&script(vec![
            call(&p.id(1), "calculator", &["{\"expression\": \"(1+2)*3\"}"]),
            p.server_error(),
            p.server_error(),
            answer("It is 9."),
        ]))
        .await;
        let scratch = Scratch::new();
        scratch.config(&format!(
            "[providers.{}.retry_policy]\ninitial_delay_ms = 1500\n",
            p.name()
        ));
        let mut child = p
            .command(&scratch, &mock.base_url(), &["--tools", "(1+2)*3?"])
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap();
        let before = wait_for(&scratch, "llm/retry", 1).await;
        child.start_kill().unwrap(); // SIGKILL, during step 2's first backoff
        child.wait().await.unwrap();
        assert_eq!(of_kind(&before, "step/end").len(), 1, "{p:?}");
        assert_eq!(data(&before, "llm/retry")[0]["step"], 2);

        // Resumed without --tools: the session's tools come back by themselves.
        let id = scratch.only_session_id();
        let out = p.run(&scratch, &mock.base_url(), &["--resume", &id]).await;
        assert!(out.status.success(), "{p:?}: {}", stderr(&out));
        assert!(stdout(&out).contains("It is 9."), "{p:?}: {}", stdout(&out));
        assert!(
            stderr(&out).contains("the session offered tools (clock, calculator) in its last turn"),
            "{p:?}: {}",
            stderr(&out)
        );

        let requests = mock.requests();
        assert_eq!(requests.len(), 4, "{p:?}");
        for i in 1..4 {
            let b = body(&mock, i);
            assert_eq!(
                p.tool_results(&b),
                [(p.id(1), "9".into())],
                "{p:?} request {i}"
            );
            assert_eq!(
                p.replayed_calls(&b)[0].2,
                r#"{"expression":"(1+2)*3"}"#,
                "{p:?}"
            );
            assert_eq!(
                p.offered_tools(&b),
                ["clock", "calculator"],
                "{p:?} request {i}"
            );
        }

        let events = scratch.only_session_events();
        assert_eq!(&events[..before.len()], &before[..]);
        let retries: Vec<(u64, u64)> = data(&events, "llm/retry")
            .iter()
            .map(|d| (d["step"].as_u64().unwrap(), d["retry"].as_u64().unwrap()))
            .collect();
        assert_eq!(
            retries,
            [(2, 1), (2, 2)],
            "{p:?}: the count of (turn 1, step 2) continues"
        );
        let steps: Vec<u64> = data(&events, "llm/request")
            .iter()
            .map(|d| d["step"].as_u64().unwrap())
            .collect();
        assert_eq!(steps, [1, 2, 2, 2], "{p:?}");
        assert_eq!(of_kind(&events, "tool/call").len(), 1, "the tool ran once");
        assert_eq!(of_kind(&events, "session/resumed").len(), 1);
        assert_eq!(of_kind(&events, "turn/start").len(), 1);
        let end = data(&events, "turn/end");
        assert_eq!(end.len(), 1);
        assert_eq!(
            (end[0]["outcome"].as_str(), end[0]["steps"].as_u64()),
            (Some("completed"), Some(2))
        );
    }
}

#[tokio::test]
async fn a_turn_that_keeps_calling_tools_stops_at_the_step_limit() {
    let p = Preset::OpenAi;
    let mock = mock(&script(vec![
        call("call_1", "clock", &[]),
        call("call_2", "clock", &[]),
        answer("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = p
        .run(
            &scratch,
            &mock.base_url(),
            &["--tools", "--max-steps", "2", "loop"],
        )
        .await;
    assert_eq!(out.status.code(), Some(1), "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "the turn did not finish within 2 steps: the model was still calling tools at step 2"
        ),
        "{}",
        stderr(&out)
    );
    let events = scratch.only_session_events();
    assert_eq!(
        of_kind(&events, "tool/call").len(),
        1,
        "step 2's call does not run"
    );
    let end = data(&events, "turn/end")[0];
    assert_eq!(
        (end["outcome"].as_str(), end["reason"].as_str()),
        (Some("failed"), Some("step_limit"))
    );
    assert_eq!(mock.steps_served(), 2);
}

#[tokio::test]
async fn without_tools_a_call_is_answered_with_an_error_and_the_turn_goes_on() {
    let p = Preset::OpenAi;
    let mock = mock(&script(vec![
        call("call_1", "calculator", &["{\"expression\": \"1\"}"]),
        answer("I have no calculator."),
    ]))
    .await;
    let scratch = Scratch::new();
    let out = p.run(&scratch, &mock.base_url(), &["1?"]).await;
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(body(&mock, 0).get("tools").is_none(), "no tools offered");
    let results = p.tool_results(&body(&mock, 1));
    assert_eq!(
        results[0].1,
        "Error: there is no tool named `calculator`; no tools are available in this conversation. The call did not run."
    );
}

/// What a session needs, built through the library: the built-in listeners and the
/// openai-compatible preset at the mock.
async fn library_deps(mock: &dsh_host::mock::MockServer) -> dsh_host::session::SessionDeps {
    use dsh_host::{config, engine::GuestEngine, runtime::Runtime};
    let mut cfg = config::preset("openai-compatible").unwrap();
    cfg.base_url = mock.base_url();
    cfg.model = "m".into();
    let engine = GuestEngine::new(Some(shared_cache_dir())).unwrap();
    let runtime = Runtime::new(config::Config::builtin(), engine, Some(1))
        .await
        .unwrap();
    runtime.deps(runtime.provider(cfg).await.unwrap())
}

/// A new library session offering `tools`, at most 4 steps a turn.
async fn library_session(
    mock: &dsh_host::mock::MockServer,
    scratch: &Scratch,
    tools: dsh_host::tools::ToolRegistry,
) -> (dsh_host::session::Session, dsh_host::store::SessionStore) {
    use dsh_host::{session::Session, store::SessionStore};
    let deps = library_deps(mock).await;
    let store = SessionStore::open(&scratch.sessions()).unwrap();
    let session = Session::start(deps, store.create().unwrap(), None)
        .unwrap()
        .with_tools(std::sync::Arc::new(tools))
        .with_max_steps(4);
    (session, store)
}

#[tokio::test]
async fn an_embedding_program_registers_an_async_tool_and_runs_a_turn_of_steps() {
    use dsh_host::attempt::StreamEvent;
    use dsh_host::tools::ToolRegistry;
    let mock = mock(&script(vec![
        call("call_1", "lookup", &["{\"key\": \"a\"}"]),
        answer("a is 1"),
    ]))
    .await;
    let scratch = Scratch::new();
    let mut tools = ToolRegistry::new();
    tools
        .register(
            "lookup",
            "Looks a key up.",
            json!({"type": "object", "properties": {"key": {"type": "string"}}, "required": ["key"]}),
            |args| async move {
                tokio::time::sleep(Duration::from_millis(20)).await;
                Ok(format!("{} = 1", args["key"].as_str().unwrap()))
            },
        )
        .unwrap();
    let (mut session, _store) = library_session(&mock, &scratch, tools).await;
    assert_eq!(session.max_steps(), 4);
    let mut seen = Vec::new();
    let done = session
        .run_turn("what is a?", &mut |e| seen.push(e))
        .await
        .unwrap();
    assert_eq!(done.text, "a is 1");
    assert!(seen.contains(&StreamEvent::ToolCall {
        id: "call_1".into(),
        name: "lookup".into(),
        arguments: r#"{"key":"a"}"#.into()
    }));
    assert!(seen.contains(&StreamEvent::ToolResult {
        id: "call_1".into(),
        name: "lookup".into(),
        content: "a = 1".into(),
        is_error: false
    }));
    let m = session.messages();
    assert_eq!(m.len(), 4);
    assert_eq!(m[1].tool_calls[0].arguments, r#"{"key":"a"}"#);
    assert_eq!(
        (&*m[2].text(), m[2].tool_call_id.as_deref()),
        ("a = 1", Some("call_1"))
    );
    assert_eq!(m[3].text(), "a is 1");
    let sent = body(&mock, 0);
    assert_eq!(sent["tools"][0]["function"]["name"], "lookup");
    assert_eq!(
        sent["tools"][0]["function"]["description"],
        "Looks a key up."
    );
}

#[tokio::test]
async fn an_abort_while_a_tool_runs_ends_the_turn_at_once_as_aborted() {
    use dsh_host::session::TurnError;
    use dsh_host::tools::ToolRegistry;
    let mock = mock(&script(vec![
        call("call_1", "slow", &[]),
        answer("unreachable"),
    ]))
    .await;
    let scratch = Scratch::new();
    let mut tools = ToolRegistry::new();
    tools
        .register("slow", "Takes a minute.", json!({}), |_| async {
            tokio::time::sleep(Duration::from_secs(60)).await;
            Ok("done".to_string())
        })
        .unwrap();
    let (mut session, store) = library_session(&mock, &scratch, tools).await;
    let abort = session.abort_signal();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(300)).await;
        abort.abort();
    });
    let started = Instant::now();
    let outcome = session.run_turn("go", &mut |_| {}).await;
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    let Err(TurnError::Failed(f)) = outcome else {
        panic!("expected ABORTED, got {outcome:?}")
    };
    assert_eq!(f.code, "ABORTED");
    assert!(
        f.message.contains("while the tool `slow` ran"),
        "{}",
        f.message
    );
    assert!(
        session.messages().is_empty(),
        "a failed turn leaves no trace"
    );
    let events = store.read(session.id()).unwrap().events;
    assert_eq!(of_kind(&events, "tool/call").len(), 1);
    assert!(of_kind(&events, "tool/result").is_empty());
    assert!(of_kind(&events, "step/end").is_empty());
    assert_eq!(data(&events, "turn/end")[0]["outcome"], "failed");
    assert_eq!(mock.steps_served(), 1);
}

#[tokio::test]
async fn a_process_that_dies_while_tools_run_resumes_with_the_calls_that_have_no_result() {
    use dsh_host::session::Session;
    use dsh_host::tools::ToolRegistry;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicUsize, Ordering};
    let two_calls = json!({"completion": {"finish": "tool_calls", "tool_calls": [
        {"id": "call_1", "name": "fast", "arguments": []},
        {"id": "call_2", "name": "slow", "arguments": []}]}});
    let mock = mock(&script(vec![two_calls, answer("both done")])).await;
    let scratch = Scratch::new();
    let registry = |slow_secs: u64, fast_runs: Arc<AtomicUsize>| {
        let mut tools = ToolRegistry::new();
        tools
            .register("fast", "", json!({}), move |_| {
                let runs = fast_runs.clone();
                async move {
                    runs.fetch_add(1, Ordering::SeqCst);
                    Ok("fast result".to_string())
                }
            })
            .unwrap()
            .register("slow", "", json!({}), move |_| async move {
                tokio::time::sleep(Duration::from_secs(slow_secs)).await;
                Ok("slow result".to_string())
            })
            .unwrap();
        tools
    };
    let first_runs = Arc::new(AtomicUsize::new(0));
    let (mut session, store) =
        library_session(&mock, &scratch, registry(60, first_runs.clone())).await;
    let id = session.id().to_string();
    // The process "dies" while `slow` runs: the turn's future is dropped mid-step.
    let cut = tokio::time::timeout(
        Duration::from_millis(1500),
        session.run_turn("go", &mut |_| {}),
    )
    .await;
    assert!(cut.is_err(), "the turn was still running");
    drop(session);
    assert_eq!(first_runs.load(Ordering::SeqCst), 1);

    let (log, read) = store.reopen(&id).unwrap();
    let rebuilt = dsh_host::resume::rebuild(&read.events, std::time::SystemTime::now()).unwrap();
    assert_eq!(rebuilt.tools, ["fast", "slow"]);
    let open = rebuilt.unfinished.clone().unwrap();
    assert_eq!(open.pending_tools.as_ref().unwrap().results.len(), 1);

    // A new process: the same tools registered again, then the unfinished turn.
    let deps = library_deps(&mock).await;
    let second_runs = Arc::new(AtomicUsize::new(0));
    let (session, unfinished) = Session::resume(deps, log, &read).unwrap();
    let mut session = session.with_tools(Arc::new(registry(0, second_runs.clone())));
    let done = session
        .continue_turn(unfinished.unwrap(), &mut |_| {})
        .await
        .unwrap();
    assert_eq!(done.text, "both done");
    assert_eq!(
        second_runs.load(Ordering::SeqCst),
        0,
        "`fast` finished before the death: not run again"
    );

    let results = Preset::OpenAi.tool_results(&body(&mock, 1));
    assert_eq!(
        results,
        [
            ("call_1".to_string(), "fast result".to_string()),
            ("call_2".to_string(), "slow result".to_string())
        ]
    );
    let events = store.read(&id).unwrap().events;
    let ran: Vec<String> = data(&events, "tool/result")
        .iter()
        .map(|d| s(&d["name"]))
        .collect();
    assert_eq!(ran, ["fast", "slow"]);
    assert_eq!(of_kind(&events, "step/end").len(), 1);
    assert_eq!(data(&events, "turn/end")[0]["steps"], 2);
}
