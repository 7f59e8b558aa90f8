//! The stream decoder: chat-completions SSE, in-band errors, Responses events, plain JSON bodies,
//! garbage. Every body is also decoded in 1-byte and random pieces: the result must not change.

mod common;

use common::{decode, decoded, failure_code, finish_of, finishes, sse, text_of, tool_deltas};
use dsh_guest_openai::types::{Chunk, Finish, FinishKind, ToolCallDelta, Usage, codes};

#[test]
fn text_reasoning_and_stop() {
    let body = sse(&[
        r#"{"id":"c1","object":"chat.completion.chunk","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning_content":"think "},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"reasoning":"more"},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"Hel"},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"lo ☃"},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ]);
    let chunks = decoded(&body);
    assert_eq!(
        chunks,
        vec![
            Chunk::Reasoning("think more".into()),
            Chunk::Text("Hello ☃".into()),
            Chunk::Finish(Finish {
                kind: FinishKind::Stop,
                reason: Some("stop".into()),
                failure: None
            }),
        ]
    );
}

#[test]
fn usage_after_finish_reason_comes_before_the_finish() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":null}],"usage":null}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":null}"#,
        r#"{"choices":[],"usage":{"prompt_tokens":10,"completion_tokens":5,"total_tokens":15,"prompt_tokens_details":{"cached_tokens":4},"completion_tokens_details":{"reasoning_tokens":2}}}"#,
    ]);
    let chunks = decoded(&body);
    let usage = Usage {
        input_tokens: Some(10),
        output_tokens: Some(5),
        cached_input_tokens: Some(4),
        reasoning_tokens: Some(2),
    };
    assert_eq!(chunks[1], Chunk::Usage(usage));
    assert!(matches!(&chunks[2], Chunk::Finish(f) if f.kind == FinishKind::Stop));
    assert_eq!(chunks.len(), 3);
}

#[test]
fn finish_without_done_is_emitted_at_end() {
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"x\"},\"finish_reason\":\"length\"}]}\n\n";
    let chunks = decoded(body);
    assert_eq!(finish_of(&chunks).kind, FinishKind::Length);
}

#[test]
fn every_finish_reason() {
    let cases = [
        ("stop", FinishKind::Stop),
        ("length", FinishKind::Length),
        ("tool_calls", FinishKind::ToolCalls),
        ("function_call", FinishKind::ToolCalls),
        ("content_filter", FinishKind::ContentFilter),
        ("eos", FinishKind::Stop),
        ("some_new_reason", FinishKind::Stop),
    ];
    for (reason, kind) in cases {
        let chunk = format!(
            r#"{{"choices":[{{"index":0,"delta":{{"content":"a"}},"finish_reason":"{reason}"}}]}}"#
        );
        let f = finish_of(&decoded(&sse(&[&chunk])));
        assert_eq!(f.kind, kind, "finish_reason {reason}");
        assert_eq!(f.reason.as_deref(), Some(reason), "the raw reason is kept");
        assert_eq!(f.failure, None);
    }
    // A provider-side error or cancellation carries a failure.
    let f = finish_of(&decoded(&sse(&[
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"error"}]}"#,
    ])));
    assert_eq!(
        (f.kind, f.failure.map(|x| x.code)),
        (FinishKind::Error, Some(codes::SERVER_ERROR))
    );
    let f = finish_of(&decoded(&sse(&[
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"abort"}]}"#,
    ])));
    assert_eq!(
        (f.kind, f.failure.map(|x| x.code)),
        (FinishKind::Aborted, Some(codes::SERVER_ERROR))
    );
}

#[test]
fn tool_call_deltas_across_chunks() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null,"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":""}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"{\"pa"}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":"th\":1}"}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":1,"id":"call_b","type":"function","function":{"name":"now","arguments":""}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    ]);
    let chunks = decoded(&body);
    let d = |index, id: Option<&str>, name: Option<&str>, args: &str| ToolCallDelta {
        index,
        id: id.map(Into::into),
        name: name.map(Into::into),
        arguments: args.into(),
        provider_data: None,
    };
    assert_eq!(
        tool_deltas(&chunks),
        vec![
            d(0, Some("call_a"), Some("read"), ""),
            d(0, None, None, "{\"pa"),
            d(0, None, None, "th\":1}"),
            d(1, Some("call_b"), Some("now"), ""),
        ]
    );
    assert_eq!(finish_of(&chunks).kind, FinishKind::ToolCalls);
    assert_eq!(text_of(&chunks), "");
}

#[test]
fn stop_after_tool_calls_is_a_tool_call_finish() {
    // Older Ollama: complete calls without `index`, then `finish_reason: stop`.
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"id":"c1","function":{"name":"a","arguments":"{}"}},{"id":"c2","function":{"name":"b","arguments":"{}"}}]},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ]);
    let chunks = decoded(&body);
    let indices: Vec<u32> = tool_deltas(&chunks).iter().map(|d| d.index).collect();
    assert_eq!(indices, vec![0, 1]);
    let f = finish_of(&chunks);
    assert_eq!(
        (f.kind, f.reason.as_deref()),
        (FinishKind::ToolCalls, Some("stop"))
    );
}

