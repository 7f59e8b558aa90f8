//! The classification corpus (tests/fixtures/classification) run through the Rust adapters'
//! classification: the OpenAI-compatible adapter for every OpenAI-compatible server and for
//! providers with their own envelope (Bedrock's `{"message"}`), the Anthropic adapter for
//! Anthropic, the Gemini adapter for a case whose `wire` is `gemini` (a gateway answering in
//! Gemini's shape). A 2xx answer (a `json-200` case, the silent overflow, or an `http` one whose body
//! or event stream says it failed) goes through the adapter's decoder and the host's rule for an
//! empty completion, `dsh_guest_support::meaning::is_silent_overflow`, as the host reads a 2xx.

use std::path::PathBuf;

use dsh_guest_support::fixtures::{case_head, finishes, head};
use dsh_guest_support::meaning;
use dsh_guest_support::types::{Chunk, FinishKind, ResponseHead};
use serde_json::Value;

/// The two halves of the corpus (see its README for the held-back rule).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Set {
    Tuning,
    HeldBack,
}

impl Set {
    pub fn file_name(self) -> &'static str {
        match self {
            Set::Tuning => "tuning.json",
            Set::HeldBack => "held-back.json",
        }
    }
}

/// One case's result.
#[derive(Debug, Clone)]
pub struct Outcome {
    pub id: String,
    pub provider: String,
    pub expected: String,
    pub got: String,
    /// The failure message the adapter wrote, for the report.
    pub message: String,
}

impl Outcome {
    pub fn passed(&self) -> bool {
        self.expected == self.got
    }
}

/// The cases of one half, as written in the repository.
pub fn cases(set: Set) -> Vec<Value> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../fixtures/classification")
        .join(set.file_name());
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("reading {}: {e}", path.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{} is not a JSON array of cases: {e}", path.display()))
}

/// Every case of one half, classified.
pub fn run(set: Set) -> Vec<Outcome> {
    cases(set).iter().map(classify).collect()
}

/// One case through the adapter that serves its provider.
pub fn classify(case: &Value) -> Outcome {
    let field = |k: &str| {
        case[k]
            .as_str()
            .unwrap_or_else(|| panic!("case without {k}: {case}"))
    };
    let body = field("body").as_bytes();
    let wire = Wire::of(case);
    let (got, message) = match field("transport") {
        // A 2xx answer is read as the host reads it: by the decoder, whether its body is one JSON
        // document or an event stream whose events carry the error.
        "http" if (200..300).contains(&case["status"].as_u64().unwrap_or(0)) => {
            completion_outcome(wire, case_head(case), body)
        }
        "http" => {
            let head = case_head(case);
            let failure = match wire {
                Wire::Anthropic => dsh_guest_anthropic::classify_failure(&head, body),
                Wire::Gemini => dsh_guest_gemini::classify_failure(&head, body),
                Wire::OpenAi => dsh_guest_openai::classify_failure(&head, body),
            };
            (failure.code.as_str().to_string(), failure.message)
        }
        "json-200" => completion_outcome(
            wire,
            head(200, &[("content-type", "application/json")]),
            body,
        ),
        other => panic!("case {} has an unknown transport {other}", field("id")),
    };
    Outcome {
        id: field("id").to_string(),
        provider: field("provider").to_string(),
        expected: field("expected_code").to_string(),
        got,
        message,
    }
}

/// Which built-in adapter reads a case: the API its provider's answers are in. OpenAI-compatible
/// unless the case says otherwise (`"wire": "gemini"` for a gateway that answers in Gemini's
/// shape) or the provider is Anthropic.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire {
    OpenAi,
    Anthropic,
    Gemini,
}

impl Wire {
    fn of(case: &Value) -> Wire {
        match (case["wire"].as_str(), case["provider"].as_str()) {
            (Some("gemini"), _) => Wire::Gemini,
            (Some("anthropic"), _) | (None, Some("anthropic")) => Wire::Anthropic,
            (None | Some("openai"), _) => Wire::OpenAi,
            (Some(other), _) => panic!("case {} has an unknown wire {other}", case["id"]),
        }
    }
}

