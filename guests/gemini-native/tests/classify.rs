//! classify-failure against Gemini error bodies as Google sends them (shapes from public reports:
//! google-gemini/gemini-cli issues #4118, #6678, #8437, continuedev/continue #10062, #10290, ...).
//! Ported case for case from the JavaScript example guest's tests (guests/gemini/test).

mod common;

use common::google_error;
use dsh_guest_gemini::types::{LlmFailure, ResponseHead};
use dsh_guest_gemini::{classify_failure, classify_in_band};
use serde_json::{Value, json};

const NOW: u64 = 1_767_225_600_000; // Thu, 01 Jan 2026 00:00:00 GMT

fn head_at(status: u16, headers: &[(&str, &str)], at: u64) -> ResponseHead {
    ResponseHead {
        status,
        headers: headers
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect(),
        received_at_ms: at,
    }
}

fn classify_h(status: u16, body: &Value, headers: &[(&str, &str)]) -> LlmFailure {
    let text = match body {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    classify_failure(&head_at(status, headers, NOW), text.as_bytes())
}

fn classify(status: u16, body: Value) -> LlmFailure {
    classify_h(status, &body, &[])
}

fn code(status: u16, body: Value) -> &'static str {
    classify(status, body).code.as_str()
}

fn err(code: u16, status: &str, message: &str) -> Value {
    google_error(code, status, message, None)
}

#[test]
fn the_token_count_overflow_is_context_window_exceeded() {
    let f = classify(
        400,
        err(
            400,
            "INVALID_ARGUMENT",
            "The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).",
        ),
    );
    assert_eq!(f.code, "CONTEXT_WINDOW_EXCEEDED");
    assert_eq!(f.status, Some(400));
    assert!(f.message.contains("1200293"));
    let wrapped = json!([{ "error": { "code": 400, "message": "The input token count (134123) exceeds the maximum number of tokens allowed (131072).",
        "errors": [{ "message": "x", "domain": "global", "reason": "badRequest" }], "status": "INVALID_ARGUMENT" } }]);
    assert_eq!(code(400, wrapped), "CONTEXT_WINDOW_EXCEEDED");
    assert_eq!(
        code(
            400,
            err(
                400,
                "INVALID_ARGUMENT",
                "Unable to submit request because the input token count is 40000 but model only supports up to 32768. Reduce the input token count and try again."
            )
        ),
        "CONTEXT_WINDOW_EXCEEDED"
    );
    assert_eq!(
        code(
            500,
            err(
                500,
                "INTERNAL",
                "The input token count (2000000) exceeds the maximum number of tokens allowed (1048576)."
            )
        ),
        "CONTEXT_WINDOW_EXCEEDED"
    );
}

#[test]
fn other_invalid_argument_and_not_found_are_invalid_request() {
    assert_eq!(
        code(
            400,
            err(
                400,
                "INVALID_ARGUMENT",
                "Request contains an invalid argument."
            )
        ),
        "INVALID_REQUEST"
    );
    assert_eq!(
        code(
            404,
            err(
                404,
                "NOT_FOUND",
                "models/gemini-9 is not found for API version v1beta, or is not supported for generateContent."
            )
        ),
        "INVALID_REQUEST"
    );
    assert_eq!(
        code(
            400,
            err(
                400,
                "INVALID_ARGUMENT",
                "Unable to submit request because it has a maxOutputTokens value of 100000 but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again."
            )
        ),
        "INVALID_REQUEST"
    );
    assert_eq!(
        code(
            400,
            err(400, "FAILED_PRECONDITION", "Precondition check failed.")
        ),
        "INVALID_REQUEST"
    );
}

