//! The checks of an adapter (docs/check.md): each case's response through `classify-failure` or the
//! decoder, as an attempt would take it; decoding whole, byte by byte and in seeded random pieces
//! (the chunks must not depend on where the network cut the body), twice (deterministic), with
//! keepalives spliced in (no chunks from them), and cut at every point before the finish (never a
//! silent success); plans checked by the host's own plan and network rules; and a seeded fuzz of
//! garbage and mutated bodies (no trap, no success from garbage).

use super::cases::{AdapterCase, CaseResponse, Expect};
use super::decode::{Decoded, Rng, classify, decode, random_sizes};
use super::report::{Row, clip};
use crate::adapter::{
    Adapter, Chunk, CompletionRequest, Endpoint, FinishKind, HttpPlan, Message, ResponseHead, Role,
    ToolCall, ToolSpec,
};
use crate::attempt::{Completion, is_progress};
use crate::failure::LlmFailure;
use serde_json::{Value, json};
use std::time::Duration;

/// The base URL plans are made for: a public HTTPS host, as a hosted provider's.
pub const CHECK_BASE_URL: &str = "https://api.example.com/v1";

/// A body longer than this is cut at a sample of points rather than at every one.
const EVERY_CUT_UP_TO: usize = 256;
/// Cut points sampled from a longer body (plus its event boundaries).
const SAMPLED_CUTS: usize = 256;
/// Random cuttings per stream, besides whole and byte by byte.
const RANDOM_CUTTINGS: u64 = 5;
/// Fuzz inputs per kind.
const FUZZ_ERROR_BODIES: usize = 48;
const FUZZ_STREAM_BODIES: usize = 32;
const FUZZ_MUTATIONS: usize = 16;

/// Runs every check on one adapter and collects rows and measurements.
pub struct AdapterChecker<'a> {
    adapter: &'a Adapter,
    seed: u64,
    pub decoder_time: Duration,
    pub events: usize,
    pub peak_memory_bytes: usize,
    /// The successful streams seen, mutated by the fuzz.
    recorded_streams: Vec<(ResponseHead, Vec<u8>)>,
}

impl<'a> AdapterChecker<'a> {
    pub fn new(adapter: &'a Adapter, seed: u64) -> Self {
        AdapterChecker {
            adapter,
            seed,
            decoder_time: Duration::ZERO,
            events: 0,
            peak_memory_bytes: 0,
            recorded_streams: Vec::new(),
        }
    }

    /// The built-in plan checks: a plain request and one with a system message, tools and a tool
    /// round trip. An adapter may refuse a request it cannot express (`INVALID_REQUEST`), never fault.
    pub async fn builtin_plans(&mut self, credential_headers: &[String]) -> Vec<Row> {
        let mut rows = Vec::new();
        for (name, request) in builtin_requests() {
            rows.push(
                self.plan_row("built-in", name, &request, credential_headers, true)
                    .await,
            );
        }
        rows
    }

    /// One case of a case file (or of the corpus): its plan, then its response.
    pub async fn case(
        &mut self,
        source: &str,
        case: &AdapterCase,
        credential_headers: &[String],
    ) -> Vec<Row> {
        let mut rows = Vec::new();
        if let Some(request) = &case.request {
            let name = format!("{} (plan)", case.name);
            rows.push(
                self.plan_row(
                    source,
                    &name,
                    &request.to_request(),
                    credential_headers,
                    false,
                )
                .await,
            );
        }
        if let Some(response) = &case.response {
            let mut row = Row::new(source, &case.name, case.expect.describe());
            // Checked when the file was read.
            let (head, body) = (
                response.head().expect("checked head"),
                response.body().expect("checked body"),
            );
            if response.is_success() {
                self.stream_case(&mut row, response, &head, &body, &case.expect)
                    .await;
            } else {
                self.error_case(&mut row, &head, &body, &case.expect).await;
            }
            rows.push(row);
        }
        rows
    }

