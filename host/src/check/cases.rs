//! The case files of `dsh-host check` (docs/check.md): an adapter's cases (a response and what the
//! adapter must make of it) and a listener's scenarios (a failure sequence and the decision it must
//! lead to). The built-in corpus is written in the same format. Pure code: parsing and checking the
//! files, nothing about guests.

use crate::adapter::{CompletionRequest, Message, ResponseHead, ToolSpec};
use anyhow::{Context, Result, bail};
use base64::Engine as _;
use serde::Deserialize;
use serde_json::Value;
use std::path::{Path, PathBuf};

/// The clock a case's response head is received at unless it says otherwise: fixed, so HTTP-date
/// retry hints give the same delay on every run (2023-09-29T16:26:37Z).
pub const DEFAULT_RECEIVED_AT_MS: u64 = 1_696_004_797_000;

/// One file of adapter cases.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterCaseFile {
    /// The headers the provider reads its key from (lower-case); the plan may hold `{credential}`
    /// only there. Default: [`DEFAULT_CREDENTIAL_HEADERS`].
    #[serde(default)]
    pub credential_headers: Option<Vec<String>>,
    pub cases: Vec<AdapterCase>,
}

/// The credential headers of the host's presets: where a plan may put `{credential}` when a case
/// file does not say.
pub const DEFAULT_CREDENTIAL_HEADERS: &[&str] =
    &["authorization", "x-api-key", "x-goog-api-key", "api-key"];

/// One adapter case: optionally a request (its plan is checked), and a response with what the
/// adapter must make of it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AdapterCase {
    pub name: String,
    /// Where the case comes from (a URL, a recording, a specification), one line.
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub request: Option<CaseRequest>,
    #[serde(default)]
    pub response: Option<CaseResponse>,
    #[serde(default)]
    pub expect: Expect,
}

/// A completion request, in the session log's forms (`Message`, `ToolSpec`).
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseRequest {
    #[serde(default = "default_model")]
    pub model: String,
    pub messages: Vec<Message>,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
}

fn default_model() -> String {
    "check-model".into()
}

impl CaseRequest {
    pub fn to_request(&self) -> CompletionRequest {
        let mut request = CompletionRequest::new(self.model.clone(), self.messages.clone());
        request.tools = self.tools.clone();
        request
    }
}

/// A response as the provider sent it. The body is `body` (text), `body_base64` (any bytes) or
/// `events` (the pieces of a stream, concatenated in order); a 2xx goes to the decoder, anything
/// else to `classify-failure`, as in a real attempt.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CaseResponse {
    pub status: u16,
    #[serde(default)]
    pub headers: Headers,
    #[serde(default)]
    pub received_at_ms: Option<u64>,
    #[serde(default)]
    pub body: Option<String>,
    #[serde(default)]
    pub body_base64: Option<String>,
    #[serde(default)]
    pub events: Option<Vec<String>>,
}

/// Headers as an object (`{"retry-after": "7"}`) or as pairs (`[["retry-after", "7"]]`, which can
/// repeat a name).
#[derive(Debug, Default, Deserialize)]
#[serde(untagged)]
pub enum Headers {
    #[default]
    None,
    Pairs(Vec<(String, String)>),
    Object(serde_json::Map<String, Value>),
}

impl CaseResponse {
    /// The head the host would hand the adapter: names lower-cased.
    pub fn head(&self) -> Result<ResponseHead, String> {
        let headers = match &self.headers {
            Headers::None => Vec::new(),
            Headers::Pairs(pairs) => pairs
                .iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
                .collect(),
            Headers::Object(map) => map
                .iter()
                .map(|(k, v)| match v {
                    Value::String(s) => Ok((k.to_ascii_lowercase(), s.clone())),
                    other => Err(format!("response.headers.{k} is {other}, not a string")),
                })
                .collect::<Result<_, _>>()?,
        };
        Ok(ResponseHead {
            status: self.status,
            headers,
            received_at_ms: self.received_at_ms.unwrap_or(DEFAULT_RECEIVED_AT_MS),
        })
    }

