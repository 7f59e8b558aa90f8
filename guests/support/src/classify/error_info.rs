//! Reading an error body: the message, labels, status and hints an error carries, in whatever
//! envelope (`ErrorInfo`), and the keys a message goes by.

use super::*;

/// What an error body says, whatever envelope the server uses.
#[derive(Debug, Default)]
pub(super) struct ErrorInfo {
    pub(super) message: Option<String>,
    /// Lower-cased machine labels: `type`, string `code`, string `status`, `error_type`.
    pub(super) labels: Vec<String>,
    /// A status the error carries itself (`code: 429` on OpenRouter, `code: 400` on vLLM).
    pub(super) status: Option<u16>,
    /// More provider wording to search, such as OpenRouter's upstream `metadata.raw`.
    pub(super) extra: String,
    pub(super) request_id: Option<String>,
    /// A body `id`: only used for HTTP error bodies, since in a stream it is the completion's id.
    pub(super) id: Option<String>,
    /// Google's `RetryInfo.retryDelay` ("26s", "20.04466179s"), in milliseconds.
    pub(super) retry_delay_ms: Option<u64>,
    /// When a limit resets, as words (" resets at 2025-12-30 00:00:00"): read with the message
    /// unless the `retry-after` header states a shorter wait (see `read_reset_time`).
    pub(super) reset_words: String,
}