#[test]
fn an_invalid_api_key_is_auth_although_gemini_sends_400_invalid_argument() {
    let body = google_error(
        400,
        "INVALID_ARGUMENT",
        "API key not valid. Please pass a valid API key.",
        Some(json!([
            { "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "API_KEY_INVALID", "domain": "googleapis.com",
              "metadata": { "service": "generativelanguage.googleapis.com" } },
            { "@type": "type.googleapis.com/google.rpc.LocalizedMessage", "locale": "en-US", "message": "API key not valid. Please pass a valid API key." },
        ])),
    );
    let f = classify(400, body);
    assert_eq!(f.code, "AUTH");
    assert_eq!(f.message, "API key not valid. Please pass a valid API key.");
    assert_eq!(
        code(
            400,
            err(
                400,
                "INVALID_ARGUMENT",
                "API key expired. Please renew the API key."
            )
        ),
        "AUTH"
    );
    assert_eq!(
        code(
            403,
            err(
                403,
                "PERMISSION_DENIED",
                "Your API key was reported as leaked. Please use another API key."
            )
        ),
        "AUTH"
    );
    assert_eq!(
        code(
            403,
            err(
                403,
                "PERMISSION_DENIED",
                "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API."
            )
        ),
        "AUTH"
    );
    assert_eq!(
        code(
            401,
            err(
                401,
                "UNAUTHENTICATED",
                "Request had invalid authentication credentials."
            )
        ),
        "AUTH"
    );
    assert_eq!(
        code(
            403,
            google_error(
                403,
                "PERMISSION_DENIED",
                "Generative Language API has not been used in project 123 before or it is disabled.",
                Some(
                    json!([{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "SERVICE_DISABLED" }])
                )
            )
        ),
        "AUTH"
    );
}

#[test]
fn a_per_minute_resource_exhausted_is_rate_limited_with_retry_info_as_the_delay() {
    let body = google_error(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.",
        Some(json!([
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                { "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests",
                  "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier",
                  "quotaDimensions": { "location": "global", "model": "gemini-2.5-flash" }, "quotaValue": "10" }] },
            { "@type": "type.googleapis.com/google.rpc.Help", "links": [{ "description": "Learn more", "url": "https://ai.google.dev/gemini-api/docs/rate-limits" }] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "37s" },
        ])),
    );
    let f = classify_h(429, &body, &[("x-request-id", "req-9")]);
    assert_eq!(f.code, "RATE_LIMITED");
    assert_eq!(f.provider_retry_after_ms, Some(37_000));
    assert_eq!(f.request_id.as_deref(), Some("req-9"));
    assert_eq!(f.status, Some(429));
}

#[test]
fn resource_exhausted_without_details_is_rate_limited() {
    assert_eq!(
        code(
            429,
            err(
                429,
                "RESOURCE_EXHAUSTED",
                "Resource has been exhausted (e.g. check quota)."
            )
        ),
        "RATE_LIMITED"
    );
    assert_eq!(
        code(
            429,
            json!([err(
                429,
                "RESOURCE_EXHAUSTED",
                "Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details."
            )])
        ),
        "RATE_LIMITED"
    );
    // The quota wording alone, which Gemini also uses for per-minute limits, decides nothing.
    assert_eq!(
        code(
            429,
            err(
                429,
                "RESOURCE_EXHAUSTED",
                "You exceeded your current quota, please check your plan and billing details."
            )
        ),
        "RATE_LIMITED"
    );
}

