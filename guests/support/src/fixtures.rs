//! Helpers for the adapters' integration tests (feature `test-support`, enabled from their
//! `[dev-dependencies]` only): response heads, cutting a body into network-read-sized pieces,
//! picking chunks out of a decoder's output, and the shared provider-failure fixture file.
//!
//! Each adapter has its own `Decoder`, so the helpers take the decoder's `feed` as a closure
//! rather than naming a type.

use serde_json::Value;

use crate::types::{Chunk, Finish, LlmFailure, ResponseHead, ToolCallDelta};

/// A response head with the given status and headers, received at a fixed instant (so HTTP-date
/// retry hints give reproducible delays).
pub fn head(status: u16, headers: &[(&str, &str)]) -> ResponseHead {
    ResponseHead {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        received_at_ms: 1_696_004_797_000,
    }
}

/// `body` fed through `feed` cut at the given piece sizes (the rest in one last piece). The caller
/// ends the decoder itself, after the closure's borrow of it is over.
pub fn feed_in_pieces(
    body: &[u8],
    sizes: &[usize],
    mut feed: impl FnMut(&[u8]) -> Vec<Chunk>,
) -> Vec<Chunk> {
    let mut out = Vec::new();
    let mut rest = body;
    for &size in sizes {
        let (piece, tail) = rest.split_at(size.min(rest.len()));
        out.extend(feed(piece));
        rest = tail;
    }
    out.extend(feed(rest));
    out
}

/// Piece sizes from a small deterministic generator (xorshift): random-looking, reproducible.
pub fn random_sizes(len: usize, seed: u64, max: usize) -> Vec<usize> {
    let mut state = seed.max(1);
    let mut sizes = Vec::new();
    let mut total = 0;
    while total < len {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        let size = 1 + (state % max as u64) as usize;
        sizes.push(size);
        total += size;
    }
    sizes
}

/// Every way the fixture tests cut a body of `len` bytes, named: whole, 1-byte pieces, and five
/// random cuttings.
pub fn cuttings(len: usize) -> Vec<(String, Vec<usize>)> {
    let mut ways = vec![
        ("whole".to_string(), vec![]),
        ("1-byte pieces".to_string(), vec![1; len]),
    ];
    for seed in 1..=5u64 {
        ways.push((
            format!("random pieces (seed {seed})"),
            random_sizes(len, seed * 7919, 17),
        ));
    }
    ways
}

pub fn finishes(chunks: &[Chunk]) -> Vec<&Finish> {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::Finish(f) = c {
                Some(f)
            } else {
                None
            }
        })
        .collect()
}

pub fn text_of(chunks: &[Chunk]) -> String {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::Text(t) = c {
                Some(t.as_str())
            } else {
                None
            }
        })
        .collect()
}

pub fn tool_deltas(chunks: &[Chunk]) -> Vec<ToolCallDelta> {
    chunks
        .iter()
        .filter_map(|c| {
            if let Chunk::ToolCall(d) = c {
                Some(d.clone())
            } else {
                None
            }
        })
        .collect()
}

/// The cases of tests/fixtures/provider-failures.json (the repository's, shared with the host and
/// the other-language guests) for the given providers.
pub fn provider_failure_cases(providers: &[&str]) -> Vec<Value> {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../../tests/fixtures/provider-failures.json"
    );
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("reading {path}: {e}"));
    let cases: Vec<Value> = serde_json::from_str(&text).expect("fixtures are a JSON array");
    cases
        .into_iter()
        .filter(|c| providers.contains(&c["provider"].as_str().unwrap_or("")))
        .collect()
}

/// A fixture case's response head: its status and headers (names lower-cased, as the host sends
/// them), received at the case's clock if it has one.
pub fn case_head(case: &Value) -> ResponseHead {
    let headers: Vec<(String, String)> = case["headers"]
        .as_object()
        .map(|h| {
            h.iter()
                .map(|(k, v)| (k.to_ascii_lowercase(), v.as_str().unwrap_or("").to_string()))
                .collect()
        })
        .unwrap_or_default();
    let mut h = head(case["status"].as_u64().unwrap() as u16, &[]);
    h.headers = headers;
    if let Some(now) = case["clock_now_epoch_s"].as_u64() {
        h.received_at_ms = now * 1000;
    }
    h
}

/// Problems with one HTTP-error case through the adapter's `classify_failure` (empty when it passes).
pub fn check_http(case: &Value, classify: fn(&ResponseHead, &[u8]) -> LlmFailure) -> Vec<String> {
    let failure = classify(&case_head(case), case["body"].as_str().unwrap().as_bytes());
    let mut problems = Vec::new();
    let expected_code = case["expected_code"].as_str().unwrap();
    if failure.code != expected_code {
        problems.push(format!(
            "code {} (expected {expected_code}); message {:?}",
            failure.code, failure.message
        ));
    }
    if failure.provider_retry_after_ms != case["expected_retry_after_ms"].as_u64() {
        problems.push(format!(
            "retry-after {:?} (expected {})",
            failure.provider_retry_after_ms, case["expected_retry_after_ms"]
        ));
    }
    if failure.request_id.as_deref() != case["expected_request_id"].as_str() {
        problems.push(format!(
            "request id {:?} (expected {})",
            failure.request_id, case["expected_request_id"]
        ));
    }
    if failure.status != case["status"].as_u64().map(|s| s as u16) {
        problems.push(format!("status {:?}", failure.status));
    }
    if failure.message.trim().is_empty() {
        problems.push("empty message".into());
    }
    problems
}