impl ErrorInfo {
    pub(super) fn from_body(body: &Value) -> ErrorInfo {
        let mut info = ErrorInfo::default();
        match body {
            // Gemini's OpenAI layer has been seen answering `[{"error": {...}}]`.
            Value::Array(items) => {
                return items.first().map(ErrorInfo::from_body).unwrap_or_default();
            }
            Value::String(s) => info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS)),
            Value::Object(o) => {
                info.request_id = o.get("request_id").and_then(string_of);
                info.id = o.get("id").and_then(string_of);
                info.read_reset_time(o);
                match o.get("error") {
                    Some(Value::Object(e)) => {
                        info.read_fields(e);
                        info.read_reset_time(e);
                        // The details beside the error object's generic message, as beside a
                        // string error below: Read Master's `{"success": false, "error": {"code":
                        // "VALIDATION_ERROR", "message": "Invalid request body", "details":
                        // {"formErrors": [], "fieldErrors": {"selectedText": ["Selected text must
                        // be at most 10000 characters"]}}}}`; Lock-in's `"details": [{"field":
                        // "selection", "message": "Selection too long (max 50000 chars)", "code":
                        // "too_big"}]`.
                        info.read_validation_details(e);
                        if info.request_id.is_none() {
                            info.request_id = e.get("request_id").and_then(string_of);
                        }
                    }
                    // Ollama and TGI: `{"error": "text", "error_type": "..."}`.
                    Some(Value::String(s)) => {
                        info.message = non_empty(s).map(|m| clip(&m, MESSAGE_CHARS));
                        info.read_labels(o);
                        // AgentGPT: `{"error": "OpenAIError", "detail": "Authentication error:
                        // ..."}`, BLOOM's inference server: `{"error": "Exception", "message":
                        // "max supported input length = 2048 for now"}`: the error names a class,
                        // the detail or message beside it says what happened.
                        // (A `message` only beside a class name: beside words of their own,
                        // "Too Many Requests", "Queue timeout", the error says what it means.)
                        // Nor does a code that only names whose error it is (tei-reranker-proxy:
                        // `{"error": "tei_error", "message": "Failed to connect to TEI service:
                        // ..."}`), unlike one that names a meaning (`service_unavailable`). A
                        // code's own words are read as words (Edgen's `{"error":
                        // "no_such_model"}`: "no such model").
                        let one_word = !s.trim().contains(char::is_whitespace);
                        let lower = s.trim().to_ascii_lowercase();
                        // So does HTTP's reason phrase (NestJS: `{"statusCode": 400, "message":
                        // "Text is too long, max length is 1000", "error": "Bad Request"}`): it
                        // restates a status, the message says what happened.
                        // (Or a wrapper's class of a few words: Chatbot Ollama's `{"error": "Ollama
                        // Error", "message": "model \"llama3\" not found, ..."}`.)
                        let few_words = lower.split_whitespace().count() <= 3;
                        // (Or a few words that only say something failed: PhishLogic's `{"error":
                        // "Analysis failed", "message": "AI execution timeout after 30000ms"}`.)
                        let class_name = (few_words
                            && (lower.ends_with("error")
                                || lower.ends_with("exception")
                                || lower.trim_end_matches(['.', '!']).ends_with(" failed")))
                            || names_a_reason_phrase(&lower)
                            // (Or a status line: TinDevelopers' `{"error": "HTTP 503", "message":
                            // "AI Content Generator is not initialized. Please configure AI
                            // provider credentials ..."}`.)
                            || names_a_status_line(&lower);
                        if let Some(words) = crate::text::words_of_a_code(s) {
                            info.extra.push(' ');
                            info.extra.push_str(&words);
                        }
                        // A code (`{"error": "unauthorized", "message": "Insufficient credits"}`,
                        // Rebuff's): its message says the rest, which may outrank the code.
                        // (NestJS-style `messages`, a list: Twenty's `{"statusCode": 503, "error":
                        // "Error", "messages": ["No AI models are available. ..."]}`.)
                        // (And a message for people: Nextcloud Assistant's `{"error":
                        // "task_failed_or_canceled", "userFacingErrorMessage": "OpenAI API error:
                        // Invalid API key ..."}`.)
                        // (And beside a generic limit error whose message names a budget of a
                        // day or longer: a Bible chat's `{"error": "Rate limit exceeded",
                        // "message": "Monthly usage limit exceeded"}`, the message's period saying
                        // which limit it was. Without a period the error's rate stands.)
                        let generic_limit =
                            matches!(
                                lower.trim_end_matches(['.', '!']),
                                "rate limit exceeded" | "limit exceeded" | "quota exceeded"
                            ) && o.get("message").and_then(Value::as_str).is_some_and(|m| {
                                meaning::names_a_long_budget(&crate::text::normalize(m))
                            });
                        let beside: &[&str] = if class_name || one_word || generic_limit {
                            &[
                                "detail",
                                "message",
                                "messages",
                                "userFacingErrorMessage",
                                "user_message",
                                "technicalDetails",
                                // InvoiceFlow's `{"error": "Configuration error", "details":
                                // "HUGGINGFACE_API_KEY is not configured. ..."}`.
                                "details",
                                // TripSage's `{"error": "provider_unavailable", "reason": "AI
                                // provider is not configured. Add an API key ..."}`.
                                "reason",
                            ]
                        } else {
                            &["detail", "details", "technicalDetails"]
                        };
                        // (An object there is read by its own message: PulseCheck's `{"error":
                        // "HTTP error", "message": {"message": "You've reached your daily AI
                        // interaction limit ...", "type": "rate_limit"}}`, FastAPI's detail put
                        // under `message` by the app's handler.)
                        // (Or an object of fields and their messages, SavorAI's `{"error": "Bad
                        // Request", "message": "Validation failed", "details": {"prompt": "Prompt
                        // too long (max 2000 characters)"}}`: the first field's, as "field:
                        // message".)
                        let said_in = |v: &Value| {
                            words_of(v).or_else(|| {
                                let inner = v.as_object()?;
                                inner.get("message").and_then(words_of).or_else(|| {
                                    inner.iter().find_map(|(field, said)| {
                                        said.as_str().map(|s| format!("{field}: {s}"))
                                    })
                                })
                            })
                        };
                        for key in beside {
                            if let Some(said) = o.get(*key).and_then(said_in)
                                && said.trim() != s.trim()
                            {
                                info.extra.push(' ');
                                info.extra.push_str(&clip(&said, MESSAGE_CHARS));
                            }
                        }
                        info.read_validation_details(o);
                    }
                    // vLLM's `{"object": "error", "message": ...}`, FastAPI's `{"detail": ...}`.
                    _ => info.read_fields(o),
                }
                // An error flag beside the app's answer, which says what went wrong (GymBrAIn's
                // `{"response": "The AI assistant is temporarily unavailable. ...", "error":
                // true}`): the answer's words are the error's.
                if info.message.is_none() && o.get("error") == Some(&Value::Bool(true)) {
                    info.message = ["response", "answer", "reply", "result"]
                        .iter()
                        .find_map(|k| o.get(*k).and_then(Value::as_str))
                        .and_then(non_empty)
                        .map(|m| clip(&m, MESSAGE_CHARS));
                }
                // Per-item results beside a generic error (MixerAI's `{"success": false,
                // "results": [{"imageUrl": "...", "error": "Request timed out after 25 seconds.
                // ..."}], "error": "One or more images failed AI generation."}`): the first item's
                // error says what happened to it, read as a list of error objects is.
                if let Some(first) = first_field_message(o.get("results").filter(|r| r.is_array()))
                {
                    info.extra.push(' ');
                    info.extra.push_str(&first);
                }
                // Rails' validation errors, `{"errors": {"user_question": ["Personal data has been
                // detected in your question. ..."]}, "message": "Unprocessable content"}`: the first
                // field's first message says what happened, where the message only restates the
                // status.
                if info.message.as_deref().is_none_or(|m| {
                    let m = m.trim().to_ascii_lowercase();
                    // (RFC 9110 renamed 422's phrase "Unprocessable Content".)
                    names_a_reason_phrase(&m) || m == "unprocessable content"
                }) && let Some(first) = first_field_message(o.get("errors"))
                {
                    info.message = Some(first);
                }
                // Frappe's (and so ERPNext's) `{"exc_type": "ValidationError", "_server_messages":
                // "[\"{\\\"message\\\": \\\"...\\\"}\"]"}`: a JSON string of a list of JSON
                // strings, each a message object; the first message is the error's.
                if info.message.is_none()
                    && let Some(said) = o
                        .get("_server_messages")
                        .and_then(Value::as_str)
                        .and_then(frappe_first_message)
                {
                    info.message = non_empty(&said).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // An app's `{"success": false, "response": "OpenAI is not enabled"}` (Mealie's debug
                // endpoint): the failed request's `response` is the error's words.
                if info.message.is_none()
                    && o.get("success") == Some(&Value::Bool(false))
                    && let Some(said) = o.get("response").and_then(Value::as_str)
                {
                    info.message = non_empty(said).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // A failed request with its words only in lists of notes (HumanCompiler's
                // `{"success": false, "task_plans": [], "recommendations": ["AIからの応答が空でした。
                // ..."], "insights": ["Please check OpenAI API configuration and try again"]}`):
                // the notes together say what went wrong.
                if info.message.is_none() && o.get("success") == Some(&Value::Bool(false)) {
                    let notes: Vec<&str> = o
                        .values()
                        .filter_map(Value::as_array)
                        .flatten()
                        .filter_map(Value::as_str)
                        .filter(|s| !s.trim().is_empty())
                        .collect();
                    if !notes.is_empty() {
                        info.message = Some(clip(&notes.join(" "), MESSAGE_CHARS));
                    }
                }
                // An error flagged `true` with its words under `data` (Mage AI for Magento's
                // `{"error": true, "data": "Gemini blocked the response due to safety filters."}`).
                if info.message.is_none()
                    && o.get("error") == Some(&Value::Bool(true))
                    && let Some(said) = o.get("data").and_then(Value::as_str)
                {
                    info.message = non_empty(said).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // Qdrant's `{"status": {"error": "Service internal error: ..."}}`: the error's words
                // one level down, under `status`.
                if info.message.is_none()
                    && let Some(said) = o
                        .get("status")
                        .and_then(|s| s.get("error"))
                        .and_then(Value::as_str)
                {
                    info.message = non_empty(said).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // A gateway's refusal in the shape of a completion, sent with an error status
                // (APISIX's moderation plugins: `choices[0].message.content` is the reason).
                if info.message.is_none()
                    && let Some(reason) = body
                        .pointer("/choices/0/message/content")
                        .and_then(Value::as_str)
                {
                    info.message = non_empty(reason).map(|m| clip(&m, MESSAGE_CHARS));
                }
                // Another envelope (Cloudflare's `{"errors": [{"code", "message"}]}`, a `header`
                // or `base_resp` beside the data): the first object inside that has a message is
                // the error.
                if info.message.is_none()
                    && let Some(inner) = nested_error_object(body, 0)
                {
                    let (request_id, id) = (info.request_id.take(), info.id.take());
                    info.read_fields(inner);
                    info.request_id =
                        request_id.or_else(|| inner.get("request_id").and_then(string_of));
                    info.id = id;
                }
            }
            _ => {}
        }
        // A code and no message (Tolgee's Spring envelope, `{"code": "out_of_credits", "params":
        // [0, 0]}`): the code's words are all the error says. Only a code of three words or more,
        // a sentence in a code's form: one of one or two (`MAX_TOKENS`, `insufficient_quota`) is
        // a label, which the label rules read alone.
        if info.message.is_none()
            && let Value::Object(o) = body
        {
            for key in ["code", "error_code", "errorCode", "type"] {
                if let Some(words) = o
                    .get(key)
                    .and_then(Value::as_str)
                    .and_then(crate::text::words_of_a_code)
                    .filter(|words| words.split_whitespace().count() >= 3)
                {
                    info.extra.push(' ');
                    info.extra.push_str(&words);
                }
            }
        }
        info.read_wrapped();
        info
    }

    /// A relay that wraps the upstream's error body in its own message, as text ("Error from
    /// provider(429): {\"error\": {\"code\": 429, \"message\": ..., \"status\":
    /// \"RESOURCE_EXHAUSTED\"}}"): the upstream's labels are read as this error's, since they say
    /// what the upstream meant. Its message is already in this one's words. Each level reads a
    /// shorter text, so the unwrapping ends.
    /// (The words beside a class or a code, in `extra`, are its message too: "TEI service error
    /// 429 Too Many Requests: {\"error\": \"Model is overloaded\", ...}" beside `tei_error`.)
    pub(super) fn read_wrapped(&mut self) {
        let mut labels = Vec::new();
        for text in [self.message.as_deref(), Some(self.extra.as_str())] {
            let Some(at) = text.and_then(|t| t.find('{').map(|at| &t[at..])) else {
                continue;
            };
            if let Some(Ok(inner)) = serde_json::Deserializer::from_str(at)
                .into_iter::<Value>()
                .next()
                && inner.is_object()
            {
                labels.extend(ErrorInfo::from_body(&inner).labels);
            }
        }
        self.labels.extend(labels);
    }

    pub(super) fn read_fields(&mut self, e: &serde_json::Map<String, Value>) {
        self.message = MESSAGE_KEYS
            .iter()
            .filter_map(|k| field(e, k))
            .find_map(|v| match v {
                Value::Null => None,
                other => words_of(other).or_else(|| Some(other.to_string())),
            })
            .map(|m| clip(&m, MESSAGE_CHARS));
        self.read_labels(e);
        // The window a budget is counted over (TrustGate's `{"type": "dollar_budget_exceeded",
        // "window": "day"}`), as words: "per day" is a quota's, "per minute" a rate's.
        for key in ["window", "period"] {
            if let Some(window) = e.get(key).and_then(Value::as_str).map(str::trim)
                && !window.is_empty()
                && window.len() <= 12
                && window.chars().all(|c| c.is_ascii_alphabetic())
            {
                self.extra.push_str(" per ");
                self.extra.push_str(window);
            }
        }
        // A message that is an exception's class ("PromptTooLongException", a Coze bridge's
        // error): its words too ("prompt too long exception").
        if let Some(words) = self
            .message
            .as_deref()
            .filter(|m| !m.trim().contains(char::is_whitespace))
            .and_then(|m| {
                crate::text::words_of_a_code(m).or_else(|| crate::text::words_of_a_class(m))
            })
        {
            self.extra.push(' ');
            self.extra.push_str(&words);
        }
        // Details as an object with the exception's class (AIJudge's `{"code": "internal_error",
        // "message": "Unexpected server error.", "details": {"exception": "TimeoutError"}}`): its
        // labels, and the class as one.
        if let Some(details) = e.get("details").and_then(Value::as_object) {
            self.read_labels(details);
            // (And its words: 10xCards's `{"message": "Failed to generate flashcards ...",
            // "details": {"error": "OpenRouter API error: 401 Unauthorized"}}`, the cause.)
            // (Or its `original_error`: a conversational bot's `"details": {"original_error": "Se
            // ha excedido el límite de peticiones al servicio LLM"}` under "Error processing the
            // prompt".)
            for key in ["error", "message", "original_error", "originalError"] {
                if let Some(said) = details.get(key).and_then(Value::as_str)
                    && self.message.as_deref() != Some(said.trim())
                {
                    self.extra.push(' ');
                    self.extra.push_str(&clip(said, MESSAGE_CHARS));
                }
            }
            if let Some(class) = details.get("exception").and_then(Value::as_str) {
                self.labels.push(class.trim().to_ascii_lowercase());
            }
        }
        // A title and its details (Typebot's log `{"status": "error", "description": "OpenAI
        // block returned error", "details": "...status code 429..."}`): the details are words of
        // the error too.
        if let Some(details) = e.get("details").and_then(Value::as_str)
            && self.message.as_deref().is_some_and(|m| m != details.trim())
        {
            self.extra.push(' ');
            self.extra.push_str(&clip(details, MESSAGE_CHARS));
        }
        // FastAPI's `{"detail": {"msg": ..., "type": "bad_input"}}`: the object is the error.
        if let Some(detail) = e.get("detail").and_then(Value::as_object)
            && detail.len() < 16
        {
            if let Some(m) = MESSAGE_KEYS
                .iter()
                .find_map(|k| field(detail, k).and_then(Value::as_str))
                .and_then(non_empty)
            {
                self.message = Some(clip(&m, MESSAGE_CHARS));
            }
            self.read_labels(detail);
            // (And its `details` beside the message: AI HUB's `{"detail": {"code":
            // "VALIDATION_ERROR", "message": "입력값 검증에 실패했습니다", "details": "파일 크기가 너무
            // 큽니다. 최대 크기: 10MB"}}`.)
            if let Some(details) = detail.get("details").and_then(Value::as_str)
                && self.message.as_deref() != Some(details.trim())
            {
                self.extra.push(' ');
                self.extra.push_str(&clip(details, MESSAGE_CHARS));
            }
            // (Its `error` as a code, one word: Buddha Korea's `{"detail": {"error":
            // "quota_exceeded", "message": "..."}}`.)
            if let Some(code) = detail.get("error").and_then(Value::as_str)
                && !code.trim().is_empty()
                && !code.trim().contains(char::is_whitespace)
            {
                self.labels.push(code.trim().to_ascii_lowercase());
            }
        }
        // FastAPI's (Pydantic's) validation list, `{"detail": [{"type": "string_too_long", "loc":
        // ["body", "input"], "msg": "String should have at most 2048 characters", "input":
        // "..."}]}`: the first item is the error, named by the field it is about, and never
        // quoting the input it echoes.
        if let Some(first) = self.read_validation_list(e.get("detail")) {
            self.message = Some(first);
        }
        // Not `error_code`: Baidu's numbers (17, 110, 336003) are its own, not HTTP statuses.
        for key in ["code", "status", "status_code"] {
            if let Some(n) = e.get(key).and_then(Value::as_u64)
                && (100..=599).contains(&n)
                // A 2xx in an error is no status of the error's (Odoo's JSON-RPC `"code": 200` on
                // every error it raises).
                && !(200..300).contains(&n)
                && self.status.is_none()
            {
                self.status = Some(n as u16);
            }
        }
        // OpenRouter nests the upstream provider's own error text here.
        if let Some(raw) = e.get("metadata").and_then(|m| m.get("raw")) {
            self.extra = raw.as_str().map_or_else(|| raw.to_string(), str::to_string);
        }
        // A detail in words beside the message (Letta: "Rate limit exceeded on your API key ..." with
        // the upstream's "Insufficient balance or no resource package. Please recharge." as its
        // `detail`): the provider's words too, and often the cause.
        if let Some(detail) = e.get("detail").and_then(Value::as_str)
            && self.message.as_deref() != Some(detail.trim())
        {
            self.extra.push(' ');
            self.extra.push_str(&clip(detail, MESSAGE_CHARS));
        }
        // A message for people beside the one for programs (EPAM AI DIAL: "Hit token rate limit.
        // Minute limit: ..." and "You've exceeded your daily token limit"): both are the provider's
        // words, and the second often says which budget ran out.
        // (Nextcloud Assistant: `{"error": "task_failed_or_canceled", "userFacingErrorMessage":
        // "OpenAI API error: Invalid API key ..."}`.)
        // (And the technical details beside a message for people: StudyLens's `{"error":
        // "Something went wrong ...", "technicalDetails": "GEMINI_API_KEY not configured"}`.)
        for key in [
            "display_message",
            "user_message",
            "userMessage",
            "displayMessage",
            "userFacingErrorMessage",
            "technicalDetails",
            "technical_details",
        ] {
            if let Some(text) = e.get(key).and_then(Value::as_str) {
                self.extra.push(' ');
                self.extra.push_str(text);
            }
        }
        // A JSON-RPC error's `data` (Odoo's `{"code": 200, "message": "Odoo Server Error", "data":
        // {"name": "odoo.exceptions.UserError", "message": "Sorry, your prompt is too long. ..."}}`):
        // the generic message names the kind, the data's says what happened.
        if let Some(said) = e.get("data").and_then(|d| match d {
            Value::Object(data) => data.get("message").and_then(Value::as_str),
            Value::String(said) => Some(said.as_str()),
            _ => None,
        }) && self.message.as_deref() != Some(said.trim())
        {
            // A message that only names the kind ("Odoo Server Error") gives way to the data's:
            // its "server error" is every error's, not this one's.
            let generic = self.message.as_deref().is_some_and(|m| {
                let m = m.trim().to_ascii_lowercase();
                m.split_whitespace().count() <= 3 && m.ends_with("error")
            });
            if generic {
                self.message = non_empty(said).map(|m| clip(&m, MESSAGE_CHARS));
            } else {
                self.extra.push(' ');
                self.extra.push_str(&clip(said, MESSAGE_CHARS));
            }
        }
        // Azure's content filter: `innererror.code: ResponsibleAIPolicyViolation`.
        if let Some(inner) = e.get("innererror").and_then(Value::as_object) {
            self.read_labels(inner);
        }
        // Google's `details` (Gemini's API, also behind its OpenAI layer).
        if let Some(details) = e.get("details").and_then(Value::as_array) {
            for detail in details.iter().filter_map(Value::as_object) {
                self.read_google_detail(detail);
            }
        }
    }

    /// One of Google's error details. Gemini words every exhausted quota alike ("You exceeded your
    /// current quota, please check your plan and billing details"), per minute or per day: only the
    /// quota that was hit says whether waiting helps. Its id or name saying per day, or a limit of
    /// 0 (a model the plan has no quota for), becomes a quota label; per minute or per second, a
    /// rate label. `RetryInfo.retryDelay` is the wait.
    pub(super) fn read_google_detail(&mut self, detail: &serde_json::Map<String, Value>) {
        let mut quotas: Vec<(Option<&str>, Option<&str>)> = Vec::new();
        // QuotaFailure: `violations[]` with `quotaId` and `quotaValue`.
        for v in detail
            .get("violations")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
        {
            quotas.push((
                v.get("quotaId").and_then(Value::as_str),
                v.get("quotaValue").and_then(Value::as_str),
            ));
        }
        // ErrorInfo: `metadata.quota_limit` and `metadata.quota_limit_value`.
        if let Some(m) = detail.get("metadata").and_then(Value::as_object) {
            quotas.push((
                m.get("quota_limit").and_then(Value::as_str),
                m.get("quota_limit_value").and_then(Value::as_str),
            ));
        }
        for (id, value) in quotas {
            let id = id.unwrap_or("").to_ascii_lowercase();
            if value.is_some_and(|v| v.trim() == "0") {
                self.labels.push("quota_limit_zero".into());
            } else if id.contains("perday") || id.contains("perweek") || id.contains("permonth") {
                self.labels.push("quota_per_day".into());
            } else if id.contains("perminute") || id.contains("persecond") {
                self.labels.push("quota_per_minute".into());
            }
        }
        if let Some(delay) = detail.get("retryDelay").and_then(Value::as_str) {
            self.retry_delay_ms = google_duration_ms(delay);
        }
    }

    /// The first item of a validator's list (Pydantic's `{"type", "loc", "msg", "input"}`, Zod's
    /// `{"code", "path", "message"}`) as "field: message", its labels read; never the input it
    /// echoes. `None` when `list` is no such list.
    pub(super) fn read_validation_list(&mut self, list: Option<&Value>) -> Option<String> {
        let first = list?.as_array()?.first()?.as_object()?;
        let msg = ["msg", "message"]
            .iter()
            .find_map(|k| first.get(*k).and_then(Value::as_str))
            .and_then(non_empty)?;
        let field = ["loc", "path"]
            .iter()
            .find_map(|k| first.get(*k).and_then(Value::as_array))
            .map(|loc| {
                loc.iter()
                    .map(|part| {
                        part.as_str()
                            .map_or_else(|| part.to_string(), str::to_string)
                    })
                    .collect::<Vec<_>>()
                    .join(".")
            })
            // (Or named as a string: a renovation planner's `{"field": "prompt", "message":
            // "String must contain at most 1000 character(s)"}`.)
            .or_else(|| {
                first
                    .get("field")
                    .and_then(Value::as_str)
                    .and_then(non_empty)
            })
            .filter(|f| !f.is_empty());
        self.read_labels(first);
        Some(clip(
            &field.map_or_else(|| msg.clone(), |f| format!("{f}: {msg}")),
            MESSAGE_CHARS,
        ))
    }

    pub(super) fn read_labels(&mut self, e: &serde_json::Map<String, Value>) {
        for key in [
            "type",
            "code",
            "status",
            "error_type",
            // AlmondSpark's `{"error": "Please provide your Gemini API key.", "errorType":
            // "api_key"}`.
            "errorType",
            "error_code",
            "errorCode",
            // Apigee: `"detail": {"errorcode": "policies.ratelimit.QuotaViolation"}`.
            "errorcode",
            "reason",
        ] {
            if let Some(label) = e.get(key).and_then(Value::as_str) {
                let label = label.trim().to_ascii_lowercase();
                // A status in words, not a code (Coroot's `{"status": "Out of credits", "error":
                // ""}`, `"AI disabled"`): its words are the error's too.
                if key == "status" && label.contains(' ') {
                    self.extra.push(' ');
                    self.extra.push_str(&clip(&label, MESSAGE_CHARS));
                }
                if !label.is_empty() && label != "error" {
                    self.labels.push(label);
                }
            }
        }
    }

    /// The provider's message (with the error's type, when the provider wants it named); `what`
    /// says where the error came from when the provider gave no message.
    pub(super) fn describe(&self, provider: &Provider, what: &str) -> String {
        let kind = self.labels.first();
        match (&self.message, kind) {
            (Some(m), Some(k))
                if provider.type_in_message && !m.to_ascii_lowercase().contains(k.as_str()) =>
            {
                format!("{m} ({k})")
            }
            (Some(m), _) => m.clone(),
            (None, _) if self.labels.is_empty() => format!("{what}, without an error message"),
            (None, _) => format!(
                "{what} ({}), without an error message",
                self.labels.join(", ")
            ),
        }
    }

    pub(super) fn says_anything(&self) -> bool {
        self.message.is_some() || !self.labels.is_empty() || self.status.is_some()
    }

    pub(super) fn code(&self, status: Option<u16>, retry_after_ms: Option<u64>) -> FailureCode {
        // A reset time says the horizon only where no `retry-after` states a wait within a
        // retry's reach (Spot Buddy's hourly limit: `retry-after: 1800` beside a `reset` at
        // midnight): the header is the protocol, the body's time its guess.
        let reset = match retry_after_ms {
            Some(ms) if ms < meaning::QUOTA_HORIZON_MS => "",
            _ => self.reset_words.as_str(),
        };
        let haystack = normalize(&format!(
            "{} {}{reset}",
            self.message.as_deref().unwrap_or(""),
            self.extra
        ));
        let code = meaning::outlasting_rate_limit(
            code_for(&self.labels, &haystack, status),
            &haystack,
            retry_after_ms,
        );
        meaning::spend_window_resetting_soon(code, status, &haystack, retry_after_ms)
    }
}

impl ErrorInfo {
    /// A validator's `details` beside a generic error, its first field's message read as words:
    /// Zod's flattened errors (FiskAI's `{"error": "Validation failed", "details": {"formErrors":
    /// [], "fieldErrors": {"image": ["Image data must be 10MB or less"]}}}`) or its list
    /// (OmniOps' `{"error": "Invalid request format", "details": [{"code": "too_big", "message":
    /// "String must contain at most 5000 character(s)", "path": ["message"]}]}`).
    fn read_validation_details(&mut self, holder: &serde_json::Map<String, Value>) {
        let details = holder.get("details");
        let flattened = first_field_message(details.and_then(|d| d.get("fieldErrors")));
        let listed = self.read_validation_list(details);
        for first in [flattened, listed].into_iter().flatten() {
            self.extra.push(' ');
            self.extra.push_str(&first);
        }
    }

    /// The time a limit resets, as words (SkyLine's `{"error": "Rate limit exceeded", "limit":
    /// 100, "resetAt": "2026-12-04T00:00:00.000Z"}`; Read Master's `"reset": 1767052800000`, a
    /// Unix time in milliseconds, beside "Rate limit exceeded" for its five AI calls a day, put in
    /// words as an HTTP date): a reset at midnight is a day's budget, read by `meaning` as any
    /// "resets at" date is. A `reset` that is no Unix time (a count of seconds to wait) says
    /// nothing of a date.
    fn read_reset_time(&mut self, o: &serde_json::Map<String, Value>) {
        for key in ["resetAt", "reset_at", "resetsAt", "resets_at", "reset"] {
            let at = match o.get(key) {
                Some(Value::String(at)) if key != "reset" => clip(at, 40),
                Some(Value::Number(n)) => match n.as_u64().and_then(unix_time_words) {
                    Some(at) => at,
                    None => continue,
                },
                _ => continue,
            };
            self.reset_words.push_str(" resets at ");
            self.reset_words.push_str(&at);
        }
    }
}

/// The first message of Frappe's `_server_messages`: a JSON list of JSON strings, each an object
/// with a `message` (or a plain string).
fn frappe_first_message(list: &str) -> Option<String> {
    let items: Vec<Value> = serde_json::from_str(list).ok()?;
    items.iter().filter_map(Value::as_str).find_map(|item| {
        match serde_json::from_str::<Value>(item) {
            Ok(Value::Object(o)) => o.get("message").and_then(Value::as_str).map(str::to_string),
            _ => non_empty(item),
        }
    })
}

/// The value under `key`, else under the same key in another letter case: AWS's services write
/// `Message` (SageMaker's `{"OriginalStatusCode", "OriginalMessage", "Message"}`).
pub(super) fn field<'a>(map: &'a serde_json::Map<String, Value>, key: &str) -> Option<&'a Value> {
    map.get(key).or_else(|| {
        map.iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v)
    })
}