#[test]
fn a_daily_quota_a_zero_limit_or_depleted_credits_is_quota_exceeded() {
    let per_day = google_error(
        429,
        "RESOURCE_EXHAUSTED",
        "You exceeded your current quota, please check your plan and billing details.",
        Some(json!([
            { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
                { "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerMinutePerProjectPerModel-FreeTier" },
                { "quotaMetric": "generativelanguage.googleapis.com/generate_content_free_tier_requests", "quotaId": "GenerateRequestsPerDayPerProjectPerModel-FreeTier" }] },
            { "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "20.04466179s" },
        ])),
    );
    let f = classify(429, per_day);
    assert_eq!(f.code, "QUOTA_EXCEEDED");
    assert_eq!(
        f.provider_retry_after_ms,
        Some(20_045),
        "the hint is still reported"
    );
    assert_eq!(
        code(
            429,
            google_error(
                429,
                "RESOURCE_EXHAUSTED",
                "You exceeded your current quota.",
                Some(json!([
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [
            { "quotaMetric": "generativelanguage.googleapis.com/generate_requests_per_model_per_day", "quotaId": "GenerateRequestsPerDayPerProjectPerModel" }] }]))
            )
        ),
        "QUOTA_EXCEEDED"
    );
    assert_eq!(
        code(
            429,
            err(
                429,
                "RESOURCE_EXHAUSTED",
                "You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro\nPlease retry in 20.04466179s."
            )
        ),
        "QUOTA_EXCEEDED"
    );
    // A limit of 10 (or 0.5, or 05) is not a zero limit.
    assert_eq!(
        code(
            429,
            err(
                429,
                "RESOURCE_EXHAUSTED",
                "Quota exceeded for metric: x, limit: 10, model: m"
            )
        ),
        "RATE_LIMITED"
    );
    assert_eq!(
        code(
            429,
            err(
                429,
                "RESOURCE_EXHAUSTED",
                "Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing."
            )
        ),
        "QUOTA_EXCEEDED"
    );
    assert_eq!(
        code(
            400,
            err(
                400,
                "FAILED_PRECONDITION",
                "Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio."
            )
        ),
        "QUOTA_EXCEEDED"
    );
}

#[test]
fn server_side_statuses() {
    assert_eq!(
        code(
            503,
            err(
                503,
                "UNAVAILABLE",
                "The model is overloaded. Please try again later."
            )
        ),
        "OVERLOADED"
    );
    assert_eq!(
        code(
            500,
            err(
                500,
                "INTERNAL",
                "An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting"
            )
        ),
        "SERVER_ERROR"
    );
    assert_eq!(
        code(
            504,
            err(
                504,
                "DEADLINE_EXCEEDED",
                "Deadline expired before operation could complete."
            )
        ),
        "TIMEOUT"
    );
    assert_eq!(
        code(499, err(499, "CANCELLED", "The operation was cancelled.")),
        "SERVER_ERROR"
    );
    // The rpc status wins over a status code that disagrees (a proxy relaying with 500).
    assert_eq!(
        code(500, err(503, "UNAVAILABLE", "Service Unavailable")),
        "OVERLOADED"
    );
}