#[test]
fn in_band_errors() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":null}]}"#,
        r#"{"error":{"message":"Rate limit reached for gpt-4o","type":"requests","code":"rate_limit_exceeded"}}"#,
    ]);
    let chunks = decoded(&body);
    assert_eq!(text_of(&chunks), "partial");
    let f = finish_of(&chunks);
    let failure = f.failure.expect("an error finish carries a failure");
    assert_eq!(
        (f.kind, failure.code.as_str(), failure.status),
        (FinishKind::Error, "RATE_LIMITED", None)
    );
    assert_eq!(failure.message, "Rate limit reached for gpt-4o");

    // OpenRouter: the status rides in `code`; the chunk also says finish_reason error.
    let body = sse(&[
        r#"{"id":"gen-1","choices":[{"index":0,"delta":{"content":""},"finish_reason":"error"}],"error":{"code":502,"message":"Provider returned error"}}"#,
    ]);
    let failure = finish_of(&decoded(&body)).failure.unwrap();
    assert_eq!(
        (failure.code.as_str(), failure.status),
        ("SERVER_ERROR", Some(502))
    );

    // vLLM's flat error object, and an `event: error` with a text payload.
    let failure = finish_of(&decoded(&sse(&[r#"{"object":"error","message":"This model's maximum context length is 4096 tokens.","type":"BadRequestError","code":400}"#]))).failure.unwrap();
    assert_eq!(
        (failure.code.as_str(), failure.status),
        ("CONTEXT_WINDOW_EXCEEDED", Some(400))
    );
    let failure = finish_of(&decoded("event: error\ndata: upstream overloaded\n\n"))
        .failure
        .unwrap();
    assert_eq!(failure.code, "OVERLOADED");
}

#[test]
fn in_band_error_takes_the_request_id_of_the_stream() {
    let mut decoder =
        dsh_guest_openai::Decoder::new(common::head(200, &[("x-request-id", "req_stream_1")]));
    let mut chunks = decoder.feed(br#"data: {"error":{"message":"boom","type":"server_error"}}"#);
    chunks.extend(decoder.feed(b"\n\n"));
    chunks.extend(decoder.end());
    let failure = finish_of(&chunks).failure.unwrap();
    assert_eq!(failure.request_id.as_deref(), Some("req_stream_1"));
    assert_eq!(failure.provider_retry_after_ms, None);
}

#[test]
fn responses_api_events() {
    let body = "event: response.output_text.delta\ndata: {\"type\":\"response.output_text.delta\",\"delta\":\"Hi\"}\n\n\
                event: response.completed\ndata: {\"type\":\"response.completed\",\"response\":{\"status\":\"completed\",\"usage\":{\"input_tokens\":3,\"output_tokens\":1,\"input_tokens_details\":{\"cached_tokens\":0},\"output_tokens_details\":{\"reasoning_tokens\":0}}}}\n\n";
    let chunks = decoded(body);
    assert_eq!(chunks[0], Chunk::Text("Hi".into()));
    assert_eq!(
        chunks[1],
        Chunk::Usage(Usage {
            input_tokens: Some(3),
            output_tokens: Some(1),
            cached_input_tokens: Some(0),
            reasoning_tokens: Some(0)
        })
    );
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);

    // An `error` event then `response.failed`: one failure.
    let body = "data: {\"type\":\"error\",\"code\":\"server_error\",\"message\":\"oops\"}\n\n\
                data: {\"type\":\"response.failed\",\"response\":{\"error\":{\"code\":\"rate_limit_exceeded\",\"message\":\"slow down\"}}}\n\n";
    let failure = finish_of(&decoded(body)).failure.unwrap();
    assert_eq!(
        (failure.code.as_str(), failure.message.as_str()),
        ("SERVER_ERROR", "oops")
    );
}

#[test]
fn only_done_is_an_empty_stop_and_nothing_is_truncated() {
    let f = finish_of(&decoded("data: [DONE]\n\n"));
    assert_eq!((f.kind, f.reason), (FinishKind::Stop, None));
    assert!(
        finishes(&decoded("")).is_empty(),
        "an empty body: the host reports STREAM_TRUNCATED"
    );
    assert!(finishes(&decoded(": keep-alive\n\n")).is_empty());
    let cut = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"a\"},\"finish_reason\":null}]}\n\ndata: {\"choi";
    let chunks = decoded(cut);
    assert_eq!(text_of(&chunks), "a");
    assert!(finishes(&chunks).is_empty());
}

#[test]
fn nothing_after_the_finish() {
    let body =
        "data: [DONE]\n\ndata: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"late\"}}]}\n\n";
    let chunks = decoded(body);
    assert_eq!(chunks.len(), 1);
}

#[test]
fn non_streaming_json_body() {
    let body = r#"{"id":"chatcmpl-1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello!","tool_calls":[{"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"p\":1}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":9,"completion_tokens":3}}"#;
    let chunks = decoded(body);
    assert_eq!(chunks[0], Chunk::Text("Hello!".into()));
    assert_eq!(
        tool_deltas(&chunks),
        vec![ToolCallDelta {
            index: 0,
            id: Some("call_1".into()),
            name: Some("read".into()),
            arguments: "{\"p\":1}".into(),
            provider_data: None,
        }]
    );
    assert_eq!(
        chunks[2],
        Chunk::Usage(Usage {
            input_tokens: Some(9),
            output_tokens: Some(3),
            ..Usage::default()
        })
    );
    assert_eq!(finish_of(&chunks).kind, FinishKind::ToolCalls);

    // Null content: no text at all, a plain stop (the host calls that EMPTY_RESPONSE).
    let chunks = decoded(
        r#"{"choices":[{"index":0,"message":{"role":"assistant","content":null},"finish_reason":"stop"}]}"#,
    );
    assert_eq!(chunks.len(), 1);
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);

    // An error object in a 200 JSON body.
    let chunks = decoded(
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}"#,
    );
    assert_eq!(finish_of(&chunks).failure.unwrap().code, "QUOTA_EXCEEDED");
}

#[test]
fn garbage_is_an_unparseable_server_error() {
    for body in [
        "<html><head><title>Bad gateway</title></head><body>oops</body></html>",
        "hello world\nnot json",
        "{\"truncated\": ",
    ] {
        let f = finish_of(&decoded(body));
        let failure = f.failure.expect("a failure");
        assert_eq!(
            (f.kind, failure.code.as_str()),
            (FinishKind::Error, "SERVER_ERROR"),
            "{body}"
        );
        assert!(
            failure.message.contains("unparseable"),
            "{}",
            failure.message
        );
    }
    // JSON, but neither a completion nor an error: said so, not called "neither ... nor JSON".
    for body in ["[1, 2, 3]", r#"{"result":{"text":"hi"},"success":true}"#] {
        let f = finish_of(&decoded(body));
        let failure = f.failure.expect("a failure");
        assert_eq!(failure.code.as_str(), "SERVER_ERROR", "{body}");
        assert!(
            failure
                .message
                .contains("a JSON body that is neither a chat completion nor an error"),
            "{}",
            failure.message
        );
    }
}

#[test]
fn an_error_in_an_envelope_of_its_own_in_a_2xx_body_is_classified() {
    assert_failure_codes(&[
        (
            r#"{"error_code":17,"error_msg":"Open api daily request limit reached"}"#,
            "QUOTA_EXCEEDED",
        ),
        (
            r#"{"error_code":110,"error_msg":"Access token invalid or no longer valid"}"#,
            "AUTH",
        ),
        (
            r#"{"error_code":336003,"error_msg":"the length of messages must be an odd number","id":"as-1"}"#,
            "INVALID_REQUEST",
        ),
        (
            r#"{"code":500,"message":"upstream crashed"}"#,
            "SERVER_ERROR",
        ),
    ]);
    let long = "x".repeat(10_000);
    let failure = finish_of(&decode(&long)).failure.unwrap();
    assert!(failure.message.len() < 600, "the quote is truncated");
    // Arbitrary bytes never panic.
    let bytes: Vec<u8> = (0..=255u8).cycle().take(4096).collect();
    let mut decoder = dsh_guest_openai::Decoder::new(common::head(200, &[]));
    for piece in bytes.chunks(13) {
        decoder.feed(piece);
    }
    decoder.end();
}

#[test]
fn done_without_a_finish_reason_after_a_tool_call_is_a_truncated_stream() {
    // tests/fixtures/tool-arguments.json, truncated-stream-partial-arguments: the upstream stream
    // closed mid-arguments and a proxy wrote `[DONE]` anyway. The call must never run.
    let body = "data: {\"choices\":[{\"index\":0,\"delta\":{\"role\":\"assistant\",\"content\":null},\"finish_reason\":null}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"id\":\"call_1\",\"type\":\"function\",\"function\":{\"name\":\"read\",\"arguments\":\"\"}}]},\"finish_reason\":null}]}\n\n\
                data: {\"choices\":[{\"index\":0,\"delta\":{\"tool_calls\":[{\"index\":0,\"function\":{\"arguments\":\"{\\\"path\\\": \\\"src/ma\"}}]},\"finish_reason\":null}]}\n\n\
                data: [DONE]\n\n";
    let chunks = decoded(body);
    assert_eq!(tool_deltas(&chunks).len(), 2);
    let f = finish_of(&chunks);
    assert_eq!(f.kind, FinishKind::Error);
    assert_eq!(f.failure.unwrap().code, "STREAM_TRUNCATED");

    // With its finish_reason, the same stream is a tool call.
    let complete = body.replace(
        "data: [DONE]",
        "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"tool_calls\"}]}\n\ndata: [DONE]",
    );
    assert_eq!(finish_of(&decoded(&complete)).kind, FinishKind::ToolCalls);
}

/// Gemini's OpenAI-compatible endpoint attaches a thought signature to a call (`extra_content`),
/// and refuses the next request if it does not come back: the decoder hands it to the host as the
/// call's provider data, whole, in the adapter's own envelope, and the fast path leaves such a
/// chunk to the `Value` path so that it is never lost.
#[test]
fn a_calls_extra_content_is_its_provider_data() {
    let with_signature = r#"{"choices":[{"index":0,"delta":{"role":"assistant","tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{}"},"extra_content":{"google":{"thought_signature":"c2ln"}}}]},"finish_reason":null}]}"#;
    assert!(!dsh_guest_openai::decode::fast_path_takes(with_signature));
    let chunks = decoded(&sse(&[
        with_signature,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"tool_calls"}]}"#,
    ]));
    let deltas = tool_deltas(&chunks);
    assert_eq!(deltas.len(), 1);
    let data: serde_json::Value =
        serde_json::from_str(deltas[0].provider_data.as_deref().expect("provider data")).unwrap();
    assert_eq!(
        data,
        serde_json::json!({"openai": {"extra_content": {"google": {"thought_signature": "c2ln"}}}})
    );
    // A call without it has none.
    let chunks = decoded(&sse(&[
        r#"{"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"id":"call_a","type":"function","function":{"name":"read","arguments":"{}"}}]},"finish_reason":"tool_calls"}]}"#,
    ]));
    assert_eq!(tool_deltas(&chunks)[0].provider_data, None);
}