    pub fn body(&self) -> Result<Vec<u8>, String> {
        match (&self.body, &self.body_base64, &self.events) {
            (Some(text), None, None) => Ok(text.as_bytes().to_vec()),
            (None, Some(b64), None) => base64::engine::general_purpose::STANDARD
                .decode(b64.trim())
                .map_err(|e| format!("response.body_base64 is not base64 ({e})")),
            (None, None, Some(events)) => Ok(events.concat().into_bytes()),
            (None, None, None) => Ok(Vec::new()),
            _ => Err("response has more than one of body, body_base64 and events; give one".into()),
        }
    }

    pub fn is_success(&self) -> bool {
        (200..300).contains(&self.status)
    }

    /// Whether the body is a server-sent event stream (keepalives can be spliced into it).
    pub fn is_event_stream(&self) -> bool {
        self.head().is_ok_and(|h| {
            h.headers
                .iter()
                .any(|(k, v)| k == "content-type" && v.contains("text/event-stream"))
        })
    }
}

/// What the adapter must make of the response. Every field is optional: an absent one is not
/// checked; `retry_after_ms` and `request_id` given as `null` must be absent.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    /// The canonical failure code.
    #[serde(default)]
    pub code: Option<String>,
    /// Any of these codes (where the neutral truth is ambiguous).
    #[serde(default)]
    pub codes: Option<Vec<String>>,
    /// Any failure but `ADAPTER_FAULT`: the case must not end as a success.
    #[serde(default)]
    pub any_failure: bool,
    #[serde(default, deserialize_with = "present")]
    pub retry_after_ms: Option<Option<u64>>,
    #[serde(default, deserialize_with = "present")]
    pub request_id: Option<Option<String>>,
    /// A successful stream's assembled text.
    #[serde(default)]
    pub text: Option<String>,
    /// All the chunks (feeds and end), in the form of docs/check.md, adjacent text (and reasoning)
    /// merged.
    #[serde(default)]
    pub chunks: Option<Vec<Value>>,
    /// The chunks the feeds return, before `end`: `[]` for a body of keepalives.
    #[serde(default)]
    pub feed_chunks: Option<Vec<Value>>,
}

/// Tells a field given as `null` (`Some(None)`) from one left out (`None`).
fn present<'de, D: serde::Deserializer<'de>, T: Deserialize<'de>>(
    d: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(d).map(Some)
}

impl Expect {
    /// The codes accepted, if the case names any.
    pub fn accepted_codes(&self) -> Option<Vec<String>> {
        match (&self.code, &self.codes) {
            (Some(code), _) => Some(vec![code.clone()]),
            (None, Some(codes)) => Some(codes.clone()),
            (None, None) => None,
        }
    }

    /// Whether the case must end as a failure.
    pub fn wants_failure(&self) -> bool {
        self.any_failure || self.code.is_some() || self.codes.is_some()
    }

    /// What is expected, in a few words, for the table.
    pub fn describe(&self) -> String {
        let mut parts = Vec::new();
        match self.accepted_codes() {
            Some(codes) => parts.push(codes.join("|")),
            None if self.any_failure => parts.push("any failure".into()),
            None => parts.push("success".into()),
        }
        if let Some(ms) = &self.retry_after_ms {
            parts.push(match ms {
                Some(ms) => format!("retry-after {ms} ms"),
                None => "no retry-after".into(),
            });
        }
        if let Some(Some(id)) = &self.request_id {
            parts.push(format!("request id {id}"));
        }
        if self.text.is_some() || self.chunks.is_some() {
            parts.push("the recorded chunks".into());
        }
        if self.feed_chunks.as_ref().is_some_and(Vec::is_empty) {
            parts.push("no chunks fed".into());
        }
        parts.join(", ")
    }
}

/// One file of listener scenarios.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListenerCaseFile {
    /// The listener's own configuration (what `[[listeners]] config` would hold).
    #[serde(default)]
    pub config: Option<Value>,
    /// The provider's retry policy handed to every decision (`[providers.NAME.retry_policy]`);
    /// default: the host's default policy.
    #[serde(default)]
    pub retry_policy: Option<Value>,
    pub scenarios: Vec<Scenario>,
}