    async fn plan_row(
        &mut self,
        source: &str,
        name: &str,
        request: &CompletionRequest,
        credential_headers: &[String],
        may_refuse: bool,
    ) -> Row {
        let mut row = Row::new(source, name, "a plan the host sends");
        let endpoint = Endpoint {
            base_url: CHECK_BASE_URL.into(),
        };
        let mut planned = Vec::new();
        for _ in 0..2 {
            let mut instance = match self.adapter.instantiate().await {
                Ok(i) => i,
                Err(f) => {
                    row.got = clip(&f.to_string(), 200);
                    row.problem(f.to_string());
                    return row;
                }
            };
            planned.push(instance.plan_request(&endpoint, request).await);
            self.peak(instance.peak_memory_bytes());
        }
        if planned[0] != planned[1] {
            row.problem("planned differently the second time: plan-request must be a pure function of the request");
        }
        match &planned[0] {
            Ok(plan) => {
                row.got = format!("{} {}", plan.method, plan.url);
                if let Err(why) = check_plan(plan, self.adapter.name(), credential_headers, request)
                {
                    row.problem(why);
                }
            }
            Err(f) if may_refuse && f.code == "INVALID_REQUEST" => {
                row.got = format!("refused: {}", clip(&f.message, 80))
            }
            Err(f) => {
                row.got = f.code.clone();
                row.problem(format!("plan-request failed: {f}"));
            }
        }
        row
    }

    async fn error_case(
        &mut self,
        row: &mut Row,
        head: &ResponseHead,
        body: &[u8],
        expect: &Expect,
    ) {
        let (failure, peak) = classify(self.adapter, head, body).await;
        let (again, _) = classify(self.adapter, head, body).await;
        self.peak(peak);
        row.got = describe_failure(&failure);
        row.problems(failure_problems(&failure, expect));
        if failure != again {
            row.problem(format!("classified differently the second time ({}): classify-failure must be deterministic", describe_failure(&again)));
        }
        if failure.message.trim().is_empty() {
            row.problem("the failure's message is empty: say what happened (the CLI prints it)");
        }
    }

    async fn stream_case(
        &mut self,
        row: &mut Row,
        response: &CaseResponse,
        head: &ResponseHead,
        body: &[u8],
        expect: &Expect,
    ) {
        let whole = decode(self.adapter, head, body, &[]).await;
        self.peak(whole.peak_memory_bytes);
        let events = whole.chunks().count();
        self.decoder_time += whole.decoder_time;
        self.events += events;
        row.events = Some(events);
        row.micros_per_event =
            (events > 0).then(|| whole.decoder_time.as_secs_f64() * 1e6 / events as f64);
        row.got = describe_outcome(&whole.outcome);
        if let Some(fault) = whole.faulted() {
            row.problem(format!("decoding the whole body: {fault}"));
            return;
        }
        row.problems(outcome_problems(&whole, expect));

        // The same body, every way the network could cut it, and once more whole.
        let mut ways: Vec<(String, Vec<usize>)> = vec![
            ("whole, a second time".into(), vec![]),
            ("byte by byte".into(), vec![1; body.len()]),
        ];
        for i in 0..RANDOM_CUTTINGS {
            let seed = self.seed.wrapping_add(i);
            ways.push((
                format!("random pieces (seed {seed})"),
                random_sizes(body.len(), seed, 17),
            ));
        }
        let expected = normalized(&whole);
        for (how, sizes) in &ways {
            let run = decode(self.adapter, head, body, sizes).await;
            self.peak(run.peak_memory_bytes);
            if let Some(fault) = run.faulted() {
                row.problem(format!("decoding {how}: {fault}"));
            } else if normalized(&run) != expected || run.outcome != whole.outcome {
                row.problem(format!(
                    "decoding {how} differs from decoding whole: {}",
                    first_difference(&normalized(&run), &expected, &run.outcome, &whole.outcome)
                ));
            }
        }

        // Only a body framed as events: spliced into garbage, a comment would make it look like a stream.
        if response.is_event_stream() && (contains(body, b"\n\n") || contains(body, b"\r\n\r\n")) {
            let pinged = with_keepalives(body);
            let run = decode(self.adapter, head, &pinged, &[]).await;
            if let Some(fault) = run.faulted() {
                row.problem(format!("with keepalives spliced between events: {fault}"));
            } else if normalized(&run) != expected || run.outcome != whole.outcome {
                row.problem(format!(
                    "with keepalives (`: ping` comments) spliced between events, the chunks differ: {}",
                    first_difference(&normalized(&run), &expected, &run.outcome, &whole.outcome)
                ));
            }
        }

        if let Ok(answer) = &whole.outcome {
            self.truncations(row, head, body, answer).await;
            self.recorded_streams.push((head.clone(), body.to_vec()));
        }
    }