/// The keys an error's message goes by, in the order they are preferred.
pub(super) const MESSAGE_KEYS: &[&str] = &[
    "message",
    "msg",
    "detail",
    "error_description",
    "error_message",
    "error_msg",
    "errorMessage",
    "errmsg",
    // pgAdmin's `{"success": 0, "errormsg": "Please provide a message.", ...}`.
    "errormsg",
    "exceptionMsg",
    "status_msg",
    // Bisheng: `{"status_code": 12046, "status_message": "...", "data": {...}}`.
    "status_message",
    // Apigee's (and SOAP's) fault: `{"fault": {"faultstring": ..., "detail": {"errorcode": ...}}}`.
    "faultstring",
    // Vercel's AI SDK UI message stream: `{"type": "error", "errorText": "..."}`.
    "errorText",
    // Refact's `{"status": "error", "human_readable_message": "timeout"}`.
    "human_readable_message",
    // Last: a Python server's traceback, whose final line names the exception and its message.
    "traceback",
    // Kernel Memory's `{"noResult": true, "noResultReason": "Content moderation"}`.
    "noResultReason",
    // Transcribo's `{"errorId": "invalid_request", "status": 400, "debugMessage": "..."}`.
    "debugMessage",
    // Weblate's machine-translation answer in MyMemory's shape, `{"responseStatus": 500,
    // "responseDetails": "Blank assistant reply", "translations": []}`.
    "responseDetails",
    // A form's error not tied to a field: ConvoForm's `{"nonFieldError": "..."}`, Django REST
    // framework's `{"non_field_errors": ["..."]}`.
    "nonFieldError",
    "non_field_errors",
    // midjourney-proxy's `{"code": 23, "description": "队列已满，请稍后尝试"}` and its failed task's
    // `"failReason": "任务超时"`.
    "failReason",
    "fail_reason",
    "description",
    // GeekAI's stream event `{"type": "error", "body": "您的算力不足，请购买算力。"}`.
    "body",
    // Seldon Core's `{"status": {"info": "404 Not Found: ...", "reason":
    // "MICROSERVICE_INTERNAL_ERROR"}}`: before the reason, which is its label there.
    "info",
    // Elasticsearch's and OpenSearch's `{"error": {"root_cause": [...], "type": ..., "reason":
    // "..."}}`: with no message, the reason is the error's words (it is read as a label too).
    "reason",
    // SQLBot's error event `{"type": "error", "content": "{\"message\": \"Error code: 401 -
    // ...\"}"}`: last, since a chat message's `content` is no error's.
    "content",
    // An app's `answer` under an error status (Solaya Vault's 500 `{"answer": "המפתח לא הוגדר
    // בשרת."}`): its words are the error's, as a chat message's content is.
    "answer",
    // UiPath's guardrails API: `{"result": "ENTITLEMENTS_MISSING", "details": "Guardrail
    // entitlement is missing"}`. Last: Google's `details` is a list beside its message.
    "details",
];