#[test]
fn bodies_that_are_not_google_errors_are_classified_by_status() {
    let html = classify(
        502,
        json!("<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>"),
    );
    assert_eq!(html.code, "SERVER_ERROR");
    assert!(
        html.message
            .contains("HTTP 502 Bad Gateway from Gemini, with an HTML page: 502 Bad Gateway"),
        "{}",
        html.message
    );
    assert_eq!(code(503, json!("")), "OVERLOADED");
    assert!(classify(503, json!("")).message.contains("empty body"));
    assert_eq!(code(429, json!("slow down")), "RATE_LIMITED");
    assert_eq!(code(401, json!("no")), "AUTH");
    assert_eq!(code(404, json!(r#"{"foo": 1}"#)), "INVALID_REQUEST");
    assert_eq!(code(504, json!("upstream timed out")), "TIMEOUT");
    assert_eq!(code(418, json!("teapot")), "INVALID_REQUEST");
    let garbage = classify_failure(&head_at(500, &[], NOW), &[0xff, 0xfe, 0x00]);
    assert_eq!(garbage.code, "SERVER_ERROR");
}

#[test]
fn retry_after_headers_when_there_is_no_retry_info() {
    let body = err(
        429,
        "RESOURCE_EXHAUSTED",
        "Resource has been exhausted (e.g. check quota).",
    );
    let hint = |headers: &[(&str, &str)]| classify_h(429, &body, headers).provider_retry_after_ms;
    assert_eq!(hint(&[("retry-after", "2")]), Some(2000));
    assert_eq!(hint(&[("retry-after", "1.5")]), Some(1500));
    assert_eq!(hint(&[("retry-after-ms", "250")]), Some(250));
    assert_eq!(
        hint(&[("retry-after", "Thu, 01 Jan 2026 00:00:30 GMT")]),
        Some(30_000)
    );
    assert_eq!(hint(&[("retry-after", "soon")]), None);
    assert_eq!(hint(&[]), None);
    // RetryInfo when no header gives a wait; a header (a gateway's, since Google's front ends send
    // none) speaks for the route the host calls, as for every built-in adapter.
    let with_info = google_error(
        429,
        "RESOURCE_EXHAUSTED",
        "x",
        Some(
            json!([{ "@type": "type.googleapis.com/google.rpc.RetryInfo", "retryDelay": "1.5s" }]),
        ),
    );
    assert_eq!(
        classify_h(429, &with_info, &[]).provider_retry_after_ms,
        Some(1500)
    );
    assert_eq!(
        classify_h(429, &with_info, &[("retry-after", "9")]).provider_retry_after_ms,
        Some(9000)
    );
}

#[test]
fn request_id_from_x_request_id_else_request_id() {
    let body = err(500, "INTERNAL", "x");
    assert_eq!(
        classify_h(500, &body, &[("request-id", "r1")])
            .request_id
            .as_deref(),
        Some("r1")
    );
    assert_eq!(
        classify_h(500, &body, &[("x-request-id", "x1"), ("request-id", "r1")])
            .request_id
            .as_deref(),
        Some("x1")
    );
    assert_eq!(classify_h(500, &body, &[]).request_id, None);
}

#[test]
fn a_relay_that_quotes_the_google_error_as_json_text_is_unwrapped() {
    let inner = serde_json::to_string_pretty(&err(
        400,
        "INVALID_ARGUMENT",
        "The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).",
    ))
    .unwrap();
    assert_eq!(
        code(
            400,
            json!({ "error": { "message": inner, "code": 400, "status": "Bad Request" } })
        ),
        "CONTEXT_WINDOW_EXCEEDED"
    );
}

#[test]
fn in_band_errors_take_their_status_from_the_error_itself() {
    let h = head_at(200, &[("x-request-id", "abc"), ("retry-after", "5")], NOW);
    let f = classify_in_band(&err(503, "UNAVAILABLE", "The model is overloaded."), &h);
    assert_eq!(f.code, "OVERLOADED");
    assert_eq!(f.status, Some(503));
    assert_eq!(f.request_id.as_deref(), Some("abc"));
    assert_eq!(
        f.provider_retry_after_ms, None,
        "the 200's retry-after does not describe it"
    );
    let bare = classify_in_band(
        &json!({ "error": { "message": "something broke" } }),
        &head_at(200, &[], NOW),
    );
    assert_eq!(bare.code, "SERVER_ERROR");
    assert_eq!(bare.status, None);
}

#[test]
fn what_a_google_error_says_decides_and_other_json_falls_to_the_status() {
    // A per-day quota named in the QuotaFailure detail is quota, whatever the reason beside it.
    assert_eq!(
        code(
            429,
            google_error(
                429,
                "RESOURCE_EXHAUSTED",
                "m",
                Some(json!([
        { "@type": "type.googleapis.com/google.rpc.QuotaFailure", "violations": [{ "quotaId": "A-PerDay" }] },
        { "@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "rate_limit_exceeded" }]))
            )
        ),
        "QUOTA_EXCEEDED"
    );
    assert_eq!(code(500, json!({ "foo": 1 })), "SERVER_ERROR");
    assert_eq!(code(429, json!([])), "RATE_LIMITED");
    let bare = classify_in_band(&json!({ "foo": 1 }), &head_at(200, &[], NOW));
    assert_eq!(bare.code, "SERVER_ERROR");
}