    /// The body cut at any point must not succeed with less than the whole answer (the attempt
    /// would report half an answer as the whole), and no cut may trap. A cut after the finish may
    /// succeed: the answer was complete (only the usage that trails it may be missing).
    async fn truncations(
        &mut self,
        row: &mut Row,
        head: &ResponseHead,
        body: &[u8],
        answer: &Completion,
    ) {
        let mut silent = Vec::new();
        for cut in cut_points(body) {
            let run = decode(self.adapter, head, &body[..cut], &[]).await;
            self.peak(run.peak_memory_bytes);
            if let Some(fault) = run.faulted() {
                row.problem(format!("cut after {cut} of {} bytes: {fault}", body.len()));
                return;
            }
            if let Ok(partial) = &run.outcome
                && !same_answer(partial, answer)
            {
                silent.push(cut);
            }
        }
        if !silent.is_empty() {
            let shown: Vec<String> = silent.iter().take(8).map(usize::to_string).collect();
            row.problem(format!(
                "cut short (after {}{} of {} bytes), the stream still ends as a success with less than the whole answer: a \
                 truncated stream must end without a finish (the host reports STREAM_TRUNCATED) or with a failure",
                shown.join(", "),
                if silent.len() > 8 { format!(" and {} more", silent.len() - 8) } else { String::new() },
                body.len()
            ));
        }
    }

    /// Seeded garbage: error bodies through `classify-failure`, 2xx bodies through the decoder, and
    /// mutations of the streams that decoded successfully. Nothing may trap; garbage must not
    /// decode to a success.
    pub async fn fuzz(&mut self) -> Vec<Row> {
        let mut rng = Rng::new(self.seed);
        let statuses = [
            400u16, 401, 403, 404, 408, 413, 429, 500, 502, 503, 504, 529,
        ];

        let mut errors = Row::new(
            "fuzz",
            &format!("{FUZZ_ERROR_BODIES} garbage error bodies"),
            "a canonical failure, no trap",
        );
        for i in 0..FUZZ_ERROR_BODIES {
            let status = statuses[rng.below(statuses.len() as u64) as usize];
            let body = garbage(&mut rng);
            let head = ResponseHead {
                status,
                headers: garbage_headers(&mut rng),
                received_at_ms: super::cases::DEFAULT_RECEIVED_AT_MS,
            };
            let (failure, peak) = classify(self.adapter, &head, &body).await;
            self.peak(peak);
            if failure.code == "ADAPTER_FAULT" {
                errors.problem(format!(
                    "input {i} (status {status}, {} bytes): {failure}",
                    body.len()
                ));
                break;
            }
        }
        errors.got = if errors.passed {
            "no trap".into()
        } else {
            "ADAPTER_FAULT".into()
        };

        let mut streams = Row::new(
            "fuzz",
            &format!("{FUZZ_STREAM_BODIES} garbage 2xx bodies"),
            "a failure, no trap",
        );
        for i in 0..FUZZ_STREAM_BODIES {
            let body = garbage(&mut rng);
            let content_type = ["text/event-stream", "application/json", "text/plain"][i % 3];
            let head = ResponseHead {
                status: 200,
                headers: vec![("content-type".into(), content_type.into())],
                received_at_ms: super::cases::DEFAULT_RECEIVED_AT_MS,
            };
            let sizes = random_sizes(body.len(), rng.next_u64(), 9);
            let run = decode(self.adapter, &head, &body, &sizes).await;
            self.peak(run.peak_memory_bytes);
            if let Some(fault) = run.faulted() {
                streams.problem(format!(
                    "input {i} ({content_type}, {} bytes): {fault}",
                    body.len()
                ));
                break;
            }
            if run.outcome.is_ok() {
                streams.problem(format!(
                    "input {i} ({content_type}, {:?}) decoded to a success",
                    clip(&String::from_utf8_lossy(&body), 80)
                ));
                break;
            }
        }
        streams.got = if streams.passed {
            "failures, no trap".into()
        } else {
            "see below".into()
        };

        let mut mutated = Row::new(
            "fuzz",
            &format!("{FUZZ_MUTATIONS} mutations of each recorded stream"),
            "no trap",
        );
        'streams: for (head, body) in std::mem::take(&mut self.recorded_streams) {
            for i in 0..FUZZ_MUTATIONS {
                let changed = mutate(&mut rng, &body);
                let sizes = random_sizes(changed.len(), rng.next_u64(), 33);
                let run = decode(self.adapter, &head, &changed, &sizes).await;
                self.peak(run.peak_memory_bytes);
                if let Some(fault) = run.faulted() {
                    mutated.problem(format!(
                        "mutation {i} of a {}-byte stream: {fault}",
                        body.len()
                    ));
                    break 'streams;
                }
            }
        }
        mutated.got = if mutated.passed {
            "no trap".into()
        } else {
            "ADAPTER_FAULT".into()
        };
        vec![errors, streams, mutated]
    }

    fn peak(&mut self, bytes: usize) {
        self.peak_memory_bytes = self.peak_memory_bytes.max(bytes);
    }
}