/// A sequence of failures of one step; every decision before the last must be a retry (which the
/// host logs and hands to the next decision as an earlier retry), and the last must be `expect`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    pub name: String,
    #[serde(default)]
    pub note: String,
    pub failures: Vec<ScenarioFailure>,
    /// The random sample handed to every decision, in [0, 1).
    #[serde(default = "half")]
    pub random: f64,
    /// The messages of the failed attempt (log form); default: one user message.
    #[serde(default)]
    pub messages: Option<Vec<Message>>,
    pub expect: ExpectDecision,
}

fn half() -> f64 {
    0.5
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ScenarioFailure {
    pub code: String,
    #[serde(default)]
    pub status: Option<u16>,
    #[serde(default)]
    pub retry_after_ms: Option<u64>,
    #[serde(default)]
    pub message: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectDecision {
    /// `retry`, `delegate` or `give-up`.
    pub decision: String,
    #[serde(default)]
    pub delay_ms: Option<u64>,
    #[serde(default)]
    pub min_delay_ms: Option<u64>,
    #[serde(default)]
    pub max_delay_ms: Option<u64>,
    #[serde(default)]
    pub policy_key: Option<String>,
    /// A retry that replaces the conversation: `true` must, `false` must not.
    #[serde(default)]
    pub replaces_messages: Option<bool>,
    /// Words the give-up reason must contain.
    #[serde(default)]
    pub reason_contains: Option<String>,
}

impl ExpectDecision {
    pub fn describe(&self) -> String {
        let mut text = self.decision.clone();
        match (self.delay_ms, self.min_delay_ms, self.max_delay_ms) {
            (Some(ms), _, _) => text.push_str(&format!(" {ms} ms")),
            (None, None, None) => {}
            (None, min, max) => text.push_str(&format!(
                " {}..{} ms",
                min.map_or(String::new(), |m| m.to_string()),
                max.map_or(String::new(), |m| m.to_string())
            )),
        }
        if let Some(key) = &self.policy_key {
            text.push_str(&format!(" ({key})"));
        }
        text
    }
}

/// A case file's text, named for messages by where it came from.
pub struct CaseText {
    pub origin: String,
    pub text: String,
}

/// The case files at `path`: the file, or every `*.json` of the directory (sorted by name).
pub fn read_case_files(path: &Path) -> Result<Vec<CaseText>> {
    let meta =
        std::fs::metadata(path).with_context(|| format!("reading the cases {}", path.display()))?;
    let files: Vec<PathBuf> = if meta.is_dir() {
        let mut files: Vec<PathBuf> = std::fs::read_dir(path)
            .with_context(|| format!("listing the case directory {}", path.display()))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.extension().is_some_and(|e| e == "json"))
            .collect();
        files.sort();
        if files.is_empty() {
            bail!(
                "the case directory {} holds no .json case file (see docs/check.md)",
                path.display()
            );
        }
        files
    } else {
        vec![path.to_path_buf()]
    };
    files
        .into_iter()
        .map(|file| {
            let text = std::fs::read_to_string(&file)
                .with_context(|| format!("reading the case file {}", file.display()))?;
            Ok(CaseText {
                origin: file.display().to_string(),
                text,
            })
        })
        .collect()
}

/// Parses and checks an adapter case file: every case named once, each code canonical, each body
/// readable. The error names the file, the case and the fix.
pub fn parse_adapter_cases(file: &CaseText) -> Result<AdapterCaseFile> {
    let parsed: AdapterCaseFile = serde_json::from_str(&file.text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not an adapter case file: {e} (the format is in docs/check.md)",
            file.origin
        )
    })?;
    let mut seen = std::collections::HashSet::new();
    for case in &parsed.cases {
        let at = format!("{}: case {:?}", file.origin, case.name);
        if case.name.trim().is_empty() {
            bail!(
                "{}: a case has an empty name; give every case a name",
                file.origin
            );
        }
        if !seen.insert(case.name.as_str()) {
            bail!("{at} appears twice; case names must be unique within a file");
        }
        if case.request.is_none() && case.response.is_none() {
            bail!("{at} has neither a request nor a response; give at least one");
        }
        for code in case.expect.accepted_codes().unwrap_or_default() {
            if !crate::failure::is_canonical(&code) {
                bail!(
                    "{at} expects {code:?}, which is not a canonical code ({})",
                    crate::failure::CODES.join(", ")
                );
            }
        }
        if let Some(response) = &case.response {
            response.head().map_err(|e| anyhow::anyhow!("{at}: {e}"))?;
            response.body().map_err(|e| anyhow::anyhow!("{at}: {e}"))?;
            let stream_only = case.expect.text.is_some()
                || case.expect.chunks.is_some()
                || case.expect.feed_chunks.is_some();
            if !response.is_success() && stream_only {
                bail!(
                    "{at}: text and chunks are what a 2xx stream decodes to, but its status is {}",
                    response.status
                );
            }
            if !response.is_success() && !case.expect.wants_failure() {
                bail!(
                    "{at}: status {} goes to classify-failure, so the case must expect a code (`code`, `codes` or `any_failure`)",
                    response.status
                );
            }
        } else if case.expect.wants_failure() || case.expect.text.is_some() {
            bail!("{at} expects an outcome but has no response");
        }
    }
    Ok(parsed)
}