#[test]
fn an_error_one_object_down_in_a_2xx_body_is_classified() {
    assert_failure_codes(&[
        (
            r#"{"header":{"code":11202,"message":"AppIdQpsOverFlowError","sid":"cht1","status":2}}"#,
            "RATE_LIMITED",
        ),
        (
            r#"{"header":{"code":10003,"message":"ClientMsgError: invalid model domain","sid":"cht2","status":2}}"#,
            "INVALID_REQUEST",
        ),
    ]);
    // An object one level down without a message is no error.
    let f = finish_of(&decoded(r#"{"result":{"code":0,"data":"x"}}"#));
    assert!(
        f.failure
            .unwrap()
            .message
            .contains("neither a chat completion nor an error")
    );
}

#[test]
fn a_gateways_refusal_written_as_a_completion_with_no_tokens_counted_is_a_content_filter() {
    let completion = |content: &str, completion_tokens: u32| {
        format!(
            r#"{{"id":"x","object":"chat.completion","model":"gpt-4o","choices":[{{"index":0,"message":{{"role":"assistant","content":"{content}"}},"finish_reason":"stop"}}],"usage":{{"prompt_tokens":0,"completion_tokens":{completion_tokens},"total_tokens":{completion_tokens}}}}}"#
        )
    };
    // No model wrote it (not one output token), and its words are a guard's refusal.
    for content in [
        "Request blocked by Lakera Guard",
        "Your prompt contains prohibited content",
    ] {
        let f = finish_of(&decoded(&completion(content, 0)));
        let failure = f.failure.expect("a failure");
        assert_eq!(
            (f.kind, failure.code.as_str()),
            (FinishKind::Error, "CONTENT_FILTER"),
            "{content}"
        );
        assert!(failure.message.contains(content), "{}", failure.message);
    }
    // A model's answer that talks of a guard (tokens were counted) is delivered, and so is a
    // server's answer that counts nothing but refuses nothing.
    for (content, tokens) in [("Request blocked by Lakera Guard", 7), ("Hello there", 0)] {
        let chunks = decoded(&completion(content, tokens));
        assert_eq!(text_of(&chunks), content);
        assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);
    }
}

#[test]
fn a_2xx_body_that_says_it_failed_is_classified_by_its_traceback() {
    assert_failure_codes(&[
        (
            r#"{"ok": false, "traceback": "Traceback (most recent call last):\n  File \"api.py\", line 29, in generate\n    raise ValueError(f\"We do not provide public API for {model_name} due to license restrictions\")\nValueError: We do not provide public API for meta-llama/Llama-2-70b due to license restrictions\n"}"#,
            "INVALID_REQUEST",
        ),
        (
            r#"{"ok": false, "traceback": "Traceback (most recent call last):\n  File \"api.py\", line 27, in generate\n    model, tokenizer = models[model_name]\nKeyError: 'gpt-4'\n"}"#,
            "INVALID_REQUEST",
        ),
        // A crash that names no request fault is the server's.
        (
            r#"{"ok": false, "traceback": "Traceback (most recent call last):\n  File \"api.py\", line 40\nRuntimeError: CUDA error: an illegal memory access was encountered\n"}"#,
            "SERVER_ERROR",
        ),
        (
            r#"{"success": false, "message": "Invalid API key"}"#,
            "AUTH",
        ),
    ]);
    // A body that says it succeeded is still no completion.
    let f = finish_of(&decoded(r#"{"ok": true, "outputs": "hi"}"#));
    assert!(
        f.failure
            .unwrap()
            .message
            .contains("neither a chat completion nor an error")
    );
}

/// Each `(body, code)` decodes to an error finish whose failure is `code`.
fn assert_failure_codes(cases: &[(&str, &str)]) {
    for (body, want) in cases {
        let f = finish_of(&decoded(body));
        let failure = f.failure.expect("a failure");
        assert_eq!(
            (f.kind, failure.code.as_str()),
            (FinishKind::Error, *want),
            "{body}"
        );
    }
}

#[test]
fn an_in_band_error_saying_what_the_request_must_contain_is_an_invalid_request() {
    assert_failure_codes(&[(
        r#"{"error":"Job input must contain one of: openai_input (+openai_route), route (+body), or prompt/messages."}"#,
        "INVALID_REQUEST",
    )]);
}

#[test]
fn a_streamed_error_whose_label_says_the_quota_is_spent_is_quota() {
    assert_failure_codes(&[(
        "data: {\"error\": {\"message\": \"Request exceeds quota for all credentials\", \"type\": \"quota_exhausted\"}}\n\ndata: [DONE]\n\n",
        "QUOTA_EXCEEDED",
    )]);
}

#[test]
fn a_guards_refusal_in_plain_words_under_a_200_is_a_content_filter() {
    for (body, content_type) in [
        ("Rejected by guardrails moderation", "text/plain"),
        (
            r#""Violated policies: toxicity, please check your input.""#,
            "application/json",
        ),
    ] {
        let f = finish_of(&common::decode_200(body, content_type));
        let failure = f.failure.expect("a failure");
        assert_eq!(failure.code.as_str(), "CONTENT_FILTER", "{body}");
    }
    // Other plain words, and an HTML page that names moderation, stay an unparseable body.
    for (body, content_type) in [
        ("Hello from the proxy", "text/plain"),
        (r#""ok""#, "application/json"),
        (
            "<html><head><title>Moderation</title></head><body>guardrails moderation rejected</body></html>",
            "text/html",
        ),
    ] {
        let f = finish_of(&common::decode_200(body, content_type));
        let failure = f.failure.expect("a failure");
        assert_eq!(failure.code.as_str(), "SERVER_ERROR", "{body}");
        assert!(
            failure.message.contains("neither"),
            "{body}: {}",
            failure.message
        );
    }
}

#[test]
fn an_in_band_error_saying_what_the_request_must_have_is_an_invalid_request() {
    assert_failure_codes(&[
        (
            r#"{"error":{"message":"Flow must have a ChatInput component to be compatible with OpenAI Responses API"}}"#,
            "INVALID_REQUEST",
        ),
        (
            r#"{"error":{"message":"bedrock is experiencing high connection volume and cannot process your request right now. This typically happens when there are too many simultaneous requests to the AI model."}}"#,
            "OVERLOADED",
        ),
    ]);
}

#[test]
fn a_200_body_marked_failed_by_its_status_word_is_an_error() {
    // chatgpt-web's envelope: `status` "Fail" (or "Unauthorized") beside a message.
    assert_failure_codes(&[
        (
            r#"{"status":"Unauthorized","message":"Error: 无访问权限 | No access rights","data":null}"#,
            "AUTH",
        ),
        (
            r#"{"message":"[OpenAI] 提供错误的API密钥 | Incorrect API key provided","data":null,"status":"Fail"}"#,
            "AUTH",
        ),
        (
            r#"{"message":"[OpenAI] 服务器繁忙，请稍后再试 | Server is busy, please try again later","data":null,"status":"Fail"}"#,
            "OVERLOADED",
        ),
        (
            r#"{"message":"[OpenAI] 网关超时 | Gateway Time-out","data":null,"status":"Fail"}"#,
            "TIMEOUT",
        ),
        (
            r#"{"status":"Fail","message":"Too many request from this IP in 1 hour","data":null}"#,
            "QUOTA_EXCEEDED",
        ),
    ]);
    // A "Success" status is no failure: the completion inside the envelope is the answer.
    let chunks = common::decode_200(
        r#"{"status":"Success","message":"ok","data":{"choices":[{"message":{"content":"hi"}}]}}"#,
        "application/json",
    );
    assert!(finish_of(&chunks).failure.is_none(), "{chunks:?}");
    assert_eq!(text_of(&chunks), "hi");
}

#[test]
fn plain_words_under_a_200_that_name_a_meaning_are_read() {
    // A proxy's abort as a bare JSON string is a time-out; words with no meaning stay unparseable.
    let failure = finish_of(&common::decode_200(
        r#""AbortError: This operation was aborted""#,
        "application/json",
    ))
    .failure
    .expect("a failure");
    assert_eq!(failure.code.as_str(), "TIMEOUT");
    let failure = finish_of(&common::decode_200("invalid something", "text/plain"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
    assert!(failure.message.contains("neither"), "{}", failure.message);
}

#[test]
fn in_band_validation_in_broken_english_empty_candidates_and_other_message_keys() {
    assert_failure_codes(&[
        (
            r#"{"code":2002,"msg":"fail, top_k should less than or equal to 100"}"#,
            "INVALID_REQUEST",
        ),
        (
            r#"{"code":2002,"msg":"fail, kb_id must start with 'KB'"}"#,
            "INVALID_REQUEST",
        ),
        (
            r#"{"error":{"message":"Google AI Studio Candidate text empty"}}"#,
            "EMPTY_RESPONSE",
        ),
        (
            r#"{"status": "error", "human_readable_message": "timeout", "caps_version": 1718000000}"#,
            "TIMEOUT",
        ),
    ]);
}

#[test]
fn deepsparses_capacity_finish_is_a_length_finish() {
    let body = r#"{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"capacity"}]}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(finish_of(&chunks).kind, FinishKind::Length);
}

#[test]
fn status_code_envelopes_and_completions_inside_a_gateways_envelope() {
    // Bisheng: a status code of its own beside a message, under a 200 or as an SSE error event.
    assert_failure_codes(&[
        (
            r#"{"status_code":403,"status_message":"No permission to operate","data":{"exception":"No permission to operate"}}"#,
            "AUTH",
        ),
        (
            r#"{"status_code":10400,"status_message":"Assistant does not exist","data":{"exception":"Assistant does not exist"}}"#,
            "INVALID_REQUEST",
        ),
        (
            "event: error\ndata: {\"status_code\": 11030, \"status_message\": \"Your Idea has run out of uses, please use the new invite code to activate the Idea feature\", \"data\": {}}\n\n",
            "QUOTA_EXCEEDED",
        ),
    ]);
    // A success status code is no failure.
    let failure = finish_of(&common::decode_200(
        r#"{"status_code":200,"status_message":"SUCCESS","data":{"x":1}}"#,
        "application/json",
    ))
    .failure
    .expect("a failure");
    assert!(failure.message.contains("neither"), "{}", failure.message);
    // SAP AI Core's orchestration answer: the completion is `final_result`.
    let sap = r#"{"request_id":"r1","intermediate_results":{"output_filtering":{"message":"1 of 1 choices failed the output filter."},"llm":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"raw"},"finish_reason":"stop"}]}},"final_result":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":""},"finish_reason":"content_filter"}]}}"#;
    assert_eq!(
        finish_of(&common::decode_200(sap, "application/json")).kind,
        FinishKind::ContentFilter
    );
    let sap_ok = r#"{"request_id":"r2","final_result":{"object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"Hello"},"finish_reason":"stop"}]}}"#;
    let chunks = common::decode_200(sap_ok, "application/json");
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);
    assert_eq!(text_of(&chunks), "Hello");
}

#[test]
fn an_ai_sdk_ui_stream_error_part_is_read_by_its_error_text() {
    assert_failure_codes(&[(
        "data: {\"type\":\"start\"}\n\ndata: {\"type\":\"error\",\"errorText\":\"{\\\"error\\\":\\\"This conversation is too long for the selected model. Start a new chat or shorten your message.\\\",\\\"code\\\":\\\"context_length\\\"}\"}\n\n",
        "CONTEXT_WINDOW_EXCEEDED",
    )]);
}

#[test]
fn a_gateways_own_error_in_a_completions_content_is_read() {
    // A zero-token completion whose short text names a meaning (busy-llm-worker).
    let busy = r#"{"id":"c1","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"服务器繁忙，请稍后再试。"},"finish_reason":"stop"}],"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}"#;
    let failure = finish_of(&common::decode_200(busy, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "OVERLOADED");
    // ... but a model's answer with tokens counted is delivered, whatever it says.
    let answer = r#"{"id":"c2","object":"chat.completion","choices":[{"index":0,"message":{"role":"assistant","content":"The server is busy, so try again later."},"finish_reason":"stop"}],"usage":{"prompt_tokens":5,"completion_tokens":9,"total_tokens":14}}"#;
    let chunks = common::decode_200(answer, "application/json");
    assert!(finish_of(&chunks).failure.is_none(), "{chunks:?}");
    // An error finish with words beside it: the words say which error (Thor).
    let thor = r#"{"choices":[{"delta":{"role":"assistant","content":"对话模型请求限流"},"index":0,"finish_reason":"error"}],"created":0}"#;
    let failure = finish_of(&decode(&sse(&[thor])))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "RATE_LIMITED");
    // ... and one without words stays a server error.
    let bare = r#"{"choices":[{"delta":{},"index":0,"finish_reason":"error"}]}"#;
    let failure = finish_of(&decode(&sse(&[bare])))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
}

#[test]
fn a_zero_token_completion_headed_as_an_error_report_is_that_error() {
    // khanon's oai-reverse-proxy: a long Markdown report, with the upstream's error inside.
    let report = "### **Proxy error (HTTP 400 Bad Request)**\n\nThe proxy encountered an error while trying to send your prompt to the API. Further details are provided below.\n\n----\n\n*Assigned key has hit its spending limit. Your credit balance is too low to access the Anthropic API. Please go to Plans & Billing to upgrade or purchase credits.*\n\n```\n{\"error\": {\"type\": \"invalid_request_error\"}}\n```\n\n<!-- oai-proxy-error -->";
    let body = serde_json::json!({
        "id": "error-1", "object": "chat.completion",
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        "choices": [{"index": 0, "message": {"role": "assistant", "content": report}, "finish_reason": "stop"}]
    })
    .to_string();
    let failure = finish_of(&common::decode_200(&body, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "QUOTA_EXCEEDED");
    // A long zero-token answer that is no error report is delivered.
    let answer = serde_json::json!({
        "id": "c1", "object": "chat.completion",
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        "choices": [{"index": 0, "message": {"role": "assistant", "content": format!("Here is a story.\n{}", "The rate limit was hit. ".repeat(20))}, "finish_reason": "stop"}]
    })
    .to_string();
    assert!(
        finish_of(&common::decode_200(&answer, "application/json"))
            .failure
            .is_none()
    );
}

#[test]
fn an_error_finish_without_words_is_named_by_the_next_error_finish() {
    // Jina DeepSearch: `</think>` closes the thinking with finish_reason "error", and the next
    // chunk carries the error's words, also finished by "error".
    let think = r#"{"choices":[{"index":0,"delta":{"content":"</think>","type":"think"},"finish_reason":"error"}]}"#;
    let words = r#"{"choices":[{"index":0,"delta":{"content":"HTTP Error 429","type":"error"},"finish_reason":"error"}]}"#;
    let chunks = decode(&sse(&[think, words]));
    let failure = finish_of(&chunks).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "RATE_LIMITED", "{chunks:?}");
    // The second chunk's words are the error's, never the answer's.
    assert!(
        !chunks
            .iter()
            .any(|c| matches!(c, Chunk::Text(t) if t.contains("HTTP Error"))),
        "{chunks:?}"
    );
    // An error event after it names the failure too.
    let error =
        r#"{"error":{"message":"You exceeded your current quota","type":"insufficient_quota"}}"#;
    let failure = finish_of(&decode(&sse(&[think, error])))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "QUOTA_EXCEEDED");
    // Anything else after it, or the end, leaves the bare server error, and only one finish.
    for next in [
        vec![
            think,
            r#"{"choices":[{"index":0,"delta":{"content":"more"},"finish_reason":null}]}"#,
        ],
        vec![think],
    ] {
        let chunks = decode(&sse(&next));
        assert_eq!(
            chunks
                .iter()
                .filter(|c| matches!(c, Chunk::Finish(_)))
                .count(),
            1,
            "{chunks:?}"
        );
        assert_eq!(
            finish_of(&chunks).failure.expect("a failure").code.as_str(),
            "SERVER_ERROR"
        );
    }
}

#[test]
fn an_exception_finish_and_a_workers_error_code_are_in_band_errors() {
    // PowerServe: the error's words as the content of a chunk finished by "exception".
    let exception = r#"{"choices":[{"delta":{"content":"model folder does not exist","role":"assistant"},"finish_reason":"exception","index":0}],"object":"chat.completion.chunk"}"#;
    let f = finish_of(&decode(&sse(&[exception, "[DONE]"])));
    assert_eq!(f.kind, FinishKind::Error);
    assert_eq!(
        f.failure.expect("a failure").code.as_str(),
        "INVALID_REQUEST"
    );
    // FastChat's worker protocol, as DB-GPT streams it: a code other than 0 beside the text.
    let worker = r#"{"error_code": 1, "text": "**GPU OutOfMemory, Please Refresh.**", "finish_reason": null}"#;
    let f = finish_of(&decode(&sse(&[worker, "[DONE]"])));
    assert_eq!(f.kind, FinishKind::Error);
    let failure = f.failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
    assert!(
        failure.message.contains("GPU OutOfMemory"),
        "{}",
        failure.message
    );
}

#[test]
fn a_short_answer_that_is_an_error_report_is_that_error() {
    // Open WebUI's pipelines server streams the upstream's error as the answer.
    let chunk = |text: &str| {
        serde_json::json!({"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": null}]}).to_string()
    };
    let stop = r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#;
    let body = sse(&[
        &chunk("Error: 529 - "),
        &chunk(r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#),
        stop,
    ]);
    let f = finish_of(&decoded(&body));
    assert_eq!(f.kind, FinishKind::Error);
    assert_eq!(f.failure.expect("a failure").code.as_str(), "OVERLOADED");
    // An answer that opens with "Error:" but names no failure is an answer ...
    let f = finish_of(&decoded(&sse(&[
        &chunk("Error: division by zero on line 3."),
        stop,
    ])));
    assert_eq!((f.kind, f.failure), (FinishKind::Stop, None));
    // ... and so is a long one, whatever it says.
    let long = format!(
        "Error: rate limit exceeded. {}",
        "Here is why that happens. ".repeat(60)
    );
    let f = finish_of(&decoded(&sse(&[&chunk(&long), stop])));
    assert_eq!((f.kind, f.failure), (FinishKind::Stop, None));
}

#[test]
fn an_apps_answer_marked_as_an_error_is_read_for_its_words() {
    // Home Assistant's conversation answer: the words deep inside, the mark one level down.
    let ha = r#"{"response":{"speech":{"plain":{"speech":"Sorry, I had a problem talking to OpenAI: You exceeded your current quota, please check your plan and billing details.","extra_data":null}},"card":{},"language":"en","response_type":"error","data":{"code":"unknown"}},"conversation_id":null}"#;
    let failure = finish_of(&common::decode_200(ha, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "QUOTA_EXCEEDED");
    // A Moodle plugin: the words in a JSON string, the status as `code`.
    let moodle = r#"{"code": 403, "string": "error", "result": "{"message": "Your tenant manager has blocked access to the AI tools for you"}"}"#;
    let failure = finish_of(&common::decode_200(moodle, "application/json"))
        .failure
        .expect("a failure");
    assert_eq!(failure.code.as_str(), "AUTH");
    assert!(
        failure.message.contains("tenant manager"),
        "{}",
        failure.message
    );
    // One string and nothing else is read only when its words name a failure.
    let f = finish_of(&common::decode_200(
        r#"{"response":"Chatbot not installed or supported"}"#,
        "application/json",
    ));
    assert_eq!(
        f.failure.expect("a failure").code.as_str(),
        "INVALID_REQUEST"
    );
}

#[test]
fn other_error_event_forms_are_errors() {
    // AIDeepin: `event:[ERROR]` with plain words.
    let f = finish_of(&decoded("event:[ERROR]\ndata:Too many requests\n\n"));
    assert_eq!(f.failure.expect("a failure").code.as_str(), "RATE_LIMITED");
    // Kernel Memory: an answer that found nothing, and why.
    let body = sse(&[
        r#"{"streamState":"reset","noResult":true,"noResultReason":"Content moderation","text":"Sorry."}"#,
    ]);
    let f = finish_of(&decoded(&body));
    assert_eq!(
        f.failure.expect("a failure").code.as_str(),
        "CONTENT_FILTER"
    );
}

#[test]
fn an_error_event_is_an_error_whatever_its_datas_type() {
    // AFFiNE's copilot: `event: error` whose data carries a `type` of its own.
    let body = "event: error\ndata: {\"status\":500,\"type\":\"INTERNAL_SERVER_ERROR\",\"name\":\"NO_COPILOT_PROVIDER_AVAILABLE\",\"message\":\"No copilot provider available: MiniMax-M2.1\"}\n\n";
    let failure = finish_of(&decoded(body)).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "INVALID_REQUEST");
    assert!(
        failure.message.contains("No copilot provider available"),
        "{}",
        failure.message
    );
}

#[test]
fn a_status_event_that_says_it_failed_is_an_in_band_error() {
    // Hugging Face chat-ui's JSON lines: a status update whose status is "error".
    let body = "{\"type\":\"status\",\"status\":\"started\"}\n{\"type\":\"status\",\"status\":\"error\",\"message\":\"No output was generated. Something went wrong.\"}\n";
    let chunks = common::decode_200(body, "application/jsonl");
    let failure = finish_of(&chunks).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "EMPTY_RESPONSE", "{chunks:?}");
    // A status that did not fail is no error: nothing, as for any unknown event.
    assert!(
        common::decode_200(
            "{\"type\":\"status\",\"status\":\"started\"}\n",
            "application/jsonl"
        )
        .iter()
        .all(|c| !matches!(c, Chunk::Finish(f) if f.failure.is_some()))
    );
}

#[test]
fn a_completion_with_no_choices_is_an_empty_response() {
    let body = r#"{"choices":[],"id":"","created":0,"model":"","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(
        finish_of(&chunks).failure.expect("a failure").code.as_str(),
        "EMPTY_RESPONSE",
        "{chunks:?}"
    );
}

#[test]
fn a_body_declared_empty_is_an_empty_response_and_any_other_empty_body_is_left_to_the_host() {
    let declared = common::head(200, &[("content-length", "0")]);
    let chunks = common::decode_split_with(&declared, b"", &[0]);
    assert_eq!(
        finish_of(&chunks).failure.expect("a failure").code.as_str(),
        "EMPTY_RESPONSE",
        "{chunks:?}"
    );
    // Without the length, nothing says the body was complete: no chunk, and the host reports
    // the stream truncated.
    assert!(common::decode_200("", "text/event-stream").is_empty());
}

#[test]
fn an_empty_json_document_is_an_empty_response() {
    for body in ["{}", "[]", "null", " {} \n"] {
        let chunks = common::decode_200(body, "application/json");
        let failure = finish_of(&chunks).failure.expect("a failure");
        assert_eq!(
            failure.code.as_str(),
            "EMPTY_RESPONSE",
            "{body:?}: {chunks:?}"
        );
    }
}

#[test]
fn a_platforms_own_error_events_are_in_band_errors() {
    let code_of = |body: &str| {
        let chunks = decoded(body);
        finish_of(&chunks)
            .failure
            .unwrap_or_else(|| panic!("a failure for {body:?}: {chunks:?}"))
            .code
            .as_str()
            .to_string()
    };
    // GeekAI: `{"type": "error"}`, its words under `body` (the user's compute credit spent).
    assert_eq!(
        code_of(
            "event:message\ndata:{\"body\":\"您的算力不足，请购买算力。\",\"type\":\"error\"}\n\n"
        ),
        "QUOTA_EXCEEDED"
    );
    // JeecgBoot: the data names itself an error event, its words one level down.
    assert_eq!(
        code_of(&sse(&[
            r#"{"conversationId":"1","data":{"message":"大语言模型账号余额不足!","success":false},"event":"ERROR","requestId":"r1"}"#
        ])),
        "QUOTA_EXCEEDED"
    );
    // yudao: an error envelope of its own as the event, its words naming no meaning.
    assert_eq!(
        code_of(&sse(&[r#"{"code":1040004001,"msg":"对话生成异常!"}"#])),
        "SERVER_ERROR"
    );
}

#[test]
fn an_envelope_whose_code_says_success_is_no_error_event() {
    let body = sse(&[
        r#"{"code":0,"msg":"ok","data":{"id":"1"}}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}"#,
    ]);
    let chunks = decoded(&body);
    assert_eq!(text_of(&chunks), "hi");
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop);
}

#[test]
fn a_stream_of_nothing_readable_ends_as_the_failure_its_words_name() {
    // ruoyi-ai: plain-text data in place of an answer, its balance spent.
    let chunks = decoded("data:余额不足，无法使用AI服务，请充值后再试\n\n");
    assert_eq!(failure_code(&chunks), "QUOTA_EXCEEDED", "{chunks:?}");
    // JeecgBoot: its own message events, saying the servers are crowded.
    let body = sse(&[
        r#"{"conversationId":"1","data":{"message":"\n当前用户较多，排队中，请稍后再试！"},"event":"MESSAGE","requestId":"r1"}"#,
        r#"{"conversationId":"1","event":"MESSAGE_END","requestId":"r1"}"#,
    ]);
    assert_eq!(failure_code(&decoded(&body)), "OVERLOADED");
}

#[test]
fn unreadable_events_are_left_to_the_host_when_they_name_nothing_or_the_stream_gave_an_answer() {
    // Words that name no failure: nothing, and the host reports the stream truncated.
    assert!(decoded("data:hello there\n\n").is_empty());
    // An answer was read: a notice after it is not the stream's failure, and without a finish
    // the host still says truncated.
    let body = format!(
        "{}data:rate limit exceeded\n\n",
        sse(&[r#"{"choices":[{"index":0,"delta":{"content":"partial"},"finish_reason":null}]}"#])
            .trim_end_matches("data: [DONE]\n\n")
    );
    let chunks = decoded(&body);
    assert_eq!(chunks, vec![Chunk::Text("partial".into())], "{body:?}");
    // Words past a report's length are an answer in a shape not read, not a report.
    let long = format!("data:rate limit exceeded {}\n\n", "word ".repeat(300));
    assert!(decoded(&long).is_empty());
}

#[test]
fn an_ai_sdk_data_stream_error_part_is_the_failure() {
    // bolt.diy's chat route: progress data, then the error part.
    let body = "2:[{\"type\":\"progress\",\"label\":\"response\",\"status\":\"in-progress\",\"order\":1,\"message\":\"Generating Response\"}]\n3:\"Custom error: Invalid model selected. Please check that the model name is correct and available.\"\n";
    let chunks = common::decode_200(body, "text/event-stream; charset=utf-8");
    assert_eq!(failure_code(&chunks), "INVALID_REQUEST", "{chunks:?}");
    // An error part is an error even when its words name no meaning: a server error.
    let chunks = common::decode_200("0:\"Hel\"\n3:\"Something broke\"\n", "text/plain");
    let failure = finish_of(&chunks).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
    assert!(
        failure.message.contains("Something broke"),
        "{}",
        failure.message
    );
    // A line in no part's form: not the protocol, and its error part is not read as one.
    let chunks = common::decode_200("Hel\n3:\"Something broke\"\n", "text/plain");
    let failure = finish_of(&chunks).failure.expect("a failure");
    assert!(
        failure.message.contains("unparseable"),
        "{}",
        failure.message
    );
}

#[test]
fn a_boolean_status_of_false_beside_a_message_is_an_error() {
    // AutoGen Studio wraps its upstream's error so, under a 200.
    let body = r#"{"message":"Error code: 429 - {'error': {'message': 'You exceeded your current quota, please check your plan and billing details.', 'type': 'insufficient_quota'}}","status":false,"data":null}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(failure_code(&chunks), "QUOTA_EXCEEDED", "{chunks:?}");
}

#[test]
fn guard_finish_reasons_in_other_spellings_are_content_filters() {
    for reason in ["sensitive", "content-filter", "Content_Filter"] {
        let body = sse(&[&format!(
            r#"{{"choices":[{{"index":0,"delta":{{"content":"blocked"}},"finish_reason":"{reason}"}}]}}"#
        )]);
        assert_eq!(
            finish_of(&decoded(&body)).kind,
            FinishKind::ContentFilter,
            "{reason}"
        );
    }
}

#[test]
fn an_error_whose_only_code_is_a_gemini_finish_reason_is_read_by_it() {
    // Google ADK's events: the model's finish reason as `errorCode`, with no message.
    let code_of = |error_code: &str| {
        let body = sse(&[&format!(
            r#"{{"errorCode":"{error_code}","invocationId":"e-1","author":"root_agent","id":"x"}}"#
        )]);
        failure_code(&decoded(&body)).to_string()
    };
    assert_eq!(code_of("SAFETY"), "CONTENT_FILTER");
    assert_eq!(code_of("PROHIBITED_CONTENT"), "CONTENT_FILTER");
    assert_eq!(code_of("MAX_TOKENS"), "CONTEXT_WINDOW_EXCEEDED");
    // A code with words beside it is read by the words.
    let body =
        sse(&[r#"{"errorCode":"MAX_TOKENS","errorMessage":"max_tokens must be at most 8192"}"#]);
    assert_eq!(failure_code(&decoded(&body)), "INVALID_REQUEST");
}

#[test]
fn a_whole_responses_api_object_is_read_as_an_answer() {
    let body = r#"{"id":"resp_1","object":"response","status":"completed","error":null,"output":[{"type":"reasoning","summary":[{"type":"summary_text","text":"think"}]},{"type":"message","role":"assistant","content":[{"type":"output_text","text":"Hello"}]},{"type":"function_call","call_id":"call_1","name":"get_weather","arguments":"{\"city\":\"Paris\"}"}],"usage":{"input_tokens":5,"output_tokens":7}}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(chunks[0], Chunk::Reasoning("think".into()));
    assert_eq!(chunks[1], Chunk::Text("Hello".into()));
    assert!(
        matches!(&chunks[2], Chunk::ToolCall(d) if d.name.as_deref() == Some("get_weather")),
        "{chunks:?}"
    );
    assert!(chunks.contains(&Chunk::Usage(Usage {
        input_tokens: Some(5),
        output_tokens: Some(7),
        ..Usage::default()
    })));
    assert_eq!(finish_of(&chunks).kind, FinishKind::ToolCalls, "{chunks:?}");
    // Incomplete for its output budget, with nothing in it: a length finish with no output.
    let body = r#"{"id":"resp_0","object":"response","status":"incomplete","incomplete_details":{"reason":"max_output_tokens"},"output":[],"error":null}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(
        chunks,
        vec![Chunk::Finish(Finish {
            kind: FinishKind::Length,
            reason: Some("max_output_tokens".into()),
            failure: None
        })]
    );
    // Failed: its error.
    let body = r#"{"object":"response","status":"failed","error":{"code":"rate_limit_exceeded","message":"Rate limit reached"},"output":[]}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "application/json")),
        "RATE_LIMITED"
    );
}

#[test]
fn an_event_named_error_joined_to_a_word_is_an_error_event() {
    // DataLine: `event: error_event` with plain words.
    assert_eq!(
        failure_code(&decoded(
            "event: error_event\ndata: OpenAI API key rejected\n\n",
        )),
        "AUTH"
    );
    // A name that says there is none is no error event: the event is ignored.
    let body = format!(
        "event: no_error\ndata: {{\"message\":\"all good\"}}\n\n{}",
        sse(&[r#"{"choices":[{"index":0,"delta":{"content":"hi"},"finish_reason":"stop"}]}"#])
    );
    let chunks = decoded(&body);
    assert_eq!(finish_of(&chunks).kind, FinishKind::Stop, "{chunks:?}");
}

#[test]
fn a_success_envelope_around_an_empty_reply_is_an_empty_response() {
    let body = r#"{"code": 0, "msg": "ok", "data": {"session_id": "u1", "message": []}}"#;
    let chunks = common::decode_200(body, "application/json");
    assert_eq!(failure_code(&chunks), "EMPTY_RESPONSE", "{chunks:?}");
    // A reply with something in it is not empty: not read as one.
    let body = r#"{"code": 0, "msg": "ok", "data": {"message": "hello"}}"#;
    let failure = finish_of(&common::decode_200(body, "application/json"))
        .failure
        .expect("a failure");
    assert_ne!(failure.code.as_str(), "EMPTY_RESPONSE");
}

#[test]
fn unread_words_marked_as_an_error_are_one_whatever_they_name() {
    let body =
        sse(&[r#"{"type":"done","content":"[ERROR]\nsomething odd happened","request_id":"r1"}"#]);
    let failure = finish_of(&decoded(&body)).failure.expect("a failure");
    assert_eq!(failure.code.as_str(), "SERVER_ERROR");
    assert!(
        failure.message.contains("something odd"),
        "{}",
        failure.message
    );
}

#[test]
fn a_status_sentence_as_another_apis_message_is_read_for_a_failure() {
    let body = r#"{"model":"lightrag:latest","message":{"role":"assistant","content":"No response generated"},"done_reason":"stop","done":true}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "application/json")),
        "EMPTY_RESPONSE"
    );
    let body =
        r#"{"message":{"role":"assistant","content":"F5 AI Guardrails blocked this request"}}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "application/json")),
        "CONTENT_FILTER"
    );
    // An answer in that shape that names nothing is still no completion this adapter reads.
    let body = r#"{"message":{"role":"assistant","content":"Hello there"},"done":true}"#;
    assert_read_in_no_shape(body);
}

#[test]
fn a_limit_notice_as_the_whole_answer_and_an_apps_safety_refusal_are_failures() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":"You have exceeded your token limit for this model"},"finish_reason":"null"}]}"#,
    ]);
    assert_eq!(failure_code(&decoded(&body)), "RATE_LIMITED");
    // The same opening in an answer that names no failure is an answer.
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"You have exceeded every expectation today."},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(finish_of(&decoded(&body)).kind, FinishKind::Stop);
    let body = r#"{"sessionId":"s1","responseText":"I can't diagnose cancer.","safety":{"classification":"refusal"}}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "application/json")),
        "CONTENT_FILTER"
    );
}

#[test]
fn an_apps_own_error_markers_and_a_guards_findings_are_read_in_a_2xx_body() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // A type of the app's own naming that says "error", with its message under its own key.
    assert_eq!(
        ok(
            r#"{"mantella_reply_type":"error","mantella_message":"Request did not contain properly formatted json!"}"#
        ),
        "INVALID_REQUEST"
    );
    // An error object under a key that names one, two levels down.
    assert_eq!(
        ok(
            r#"{"result": {"streamError": {"errorMessage": "custom model not found: \"6650f1c2\""}}}"#
        ),
        "INVALID_REQUEST"
    );
    // A verdict's findings as short sentences, beside an empty list of errors, which is none.
    assert_eq!(
        ok(
            r#"{"status":"success","messages":["Potential prompt injection detected: YARA signature(s)"],"errors":[]}"#
        ),
        "CONTENT_FILTER"
    );
    // Chat messages are objects, and an empty `errors` alone makes no error.
    assert_read_in_no_shape(
        r#"{"messages":[{"role":"assistant","content":"Rate limit exceeded"}],"errors":[]}"#,
    );
}

#[test]
fn an_error_report_in_brackets_as_the_whole_answer_is_a_failure() {
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"role":"assistant","content":null},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"\n\n[Error: status_code: 429, model_name: m, body: {\"message\":\"Requests rate limit exceeded\"}]"},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(failure_code(&decoded(&body)), "RATE_LIMITED");
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"\n\n[Error: agent failed to respond]"},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(failure_code(&decoded(&body)), "SERVER_ERROR");
    // Brackets that open an answer and name no failure, or that do not close it, are an answer.
    for said in [
        "[Error: none of the three tests failed]",
        "[Error: status 429] is what the log said, and then the job retried.",
    ] {
        let chunk = serde_json::json!({"choices":[{"index":0,"delta":{"content":said},"finish_reason":"stop"}]});
        let body = sse(&[&chunk.to_string()]);
        assert_eq!(finish_of(&decoded(&body)).kind, FinishKind::Stop, "{said}");
    }
}