/// The host's own checks on a plan, as `transport::send` makes them: `plan::check` (method, URL,
/// header names and values, hop-by-hop headers, where `{credential}` may stand) and the provider's
/// network policy for the endpoint.
fn check_plan(
    plan: &HttpPlan,
    guest: &str,
    credential_headers: &[String],
    request: &CompletionRequest,
) -> Result<(), String> {
    let checked = crate::plan::check(plan, guest, "check", credential_headers, request)
        .map_err(|f| f.message)?;
    let policy = crate::network::NetworkPolicy::for_provider("check", CHECK_BASE_URL, &[])
        .map_err(|r| r.0)?;
    policy.check_url(&checked.url).map_err(|r| {
        format!("the plan's URL is refused: {r} (plans must go to the endpoint's host)")
    })?;
    Ok(())
}

fn builtin_requests() -> Vec<(&'static str, CompletionRequest)> {
    let plain = CompletionRequest::new("check-model", vec![Message::new(Role::User, "Hello")]);
    let mut tools = CompletionRequest::new(
        "check-model",
        vec![
            Message::new(Role::System, "Be terse."),
            Message::new(Role::User, "What time is it?"),
            Message {
                tool_calls: vec![ToolCall::new("call_1", "clock", "{}")],
                ..Message::new(Role::Assistant, "")
            },
            Message {
                tool_call_id: Some("call_1".into()),
                ..Message::new(Role::Tool, "2025-01-01T00:00:00Z")
            },
        ],
    );
    tools.tools = vec![ToolSpec {
        name: "clock".into(),
        description: "The current UTC time.".into(),
        parameters_schema: r#"{"type":"object","properties":{}}"#.into(),
    }];
    vec![
        ("plan: one user message", plain),
        ("plan: system, tools and a tool round trip", tools),
    ]
}

/// What is wrong with a classified failure, against the case.
fn failure_problems(failure: &LlmFailure, expect: &Expect) -> Vec<String> {
    let mut problems = Vec::new();
    if failure.code == "ADAPTER_FAULT" {
        problems.push(failure.to_string());
        return problems;
    }
    if let Some(codes) = expect.accepted_codes()
        && !codes.contains(&failure.code)
    {
        problems.push(format!(
            "code {} (expected {}); message {:?}",
            failure.code,
            codes.join(" or "),
            clip(&failure.message, 160)
        ));
    }
    if let Some(want) = &expect.retry_after_ms
        && failure.provider_retry_after_ms != *want
    {
        problems.push(format!(
            "retry-after {} (expected {})",
            shown(failure.provider_retry_after_ms),
            shown(*want)
        ));
    }
    if let Some(want) = &expect.request_id
        && failure.request_id != *want
    {
        problems.push(format!(
            "request id {:?} (expected {want:?})",
            failure.request_id
        ));
    }
    problems
}