/// Runs every case (HTTP errors through `check_http`, streams through the adapter's own
/// `check_stream`) and fails listing all the problems at once, not just the first.
pub fn assert_cases_pass(
    cases: &[Value],
    check_http: impl Fn(&Value) -> Vec<String>,
    check_stream: impl Fn(&Value) -> Vec<String>,
) {
    let mut failures = Vec::new();
    for case in cases {
        let status = case["status"].as_u64().unwrap();
        let problems = match case["transport"].as_str().unwrap() {
            "http" if status >= 300 => check_http(case),
            "http" | "sse" => check_stream(case),
            other => vec![format!("unknown transport {other}")],
        };
        if !problems.is_empty() {
            failures.push(format!(
                "{}:\n    {}",
                case["id"].as_str().unwrap(),
                problems.join("\n    ")
            ));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} fixture cases fail:\n{}",
        failures.len(),
        cases.len(),
        failures.join("\n")
    );
}

/// The one finish chunk of a stream (panics unless there is exactly one).
pub fn finish_of(chunks: &[Chunk]) -> Finish {
    let f = finishes(chunks);
    assert_eq!(f.len(), 1, "exactly one finish in {chunks:?}");
    f[0].clone()
}

/// Defines the decoding helpers (`decode`, `decode_split[_with]`, `decode_200`,
/// `decode_all_ways[_with]`, `decoded`) over an adapter's `Decoder` type, in that adapter's `tests/common`. A macro because
/// each adapter has its own `Decoder` (same `new`/`feed`/`end` shape, no shared trait) and a test
/// crate may not implement a support trait for it.
#[macro_export]
macro_rules! decoding_helpers {
    ($decoder:ty) => {
        use $crate::types::{Chunk as __Chunk, ResponseHead as __ResponseHead};

        /// The head the decoder tests use unless a case has its own: 200, event stream.
        fn __sse_head() -> __ResponseHead {
            $crate::fixtures::head(200, &[("content-type", "text/event-stream")])
        }

        /// Feed `body` in one piece, then end.
        pub fn decode(body: &str) -> Vec<__Chunk> {
            decode_split(body.as_bytes(), &[body.len()])
        }

        /// Feed `body` cut at the given piece sizes (the rest in one last piece), then end.
        pub fn decode_split(body: &[u8], sizes: &[usize]) -> Vec<__Chunk> {
            decode_split_with(&__sse_head(), body, sizes)
        }

        /// `decode_split` with the given response head.
        pub fn decode_split_with(
            head: &__ResponseHead,
            body: &[u8],
            sizes: &[usize],
        ) -> Vec<__Chunk> {
            let mut decoder = <$decoder>::new(head.clone());
            let mut out =
                $crate::fixtures::feed_in_pieces(body, sizes, |piece| decoder.feed(piece));
            out.extend(decoder.end());
            // Where one read's text stops and the next's begins depends on the cutting; the text
            // said does not (a decoder joins adjacent text within a read, the host across reads).
            $crate::types::Chunk::join_adjacent_text(&mut out);
            out
        }

        /// A 200 body with the given content type, fed in one piece, then ended: the whole answer
        /// a server sends without SSE framing (a completion, an error, plain words).
        pub fn decode_200(body: &str, content_type: &str) -> Vec<__Chunk> {
            decode_split_with(
                &$crate::fixtures::head(200, &[("content-type", content_type)]),
                body.as_bytes(),
                &[body.len()],
            )
        }

        /// Every way of cutting the body the fixture test uses: whole, 1-byte pieces, random pieces.
        pub fn decode_all_ways(body: &str) -> Vec<(String, Vec<__Chunk>)> {
            decode_all_ways_with(&__sse_head(), body)
        }

        /// `decode_all_ways` with the given response head.
        pub fn decode_all_ways_with(
            head: &__ResponseHead,
            body: &str,
        ) -> Vec<(String, Vec<__Chunk>)> {
            let bytes = body.as_bytes();
            $crate::fixtures::cuttings(bytes.len())
                .into_iter()
                .map(|(how, sizes)| (how, decode_split_with(head, bytes, &sizes)))
                .collect()
        }

        /// Decode all ways, check they agree, return the chunks: piece boundaries must not change
        /// the result.
        pub fn decoded(body: &str) -> Vec<__Chunk> {
            let runs = decode_all_ways(body);
            let (_, first) = &runs[0];
            for (how, chunks) in &runs[1..] {
                assert_eq!(
                    chunks, first,
                    "decoding in {how} differs from decoding whole"
                );
            }
            first.clone()
        }
    };
}