/// A 2xx body (a chat completion or an event stream) decoded, then concluded the way the host
/// concludes a completion.
fn completion_outcome(wire: Wire, head: ResponseHead, body: &[u8]) -> (String, String) {
    // The adapters' decoders share the shape (`new`, `feed`, `end`) but no trait.
    macro_rules! decode_with {
        ($decoder:ty) => {{
            let mut decoder = <$decoder>::new(head);
            let mut chunks = decoder.feed(body);
            chunks.extend(decoder.end());
            chunks
        }};
    }
    let chunks = match wire {
        Wire::Anthropic => decode_with!(dsh_guest_anthropic::Decoder),
        Wire::Gemini => decode_with!(dsh_guest_gemini::Decoder),
        Wire::OpenAi => decode_with!(dsh_guest_openai::Decoder),
    };
    let [finish] = finishes(&chunks)[..] else {
        return ("NO_SINGLE_FINISH".into(), format!("{chunks:?}"));
    };
    if let Some(failure) = &finish.failure {
        return (failure.code.as_str().to_string(), failure.message.clone());
    }
    // As host/src/attempt.rs (`Assembly`) concludes: a content-filter finish is CONTENT_FILTER, and
    // a provider's abort a server error, whatever was output before.
    match finish.kind {
        FinishKind::ContentFilter => {
            return ("CONTENT_FILTER".into(), "a content-filter finish".into());
        }
        FinishKind::Aborted => {
            return (
                "SERVER_ERROR".into(),
                "the provider aborted the generation".into(),
            );
        }
        _ => {}
    }
    let has_output = chunks.iter().any(|c| match c {
        Chunk::Text(t) | Chunk::Reasoning(t) => !t.trim().is_empty(),
        Chunk::ToolCall(_) => true,
        _ => false,
    });
    let by_length = finish.kind == FinishKind::Length;
    if meaning::is_silent_overflow(by_length, has_output) {
        (
            "CONTEXT_WINDOW_EXCEEDED".into(),
            "a length finish before any output".into(),
        )
    } else if !has_output {
        ("EMPTY_RESPONSE".into(), "a finish with no output".into())
    } else {
        (
            "NONE".into(),
            format!("a completion finished by {:?}", finish.kind),
        )
    }
}

/// Passed cases over all cases, in percent.
pub fn accuracy(outcomes: &[Outcome]) -> f64 {
    let passed = outcomes.iter().filter(|o| o.passed()).count();
    100.0 * passed as f64 / outcomes.len().max(1) as f64
}

/// A table of the outcomes: one line per failure, then the figure.
pub fn report(set: Set, outcomes: &[Outcome]) -> String {
    let passed = outcomes.iter().filter(|o| o.passed()).count();
    let mut out = format!(
        "{}: {passed}/{} ({:.1}%)\n",
        set.file_name(),
        outcomes.len(),
        accuracy(outcomes)
    );
    for o in outcomes.iter().filter(|o| !o.passed()) {
        out.push_str(&format!(
            "  FAIL {} ({}): expected {}, got {} — {}\n",
            o.id, o.provider, o.expected, o.got, o.message
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(status: u16, content_type: &str, body: &str) -> Value {
        serde_json::json!({
            "id": "runner-test", "provider": "example", "transport": "http",
            "status": status, "headers": {"content-type": content_type}, "body": body,
            "expected_code": "RATE_LIMITED",
        })
    }

    #[test]
    fn a_2xx_event_stream_is_read_by_the_decoder() {
        let body = "data: {\"error\":{\"message\":\"Rate limit reached, retry in 20s\",\
                    \"type\":\"rate_limit_error\"}}\n\n";
        let outcome = classify(&case(200, "text/event-stream", body));
        assert_eq!(outcome.got, "RATE_LIMITED", "{outcome:?}");
    }

    #[test]
    fn a_case_on_the_gemini_wire_is_read_by_the_gemini_adapter() {
        let mut case = case(
            200,
            "application/json",
            r#"{"candidates":[{"content":{"role":"model","parts":[{"text":"Hello"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1}}"#,
        );
        // Read as an OpenAI chat completion, Gemini's shape is neither a completion nor an error.
        assert_eq!(classify(&case).got, "SERVER_ERROR");
        case["wire"] = "gemini".into();
        assert_eq!(classify(&case).got, "NONE");
    }

    #[test]
    fn a_2xx_completion_with_output_is_not_a_failure() {
        let body = r#"{"choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}]}"#;
        let outcome = classify(&case(200, "application/json", body));
        assert_eq!(outcome.got, "NONE", "{outcome:?}");
    }
}