/// What is wrong with a decoded case, against the case.
fn outcome_problems(run: &Decoded, expect: &Expect) -> Vec<String> {
    let mut problems = Vec::new();
    match &run.outcome {
        Err(failure) => {
            if !expect.wants_failure() {
                problems.push(format!("ended as a failure, expected a success: {failure}"));
            } else {
                problems.extend(failure_problems(failure, expect));
            }
        }
        Ok(completion) => {
            if expect.wants_failure() {
                problems.push(format!(
                    "ended as a success ({} characters of text), expected {}: a stream the provider did not finish must never pass for an answer",
                    completion.text.chars().count(),
                    expect.describe()
                ));
            }
            if let Some(text) = &expect.text
                && completion.text != *text
            {
                problems.push(format!(
                    "text {:?} (expected {:?})",
                    clip(&completion.text, 120),
                    clip(text, 120)
                ));
            }
        }
    }
    if let Some(want) = &expect.chunks {
        let got = merge_adjacent(run.chunks().map(chunk_json).collect());
        let want = merge_adjacent(want.clone());
        if got != want {
            problems.push(format!(
                "chunks {} (expected {})",
                clip(&Value::from(got).to_string(), 300),
                clip(&Value::from(want).to_string(), 300)
            ));
        }
    }
    if let Some(want) = &expect.feed_chunks {
        let got = merge_adjacent(run.fed.iter().map(chunk_json).collect());
        if got != merge_adjacent(want.clone()) {
            problems.push(format!(
                "the feeds returned {} (expected {})",
                clip(&Value::from(got).to_string(), 200),
                Value::from(want.clone())
            ));
        }
    }
    if expect.feed_chunks.as_ref().is_some_and(Vec::is_empty) && run.fed.iter().any(is_progress) {
        problems.push("keepalives were reported as progress: the watchdog could never expire on a stalled stream".into());
    }
    problems
}

fn shown(ms: Option<u64>) -> String {
    ms.map_or("none".into(), |ms| format!("{ms} ms"))
}

pub fn describe_failure(f: &LlmFailure) -> String {
    let mut text = f.code.clone();
    if let Some(ms) = f.provider_retry_after_ms {
        text.push_str(&format!(", retry-after {ms} ms"));
    }
    if let Some(id) = &f.request_id {
        text.push_str(&format!(", request id {id}"));
    }
    if f.code == "ADAPTER_FAULT" {
        text.push_str(&format!(": {}", f.message));
    }
    text
}

fn describe_outcome(outcome: &Result<Completion, LlmFailure>) -> String {
    match outcome {
        Ok(c) => format!(
            "success ({} chars{})",
            c.text.chars().count(),
            if c.tool_calls.is_empty() {
                String::new()
            } else {
                format!(", {} tool call(s)", c.tool_calls.len())
            }
        ),
        Err(f) => describe_failure(f),
    }
}

/// A chunk in the form of docs/check.md.
pub fn chunk_json(chunk: &Chunk) -> Value {
    match chunk {
        Chunk::Text(t) => json!({"text": t}),
        Chunk::Reasoning(t) => json!({"reasoning": t}),
        Chunk::Progress(t) => json!({"progress": t}),
        Chunk::ProviderData(t) => json!({"provider_data": t}),
        Chunk::ToolCall(d) => {
            let mut call = json!({"index": d.index, "arguments": d.arguments});
            for (key, value) in [
                ("id", &d.id),
                ("name", &d.name),
                ("provider_data", &d.provider_data),
            ] {
                if let Some(v) = value {
                    call[key] = json!(v);
                }
            }
            json!({"tool_call": call})
        }
        Chunk::Usage(u) => json!({"usage": u}),
        Chunk::Finish(f) => {
            let kind = match f.kind {
                FinishKind::Stop => "stop",
                FinishKind::Length => "length",
                FinishKind::ToolCalls => "tool-calls",
                FinishKind::ContentFilter => "content-filter",
                FinishKind::Error => "error",
                FinishKind::Aborted => "aborted",
            };
            let mut finish = json!({"kind": kind});
            if let Some(reason) = &f.reason {
                finish["reason"] = json!(reason);
            }
            if let Some(failure) = &f.failure {
                finish["code"] = json!(failure.code.as_str());
            }
            json!({"finish": finish})
        }
    }
}

/// Adjacent text (and reasoning) chunks as one: where a decoder splits a piece of text depends
/// on the reads, what it says must not.
fn merge_adjacent(chunks: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for chunk in chunks {
        let piece = ["text", "reasoning"].into_iter().find_map(|k| {
            chunk
                .get(k)
                .and_then(Value::as_str)
                .map(|s| (k, s.to_string()))
        });
        if let Some((key, piece)) = piece {
            if piece.is_empty() {
                continue;
            }
            if let Some(Value::String(so_far)) = out.last_mut().and_then(|last| last.get_mut(key)) {
                so_far.push_str(&piece);
                continue;
            }
        }
        out.push(chunk);
    }
    out
}