/// Whether an object carries a message under one of [`MESSAGE_KEYS`] (for a decoder deciding
/// whether a 2xx body that says it failed is an error).
pub fn names_a_message(o: &serde_json::Map<String, Value>) -> bool {
    MESSAGE_KEYS.iter().any(|k| field(o, k).is_some())
}

/// The first object below `value` (breadth first, four levels at most) that carries a message
/// under one of [`MESSAGE_KEYS`]: the error, in an envelope this adapter does not know by name.
pub(super) fn nested_error_object(
    value: &Value,
    depth: usize,
) -> Option<&serde_json::Map<String, Value>> {
    if depth > 4 {
        return None;
    }
    let children: Vec<&Value> = match value {
        Value::Object(o) => o.values().collect(),
        Value::Array(items) => items.iter().collect(),
        _ => return None,
    };
    let has_message = |o: &&serde_json::Map<String, Value>| {
        MESSAGE_KEYS.iter().any(|k| {
            field(o, k)
                .and_then(Value::as_str)
                .is_some_and(|m| !m.trim().is_empty())
        })
    };
    children
        .iter()
        .filter_map(|c| c.as_object())
        .find(has_message)
        .or_else(|| {
            children
                .iter()
                .find_map(|c| nested_error_object(c, depth + 1))
        })
}

