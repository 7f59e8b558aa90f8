//! Placeholders: what each one inserts, and text that only looks like one.

use super::echo::{Echo, check};
use serde_json::{Value, json};

fn echo(headers: &[(&str, &str)], path: &str) -> Echo {
    let headers: Vec<(String, String)> = headers
        .iter()
        .map(|(n, v)| (n.to_string(), v.to_string()))
        .collect();
    Echo::new(&headers, path)
}

#[test]
fn header_placeholders_insert_what_the_request_carried() {
    let e = echo(
        &[("authorization", "Bearer sk-1"), ("x-request-id", "r1")],
        "/v1/chat/completions",
    );
    assert_eq!(
        e.fill(
            "auth={{header:authorization}} id={{header:X-Request-Id}} none=[{{header:x-missing}}]"
        ),
        "auth=Bearer sk-1 id=r1 none=[]",
        "names match in any case; a missing header is empty"
    );
}

#[test]
fn api_key_is_read_the_way_each_provider_sends_it() {
    let path = "/v1/chat/completions";
    for (headers, path, key) in [
        (
            vec![("authorization", "Bearer sk-openai")],
            path,
            "sk-openai",
        ),
        (
            vec![("authorization", "bearer  sk-lower")],
            path,
            "sk-lower",
        ),
        (
            vec![("authorization", "Basic dXNlcg==")],
            path,
            "Basic dXNlcg==",
        ),
        (vec![("x-api-key", "sk-ant")], "/v1/messages", "sk-ant"),
        (
            vec![("x-goog-api-key", "AIza-h")],
            "/v1beta/models/g:x",
            "AIza-h",
        ),
        (vec![], "/v1beta/models/g:x?alt=sse&key=AIza-q", "AIza-q"),
        (vec![], path, ""),
    ] {
        assert_eq!(
            echo(&headers, path).fill("{{api_key}}"),
            key,
            "{headers:?} {path}"
        );
    }
}

#[test]
fn request_headers_are_one_json_object() {
    let e = echo(
        &[
            ("authorization", "Bearer sk-1"),
            ("set-thing", "a"),
            ("set-thing", "b \"quoted\""),
        ],
        "/",
    );
    let filled = e.fill(r#"{"headers": {{request.headers}}}"#);
    let v: Value = serde_json::from_str(&filled).expect("valid JSON wherever it is inserted");
    assert_eq!(
        v["headers"],
        json!({"authorization": "Bearer sk-1", "set-thing": "a, b \"quoted\""})
    );
}

#[test]
fn echoed_values_never_break_a_line() {
    let e = echo(&[("x-odd", "a\nb\rc")], "/");
    assert_eq!(e.fill("{{header:x-odd}}"), "a b c");
    assert!(!e.fill("{{request.headers}}").contains('\n'));
}

#[test]
fn json_values_escape_what_is_inserted() {
    let e = echo(&[("x-q", "say \"hi\"\\")], "/");
    let v = e.fill_json(&json!({"a": ["{{header:x-q}}", 1], "b": {"c": "k={{header:x-q}}"}}));
    assert_eq!(
        v,
        json!({"a": ["say \"hi\"\\", 1], "b": {"c": "k=say \"hi\"\\"}})
    );
    let text = v.to_string();
    assert!(text.contains(r#"say \"hi\"\\"#), "{text}");
}

#[test]
fn text_that_only_looks_like_a_placeholder_is_kept() {
    let e = echo(&[("authorization", "Bearer k1")], "/");
    for literal in [
        r#"{"a":{"b":{}}}"#,
        "{{ not closed",
        "{{}}",
        "{{two words}}",
        r#"{{"json": 1}}"#,
        "}} {{",
    ] {
        check(literal).unwrap_or_else(|e| panic!("{literal}: {e}"));
        assert_eq!(e.fill(literal), literal);
    }
    assert_eq!(
        e.fill("{{{api_key}}}"),
        "{k1}",
        "a brace around a placeholder"
    );
    assert_eq!(e.fill("no placeholder"), "no placeholder");
}

#[test]
fn unknown_placeholders_are_refused() {
    for bad in [
        "{{apikey}}",
        "{{header:}}",
        "{{header:a:b}}",
        "{{request.header}}",
    ] {
        let msg = check(bad).unwrap_err();
        assert!(
            msg.contains("unknown placeholder")
                && msg.contains(bad)
                && msg.contains("{{header:NAME}}, {{api_key}} or {{request.headers}}"),
            "{msg}"
        );
    }
}