#[test]
fn an_error_deep_in_an_apps_own_event_or_result_ends_the_stream() {
    // A failed turn in an agent's event stream: an object its reason marks as an error.
    let body = "data: {\"type\": \"message\", \"payload\": {\"type\": \"updated\", \"payload\": {\"parts\": [{\"type\": \"finish\", \"data\": {\"reason\": \"error\", \"message\": \"Stream transport error\", \"details\": \"INTERNAL_ERROR (received from peer)\"}}]}}}\n\n";
    assert_eq!(failure_code(&decoded(body)), "SERVER_ERROR");
    // A result that says `is_error`, in NDJSON lines: its words.
    let body = "{\"type\": \"claude_json\", \"data\": {\"type\": \"result\", \"subtype\": \"success\", \"is_error\": true, \"result\": \"API Error: Extra usage is required for 1M context\"}}\n{\"type\": \"done\"}\n";
    assert_eq!(
        failure_code(&common::decode_200(body, "application/x-ndjson")),
        "QUOTA_EXCEEDED"
    );
    // The same event shapes without an error are no failure of their own: the stream is read
    // as before (an unknown event's words kept for a stream that gives nothing else).
    let body = sse(&[
        r#"{"type": "message", "payload": {"parts": [{"type": "finish", "data": {"reason": "end_turn", "message": "done"}}]}}"#,
        r#"{"choices":[{"index":0,"delta":{"content":"Hello"},"finish_reason":"stop"}]}"#,
    ]);
    assert_eq!(finish_of(&decoded(&body)).kind, FinishKind::Stop);
}