/// A protobuf JSON duration, "26s" or "20.04466179s", in milliseconds (rounded).
pub(super) fn google_duration_ms(text: &str) -> Option<u64> {
    let seconds: f64 = text.trim().strip_suffix('s')?.parse().ok()?;
    (seconds.is_finite() && seconds >= 0.0).then(|| (seconds * 1000.0).round() as u64)
}

/// A message's words: a string, or a list of strings (NestJS's `"message": ["email must be an
/// email", ...]`), joined.
pub(super) fn words_of(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => non_empty(s),
        Value::Array(items) if !items.is_empty() && items.iter().all(Value::is_string) => {
            non_empty(
                &items
                    .iter()
                    .filter_map(Value::as_str)
                    .collect::<Vec<_>>()
                    .join("; "),
            )
        }
        _ => None,
    }
}

/// The first field's message of a validator's errors by field (Rails' `{"user_question":
/// ["..."]}`, Zod's `fieldErrors`), as "field: message"; `None` when `errors` is no such map.
fn first_field_message(errors: Option<&Value>) -> Option<String> {
    // (Or a list of error objects: Lingo.dev's `"errors": [{"hash": "all", "sourceText": "all",
    // "error": "LLM translation failed with groq: ... timed out after 120000ms"}]`.)
    if let Some(first) = errors?.as_array().and_then(|items| items.first()) {
        return ["error", "message"]
            .iter()
            .find_map(|k| first.get(*k).and_then(words_of))
            .map(|said| clip(&said, MESSAGE_CHARS));
    }
    let (field, said) = errors?.as_object()?.iter().next()?;
    Some(clip(
        &format!("{field}: {}", words_of(said)?),
        MESSAGE_CHARS,
    ))
}