fn normalized(run: &Decoded) -> Vec<Value> {
    merge_adjacent(run.chunks().map(chunk_json).collect())
}

fn first_difference(
    got: &[Value],
    want: &[Value],
    got_outcome: &Result<Completion, LlmFailure>,
    want_outcome: &Result<Completion, LlmFailure>,
) -> String {
    if let Some(i) = (0..got.len().max(want.len())).find(|&i| got.get(i) != want.get(i)) {
        let show =
            |v: Option<&Value>| v.map_or("nothing".to_string(), |v| clip(&v.to_string(), 120));
        return format!(
            "chunk {i} is {} instead of {}",
            show(got.get(i)),
            show(want.get(i))
        );
    }
    format!(
        "it ends as {} instead of {}",
        describe_outcome(got_outcome),
        describe_outcome(want_outcome)
    )
}

/// The same answer, whatever the usage (which trails the finish in some streams).
fn same_answer(a: &Completion, b: &Completion) -> bool {
    Completion {
        usage: None,
        ..a.clone()
    } == Completion {
        usage: None,
        ..b.clone()
    }
}

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack.windows(needle.len()).any(|w| w == needle)
}

/// `body` with an SSE comment (`: ping`) before the first event and after every event boundary.
fn with_keepalives(body: &[u8]) -> Vec<u8> {
    const PING: &[u8] = b": ping\n\n";
    let mut out = PING.to_vec();
    let mut i = 0;
    while i < body.len() {
        out.push(body[i]);
        let boundary = body[..=i].ends_with(b"\n\n") || body[..=i].ends_with(b"\r\n\r\n");
        if boundary {
            out.extend_from_slice(PING);
        }
        i += 1;
    }
    out
}

/// Where to cut a body: everywhere in a short one; in a longer one, an even sample plus each event
/// boundary and its neighbours (where decoders go wrong).
fn cut_points(body: &[u8]) -> Vec<usize> {
    let len = body.len();
    if len <= EVERY_CUT_UP_TO {
        return (0..len).collect();
    }
    let mut cuts: Vec<usize> = (0..SAMPLED_CUTS).map(|i| i * len / SAMPLED_CUTS).collect();
    for (i, w) in body.windows(2).enumerate() {
        if w == b"\n\n" {
            cuts.extend([i, i + 1, i + 2]);
        }
    }
    cuts.retain(|&c| c < len);
    cuts.sort_unstable();
    cuts.dedup();
    cuts
}

/// Garbage of a few kinds: random bytes, JSON-ish text, SSE-ish lines.
fn garbage(rng: &mut Rng) -> Vec<u8> {
    let len = rng.below(512) as usize;
    match rng.below(3) {
        0 => rng.bytes(len),
        1 => {
            const JSONISH: &[u8] =
                br#"{}[]":,0123456789.-eE truefalsnul\u00"error""message""choices""data"#;
            (0..len)
                .map(|_| JSONISH[rng.below(JSONISH.len() as u64) as usize])
                .collect()
        }
        _ => {
            let mut out = Vec::new();
            while out.len() < len {
                let field: &[u8] = [
                    &b"data: "[..],
                    b"event: ",
                    b": ",
                    b"id: ",
                    b"retry: ",
                    b"data:",
                ][rng.below(6) as usize];
                out.extend_from_slice(field);
                let n = rng.below(40) as usize;
                out.extend(
                    rng.bytes(n)
                        .into_iter()
                        .map(|b| if b == b'\n' { b' ' } else { b }),
                );
                out.extend_from_slice([&b"\n"[..], b"\n\n", b"\r\n", b""][rng.below(4) as usize]);
            }
            out
        }
    }
}

