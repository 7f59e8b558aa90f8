//! What serde cannot check in a step: values out of range and combinations that cannot mean
//! anything. Each message names the field and the fix; `MockScript::validate` adds the step and
//! the file.

use super::echo;
use super::script::{
    Completion, Drip, FINISH_REASONS, LineSpec, ResetPoint, SseEventSpec, Step, decode_base64,
};

pub fn step(step: &Step) -> Result<(), String> {
    head(step)?;
    let bodies = body(step)?;
    faults(step, &bodies)
}

fn head(step: &Step) -> Result<(), String> {
    if let Some(s) = step.status
        && !(100..=999).contains(&s)
    {
        return Err(format!(
            "status {s} is not a three-digit HTTP status; use 100..=999"
        ));
    }
    for (name, value) in &step.headers.0 {
        if name.is_empty() || !name.bytes().all(is_token_byte) {
            return Err(format!(
                "header name {name:?} is not a valid HTTP token; use letters, digits and -"
            ));
        }
        if value.contains(['\r', '\n']) {
            return Err(format!(
                "header {name:?} has a line break in its value; remove it"
            ));
        }
        echo::check(value).map_err(|e| format!("headers.{name}: {e}"))?;
    }
    Ok(())
}

/// Returns the names of the body options given (at most one).
fn body(step: &Step) -> Result<Vec<&'static str>, String> {
    let bodies: Vec<&str> = [
        ("body", step.body.is_some()),
        ("body_base64", step.body_base64.is_some()),
        ("events", step.events.is_some()),
        ("lines", step.lines.is_some()),
        ("completion", step.completion.is_some()),
    ]
    .into_iter()
    .filter_map(|(n, set)| set.then_some(n))
    .collect();
    if bodies.len() > 1 {
        return Err(format!(
            "{} are all given; keep only one way of giving the body",
            bodies.join(" and ")
        ));
    }
    if step.done.is_some() && step.events.is_none() && step.completion.is_none() {
        return Err(
            "done applies only to events or completion (it sends data: [DONE], an SSE line); remove it or add events"
                .into(),
        );
    }
    if let Some(b64) = &step.body_base64 {
        decode_base64(b64).map_err(|e| {
            format!(
                "body_base64 is not valid base64 ({e}); use the standard alphabet A-Z a-z 0-9 + /"
            )
        })?;
    }
    if let Some(text) = &step.body {
        echo::check(text).map_err(|e| format!("body: {e}"))?;
    }
    if let Some(events) = &step.events {
        for (j, ev) in events.iter().enumerate() {
            event_entry(&format!("events[{j}]"), ev)?;
        }
    }
    if let Some(lines) = &step.lines {
        for (j, line) in lines.iter().enumerate() {
            line_entry(&format!("lines[{j}]"), line)?;
        }
    }
    if let Some(c) = &step.completion {
        completion(c)?;
    }
    Ok(bodies)
}

/// One entry of `events` (or a completion's keepalive, which is one): an event or a comment,
/// never both, sent at least once.
fn event_entry(at: &str, ev: &SseEventSpec) -> Result<(), String> {
    match (&ev.data, &ev.sse_comment) {
        (None, None) => {
            return Err(format!(
                "{at} has neither data nor sse_comment; give data for an event, or sse_comment for a `: ` comment line"
            ));
        }
        (Some(_), Some(_)) => {
            return Err(format!(
                "{at} has both data and sse_comment; an SSE comment is an entry of its own: split them into two entries"
            ));
        }
        (None, Some(comment)) => {
            if ev.event.is_some() {
                return Err(format!(
                    "{at}.event names an event, but an SSE comment has no name; remove event, or give data instead of sse_comment (event: ping is an event)"
                ));
            }
            if comment.contains('\r') {
                return Err(format!(
                    "{at}.sse_comment has a \\r; use \\n to split comment lines"
                ));
            }
        }
        (Some(data), None) => {
            if ev
                .event
                .as_deref()
                .is_some_and(|n| n.contains(['\r', '\n']))
            {
                return Err(format!(
                    "{at}.event has a line break; an SSE event name is one line"
                ));
            }
            if data.as_str().is_some_and(|d| d.contains('\r')) {
                return Err(format!("{at}.data has a \\r; use \\n to split data lines"));
            }
            echo::check_json(data).map_err(|e| format!("{at}.data: {e}"))?;
        }
    }
    repeat(at, ev.repeat)
}