/// Parses and checks a listener scenario file.
pub fn parse_listener_cases(file: &CaseText) -> Result<ListenerCaseFile> {
    let parsed: ListenerCaseFile = serde_json::from_str(&file.text).map_err(|e| {
        anyhow::anyhow!(
            "{}: not a listener scenario file: {e} (the format is in docs/check.md)",
            file.origin
        )
    })?;
    for scenario in &parsed.scenarios {
        let at = format!("{}: scenario {:?}", file.origin, scenario.name);
        if scenario.failures.is_empty() {
            bail!("{at} has no failures; list the failures of the step in order");
        }
        for failure in &scenario.failures {
            if !crate::failure::is_canonical(&failure.code) {
                bail!(
                    "{at} has the failure code {:?}, which is not canonical ({})",
                    failure.code,
                    crate::failure::CODES.join(", ")
                );
            }
        }
        if !["retry", "delegate", "give-up"].contains(&scenario.expect.decision.as_str()) {
            bail!(
                "{at} expects the decision {:?}; it is one of retry, delegate, give-up",
                scenario.expect.decision
            );
        }
        if !(0.0..1.0).contains(&scenario.random) {
            bail!(
                "{at} has random = {}; the host's samples are in [0, 1)",
                scenario.random
            );
        }
    }
    if let Some(policy) = &parsed.retry_policy
        && !policy.is_object()
    {
        bail!(
            "{}: retry_policy must be a JSON object like [providers.NAME.retry_policy], got {policy}",
            file.origin
        );
    }
    Ok(parsed)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(json: &str) -> CaseText {
        CaseText {
            origin: "cases.json".into(),
            text: json.into(),
        }
    }

    #[test]
    fn a_case_reads_with_its_tri_state_expectations() {
        let file = parse_adapter_cases(&text(
            r#"{"cases": [{"name": "a", "response": {"status": 429, "headers": {"Retry-After": "7"}},
                           "expect": {"code": "RATE_LIMITED", "retry_after_ms": 7000, "request_id": null}}]}"#,
        ))
        .unwrap();
        let case = &file.cases[0];
        assert_eq!(case.expect.retry_after_ms, Some(Some(7000)));
        assert_eq!(case.expect.request_id, Some(None));
        let head = case.response.as_ref().unwrap().head().unwrap();
        assert_eq!(
            head.headers,
            vec![("retry-after".to_string(), "7".to_string())]
        );
        assert_eq!(head.received_at_ms, DEFAULT_RECEIVED_AT_MS);
        assert_eq!(case.expect.describe(), "RATE_LIMITED, retry-after 7000 ms");
    }

    #[test]
    fn bodies_come_from_text_base64_or_events() {
        let file = parse_adapter_cases(&text(
            r#"{"cases": [
                {"name": "t", "response": {"status": 500, "body": "oops"}, "expect": {"code": "SERVER_ERROR"}},
                {"name": "b", "response": {"status": 500, "body_base64": "/wA="}, "expect": {"code": "SERVER_ERROR"}},
                {"name": "e", "response": {"status": 200, "events": ["data: 1\n\n", "data: 2\n\n"]}}]}"#,
        ))
        .unwrap();
        let bodies: Vec<Vec<u8>> = file
            .cases
            .iter()
            .map(|c| c.response.as_ref().unwrap().body().unwrap())
            .collect();
        assert_eq!(
            bodies,
            vec![
                b"oops".to_vec(),
                vec![0xff, 0],
                b"data: 1\n\ndata: 2\n\n".to_vec()
            ]
        );
    }

    #[test]
    fn mistakes_are_named_with_the_file_the_case_and_the_fix() {
        for (json, expect) in [
            (
                r#"{"cases": [{"name": "x", "response": {"status": 429}, "expect": {"code": "RATE_LIMITTED"}}]}"#,
                r#"case "x" expects "RATE_LIMITTED", which is not a canonical code"#,
            ),
            (
                r#"{"cases": [{"name": "x", "response": {"status": 429}}]}"#,
                "must expect a code",
            ),
            (
                r#"{"cases": [{"name": "x", "response": {"status": 429}, "expect": {"code": "AUTH"}}, {"name": "x", "response": {"status": 401}, "expect": {"code": "AUTH"}}]}"#,
                "appears twice",
            ),
            (
                r#"{"cases": [{"name": "x", "response": {"status": 200, "body": "a", "events": []}}]}"#,
                "more than one of body",
            ),
            (
                r#"{"cases": [{"name": "x", "respons": {}}]}"#,
                "unknown field `respons`",
            ),
            (
                r#"{"cases": [{"name": "x", "response": {"status": 500}, "expect": {"code": "SERVER_ERROR", "text": "hi"}}]}"#,
                "2xx stream",
            ),
            ("[1, 2]", "not an adapter case file"),
        ] {
            let e = parse_adapter_cases(&text(json)).unwrap_err().to_string();
            assert!(
                e.starts_with("cases.json") && e.contains(expect),
                "{json}: {e}"
            );
        }
    }

    #[test]
    fn scenarios_are_checked() {
        let ok = parse_listener_cases(&text(
            r#"{"config": {}, "scenarios": [{"name": "s", "failures": [{"code": "RATE_LIMITED", "status": 429}],
                "expect": {"decision": "retry", "min_delay_ms": 800, "max_delay_ms": 1200, "policy_key": "llm-retry"}}]}"#,
        ))
        .unwrap();
        assert_eq!(ok.scenarios[0].random, 0.5);
        assert_eq!(
            ok.scenarios[0].expect.describe(),
            "retry 800..1200 ms (llm-retry)"
        );
        for (json, expect) in [
            (
                r#"{"scenarios": [{"name": "s", "failures": [], "expect": {"decision": "retry"}}]}"#,
                "has no failures",
            ),
            (
                r#"{"scenarios": [{"name": "s", "failures": [{"code": "SLOW"}], "expect": {"decision": "retry"}}]}"#,
                "not canonical",
            ),
            (
                r#"{"scenarios": [{"name": "s", "failures": [{"code": "AUTH"}], "expect": {"decision": "wait"}}]}"#,
                "one of retry, delegate, give-up",
            ),
            (
                r#"{"scenarios": [{"name": "s", "random": 1.0, "failures": [{"code": "AUTH"}], "expect": {"decision": "retry"}}]}"#,
                "[0, 1)",
            ),
            (
                r#"{"retry_policy": 5, "scenarios": []}"#,
                "retry_policy must be a JSON object",
            ),
        ] {
            let e = parse_listener_cases(&text(json)).unwrap_err().to_string();
            assert!(e.contains(expect), "{json}: {e}");
        }
    }
}