#[test]
fn a_status_of_its_own_and_a_logs_details_mark_an_error_in_a_2xx_body() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(
            r#"{"message": "No API key provided", "status": 500, "context": "While streaming OpenAI chat completion"}"#
        ),
        "AUTH"
    );
    assert_eq!(
        ok(
            r#"{"message": "429 You exceeded your current quota, please check your plan and billing details.", "status": 500}"#
        ),
        "QUOTA_EXCEEDED"
    );
    assert_eq!(
        ok(
            r#"{"messages": [], "logs": [{"status": "error", "description": "OpenAI block returned error", "details": "{\"message\": \"Request failed with status code 429\"}"}]}"#
        ),
        "RATE_LIMITED"
    );
    // A status that says success beside a message is an envelope.
    assert_read_in_no_shape(r#"{"message": "saved", "status": 200}"#);
}

#[test]
fn an_apps_response_sentence_that_names_a_failure_is_that_failure() {
    let body = r#"{"response": "The AI service is currently overloaded. Please wait a moment and try again.", "thread_id": "default", "tools_called": [], "citations": []}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "application/json")),
        "OVERLOADED"
    );
    // An answer in that key that names nothing is no completion this adapter reads, and no
    // failure of its words.
    let body = r#"{"response": "Your portfolio grew 4% this quarter.", "thread_id": "default"}"#;
    assert_read_in_no_shape(body);
}