pub(super) fn string_of(v: &Value) -> Option<String> {
    v.as_str().and_then(non_empty)
}

pub(super) fn non_empty(s: &str) -> Option<String> {
    (!s.trim().is_empty()).then(|| s.to_string())
}

/// A Unix time in seconds or milliseconds (past 10^9 seconds, 2001) as an HTTP date, "Tue, 30
/// Dec 2025 00:00:00 GMT"; `None` for a smaller number, which is no time but a count.
fn unix_time_words(n: u64) -> Option<String> {
    let seconds = match n {
        1_000_000_000..=99_999_999_999 => n,
        1_000_000_000_000..=99_999_999_999_999 => n / 1000,
        _ => return None,
    };
    let at = std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds);
    Some(httpdate::fmt_http_date(at))
}

#[cfg(test)]
mod tests {
    use super::unix_time_words;

    #[test]
    fn unix_times_in_seconds_or_milliseconds_read_as_http_dates() {
        assert_eq!(
            unix_time_words(1_767_052_800_000).as_deref(),
            Some("Tue, 30 Dec 2025 00:00:00 GMT")
        );
        assert_eq!(
            unix_time_words(1_767_052_800).as_deref(),
            Some("Tue, 30 Dec 2025 00:00:00 GMT")
        );
        // A leap day, and a time of day.
        assert_eq!(
            unix_time_words(1_709_210_096).as_deref(),
            Some("Thu, 29 Feb 2024 12:34:56 GMT")
        );
        // Counts of seconds or milliseconds to wait are no dates.
        assert_eq!(unix_time_words(41_235), None);
        assert_eq!(unix_time_words(86_400_000), None);
    }
}
