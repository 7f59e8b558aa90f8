//! Parsing and validation of mock scripts: every refusal names the step and the fix.

use super::script::decode_base64;
use super::*;

fn err(json: &str) -> String {
    MockScript::from_json_str(json)
        .expect_err("script should be refused")
        .to_string()
}

/// One step, given as the JSON text of the step object.
fn step_err(step: &str) -> String {
    err(&format!(r#"{{"steps": [{{}}, {step}]}}"#))
}

fn assert_has(msg: &str, parts: &[&str]) {
    for p in parts {
        assert!(msg.contains(p), "{msg:?} should contain {p:?}");
    }
}

#[test]
fn parses_every_option() {
    let script = MockScript::from_json_str(
        r#"{"comment": "all options", "steps": [
            {"status": 429, "headers": {"retry-after": "2", "x-b": "1", "x-a": "2"}, "body": "{}"},
            {"headers": [["set-cookie", "a=1"], ["set-cookie", "b=2"]], "body_base64": "/w=="},
            {"events": [{"data": "hi", "event": "ping", "delay_ms": 5}, {"data": {"a": [1, 2]}}], "done": true},
            {"completion": {"text": ["Hel", "lo"], "usage": {"prompt_tokens": 3, "completion_tokens": 2},
                            "delay_ms": 1, "tool_calls": [{"id": "c1", "name": "f", "arguments": ["{}"]}],
                            "model": "m"}},
            {"completion": {"finish": null}, "done": false},
            {"stall_before_headers_ms": 10, "stall_after_bytes": {"bytes": 3, "ms": 5}, "reset_after_bytes": 7},
            {"reset": "before_headers", "comment": "a crashed proxy"}
        ]}"#,
    )
    .unwrap();
    let s = &script.steps;
    assert_eq!(s.len(), 7);
    assert_eq!(s[0].status, Some(429));
    // Script order, not sorted order: a JSON object must not be reordered.
    let names: Vec<_> = s[0].headers.0.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names, ["retry-after", "x-b", "x-a"]);
    assert_eq!(s[1].headers.0.len(), 2);
    assert_eq!(s[1].raw_body(), Some(vec![0xff]));
    assert_eq!(s[2].events.as_ref().unwrap().len(), 2);
    let c = s[3].completion.as_ref().unwrap();
    assert_eq!(c.finish.as_deref(), Some("stop"), "finish defaults to stop");
    assert_eq!(c.tool_calls[0].arguments, ["{}"]);
    assert_eq!(
        s[4].completion.as_ref().unwrap().finish,
        None,
        "null means no finish chunk"
    );
    assert_eq!(s[5].stall_after_bytes.unwrap().bytes, 3);
    assert_eq!(s[6].reset, Some(ResetPoint::BeforeHeaders));
}