#[test]
fn a_failed_result_a_list_of_status_sentences_and_null_choices_in_a_2xx_body() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(r#"{"result": "FAILED", "message": ["message 不能为空!"], "voice": [], "image": []}"#),
        "INVALID_REQUEST"
    );
    assert_eq!(
        ok(
            r#"{"result": "DONE", "message": ["当前 ChatGPT 接入点收到的请求太多了，请过一会儿再来找我！"], "voice": []}"#
        ),
        "RATE_LIMITED"
    );
    assert_eq!(
        ok(
            r#"{"id":"","object":"","created":0,"model":"","choices":null,"usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0}}"#
        ),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn an_error_events_content_and_a_plain_request_to_shorten_are_read() {
    let body = "data:{\"content\":\"{\\\"message\\\":\\\"Error code: 401 - {'code': 401, 'msg': 'API Key解析失败'}\\\"}\",\"type\":\"error\"}\n\n";
    assert_eq!(failure_code(&decoded(body)), "AUTH");
    assert_eq!(
        failure_code(&common::decode_200(
            "太长了，缩短一点吧。",
            "text/plain;charset=UTF-8"
        )),
        "CONTEXT_WINDOW_EXCEEDED"
    );
}

/// A 2xx JSON body the decoder reads in no shape of its own: the failure says so, rather than
/// naming a meaning its words do not carry.
fn assert_read_in_no_shape(body: &str) {
    let f = finish_of(&common::decode_200(body, "application/json"));
    assert!(
        f.failure
            .expect("a failure")
            .message
            .contains("neither a chat completion"),
        "{body}"
    );
}

#[test]
fn a_guard_plugins_verdict_and_a_blocked_tool_result_over_json_rpc_are_refusals() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(
            r#"{"error":{"code":-32602,"message":"Plugin Violation: Detected categories: self_harm","data":{"plugin_error_code":"HARMFUL_CONTENT"}}}"#
        ),
        "CONTENT_FILTER"
    );
    let inner = serde_json::json!([{"status": "blocked_input", "message": "Request blocked due to input guardrail violations: injection_attack", "response": ""}]);
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": inner.to_string()}]}});
    assert_eq!(ok(&body.to_string()), "CONTENT_FILTER");
    // A tool result whose text is plain words is no error of its own.
    let body = serde_json::json!({"jsonrpc": "2.0", "id": 3, "result": {"content": [{"type": "text", "text": "3 repositories found"}]}});
    assert_read_in_no_shape(&body.to_string());
}