fn garbage_headers(rng: &mut Rng) -> Vec<(String, String)> {
    let values = [
        "",
        "0",
        "-1",
        "1e999",
        "NaN",
        "Fri, 31 Dec 9999 23:59:59 GMT",
        "Thu, 01 Jan 1970 00:00:00 GMT",
        "99999999999999999999",
        "1.5",
        " 3 ",
    ];
    let mut headers = Vec::new();
    for name in [
        "retry-after",
        "retry-after-ms",
        "x-request-id",
        "request-id",
    ] {
        if rng.below(2) == 0 {
            headers.push((
                name.to_string(),
                values[rng.below(values.len() as u64) as usize].to_string(),
            ));
        }
    }
    headers
}

/// `body` with one random change: a byte flipped, a range deleted, a range repeated, or the tail cut.
fn mutate(rng: &mut Rng, body: &[u8]) -> Vec<u8> {
    let mut out = body.to_vec();
    if out.is_empty() {
        return rng.bytes(8);
    }
    let at = rng.below(out.len() as u64) as usize;
    let span = 1 + rng.below(16.min(out.len() - at) as u64) as usize;
    match rng.below(4) {
        0 => out[at] ^= 1 << rng.below(8),
        1 => {
            out.drain(at..at + span);
        }
        2 => {
            let copy = out[at..at + span].to_vec();
            out.splice(at..at, copy);
        }
        _ => out.truncate(at),
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adjacent_text_merges_and_empty_text_vanishes() {
        let chunks = vec![
            json!({"text": "Hel"}),
            json!({"text": ""}),
            json!({"text": "lo"}),
            json!({"reasoning": "a"}),
            json!({"reasoning": "b"}),
            json!({"finish": {"kind": "stop"}}),
        ];
        assert_eq!(
            merge_adjacent(chunks),
            vec![
                json!({"text": "Hello"}),
                json!({"reasoning": "ab"}),
                json!({"finish": {"kind": "stop"}})
            ]
        );
        assert_eq!(
            merge_adjacent(vec![
                json!({"text": "a"}),
                json!({"progress": "x"}),
                json!({"text": "b"})
            ])
            .len(),
            3
        );
    }

    #[test]
    fn keepalives_go_between_events_only() {
        assert_eq!(
            with_keepalives(b"data: 1\n\ndata: 2\n\n"),
            b": ping\n\ndata: 1\n\n: ping\n\ndata: 2\n\n: ping\n\n".to_vec()
        );
        assert_eq!(
            with_keepalives(b"{\"a\":1}"),
            b": ping\n\n{\"a\":1}".to_vec()
        );
    }

    #[test]
    fn cut_points_cover_short_bodies_and_sample_long_ones() {
        assert_eq!(cut_points(b"abc"), vec![0, 1, 2]);
        let long: Vec<u8> = b"data: 0123456789\n\n".repeat(100);
        let cuts = cut_points(&long);
        assert!(
            cuts.len() < long.len() && cuts.len() >= SAMPLED_CUTS,
            "{}",
            cuts.len()
        );
        assert!(
            cuts.contains(&0) && cuts.contains(&(17 + 1)) && cuts.iter().all(|&c| c < long.len())
        );
    }

    #[test]
    fn the_fuzz_is_seeded_and_mutations_change_the_body() {
        let (mut a, mut b) = (Rng::new(9), Rng::new(9));
        assert_eq!(garbage(&mut a), garbage(&mut b));
        let body = b"data: {\"x\": 1}\n\n".to_vec();
        let mut rng = Rng::new(1);
        let changed: Vec<Vec<u8>> = (0..20).map(|_| mutate(&mut rng, &body)).collect();
        assert!(
            changed.iter().all(|c| c != &body),
            "every mutation changes something"
        );
    }

    #[test]
    fn a_failure_is_held_to_the_case() {
        let expect: Expect = serde_json::from_value(
            json!({"codes": ["OVERLOADED", "SERVER_ERROR"], "retry_after_ms": 2000}),
        )
        .unwrap();
        let mut f = LlmFailure::new("OVERLOADED", "busy");
        f.provider_retry_after_ms = Some(2000);
        assert!(failure_problems(&f, &expect).is_empty());
        f.code = "RATE_LIMITED".into();
        f.provider_retry_after_ms = None;
        let problems = failure_problems(&f, &expect);
        assert!(
            problems[0].contains("code RATE_LIMITED (expected OVERLOADED or SERVER_ERROR)"),
            "{problems:?}"
        );
        assert!(
            problems[1].contains("retry-after none (expected 2000 ms)"),
            "{problems:?}"
        );
    }
}