#[test]
fn empty_script_is_valid() {
    assert!(
        MockScript::from_json_str(r#"{"steps": []}"#)
            .unwrap()
            .steps
            .is_empty()
    );
}

#[test]
fn refuses_malformed_top_level() {
    assert_has(&err("[]"), &["expected a mock script object", "steps"]);
    assert_has(&err(r#"{"steps": []} x"#), &["trailing characters"]);
    assert_has(&err(r#"{"comment": "x"}"#), &["missing field `steps`"]);
    assert_has(&err(r#"{"step": []}"#), &["unknown field `step`"]);
    assert_has(&err(r#"{"steps": [], "x": 1}"#), &["unknown field `x`"]);
}

#[test]
fn serde_errors_name_the_step() {
    assert_has(
        &step_err(r#"{"bodyy": "x"}"#),
        &["steps[1]: ", "unknown field `bodyy`", "expected one of"],
    );
    assert_has(
        &step_err(r#"{"status": "200"}"#),
        &["steps[1]: ", "invalid type"],
    );
    assert_has(
        &step_err(r#"{"reset": "after_headers"}"#),
        &["steps[1]: ", "before_headers"],
    );
    assert_has(
        &step_err(r#"{"headers": {"a": 1}}"#),
        &["steps[1]: ", "expected a string", "line 1 column"],
    );
    assert_has(
        &step_err(r#"{"completion": {"txt": []}}"#),
        &["steps[1]: ", "unknown field `txt`"],
    );
    assert_has(
        &step_err(r#"{"events": [{"data": 1, "name": "x"}]}"#),
        &["steps[1]: ", "unknown field `name`"],
    );
}

#[test]
fn refuses_two_bodies() {
    assert_has(
        &step_err(r#"{"body": "", "events": []}"#),
        &["steps[1]: ", "body and events", "keep only one"],
    );
    assert_has(
        &step_err(r#"{"body": "", "body_base64": ""}"#),
        &["body and body_base64"],
    );
    assert_has(
        &step_err(r#"{"events": [], "completion": {}}"#),
        &["events and completion"],
    );
}

#[test]
fn refuses_done_without_stream() {
    assert_has(
        &step_err(r#"{"body": "x", "done": true}"#),
        &["steps[1]: ", "done applies only to events or completion"],
    );
}

#[test]
fn refuses_unknown_finish() {
    let msg = step_err(r#"{"completion": {"finish": "end_turn"}}"#);
    assert_has(
        &msg,
        &[
            "steps[1]: ",
            "unknown completion.finish \"end_turn\"",
            "stop, length, tool_calls, content_filter",
            "null",
        ],
    );
}

#[test]
fn refuses_conflicting_faults() {
    let msg = step_err(r#"{"reset": "before_headers", "stall_before_headers_ms": 5}"#);
    assert_has(
        &msg,
        &["steps[1]: ", "both act before the headers", "keep one"],
    );
    let msg = step_err(r#"{"reset": "before_headers", "status": 500, "body": "x"}"#);
    assert_has(
        &msg,
        &[
            "steps[1]: ",
            "sends nothing",
            "status, body",
            "reset_after_bytes",
        ],
    );
    let msg = step_err(r#"{"stall_after_bytes": {"bytes": 4, "ms": 1}, "reset_after_bytes": 4}"#);
    assert_has(&msg, &["steps[1]: ", "both at byte 4", "keep one"]);
    let msg = step_err(r#"{"stall_after_bytes": {"bytes": 9, "ms": 1}, "reset_after_bytes": 4}"#);
    assert_has(&msg, &["steps[1]: ", "never happens", "earlier byte"]);
}

#[test]
fn refuses_bad_http_values() {
    assert_has(
        &step_err(r#"{"status": 42}"#),
        &["steps[1]: ", "status 42", "100..=999"],
    );
    assert_has(
        &step_err(r#"{"headers": {"bad name": "x"}}"#),
        &["steps[1]: ", "not a valid HTTP token"],
    );
    assert_has(
        &step_err(r#"{"headers": {"x": "a\r\nb: c"}}"#),
        &["steps[1]: ", "line break"],
    );
    assert_has(
        &step_err(r#"{"events": [{"data": "x", "event": "a\nb"}]}"#),
        &["events[0].event", "line break"],
    );
    assert_has(
        &step_err(r#"{"events": [{"data": "a\r\nb"}]}"#),
        &["events[0].data", "\\n"],
    );
}

#[test]
fn refuses_bad_base64() {
    assert_has(
        &step_err(r#"{"body_base64": "ab$d"}"#),
        &["steps[1]: ", "not valid base64", "'$'"],
    );
    assert_has(&step_err(r#"{"body_base64": "abcde"}"#), &["truncated"]);
}

#[test]
fn base64_decodes_standard_alphabet() {
    assert_eq!(decode_base64("aGVsbG8=").unwrap(), b"hello");
    assert_eq!(
        decode_base64("aGVsbG8").unwrap(),
        b"hello",
        "padding is optional"
    );
    assert_eq!(decode_base64("aGVs\nbG8h").unwrap(), b"hello!");
    assert_eq!(decode_base64("+/8=").unwrap(), [0xfb, 0xff]);
    assert_eq!(decode_base64("").unwrap(), b"");
    assert!(decode_base64("aGVs=bG8").is_err(), "data after padding");
}

#[test]
fn from_path_names_the_file() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("nope.json");
    assert_has(
        &MockScript::from_path(&missing).unwrap_err().to_string(),
        &["cannot read mock script", "nope.json"],
    );

    let bad = dir.path().join("bad.json");
    std::fs::write(&bad, r#"{"steps": [{"body": "x", "events": []}]}"#).unwrap();
    let e = MockScript::from_path(&bad).unwrap_err();
    assert_has(
        &e.to_string(),
        &["mock script ", "bad.json: steps[0]: body and events"],
    );
    assert!(matches!(e, ScriptError::Invalid { step: Some(0), .. }));

    let good = dir.path().join("good.json");
    std::fs::write(&good, r#"{"steps": [{"status": 503}]}"#).unwrap();
    assert_eq!(
        MockScript::from_path(&good).unwrap().steps[0].status,
        Some(503)
    );
}

#[test]
fn validate_checks_scripts_built_in_code() {
    let script = MockScript {
        steps: vec![Step {
            body: Some("x".into()),
            done: Some(true),
            ..Step::default()
        }],
    };
    assert_has(
        &script.validate().unwrap_err().to_string(),
        &["steps[0]: done applies"],
    );
}

#[test]
fn every_example_in_the_docs_is_valid() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../docs/mock-script.md");
    let doc = std::fs::read_to_string(&path).unwrap();
    let mut checked = 0;
    for block in doc.split("```json\n").skip(1) {
        let json = block.split("```").next().unwrap();
        let value: serde_json::Value =
            serde_json::from_str(json).unwrap_or_else(|e| panic!("{e}: {json}"));
        if value.get("error").is_some() {
            continue; // the server's exhausted answer, not a script
        }
        let script = if value.get("steps").is_some() {
            json.to_string()
        } else {
            format!(r#"{{"steps": [{json}]}}"#)
        };
        MockScript::from_json_str(&script).unwrap_or_else(|e| panic!("{e}: {json}"));
        checked += 1;
    }
    assert!(checked >= 15, "only {checked} examples found");
}

#[test]
fn parses_realistic_traffic_options() {
    let script = MockScript::from_json_str(
        r#"{"steps": [
            {"events": [{"data": "a"}, {"sse_comment": "keepalive", "delay_ms": 100, "repeat": 150},
                        {"event": "ping", "data": {"type": "ping"}, "repeat": 2}], "chunked": true},
            {"lines": [{"data": {"done": false}, "delay_ms": 20, "repeat": 3}, {"data": "raw"}], "chunked": true},
            {"completion": {"text": ["a"], "repeat": {"text": "tok ", "count": 50000}, "delay_ms": 2,
                            "keepalive": {"sse_comment": "k", "delay_ms": 100, "repeat": 5, "after_chunks": 1}}},
            {"status": 401, "headers": {"x-echo": "{{header:x-request-id}}"},
             "body": "bad key {{api_key}}", "drip": {"bytes": 1, "every_ms": 100}}
        ]}"#,
    )
    .unwrap();
    let s = &script.steps;
    let events = s[0].events.as_ref().unwrap();
    assert_eq!(events[1].sse_comment.as_deref(), Some("keepalive"));
    assert_eq!(events[1].repeat, Some(150));
    assert!(s[0].chunked && s[1].chunked && !s[2].chunked);
    assert_eq!(s[1].lines.as_ref().unwrap()[0].repeat, Some(3));
    let c = s[2].completion.as_ref().unwrap();
    assert_eq!(c.repeat.as_ref().unwrap().count, 50000);
    assert_eq!(c.keepalive.as_ref().unwrap().after_chunks, 1);
    assert_eq!(s[3].drip.unwrap().every_ms, 100);
}

#[test]
fn refuses_bad_event_entries() {
    assert_has(
        &step_err(r#"{"events": [{"data": "a"}, {"delay_ms": 5}]}"#),
        &["steps[1]: ", "events[1] has neither data nor sse_comment"],
    );
    assert_has(
        &step_err(r#"{"events": [{"data": "a", "sse_comment": "k"}]}"#),
        &["events[0] has both data and sse_comment", "split them"],
    );
    assert_has(
        &step_err(r#"{"events": [{"event": "ping", "sse_comment": "k"}]}"#),
        &[
            "events[0].event",
            "an SSE comment has no name",
            "event: ping is an event",
        ],
    );
    assert_has(
        &step_err(r#"{"events": [{"sse_comment": "a\r\nb"}]}"#),
        &["events[0].sse_comment has a \\r"],
    );
    assert_has(
        &step_err(r#"{"events": [{"data": "a", "repeat": 0}]}"#),
        &["events[0].repeat is 0", "1 or more"],
    );
    assert_has(
        &step_err(r#"{"completion": {"keepalive": {"delay_ms": 100}}}"#),
        &["completion.keepalive has neither data nor sse_comment"],
    );
    assert_has(
        &step_err(r#"{"completion": {"keepalive": {"sse_comment": "k", "when": 1}}}"#),
        &["unknown field `when`", "after_chunks"],
    );
}

#[test]
fn refuses_bad_lines_repeats_and_drips() {
    assert_has(
        &step_err(r#"{"lines": [{"data": "a\nb"}]}"#),
        &[
            "steps[1]: ",
            "lines[0].data has a line break",
            "two entries",
        ],
    );
    assert_has(
        &step_err(r#"{"lines": [{"data": 1, "repeat": 0}]}"#),
        &["lines[0].repeat is 0"],
    );
    assert_has(
        &step_err(r#"{"lines": [], "done": true}"#),
        &["done applies only to events or completion"],
    );
    assert_has(
        &step_err(r#"{"lines": [], "body": "x"}"#),
        &["body and lines", "keep only one"],
    );
    assert_has(
        &step_err(r#"{"completion": {"repeat": {"text": "x", "count": 0}}}"#),
        &["completion.repeat.count is 0"],
    );
    assert_has(
        &step_err(r#"{"body": "x", "drip": {"bytes": 0, "every_ms": 10}}"#),
        &["steps[1]: ", "drip.bytes is 0"],
    );
    assert_has(
        &step_err(r#"{"body": "x", "drip": {"bytes": 1, "every_ms": 0}}"#),
        &["drip.every_ms is 0", "1 ms or more"],
    );
    assert_has(
        &step_err(
            r#"{"reset": "before_headers", "chunked": true, "drip": {"bytes": 1, "every_ms": 1}}"#,
        ),
        &["sends nothing", "chunked, drip"],
    );
}

#[test]
fn refuses_unknown_placeholders_naming_the_field() {
    for (step, field) in [
        (r#"{"body": "key {{apikey}}"}"#, "body: "),
        (
            r#"{"headers": {"x-e": "{{header:}}"}, "body": ""}"#,
            "headers.x-e: ",
        ),
        (
            r#"{"events": [{"data": {"a": ["{{api-key}}"]}}]}"#,
            "events[0].data: ",
        ),
        (r#"{"lines": [{"data": "{{key}}"}]}"#, "lines[0].data: "),
        (
            r#"{"completion": {"text": ["ok", "{{k}}"]}}"#,
            "completion.text[1]: ",
        ),
        (
            r#"{"completion": {"thinking": ["{{k}}"]}}"#,
            "completion.thinking[0]: ",
        ),
        (
            r#"{"completion": {"tool_calls": [{"id": "a", "name": "f", "arguments": ["{{k}}"]}]}}"#,
            "completion.tool_calls[0].arguments[0]: ",
        ),
        (
            r#"{"completion": {"repeat": {"text": "{{k}}", "count": 1}}}"#,
            "completion.repeat.text: ",
        ),
        (
            r#"{"completion": {"keepalive": {"data": "{{k}}"}}}"#,
            "completion.keepalive.data: ",
        ),
    ] {
        assert_has(
            &step_err(step),
            &["steps[1]: ", field, "unknown placeholder", "{{api_key}}"],
        );
    }
}

#[test]
fn base64_encodes_what_it_decodes() {
    use super::script::encode_base64;
    assert_eq!(encode_base64(b""), "");
    assert_eq!(encode_base64(b"h"), "aA==");
    assert_eq!(encode_base64(b"he"), "aGU=");
    assert_eq!(encode_base64(b"hello"), "aGVsbG8=");
    assert_eq!(encode_base64(&[0xfb, 0xff]), "+/8=");
    let all: Vec<u8> = (0..=255).collect();
    assert_eq!(decode_base64(&encode_base64(&all)).unwrap(), all);
}