#[test]
fn a_systems_limit_notice_a_camel_case_finish_and_a_refusal_flag_are_read() {
    // An app's notice of its own limit, addressed to the caller, as the whole answer.
    let notice = |said: &str| {
        let chunk = serde_json::json!({"choices": [{"finish_reason": null, "delta": {"role": "assistant", "content": said}}]});
        decoded(&sse(&[&chunk.to_string()]))
    };
    for (said, want) in [
        (
            "The number of characters in your message exceeds the system maximum of 1024",
            "CONTEXT_WINDOW_EXCEEDED",
        ),
        (
            "Your message sending frequency exceeds the frequency specified by the system. Please try again later.",
            "RATE_LIMITED",
        ),
        (
            "The number of conversations you have exceeds the system maximum of 100",
            "QUOTA_EXCEEDED",
        ),
    ] {
        assert_eq!(failure_code(&notice(said)), want, "{said}");
    }
    // A model's answer about a system's limits, not addressed to the caller, is an answer.
    let answer = notice("The load exceeds the system maximum of 100 kW in most grids.");
    assert_eq!(finish_of(&answer).kind, FinishKind::Stop);
    // `finishReason` in upper case, as a Java server writes it: read as `finish_reason`, on the
    // typed path (no usage) and the `Value` path (with usage).
    let camel = |reason: &str, usage: bool| {
        let usage = if usage {
            r#","usage":{"promptTokens":37,"completionTokens":0}"#
        } else {
            ""
        };
        decoded(&sse(&[&format!(
            r#"{{"id":null,"choices":[{{"delta":null,"finishReason":"{reason}"}}]{usage}}}"#
        )]))
    };
    for usage in [false, true] {
        assert_eq!(
            finish_of(&camel("CONTENT_FILTER", usage)).kind,
            FinishKind::ContentFilter
        );
        assert_eq!(finish_of(&camel("LENGTH", usage)).kind, FinishKind::Length);
    }
    // An app's own flag that it refused: a content filter with its words; false is no refusal.
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(r#"{"answer":"I can only help with programming topics.","isRefusal":true}"#),
        "CONTENT_FILTER"
    );
    assert_eq!(
        ok(r#"{"reply":"Not this one.","is_blocked":true}"#),
        "CONTENT_FILTER"
    );
    assert_read_in_no_shape(r#"{"answer":"Use a for loop.","isRefusal":false}"#);
    // An app's answer that declines a topic outside its scope, with no flag: a refusal; the same
    // words flagged false, or an answer that only names a subject, are not.
    assert_eq!(
        ok(
            r#"{"data_quality":"not_applicable","is_valid_data":false,"response":"I'm an ERPNext assistant specialized in helping you with your business data. For general questions or other topics, please use a general-purpose AI assistant."}"#
        ),
        "CONTENT_FILTER"
    );
    assert_eq!(
        ok(r#"{"reply":"Sorry, I can only help with questions about your orders."}"#),
        "CONTENT_FILTER"
    );
    assert_read_in_no_shape(r#"{"answer":"I can only help with orders.","isRefusal":false}"#);
    assert_read_in_no_shape(
        r#"{"answer":"Your orders ship on Monday; I can help with returns too."}"#,
    );
    // An app's answer sorted as an error by its intent: its words say what; a thing not found
    // is what the request asked for, unless it is a part of the server's setup.
    assert_eq!(
        ok(r#"{"message":"Restaurant not found","intent":"error","order_id":null}"#),
        "INVALID_REQUEST"
    );
    assert_eq!(
        ok(r#"{"message":"Provider not found","intent":"error"}"#),
        "SERVER_ERROR"
    );
}

#[test]
fn an_apps_answer_too_slow_an_error_flag_beside_its_words_a_jobs_result_and_nothing_found() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(
            r#"{"response":"The AI assistant is taking longer than usual to respond. Please continue with your workout normally, and feel free to try again.","timeout":true}"#
        ),
        "TIMEOUT"
    );
    // An error flag set true: the answer beside it is the error's words.
    assert_eq!(
        ok(
            r#"{"response":"The AI assistant is temporarily unavailable. Continue logging your workout normally.","error":true}"#
        ),
        "OVERLOADED"
    );
    // A job marked as an error: its words, not its id, however long.
    assert_eq!(
        ok(
            r#"{"duration":300.004,"id":"3f1c2a9e-5b7d-4e0a-9c61-2d8f4b7a1e55:LOCAL","result":"Job timed out","status":"error","type":"summary"}"#
        ),
        "TIMEOUT"
    );
    // An answer under `reply_text`, and pgAdmin's `errormsg` beside `"success": 0`.
    assert_eq!(
        ok(
            r#"{"transcript":"How do I control rice blast?","reply_text":"There's an issue with the AI service authentication. Please check the API configuration.","crop":null}"#
        ),
        "AUTH"
    );
    assert_eq!(
        ok(
            r#"{"transcript":"?","reply_text":"The request format was invalid. Please try rephrasing your question."}"#
        ),
        "INVALID_REQUEST"
    );
    assert_eq!(
        ok(r#"{"success":0,"errormsg":"Please provide a message.","info":"","result":null}"#),
        "INVALID_REQUEST"
    );
    assert_eq!(
        ok(r#"{"answer":"I cannot answer this query as it violates our safety policies."}"#),
        "CONTENT_FILTER"
    );
    // An off-topic decline as the app's lone `message`; an error's words inside a success
    // envelope's data.
    assert_eq!(
        ok(r#"{"message":"I can only help with dental appointments."}"#),
        "CONTENT_FILTER"
    );
    assert_eq!(
        ok(
            r#"{"status":200,"message":"success","data":{"video_script":"Error:  returned empty choices"}}"#
        ),
        "EMPTY_RESPONSE"
    );
    // An answer whose first line says it is an error: that line, not the remedies after it.
    assert_eq!(
        ok(
            r#"{"answer":"⚠️ **Lỗi: Không có quyền truy cập.**\n\n1. **Kiểm tra API key**\n2. **Kiểm tra billing (nếu cần):** Một số model yêu cầu billing enabled","sources":[]}"#
        ),
        "AUTH"
    );
    assert_eq!(
        ok(
            r#"{"answer":"⚠️ **Lỗi: Đã vượt quá quota của Gemini API.**\n\n1. **Đợi reset quota**"}"#
        ),
        "QUOTA_EXCEEDED"
    );
    // An analysis as the app's answer: the Russian time-out in it.
    assert_eq!(
        ok(r#"{"analysis":"Превышено время ожидания ответа от AI-сервиса. Попробуйте ещё раз."}"#),
        "TIMEOUT"
    );
    // "Openapi" is no Hungarian "napi" (daily): Qianfan's method refused stays the request's.
    assert_eq!(
        ok(r#"{"error_code":3,"error_msg":"Unsupported openapi method"}"#),
        "INVALID_REQUEST"
    );
    // A 200 whose failures are only in a list of error objects: the first one's words.
    assert_eq!(
        ok(
            r#"{"locale":"es","translations":{},"errors":[{"hash":"all","sourceText":"all","error":"LLM translation failed with groq: groq LLM translation to es timed out after 120000ms"}]}"#
        ),
        "TIMEOUT"
    );
    // Thai: the AI cannot be used now, in an app's `text`.
    assert_eq!(
        ok(
            r#"{"text":"ขออภัยครับ ระบบ AI ไม่สามารถใช้งานได้ในขณะนี้ กรุณาลองใหม่ภายหลัง","chart_data":null}"#
        ),
        "OVERLOADED"
    );
    // A lone field whose words say what the request gave is not valid.
    assert_eq!(
        ok(r#"{"recipe":"Ingredient informed is not valid."}"#),
        "INVALID_REQUEST"
    );
    // A stand-in marked degraded: the failure its message names.
    assert_eq!(
        ok(
            r#"{"insight":null,"recommendations":[{"id":"fallback-1","action":"Take the metro once this week"}],"degraded":true,"message":"Generation is taking longer than expected. Showing fallback actions."}"#
        ),
        "TIMEOUT"
    );
    // A stand-in that says no reply came, and nothing else.
    assert_eq!(ok(r#"{"reply":"No reply."}"#), "EMPTY_RESPONSE");
    // Nothing found to answer with: no result.
    assert_eq!(
        ok(
            r#"{"answer":"I couldn't find relevant information in the building codes to answer your question. Please try rephrasing.","citations":[]}"#
        ),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn a_chat_platforms_message_and_deepseeks_resource_finish_are_failures() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // The words anywhere inside a body in no shape: a DingTalk markdown message, a Matrix
    // event, a bot's code and detail.
    assert_eq!(
        ok(
            r#"{"msgtype":"markdown","markdown":{"title":"Markdown Msg","text":"**抱歉，您提问的问题中包含敏感词汇**"}}"#
        ),
        "CONTENT_FILTER"
    );
    assert_eq!(
        ok(
            r#"{"msgtype": "m.notice", "body": "Error: The `static/openai` agent returned an empty response."}"#
        ),
        "EMPTY_RESPONSE"
    );
    assert_eq!(
        ok(r#"{"code":2,"detail":"Too many requests, please retry later"}"#),
        "RATE_LIMITED"
    );
    // A body in no shape whose words name nothing is still unreadable.
    assert_read_in_no_shape(
        r#"{"msgtype": "m.text", "body": "Here is the summary you asked for."}"#,
    );
    // DeepSeek's finish for want of resources ends the answer as an overload, even after text.
    let body = sse(&[
        r#"{"choices":[{"index":0,"delta":{"content":"Part of an"},"finish_reason":null}]}"#,
        r#"{"choices":[{"index":0,"delta":{"content":" answer"},"finish_reason":"insufficient_system_resource"}]}"#,
    ]);
    let finish = finish_of(&decoded(&body));
    assert_eq!(finish.kind, FinishKind::Error);
    assert_eq!(finish.failure.expect("a failure").code, codes::OVERLOADED);
}

#[test]
fn a_namespaced_error_type_carries_its_words_in_content() {
    // Baserow's assistant: JSON lines typed "ai/error", their `content` the error's words.
    let body = r#"{"id": "3f1c", "content": "The assistant has reached the maximum number of steps. You can explicitly ask to continue.", "role": "ai", "type": "ai/error"}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "text/event-stream")),
        "QUOTA_EXCEEDED"
    );
    let body = r#"{"id": "9b2e", "content": "The assistant has encountered an error. Please try again.", "role": "ai", "type": "ai/error"}"#;
    assert_eq!(
        failure_code(&common::decode_200(body, "text/event-stream")),
        "SERVER_ERROR"
    );
    // The same shape typed as a message, whose words name nothing, is no error.
    let body =
        r#"{"id": "7c4d", "content": "Here are your rows.", "role": "ai", "type": "ai/message"}"#;
    let chunks = common::decode_200(body, "text/event-stream");
    assert!(
        finishes(&chunks)
            .iter()
            .all(|f| f.kind != FinishKind::Error),
        "{chunks:?}"
    );
}

#[test]
fn a_flag_named_for_a_failure_a_blank_reply_and_an_answer_that_is_a_failed_start_are_failures() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // An assistant message with nothing in it beside a flag set true whose name says the
    // failure (Quadratic's `exceededBillingLimit`); the flag false is no failure.
    assert_eq!(
        ok(
            r#"{"role":"assistant","content":[],"toolCalls":[],"isOnPaidPlan":false,"exceededBillingLimit":true}"#
        ),
        "QUOTA_EXCEEDED"
    );
    assert_read_in_no_shape(
        r#"{"role":"assistant","content":[],"toolCalls":[],"exceededBillingLimit":false}"#,
    );
    // MyMemory's shape with the error's words in `responseDetails` (Weblate's OpenAI backend).
    assert_eq!(
        ok(
            r#"{"responseStatus": 500, "responseDetails": "Blank assistant reply", "translations": []}"#
        ),
        "EMPTY_RESPONSE"
    );
    // A whole streamed answer that is the server's report of a call it could not start.
    let chunks = decoded(&sse(&[
        r#"{"id":"c1","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{"content":"Error: Failed to create AI stream"},"finish_reason":null}]}"#,
        r#"{"id":"c1","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}"#,
        "[DONE]",
    ]));
    assert_eq!(failure_code(&chunks), "SERVER_ERROR");
    // A whole document with a `type` of no API's gives a failure, never nothing (which the host
    // would report as a truncated stream).
    let chunks = common::decode_200(
        r#"{"type": "text", "response": {"text": "The request was received successfully, but the LLM server was unable to handle it. **code: llm5XX**"}}"#,
        "application/json",
    );
    assert_eq!(failure_code(&chunks), "SERVER_ERROR");
    // An app's own answer shape whose words say the failure: an answer not found in time, a
    // guideline that held it back, a queue full until the wait ran out, the model's answer that
    // did not come (a top-level assistant message), a stand-in answer with the reason.
    let said = |message: &str| {
        ok(&format!(
            r#"{{"id":"3f2c","created_at":"2025-03-04T10:15:30Z","message":"{message}"}}"#
        ))
    };
    assert_eq!(
        said(
            "Sorry, I experienced a technical error and I could not find an answer in time. Please try again."
        ),
        "TIMEOUT"
    );
    assert_eq!(
        said(
            "I generated an answer to your question, but it does not meet the GOV.UK Chat content guidelines."
        ),
        "CONTENT_FILTER"
    );
    assert_eq!(
        ok(
            r#"{"status":"error","error":"Request timeout - server overloaded","message":"The server queue was full for too long. Please try again later."}"#
        ),
        "TIMEOUT"
    );
    assert_eq!(
        ok(
            r#"{"id":"7d1e","content":"No response from model","role":"assistant","createdAt":"2025-03-04T10:15:30.000Z"}"#
        ),
        "EMPTY_RESPONSE"
    );
    assert_eq!(
        ok(
            r#"{"success":true,"diagnosis":{"cropType":"Tomato"},"isDemo":true,"demoReason":"API key blocked or invalid"}"#
        ),
        "AUTH"
    );
    // An app's answer typed as a refusal or a decline; typed as an answer it is none.
    assert_eq!(
        ok(
            r#"{"response":"Dear seeker, I'm specifically designed to discuss the Bhagavad Gita. Your question appears to be outside my area of knowledge.","type":"decline","sources":[]}"#
        ),
        "CONTENT_FILTER"
    );
    assert_read_in_no_shape(
        r#"{"response":"Dharma is the duty one owes. It is described at length in the Gita, and the commentaries differ on it.","type":"answer","sources":[]}"#,
    );
    // An assistant message its app marked as failed in its metadata.
    assert_eq!(
        ok(
            r#"{"success":true,"data":{"message":{"role":"assistant","content":"I apologize, but I was unable to generate a response.","meta":{"error":"empty_response"}}}}"#
        ),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn a_completion_in_the_error_role_and_a_success_envelope_around_no_generated_image_are_failures() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // Hajimi's 200 completions whose message is in the "error" role: the server's report, read
    // by its words (an empty answer again and again), else the server's failure.
    let error_role = |content: &str| {
        serde_json::json!({
            "id": "chatcmpl-1735689600", "object": "chat.completion", "created": 1735689600,
            "model": "gemini-2.5-pro",
            "choices": [{"index": 0, "message": {"role": "error", "content": content,
                "tool_calls": null, "reasoning_content": null}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0}
        })
        .to_string()
    };
    assert_eq!(
        ok(&error_role("空响应次数达到上限\n请修改输入提示词")),
        "EMPTY_RESPONSE"
    );
    assert_eq!(
        ok(&error_role("所有API密钥均请求失败\n具体错误请查看轮询日志")),
        "SERVER_ERROR"
    );
    // The same words from the assistant, with tokens counted, are an answer.
    let answer = error_role("所有API密钥均请求失败")
        .replace("\"error\"", "\"assistant\"")
        .replace("\"completion_tokens\":0", "\"completion_tokens\":9");
    let chunks = common::decode_200(&answer, "application/json");
    assert!(finish_of(&chunks).failure.is_none(), "{chunks:?}");
    assert_eq!(text_of(&chunks), "所有API密钥均请求失败");
    // A success envelope whose list of generated images is empty: nothing was made, whatever
    // the message beside it says; one image in it is no failure of this kind.
    assert_eq!(
        ok(
            r#"{"result":true,"code":200,"data":{"imageList":[],"message":"{imagePath} 경로에 {extension} 확장자를 가진 이미지 파일이 존재하지 않습니다."}}"#
        ),
        "EMPTY_RESPONSE"
    );
    assert_ne!(
        ok(r#"{"result":true,"code":200,"data":{"imageList":["/out/a.png"],"message":"ok"}}"#),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn a_chatbots_reply_in_a_200_that_names_a_key_to_configure_or_its_load_is_that_failure() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // A leasing chatbot's `reply` for its failures, beside its session: the words name the
    // failure (a key to configure; many requests being handled).
    assert_eq!(
        ok(
            r#"{"reply":"I'm sorry, AI features are currently unavailable. Please ensure the Gemini API key is configured.","session_id":"3f2b8c1e-9a4d-4e6f-b1c2-7d8e9f0a1b2c","state":"greeting"}"#
        ),
        "AUTH"
    );
    assert_eq!(
        ok(
            r#"{"reply":"I'm currently handling many requests. Please try again in a few seconds.","session_id":"3f2b8c1e-9a4d-4e6f-b1c2-7d8e9f0a1b2c","state":"greeting"}"#
        ),
        "OVERLOADED"
    );
}

#[test]
fn an_apps_reply_in_a_200_saying_no_answer_was_generated_or_got_is_an_empty_answer() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // Ronchon's French and a Turkish guide site's stand-ins for an answer that did not come.
    assert_eq!(
        ok(r#"{"response":"Désolé, pas de réponse générée.","premium":false}"#),
        "EMPTY_RESPONSE"
    );
    assert_eq!(
        ok(r#"{"response":"⚠️ OpenAI'den geçerli bir cevap alınamadı."}"#),
        "EMPTY_RESPONSE"
    );
    // WordPress Magic SEO's failure flag beside the words.
    assert_eq!(
        ok(
            r#"{"error":"Could not extract content from Claude response. JSON parsing failed and manual extraction found no content.","success":false,"title":"Best Hiking Boots for Beginners"}"#
        ),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn a_thai_vietnamese_or_japanese_reply_in_a_200_is_read_by_its_words() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // A Thai chatbot's `reply` for its failures: today's quota used up, no message sent, the AI
    // did not answer, no API key found.
    assert_eq!(
        ok(r#"{"reply":"⚠️ วันนี้ AI ใช้ครบโควต้าแล้ว ลองใหม่พรุ่งนี้นะครับ"}"#),
        "QUOTA_EXCEEDED"
    );
    assert_eq!(ok(r#"{"reply":"❌ ไม่มีข้อความส่งมา"}"#), "INVALID_REQUEST");
    assert_eq!(ok(r#"{"reply":"⚠️ AI ไม่ตอบกลับ"}"#), "EMPTY_RESPONSE");
    assert_eq!(ok(r#"{"reply":"⚠️ ไม่พบ API KEY ครับ"}"#), "AUTH");
    // AURA's Vietnamese: the system answered empty.
    assert_eq!(
        ok(r#"{"text":"Hệ thống phản hồi rỗng."}"#),
        "EMPTY_RESPONSE"
    );
    // VN Offshore's Japanese: the AI service cannot be connected to, a connection's failure.
    let unreachable = common::decode_200(
        r#"{"response":"AIサービスに接続できません。お問い合わせフォームをご利用いただくか、しばらく後にお試しください。","conversationId":null}"#,
        "application/json",
    );
    assert_eq!(failure_code(&unreachable), "SERVER_ERROR");
    assert!(
        finish_of(&unreachable)
            .failure
            .as_ref()
            .is_some_and(|f| f.message.contains("接続できません")),
        "{unreachable:?}"
    );
}

#[test]
fn per_item_results_in_a_200_beside_a_generic_error_say_what_failed() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    let results = |error: &str| {
        serde_json::json!({
            "success": false, "userId": "5b0f3d7e",
            "results": [{"imageUrl": "https://example.com/images/product.jpg", "error": error}],
            "error": "One or more images failed AI generation."
        })
        .to_string()
    };
    // MixerAI's alt-text generator: the first item's own error decides.
    assert_eq!(
        ok(&results(
            "Request timed out after 25 seconds. Please try again with a smaller image or check your connection."
        )),
        "TIMEOUT"
    );
    assert_eq!(
        ok(&results("AI returned no content for alt text.")),
        "EMPTY_RESPONSE"
    );
    assert_eq!(
        ok(&results(
            "Azure OpenAI endpoint or API key is missing for direct fetch."
        )),
        "AUTH"
    );
    // A web-novel platform's code of its own beside its message, in a 200.
    assert_eq!(
        ok(r#"{"code":"C4003","message":"操作过于频繁，请稍后再试","data":null}"#),
        "RATE_LIMITED"
    );
}

#[test]
fn a_status_in_words_and_a_russian_reply_in_a_200_name_the_failure() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // Coroot's RCA answer with an empty error and its status in words.
    let coroot = |status: &str| {
        serde_json::json!({"status": status, "error": "", "short_summary": "", "root_cause": "",
            "propagation_map": null, "widgets": null})
        .to_string()
    };
    assert_eq!(ok(&coroot("AI disabled")), "AUTH");
    assert_eq!(ok(&coroot("Out of credits")), "QUOTA_EXCEEDED");
    // AI-Engineering's 200s that say they succeeded, with the failure as the response.
    let reply = |said: &str| {
        serde_json::json!({"success": true, "response": said, "session_id": "default",
            "files_processed": 0})
        .to_string()
    };
    assert_eq!(ok(&reply("Ошибка: пустой ответ от LLM")), "EMPTY_RESPONSE");
    assert_eq!(
        ok(&reply("Таймаут: Таймаут запроса к LLM (300.0s)")),
        "TIMEOUT"
    );
    // Highlight's GraphQL error list.
    assert_eq!(
        ok(
            r#"{"errors":[{"message":"empty or incorrect input query","path":["ai_query_suggestion"]}],"data":null}"#
        ),
        "INVALID_REQUEST"
    );
}

#[test]
fn an_apps_answer_in_a_200_that_it_cannot_read_the_input_is_the_requests() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // An AI-lawyer app's answer for a scanned PDF with no text layer.
    assert_eq!(
        ok(
            r#"{"answer": "❌ PDF-файл содержит только изображение (отсканированный документ без текстового слоя).\n\nAI не может прочитать сканированный PDF."}"#
        ),
        "INVALID_REQUEST"
    );
}

#[test]
fn an_indonesian_reply_in_a_200_names_its_failure() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(
        ok(
            r#"{"reply":"⏳ AI sedang istirahat sebentar karena terlalu banyak permintaan. Coba lagi nanti."}"#
        ),
        "RATE_LIMITED"
    );
    assert_eq!(
        ok(r#"{"reply":"Maaf, AI tidak merespons. Coba pertanyaan lain!"}"#),
        "EMPTY_RESPONSE"
    );
    // Its configuration with a problem, no key named: the server's.
    assert_eq!(
        ok(r#"{"reply":"🔑 Konfigurasi AI bermasalah. Hubungi admin."}"#),
        "SERVER_ERROR"
    );
}

#[test]
fn a_hebrew_or_persian_answer_in_a_200_saying_none_came_is_an_empty_answer() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    assert_eq!(ok(r#"{"answer":"אין תשובה."}"#), "EMPTY_RESPONSE");
    assert_eq!(
        ok(r#"{"ok":true,"text":"پاسخی دریافت نشد"}"#),
        "EMPTY_RESPONSE"
    );
}

#[test]
fn an_empty_plan_and_an_apps_assistant_message_in_a_200_are_read() {
    let ok = |body: &str| failure_code(&common::decode_200(body, "application/json"));
    // Kinective: a plan's kind and its list, left empty.
    assert_eq!(ok(r#"{"type":"plan","plan":[]}"#), "EMPTY_RESPONSE");
    assert_eq!(ok(r#"{"type":"weeklyPlan","plan":[]}"#), "EMPTY_RESPONSE");
    // Lokario's chat envelope: the user's message echoed, the assistant's saying the quota ran
    // out.
    assert_eq!(
        ok(
            r#"{"conversation_id":42,"message":{"id":101,"role":"user","content":"Quels sont mes rendez-vous de demain ?"},"response":{"id":102,"role":"assistant","content":"Désolé, je ne peux pas répondre pour le moment car le quota OpenAI a été dépassé. Veuillez vérifier votre abonnement."}}"#
        ),
        "QUOTA_EXCEEDED"
    );
}