fn line_entry(at: &str, line: &LineSpec) -> Result<(), String> {
    if line.data.as_str().is_some_and(|d| d.contains(['\r', '\n'])) {
        return Err(format!(
            "{at}.data has a line break, but a line is sent as one line; split it into two entries"
        ));
    }
    echo::check_json(&line.data).map_err(|e| format!("{at}.data: {e}"))?;
    repeat(at, line.repeat)
}

fn repeat(at: &str, repeat: Option<u64>) -> Result<(), String> {
    if repeat == Some(0) {
        return Err(format!(
            "{at}.repeat is 0, so it is never sent; use 1 or more, or remove the entry"
        ));
    }
    Ok(())
}

fn completion(c: &Completion) -> Result<(), String> {
    if let Some(f) = &c.finish
        && !FINISH_REASONS.contains(&f.as_str())
    {
        return Err(format!(
            "unknown completion.finish {f:?}; use one of {}, or null for no finish chunk",
            FINISH_REASONS.join(", ")
        ));
    }
    if let Some(r) = &c.repeat {
        if r.count == 0 {
            return Err(
                "completion.repeat.count is 0, so it adds nothing; use 1 or more, or remove repeat"
                    .into(),
            );
        }
        echo::check(&r.text).map_err(|e| format!("completion.repeat.text: {e}"))?;
    }
    if let Some(k) = &c.keepalive {
        event_entry("completion.keepalive", &k.entry())?;
    }
    let texts = [("text", &c.text), ("thinking", &c.thinking)];
    for (field, pieces) in texts {
        for (j, piece) in pieces.iter().enumerate() {
            echo::check(piece).map_err(|e| format!("completion.{field}[{j}]: {e}"))?;
        }
    }
    for (i, call) in c.tool_calls.iter().enumerate() {
        for (j, piece) in call.arguments.iter().enumerate() {
            echo::check(piece)
                .map_err(|e| format!("completion.tool_calls[{i}].arguments[{j}]: {e}"))?;
        }
    }
    Ok(())
}

fn faults(step: &Step, bodies: &[&str]) -> Result<(), String> {
    if let Some(Drip { bytes, every_ms }) = step.drip {
        if bytes == 0 {
            return Err("drip.bytes is 0, so nothing would ever be sent; use 1 or more".into());
        }
        if every_ms == 0 {
            return Err(
                "drip.every_ms is 0, which sends the body at full speed; give a pause of 1 ms or more, or remove drip"
                    .into(),
            );
        }
    }
    if step.reset == Some(ResetPoint::BeforeHeaders) {
        if step.stall_before_headers_ms.is_some() {
            return Err("reset: before_headers and stall_before_headers_ms both act before the headers; keep one (a stall followed by a reset is not supported)".into());
        }
        let sent: Vec<&str> = [
            ("status", step.status.is_some()),
            ("headers", !step.headers.0.is_empty()),
            ("body", !bodies.is_empty()),
            ("chunked", step.chunked),
            ("drip", step.drip.is_some()),
            ("stall_after_bytes", step.stall_after_bytes.is_some()),
            ("reset_after_bytes", step.reset_after_bytes.is_some()),
        ]
        .into_iter()
        .filter_map(|(n, set)| set.then_some(n))
        .collect();
        if !sent.is_empty() {
            return Err(format!(
                "reset: before_headers sends nothing, so {} would be ignored; remove them or use reset_after_bytes",
                sent.join(", ")
            ));
        }
    }
    if let (Some(stall), Some(reset)) = (step.stall_after_bytes, step.reset_after_bytes) {
        if stall.bytes == reset {
            return Err(format!(
                "stall_after_bytes and reset_after_bytes are both at byte {reset}; keep one, or stall at an earlier byte"
            ));
        }
        if stall.bytes > reset {
            return Err(format!(
                "stall_after_bytes at byte {} comes after reset_after_bytes at byte {reset}, so it never happens; stall at an earlier byte",
                stall.bytes
            ));
        }
    }
    Ok(())
}

fn is_token_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b"!#$%&'*+-.^_`|~".contains(&b)
}
