//! The response-body decoder: OpenAI chat-completions SSE (and what compatible servers and the
//! Responses API put in such streams) into chunks.
//!
//! Ordering decision: with `stream_options.include_usage` OpenAI sends the usage in a chunk AFTER
//! the one that carries `finish_reason`. The finish is therefore held back and emitted at
//! `data: [DONE]` (or at `end()` if the server omits `[DONE]`), so the host always sees the usage
//! before the finish that closes the answer. Errors are emitted at once: nothing useful follows them.
//! After a finish, everything is ignored (a Responses `error` event is followed by `response.failed`:
//! one failure, not two).

use serde_json::Value;

use crate::classify::{classify_in_band, header_request_id};
use crate::fast::{self, ChatChunk, Str};
use crate::plan::provider_data_for;
use crate::sse::SseEvent;
use crate::text::{
    QUOTE_CHARS, excerpt, html_title, looks_like_html, words_of_a_code, words_of_a_key,
};
use crate::tools::ToolIndexer;
use crate::types::{
    Chunk, FailureCode, Finish, FinishKind, LlmFailure, ResponseHead, ToolCallDelta, Usage, codes,
};
use dsh_guest_support::answer::{self, AnswerHead, UnreadWords, declared_empty};
use dsh_guest_support::body::BodyInput;
use dsh_guest_support::classify::{failure_named_by_words, names_a_message, said_nothing_in_band};

/// Whether a JSON document that is no chat completion says it is an error: an error key of a known
/// envelope other than `error` (`error_code`, `error_msg`, `errors`, ...), or a `code` beside a
/// message, at the top or one object down.
fn carries_an_error(v: &Value) -> bool {
    const ERROR_KEYS: &[&str] = &[
        "error_code",
        "errorCode",
        "error_msg",
        "error_message",
        "errorMessage",
        "errmsg",
        "err_msg",
        // pgAdmin's `{"success": 0, "errormsg": "Please provide a message.", ...}` (an empty
        // `errormsg` beside a success).
        "errormsg",
        // Yuan's Megatron server: `{"errCode": 1, "exceptionMsg": "...", "flag": false}`.
        "errCode",
        "exceptionMsg",
        "errors",
    ];
    let Some(o) = v.as_object() else { return false };
    // (midjourney-proxy words its `{"code": 23, "description": "..."}` so.)
    // (A code that says success, `{"code": 0, "msg": "ok", "data": ...}`, is an envelope.)
    let coded = |o: &serde_json::Map<String, Value>| {
        o.contains_key("code")
            && !says_success(o.get("code"))
            && (o.contains_key("message") || o.contains_key("msg") || o.contains_key("description"))
    };
    // A body that says it failed (Petals' `{"ok": false, "traceback": ...}`; chatgpt-web's
    // `{"status": "Fail", "message": ..., "data": null}`).
    // (AutoGen Studio's `{"status": false, "message": "Error code: 429 - {...}"}` says so with a
    // boolean status.)
    let failed = ["ok", "success"]
        .iter()
        .any(|k| o.get(*k) == Some(&Value::Bool(false)))
        || (o.get("status") == Some(&Value::Bool(false)) && names_a_message(o))
        || found_no_result(v)
        // (chatgpt-mirai-qq-bot's `{"result": "FAILED", "message": ["..."]}`.)
        || (o.get("result").and_then(Value::as_str).is_some_and(|s| {
            ["failed", "failure", "error"]
                .iter()
                .any(|f| s.eq_ignore_ascii_case(f))
        }) && names_a_message(o))
        || (o.get("status").and_then(Value::as_str).is_some_and(|s| {
            [
                "fail",
                "failed",
                "failure",
                "error",
                "unauthorized",
                "forbidden",
                // Yuxi-Know's guard stopping the output ("status": "interrupted").
                "interrupted",
            ]
            .iter()
            .any(|f| s.eq_ignore_ascii_case(f))
            // A guard's block (Enkrypt's MCP gateway: `"status": "blocked_input"`).
            || s.to_ascii_lowercase().starts_with("blocked")
        }) && names_a_message(o))
        // An HTTP status of its own beside a message (Typebot's stream route: `{"message": "No
        // API key provided", "status": 500, "context": ...}` under a 200).
        || (o
            .get("status")
            .and_then(Value::as_u64)
            .is_some_and(|c| (400..600).contains(&c))
            && names_a_message(o))
        // A status code of its own that is no success beside a message (Bisheng's
        // `{"status_code": 403, "status_message": "No permission to operate", "data": ...}`).
        || (o
            .get("status_code")
            .and_then(Value::as_i64)
            .is_some_and(|c| c != 0 && !(200..300).contains(&c))
            && names_a_message(o));
    // (An empty list or word is no error: Vigil's scan result says `"errors": []` beside its
    // verdict.)
    let present = |e: &Value| match e {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        Value::Object(o) => !o.is_empty(),
        Value::String(s) => !s.trim().is_empty(),
        _ => true,
    };
    ERROR_KEYS.iter().any(|k| o.get(*k).is_some_and(present))
        || failed
        || coded(o)
        // One level down, as iFlytek's frames put it: `{"header": {"code": 11200, "message": ...}}`.
        || o.values().filter_map(Value::as_object).any(coded)
}

/// The values in the JSON texts of a JSON-RPC result (an MCP gateway's tool call: Enkrypt's
/// `{"jsonrpc": "2.0", "result": {"content": [{"type": "text", "text": "[{\"status\":
/// \"blocked_input\", ...}]"}]}}`), lists flattened: a body inside the body, read as one.
fn json_rpc_result_values(values: &[Value]) -> Vec<Value> {
    values
        .iter()
        .filter(|v| v.get("jsonrpc").is_some())
        .filter_map(|v| v.pointer("/result/content").and_then(Value::as_array))
        .flatten()
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .filter_map(|t| serde_json::from_str::<Value>(t).ok())
        .flat_map(|v| match v {
            Value::Array(items) => items,
            v => vec![v],
        })
        .collect()
}

/// An error inside a body or an event of an app's own shape, five levels down at most: an object
/// with a message under a key that names an error (PaperDebugger's `{"result": {"streamError":
/// {"errorMessage": ...}}}`), an object with a message that its reason, status or type marks as
/// an error (Crush's turn `{"type": "finish", "data": {"reason": "error", "message": ...}}`), or
/// one that says `"is_error": true` (the Claude Code SDK's result, whose words are its `result`).
/// The error, as an in-band error to classify.
fn error_within(v: &Value, depth: usize) -> Option<Value> {
    if depth > 5 {
        return None;
    }
    let o = v.as_object()?;
    if depth > 0 {
        let marked = ["reason", "status", "type"].iter().any(|k| {
            o.get(*k)
                .and_then(Value::as_str)
                .is_some_and(|m| m.eq_ignore_ascii_case("error"))
        });
        if marked && names_a_message(o) {
            return Some(v.clone());
        }
    }
    let says_error = ["is_error", "isError"]
        .iter()
        .any(|k| o.get(*k) == Some(&Value::Bool(true)));
    if says_error
        && let Some(said) = ["result", "message", "error", "text"]
            .iter()
            .find_map(|k| o.get(*k).and_then(Value::as_str))
            .filter(|said| !said.trim().is_empty())
    {
        return Some(serde_json::json!({ "message": said }));
    }
    let names_an_error = |k: &str| {
        let k = k.to_ascii_lowercase();
        k == "errors" || k.ends_with("error")
    };
    let named = o
        .iter()
        .filter(|(k, _)| names_an_error(k))
        .find_map(|(_, e)| {
            let e = e.as_array().and_then(|items| items.first()).unwrap_or(e);
            e.as_object()
                .is_some_and(names_a_message)
                .then(|| e.clone())
        });
    named.or_else(|| {
        o.values().find_map(|c| match c {
            Value::Array(items) => items.iter().find_map(|i| error_within(i, depth + 1)),
            c => error_within(c, depth + 1),
        })
    })
}

/// The error part of a body in the Vercel AI SDK's data-stream protocol, in which every line is a
/// part: a type code, a colon and a JSON value (bolt.diy's chat route: `2:[{"type":"progress",
/// ...}]` then `3:"Custom error: Invalid model selected. ..."`). Part `3` is an error's words. A
/// body with any other line is not in the protocol and gives nothing.
fn data_stream_error(text: &str) -> Option<String> {
    let mut error = None;
    for line in text.lines().map(str::trim).filter(|l| !l.is_empty()) {
        let (code, json) = line.split_once(':')?;
        let is_type_code = (1..=2).contains(&code.len())
            && code
                .bytes()
                .all(|b| b.is_ascii_digit() || b.is_ascii_lowercase());
        if !is_type_code {
            return None;
        }
        let part: Value = serde_json::from_str(json).ok()?;
        if code == "3" && error.is_none() {
            error = part.as_str().map(str::to_string);
        }
    }
    error
}

/// Whether an app's answer carries a safety (or moderation) verdict that refused it: a
/// `safety`/`moderation` object with a value "refusal", "refused", "blocked" or "flagged", or a
/// flag of the answer's own set true.
fn marked_refused(v: &Value) -> bool {
    // A flag of its own (code-tutor-ai's `{"answer": "I can only help with programming ...",
    // "isRefusal": true}`): `isRefusal`, `is_refused`, `blocked` set true.
    let flag_set = |set: bool| {
        v.as_object().is_some_and(|o| {
            o.iter().any(|(k, flag)| {
                let key = k.to_ascii_lowercase().replace('_', "");
                let key = key.strip_prefix("is").unwrap_or(&key);
                flag.as_bool() == Some(set) && matches!(key, "refusal" | "refused" | "blocked")
            })
        })
    };
    let flagged = flag_set(true);
    // Or its answer typed as a refusal (a Hindu-scripture chatbot's `{"response": "I'm really
    // sorry you're feeling this way. ...", "type": "safety"}` and its out-of-domain `"type":
    // "decline"`): the app's own verdict on what it answered.
    let typed = v.as_object().is_some_and(|o| {
        app_answers(o).next().is_some()
            && o.get("type").and_then(Value::as_str).is_some_and(|t| {
                matches!(
                    t.trim().to_ascii_lowercase().as_str(),
                    "safety"
                        | "decline"
                        | "declined"
                        | "refusal"
                        | "refused"
                        | "blocked"
                        | "moderation"
                )
            })
    });
    // Or its answer a decline of what lies outside the app's scope (a Frappe MCP server's
    // `{"response": "I'm an ERPNext assistant specialized in helping you with your business data
    // (...). For general questions or other topics, please use a general-purpose AI assistant.",
    // "is_valid_data": false, ...}`): a body in no API's shape is no answer to deliver, and this
    // one says the request was refused.
    // (A flag of its own set false says otherwise, and is believed.)
    // (Or a lone `message`, DentraFlow's `{"message": "I can only help with dental
    // appointments."}`: the app's whole answer.)
    let declined_off_topic = !flag_set(false)
        && v.as_object().is_some_and(|o| {
            app_answers(o).any(declines_as_off_topic)
                || (o.len() == 1
                    && o.get("message")
                        .and_then(Value::as_str)
                        .is_some_and(declines_as_off_topic))
        });
    flagged
        || typed
        || declined_off_topic
        || ["safety", "moderation"].iter().any(|k| {
            v.get(*k).and_then(Value::as_object).is_some_and(|verdict| {
                verdict.values().filter_map(Value::as_str).any(|said| {
                    ["refusal", "refused", "blocked", "flagged"]
                        .iter()
                        .any(|w| said.eq_ignore_ascii_case(w))
                })
            })
        })
}

/// The texts of an app's answer: the strings under a key that names one (`response`, `answer`,
/// `reply`, `analysis`, or one of them with a suffix, KrishiBondhu's `reply_text`,
/// `responseText`), in the keys' order.
fn app_answers(o: &serde_json::Map<String, Value>) -> impl Iterator<Item = &str> {
    o.iter()
        .filter(|(k, _)| {
            let k = k.to_ascii_lowercase().replace('_', "");
            ["response", "answer", "reply", "analysis"]
                .iter()
                .any(|name| {
                    k.strip_prefix(name)
                        .is_some_and(|rest| matches!(rest, "" | "text" | "message"))
                })
        })
        .filter_map(|(_, v)| v.as_str())
}

/// An app's answer whose first line says it is an error ("⚠️ **Lỗi: Không có quyền truy cập.**"
/// then a list of remedies, THITHI-AI's answers for Gemini's failures): that line, the error's
/// words; the remedies after it name other things (billing, keys, quotas) to check. Any other
/// answer, whole.
fn error_line_or_whole(answer: &str) -> &str {
    let first = answer.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
    let lower = first.to_lowercase();
    if first.len() < answer.trim().len()
        && [
            "error:",
            "lỗi:",
            "erro:",
            "fehler:",
            "erreur:",
            "错误：",
            "错误:",
        ]
        .iter()
        .any(|lead| lower.contains(lead))
    {
        first
    } else {
        answer
    }
}

/// Whether an app's answer declines the request as outside what the app is for: it says it can
/// only help with its own subject, or sends other topics elsewhere ("For general questions or
/// other topics, please use a general-purpose AI assistant.").
fn declines_as_off_topic(answer: &str) -> bool {
    let answer = answer.to_lowercase().replace('’', "'");
    [
        "i can only help with",
        "i can only assist with",
        "i can only answer questions",
        "i'm only able to help with",
        "i am only able to help with",
        "outside my scope",
        "outside the scope of what i",
        "for general questions or other topics",
        "please use a general-purpose",
        "please use a general purpose",
    ]
    .iter()
    .any(|p| answer.contains(p))
}

/// A platform's success envelope (`code` that says success) whose `data` holds a reply under a
/// reply's key (`message`, `reply`, `content`, `answer`, `text`) and every such reply is empty;
/// or whose `data` holds lists of what was generated (`images`, `imageList`, `results`, ...)
/// and every such list is empty, whatever message is beside them (an image server's
/// `{"result": true, "code": 200, "data": {"imageList": [], "message": "... 이미지 파일이 존재하지
/// 않습니다."}}` when Imagen made no image).
fn empty_reply_in_a_success_envelope(v: &Value) -> bool {
    const REPLY_KEYS: &[&str] = &["message", "messages", "reply", "content", "answer", "text"];
    const GENERATED_LISTS: &[&str] = &[
        "images",
        "imageList",
        "image_list",
        "audios",
        "videos",
        "results",
        "outputs",
        "generations",
    ];
    let Some(data) = v.get("data").and_then(Value::as_object) else {
        return false;
    };
    if !says_success(v.get("code")) {
        return false;
    }
    let empty = |r: &Value| match r {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        Value::Array(items) => items.is_empty(),
        _ => false,
    };
    let lists: Vec<&Value> = GENERATED_LISTS
        .iter()
        .filter_map(|k| data.get(*k))
        .collect();
    if !lists.is_empty()
        && lists
            .iter()
            .all(|l| l.as_array().is_some_and(Vec::is_empty))
    {
        return true;
    }
    let replies: Vec<&Value> = REPLY_KEYS.iter().filter_map(|k| data.get(*k)).collect();
    !replies.is_empty() && replies.into_iter().all(empty)
}

/// A body that is no more than a kind and the list of what was generated, left empty
/// (Kinective's `{"type": "plan", "plan": []}` when the model's plan parsed to nothing): the
/// app answered, with nothing made.
fn a_generated_list_left_empty(v: &Value) -> bool {
    const LISTS: &[&str] = &[
        "plan",
        "plans",
        "items",
        "questions",
        "suggestions",
        "results",
    ];
    let Some(o) = v.as_object() else { return false };
    let listed: Vec<&Value> = LISTS.iter().filter_map(|k| o.get(*k)).collect();
    !listed.is_empty()
        && listed
            .iter()
            .all(|l| l.as_array().is_some_and(Vec::is_empty))
        && o.iter()
            .all(|(k, value)| LISTS.contains(&k.as_str()) || (k == "type" && value.is_string()))
}

/// Whether an envelope's `code` says success: 0 or 200, as a number or a string, or "success"/"ok".
fn says_success(code: Option<&Value>) -> bool {
    match code {
        Some(Value::Number(n)) => matches!(n.as_i64(), Some(0 | 200)),
        Some(Value::String(s)) => ["0", "200", "success", "ok"]
            .iter()
            .any(|w| s.trim().eq_ignore_ascii_case(w)),
        _ => false,
    }
}

/// A chat message (an object with a `role`), at most three levels down, whose `meta` or `metadata`
/// names an error as a string: that error as a message (a code's words first, then the message's
/// content), for `classify_in_band`.
fn message_marked_failed(v: &Value, depth: usize) -> Option<Value> {
    let o = v.as_object()?;
    if o.contains_key("role") {
        let error = ["meta", "metadata"]
            .iter()
            .find_map(|k| o.get(*k)?.get("error")?.as_str())
            .map(str::trim)
            .filter(|e| !e.is_empty())?;
        let words = words_of_a_code(error).unwrap_or_else(|| error.to_string());
        let content = o.get("content").and_then(Value::as_str).unwrap_or("");
        return Some(serde_json::json!({ "message": format!("{words}: {content}") }));
    }
    if depth >= 3 {
        return None;
    }
    o.values()
        .find_map(|inner| message_marked_failed(inner, depth + 1))
}

/// Kernel Memory's answer that found nothing to answer with, whole or as a stream's event:
/// `"noResult": true` and why, in `noResultReason`.
fn found_no_result(v: &Value) -> bool {
    v.get("noResult") == Some(&Value::Bool(true)) && v.get("noResultReason").is_some()
}

/// Whether the typed fast path takes the event `data` (tests check it covers the common shapes).
#[doc(hidden)]
pub fn fast_path_takes(data: &str) -> bool {
    fast::parse(data.trim()).is_some()
}

pub struct Decoder {
    head: ResponseHead,
    input: BodyInput,
    /// The finish a `finish_reason` announced, held until the stream ends (see the module comment).
    pending: Option<Finish>,
    /// A `finish_reason: "error"` whose chunk said no words, held for one more event that may
    /// (see `on_error_finish`).
    wordless_error: Option<Finish>,
    /// The answer's first words, to tell an error report written as the answer from an answer
    /// when it finishes.
    answer: AnswerHead,
    /// The words of events this decoder could not read, for a stream that gives nothing else.
    unread: UnreadWords,
    /// A chunk was emitted: the stream gave something this decoder read.
    emitted: bool,
    /// A finish was emitted: the answer is over.
    finished: bool,
    saw_tool_call: bool,
    /// A non-streaming `choices[].message` was seen: the document is complete by itself.
    saw_message: bool,
    tools: ToolIndexer,
    /// Whether the typed fast path is used (see `fast`); off only to compare it in tests.
    fast_path: bool,
}

impl Decoder {
    pub fn new(head: ResponseHead) -> Self {
        Decoder {
            head,
            input: BodyInput::new(),
            pending: None,
            wordless_error: None,
            answer: AnswerHead::default(),
            unread: UnreadWords::default(),
            emitted: false,
            finished: false,
            saw_tool_call: false,
            saw_message: false,
            tools: ToolIndexer::default(),
            fast_path: true,
        }
    }

    /// A decoder that parses every event into a `serde_json::Value` (no typed fast path): the
    /// reference the fast path is tested against.
    #[doc(hidden)]
    pub fn without_fast_path(head: ResponseHead) -> Self {
        Decoder {
            fast_path: false,
            ..Decoder::new(head)
        }
    }

    /// One network read, as it came.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        let events = self.input.feed(bytes);
        for event in events {
            self.on_event(event, &mut out);
        }
        Chunk::join_adjacent_text(&mut out);
        self.answer.note(&out);
        self.emitted |= !out.is_empty();
        out
    }

    /// The body is complete.
    pub fn end(&mut self) -> Vec<Chunk> {
        let mut out = Vec::new();
        if self.finished {
            return out;
        }
        for event in self.input.finish() {
            self.on_event(event, &mut out);
        }
        if let Some(finish) = self.wordless_error.take() {
            self.emit_finish(finish, &mut out);
        }
        if self.finished {
            return out;
        }
        if !self.input.saw_framing() {
            self.decode_plain_body(&mut out);
        }
        if !self.finished {
            // The model finished but the server closed without `[DONE]`: the answer is complete.
            // Without any finish nothing is emitted and the host reports STREAM_TRUNCATED.
            if let Some(finish) = self.pending.take() {
                self.emit_finish(finish, &mut out);
            }
        }
        // A stream of events none of which this decoder could read, whose words name a failure
        // (ruoyi-ai's `data:余额不足，...请充值后再试`, its balance spent): that failure, rather than
        // a truncated stream.
        if !self.finished
            && !self.emitted
            && out.is_empty()
            && let Some(failure) = self.unread.failure(|v| classify_in_band(v, &self.head))
        {
            self.emit_error(failure, &mut out);
        }
        out
    }

    fn on_event(&mut self, event: SseEvent, out: &mut Vec<Chunk>) {
        if self.finished {
            return;
        }
        let data = event.data.trim();
        if let Some(finish) = self.wordless_error.take() {
            return self.after_wordless_error(finish, data, out);
        }
        if data == "[DONE]" {
            let finish = match self.pending.take() {
                Some(finish) => finish,
                // `[DONE]` with no `finish_reason` after a tool call began: a proxy that lost the
                // upstream wrote `[DONE]` anyway (tests/fixtures/tool-arguments.json,
                // truncated-stream-partial-arguments). The arguments may be cut off, and a cut-off
                // call must never run: this is a truncated stream, not a tool call.
                None if self.saw_tool_call => Finish {
                    kind: FinishKind::Error,
                    reason: None,
                    failure: Some(LlmFailure {
                        request_id: header_request_id(&self.head),
                        ..LlmFailure::new(
                            codes::STREAM_TRUNCATED,
                            "the stream ended ([DONE]) without a finish_reason while a tool call was \
                             streaming: its arguments may be cut off",
                        )
                    }),
                },
                // `[DONE]` after nothing this decoder could read: the failure the unread events'
                // words name, if any (see `end`), else an empty stop.
                None if !self.emitted && out.is_empty() => {
                    match self.unread.failure(|v| classify_in_band(v, &self.head)) {
                        Some(failure) => return self.emit_error(failure, out),
                        None => self.finish_for(None),
                    }
                }
                None => self.finish_for(None),
            };
            self.emit_finish(finish, out);
            return;
        }
        let name = event.event.as_deref();
        // The common chunk shape, typed (see `fast`); everything else below, as a `Value`. An
        // `event:` name that selects another branch of `on_json` keeps the event on that path.
        if self.fast_path
            && !name.is_some_and(|n| names_an_error_event(n) || n.starts_with("response."))
            && let Some(chunk) = fast::parse(data)
        {
            return self.on_chat_typed(chunk, out);
        }
        match serde_json::from_str::<Value>(data) {
            Ok(value) => self.on_json(name, &value, out),
            // `event: error` with a text payload is still an error (AIDeepin names it
            // `event:[ERROR]`).
            Err(_) if event.event.as_deref().is_some_and(names_an_error_event) => {
                let failure =
                    classify_in_band(&Value::String(excerpt(data, QUOTE_CHARS)), &self.head);
                self.emit_error(failure, out);
            }
            // A payload that is not JSON (a cut-off last event, a server's odd keep-alive, a
            // platform's plain-text notice) carries nothing we can use as the answer; a stream
            // made only of them ends without a finish: truncated, unless their words name a
            // failure (see `end`).
            Err(_) => self.unread.note_text(data),
        }
    }

    fn on_json(&mut self, event_name: Option<&str>, v: &Value, out: &mut Vec<Chunk>) {
        let kind = v
            .get("type")
            .and_then(Value::as_str)
            .or(event_name)
            .unwrap_or("");
        // (A status event that says it failed, with a message, is one too: Hugging Face chat-ui's
        // `{"type": "status", "status": "error", "message": "No output was generated. ..."}`.)
        // (An `event: error` is one whatever its data's own `type`: AFFiNE's copilot sends
        // `"type": "INTERNAL_SERVER_ERROR"` in it; so is an event whose data names itself one,
        // as JeecgBoot's `{"event": "ERROR", "data": {"message": ..., "success": false}}`.)
        // (A type that names an error under a namespace, Baserow's assistant's `{"type":
        // "ai/error", "content": "The assistant has reached the maximum number of steps. ..."}`:
        // its `content` is the error's words.)
        let namespaced_error = kind
            .rsplit_once('/')
            .is_some_and(|(_, last)| last.eq_ignore_ascii_case("error"));
        if namespaced_error && let Some(said) = v.get("content").and_then(Value::as_str) {
            let failure = classify_in_band(
                &serde_json::json!({ "message": said, "type": kind }),
                &self.head,
            );
            self.emit_error(failure, out);
            return;
        }
        if kind == "error"
            || namespaced_error
            || event_name.is_some_and(names_an_error_event)
            || v.get("event")
                .and_then(Value::as_str)
                .is_some_and(names_an_error_event)
            || v.get("error")
                .is_some_and(|e| !e.is_null() && e != &Value::Bool(false))
            || v.get("object").and_then(Value::as_str) == Some("error")
            || found_no_result(v)
            || (kind == "status"
                && matches!(
                    v.get("status").and_then(Value::as_str),
                    Some("error" | "failed")
                )
                && v.get("message").is_some_and(Value::is_string))
        {
            let failure = classify_in_band(v, &self.head);
            self.emit_error(failure, out);
            return;
        }
        // A model worker's output (FastChat's protocol, which DB-GPT streams as is: `{"text":
        // "**GPU OutOfMemory, Please Refresh.**", "error_code": 1}`): a code other than 0 makes its
        // text the error's words.
        if v.get("choices").is_none()
            && v.get("error_code")
                .and_then(Value::as_i64)
                .is_some_and(|c| c != 0)
            && let Some(text) = v.get("text").and_then(Value::as_str)
        {
            let failure = classify_in_band(&serde_json::json!({ "message": text }), &self.head);
            return self.emit_error(failure, out);
        }
        // An event in an error envelope of its own and no completion's shape (yudao's
        // `{"code": 1040004001, "msg": "对话生成异常!"}`), as a 2xx body in one is read. A code
        // that says success (`{"code": 0, "msg": "ok", "data": ...}`) is an envelope, not an error.
        if !kind.starts_with("response.")
            && v.get("choices").is_none()
            && v.get("usage").is_none()
            && !says_success(v.get("code"))
            && carries_an_error(v)
        {
            let failure = classify_in_band(v, &self.head);
            return self.emit_error(failure, out);
        }
        match kind {
            "response.failed" => {
                let response = v.get("response").unwrap_or(&Value::Null);
                let failure = classify_in_band(response, &self.head);
                self.emit_error(failure, out);
            }
            "response.output_text.delta" => push_text(out, Chunk::Text, v.get("delta")),
            "response.reasoning_summary_text.delta" | "response.reasoning_text.delta" => {
                push_text(out, Chunk::Reasoning, v.get("delta"))
            }
            "response.output_item.added" => {
                let item = v.get("item").unwrap_or(&Value::Null);
                if item.get("type").and_then(Value::as_str) == Some("function_call") {
                    let id = item.get("call_id").and_then(Value::as_str);
                    let name = item.get("name").and_then(Value::as_str);
                    let args = arguments_text(item.get("arguments"));
                    self.push_tool_call(out, output_index(v), id, name, args, None);
                }
            }
            "response.function_call_arguments.delta" => {
                let args = arguments_text(v.get("delta"));
                self.push_tool_call(out, output_index(v), None, None, args, None);
            }
            "response.completed" | "response.incomplete" => {
                let response = v.get("response").unwrap_or(&Value::Null);
                self.finish_response(response, kind == "response.completed", out);
            }
            // A whole Responses API object, not streamed (Maritaca's `{"object": "response",
            // "status": "incomplete", ...}`): its output items, then its end.
            _ if v.get("object").and_then(Value::as_str) == Some("response") => {
                self.on_whole_response(v, out)
            }
            _ if v.get("choices").is_some() || v.get("usage").is_some() => self.on_chat(v, out),
            // The Responses API's other events carry the request's own text (`response.created`
            // echoes the instructions): nothing of a failure.
            _ if kind.starts_with("response.") => {}
            // An unknown event with an error inside (Crush's failed turn, see `error_within`).
            _ if let Some(error) = error_within(v, 0) => {
                let failure = classify_in_band(&error, &self.head);
                self.emit_error(failure, out);
            }
            // Unknown events are ignored, their words kept for a stream that gives nothing else.
            _ => self.unread.note_json(v),
        }
    }

    /// A Responses API response's end: its usage, then the finish its status says (`completed`,
    /// or `incomplete` for the reason in `incomplete_details`).
    fn finish_response(&mut self, response: &Value, completed: bool, out: &mut Vec<Chunk>) {
        if let Some(usage) = response.get("usage").and_then(usage_of) {
            out.push(Chunk::Usage(usage));
        }
        let finish = if completed {
            self.finish_for(Some("completed"))
        } else {
            let reason = response
                .pointer("/incomplete_details/reason")
                .and_then(Value::as_str)
                .unwrap_or("incomplete");
            match self.finish_for(Some(reason)) {
                // An incomplete response that is not filtered ran out of output budget.
                f if f.kind == FinishKind::Stop => finish(FinishKind::Length, reason),
                f => f,
            }
        };
        self.emit_finish(finish, out);
    }

    /// A whole Responses API object: the text, reasoning summaries and function calls of its
    /// `output` items, in order, then its end by `status`. A response still queued or in progress
    /// (a background request polled too early) gives nothing: the host says truncated.
    fn on_whole_response(&mut self, v: &Value, out: &mut Vec<Chunk>) {
        let status = v
            .get("status")
            .and_then(Value::as_str)
            .unwrap_or("completed");
        if status == "failed" {
            let failure = classify_in_band(v, &self.head);
            return self.emit_error(failure, out);
        }
        if !matches!(status, "completed" | "incomplete") {
            return;
        }
        let items = v
            .get("output")
            .and_then(Value::as_array)
            .map_or(&[][..], Vec::as_slice);
        for (index, item) in items.iter().enumerate() {
            let parts = |key: &str| {
                item.get(key)
                    .and_then(Value::as_array)
                    .map_or(&[][..], Vec::as_slice)
            };
            match item.get("type").and_then(Value::as_str) {
                Some("message") => {
                    for part in parts("content") {
                        if part.get("type").and_then(Value::as_str) == Some("output_text") {
                            push_text(out, Chunk::Text, part.get("text"));
                        }
                    }
                }
                Some("reasoning") => {
                    for part in parts("summary") {
                        push_text(out, Chunk::Reasoning, part.get("text"));
                    }
                }
                Some("function_call") => {
                    let args = arguments_text(item.get("arguments"));
                    self.push_tool_call(
                        out,
                        u32::try_from(index).ok(),
                        item.get("call_id").and_then(Value::as_str),
                        item.get("name").and_then(Value::as_str),
                        args,
                        None,
                    );
                }
                _ => {}
            }
        }
        self.finish_response(v, status == "completed", out);
    }

    /// A chat-completions chunk (`choices[].delta`) or a whole completion (`choices[].message`).
    fn on_chat(&mut self, v: &Value, out: &mut Vec<Chunk>) {
        let choices = v
            .get("choices")
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or(&[]);
        // Only the first choice: the adapter never asks for `n > 1`.
        for choice in choices
            .iter()
            .filter(|c| c.get("index").and_then(Value::as_u64).unwrap_or(0) == 0)
        {
            let delta = match (choice.get("delta"), choice.get("message")) {
                (Some(d), _) if d.is_object() => d,
                (_, Some(m)) if m.is_object() => {
                    self.saw_message = true;
                    m
                }
                _ => &Value::Null,
            };
            // DeepSeek and vLLM say `reasoning_content`, OpenRouter and newer vLLM `reasoning`;
            // a server sending both sends the same text twice, so take one.
            let reasoning = delta
                .get("reasoning_content")
                .filter(|r| r.is_string())
                .or(delta.get("reasoning"));
            push_text(out, Chunk::Reasoning, reasoning);
            push_content(out, delta.get("content"));
            if let Some(calls) = delta.get("tool_calls").and_then(Value::as_array) {
                for call in calls {
                    let index = call
                        .get("index")
                        .and_then(Value::as_u64)
                        .and_then(|i| u32::try_from(i).ok());
                    let function = call.get("function").unwrap_or(&Value::Null);
                    self.push_tool_call(
                        out,
                        index,
                        call.get("id").and_then(Value::as_str),
                        function.get("name").and_then(Value::as_str),
                        arguments_text(function.get("arguments")),
                        // What the server attached to the call (Gemini's thought signature), to
                        // be sent back with it.
                        call.get("extra_content")
                            .filter(|e| e.is_object())
                            .map(provider_data_for),
                    );
                }
            }
            // The deprecated `functions` API: one call, no id.
            if let Some(call) = delta.get("function_call").filter(|c| c.is_object()) {
                let name = call.get("name").and_then(Value::as_str);
                self.push_tool_call(
                    out,
                    Some(0),
                    None,
                    name,
                    arguments_text(call.get("arguments")),
                    None,
                );
            }
            // (Or `finishReason`, in a Java server's camelCase: LangChat's `"finishReason":
            // "LENGTH"`, whose values `finish_for` reads in any letter case.)
            if let Some(reason) = choice
                .get("finish_reason")
                .or_else(|| choice.get("finishReason"))
                .and_then(Value::as_str)
                .filter(|r| !r.is_empty())
            {
                let finish = self.finish_for(Some(reason));
                if finish.kind == FinishKind::Error {
                    return self.on_error_finish(finish, out);
                }
                self.pending = Some(finish);
            }
        }
        // Groq reports usage under `x_groq`.
        let usage = v
            .get("usage")
            .filter(|u| u.is_object())
            .or_else(|| v.pointer("/x_groq/usage"));
        if let Some(usage) = usage.and_then(usage_of) {
            out.push(Chunk::Usage(usage));
        }
    }

    /// `on_chat` for a plain streamed chunk (`fast::ChatChunk::is_plain`): the same steps, on
    /// the typed fields.
    fn on_chat_typed(&mut self, chunk: ChatChunk<'_>, out: &mut Vec<Chunk>) {
        let choices = chunk.choices.unwrap_or_default();
        for choice in choices.into_iter().filter(|c| c.index.unwrap_or(0) == 0) {
            let delta = choice.delta.unwrap_or_default();
            push_str(
                out,
                Chunk::Reasoning,
                delta.reasoning_content.or(delta.reasoning),
            );
            push_str(out, Chunk::Text, delta.content);
            for call in delta.tool_calls.unwrap_or_default() {
                let index = call.index.and_then(|i| u32::try_from(i).ok());
                let function = call.function.unwrap_or_default();
                self.push_tool_call(
                    out,
                    index,
                    call.id.as_ref().map(Str::as_str),
                    function.name.as_ref().map(Str::as_str),
                    function.arguments.map(Str::into_string).unwrap_or_default(),
                    // `extra_content` sends the event to the `Value` path (`is_plain`).
                    None,
                );
            }
            if let Some(reason) = choice
                .finish_reason
                .or(choice.finish_reason_camel)
                .filter(|r| !r.as_str().is_empty())
            {
                let finish = self.finish_for(Some(reason.as_str()));
                if finish.kind == FinishKind::Error {
                    return self.on_error_finish(finish, out);
                }
                self.pending = Some(finish);
            }
        }
        // A plain chunk has no usage.
    }

    /// A body without SSE framing: a non-streaming completion, an error object, JSON lines, or
    /// garbage. An empty body yields nothing (truncated).
    fn decode_plain_body(&mut self, out: &mut Vec<Chunk>) {
        let raw = self.input.take_raw();
        let text = String::from_utf8_lossy(&raw);
        if text.trim().is_empty() && !self.input.raw_too_large() {
            // A body declared empty (`content-length: 0`, copilot-gpt4-service's bare 200 when its
            // upstream failed) is complete, and empty. Any other empty body may have been cut off
            // before its first byte: nothing is emitted, and the host says truncated.
            if declared_empty(&self.head) {
                let failure = self.empty_response(answer::DECLARED_EMPTY);
                self.emit_error(failure, out);
            }
            return;
        }
        // A route answering in the AI SDK's data-stream protocol rather than SSE (bolt.diy): its
        // error part is the failure.
        if let Some(said) = data_stream_error(&text) {
            let failure = classify_in_band(&serde_json::json!({ "message": said }), &self.head);
            return self.emit_error(failure, out);
        }
        let values: Result<Vec<Value>, _> = serde_json::Deserializer::from_str(&text)
            .into_iter::<Value>()
            .collect();
        let values = match values {
            Ok(values) if !self.input.raw_too_large() && !values.is_empty() => values,
            _ => return self.emit_error(self.meaning_or_unparseable(&text, &text, false), out),
        };
        // Anything else (a Responses object, some other API's JSON) is not a chat completion; saying
        // so beats a silent "truncated".
        let knows = |v: &Value| {
            ["choices", "usage", "error", "type"]
                .iter()
                .any(|k| v.get(k).is_some())
        };
        // A completion inside a gateway's own envelope (SAP AI Core's orchestration answer: the
        // completion as `final_result`, beside the `intermediate_results` of its modules): the
        // completion, one level down, is the answer.
        let values: Vec<Value> = values
            .into_iter()
            .map(|v| match v.as_object() {
                Some(o) if !knows(&v) && !carries_an_error(&v) => o
                    .values()
                    .find(|inner| inner.get("choices").is_some_and(Value::is_array))
                    .cloned()
                    .unwrap_or(v),
                _ => v,
            })
            .collect();
        if !values.iter().any(knows) {
            let failure = self.failure_of_a_foreign_body(&values, &text);
            return self.emit_error(failure, out);
        }
        if let Some(failure) = values.iter().find_map(|v| self.answer_no_model_wrote(v)) {
            return self.emit_error(failure, out);
        }
        for value in &values {
            self.on_json(None, value, out);
            if self.finished {
                return;
            }
        }
        if self.pending.is_none() && self.saw_message {
            // A whole completion without `finish_reason` still ended.
            self.pending = Some(self.finish_for(None));
        }
        // A whole completion with no choice at all (LLamaWorker's answer to an empty `messages`:
        // `"choices": []` and zero usage): complete, and empty, not cut off.
        // (Or `"choices": null`, coze-discord-proxy's answer when its bot's reply never came.)
        if self.pending.is_none()
            && !self.saw_message
            && values.iter().any(|v| {
                v.get("choices")
                    .is_some_and(|c| c.is_null() || c.as_array().is_some_and(Vec::is_empty))
            })
        {
            let failure = self.empty_response("a completion that has no choices");
            self.emit_error(failure, out);
        }
        // A whole JSON document that gave nothing, though it had a key this decoder knows
        // (OpenChat's `{"type": "text", "response": {"text": "... the LLM server was unable to
        // handle it ..."}}`: a `type` of no API's): a document sent as `application/json` came
        // whole and cannot have been cut off, so it is read as any foreign body, never left to
        // be reported as a truncated stream. (JSON lines or events that stop after a status are
        // a stream cut off: those stay so.)
        let one_document = values.len() == 1
            && self.head.header("content-type").is_some_and(|t| {
                let t = t.to_ascii_lowercase();
                t.contains("json") && !t.contains("jsonl") && !t.contains("ndjson")
            });
        if one_document
            && !self.finished
            && self.pending.is_none()
            && !self.emitted
            && out.is_empty()
        {
            let failure = self.failure_of_a_foreign_body(&values, &text);
            self.emit_error(failure, out);
        }
    }

    /// A 2xx JSON body in no shape this decoder reads as a completion (no `choices`, `usage`,
    /// `error` or `type`): the failure it is, read from the most explicit (the body marks itself
    /// a failure) to the least (its words name one), else an empty document or "unparseable".
    fn failure_of_a_foreign_body(&self, values: &[Value], text: &str) -> LlmFailure {
        if let Some(failure) = self
            .failure_a_foreign_body_marks(values)
            .or_else(|| self.failure_a_foreign_body_words(values))
        {
            return failure;
        }
        // Nothing at all in JSON (`transformers serve` answers `{}` to a conversation that ends
        // with an assistant turn): no completion and no error, an empty response.
        if let [v @ (Value::Null | Value::Object(_) | Value::Array(_))] = values
            && v.as_object().is_none_or(serde_json::Map::is_empty)
            && v.as_array().is_none_or(Vec::is_empty)
        {
            return self.empty_response(&format!(
                "an empty JSON document ({}): no completion and no error",
                excerpt(text.trim(), QUOTE_CHARS)
            ));
        }
        // A bare JSON string ("Violated policies: toxicity, please check your input.") is read
        // as plain words.
        let said = match values {
            [Value::String(said)] => said.as_str(),
            _ => "",
        };
        self.meaning_or_unparseable(said, text, true)
    }

    /// The failure a foreign body marks itself as: an error envelope of its own, a success
    /// envelope around nothing, an app's safety refusal, an error deeper inside.
    fn failure_a_foreign_body_marks(&self, values: &[Value]) -> Option<LlmFailure> {
        // An error in an envelope of its own, sent with a 2xx (Baidu's `{"error_code": 17,
        // "error_msg": "Open api daily request limit reached"}`), or in the JSON texts of a
        // JSON-RPC result (see `json_rpc_result_values`): classified as any in-band error.
        if let Some(error) = json_rpc_result_values(values)
            .iter()
            .chain(values)
            .find(|v| carries_an_error(v))
        {
            return Some(classify_in_band(error, &self.head));
        }
        // A success envelope around an empty reply (LangBot's `{"code": 0, "msg": "ok",
        // "data": {"message": []}}`): the platform answered, with nothing in it.
        if values
            .iter()
            .any(|v| empty_reply_in_a_success_envelope(v) || a_generated_list_left_empty(v))
        {
            return Some(self.empty_response("a success envelope around an empty reply"));
        }
        // An app's answer its own safety check marked as refused (a cancer-information bot's
        // `{"responseText": "I can't diagnose cancer ...", "safety": {"classification":
        // "refusal"}}`): a content filter, its text the refusal's words.
        if let Some(v) = values.iter().find(|v| marked_refused(v)) {
            let said = longest_words(v, 0).unwrap_or_default();
            let refusal = serde_json::json!({ "message": said, "code": "content_filter" });
            return Some(classify_in_band(&refusal, &self.head));
        }
        // A chat message its app marked as failed in its metadata (StudyBuddy's assistant message
        // "I apologize, but I was unable to generate a response. ..." with `"meta": {"error":
        // "empty_response"}`): the error's words, then the message's.
        if let Some(error) = values.iter().find_map(|v| message_marked_failed(v, 0)) {
            return Some(classify_in_band(&error, &self.head));
        }
        // An error deeper in an envelope of the app's own (see `error_within`).
        values
            .iter()
            .find_map(|v| error_within(v, 0))
            .map(|error| classify_in_band(&error, &self.head))
    }

    /// The failure a foreign body's words name, where an app or another API puts them.
    fn failure_a_foreign_body_words(&self, values: &[Value]) -> Option<LlmFailure> {
        // A verdict's list of findings as short sentences (Vigil's scan result, `"messages":
        // ["Potential prompt injection detected: YARA signature(s)", ...]`; chatgpt-mirai-qq-bot's
        // `{"result": "DONE", "message": ["当前 ChatGPT 接入点收到的请求太多了..."]}`): the failure the
        // first that names one names. Chat messages are objects, never read here.
        let findings = values
            .iter()
            .filter_map(|v| {
                v.get("messages")
                    .or_else(|| v.get("message"))
                    .and_then(Value::as_array)
            })
            .flatten()
            .filter_map(Value::as_str);
        if let Some(failure) = self.failure_in_status_sentences(findings) {
            return Some(failure);
        }
        // An app's answer marked as an error, with its words inside (Home Assistant's
        // `"response_type": "error"`; a Moodle plugin's `{"code": 429, "string": "error",
        // "result": "{\"message\": ...}"}`), or one string and nothing else (Willow's
        // `{"response": "Chatbot not installed or supported"}`).
        if let Some(failure) = values.iter().find_map(|v| self.app_error(v)) {
            return Some(failure);
        }
        // An answer in another API's shape whose assistant message is a status sentence that
        // names a failure (LightRAG's Ollama-shaped `{"message": {"role": "assistant",
        // "content": "No response generated"}, "done": true}`; a guard connector's `{"message":
        // {"content": "F5 AI Guardrails blocked this request"}}`), or an app's answer whose
        // `response` (or `answer`, `reply`) is one (a portfolio agent's `{"response": "The AI
        // service is currently experiencing high demand and both providers are rate-limited.
        // ...", "thread_id": ..., "citations": []}`): that failure. A longer text is an answer
        // this adapter does not read, whatever it says.
        // (Or the message itself, top-level: FEBChat's `{"id": ..., "content": "No response from
        // model", "role": "assistant"}`.)
        // (Or an app's chat envelope whose `response` is the assistant's message: Lokario's
        // `{"conversation_id": 42, "message": {"role": "user", ...}, "response": {"role":
        // "assistant", "content": "Désolé, ... le quota OpenAI a été dépassé. ..."}}`.)
        let assistant = values.iter().filter_map(|v| {
            v.pointer("/message/content")
                .filter(|_| v.pointer("/message/role").and_then(Value::as_str) != Some("user"))
                .or_else(|| {
                    (v.pointer("/response/role").and_then(Value::as_str) == Some("assistant"))
                        .then(|| v.pointer("/response/content"))
                        .flatten()
                })
                .or_else(|| {
                    (v.get("role").and_then(Value::as_str) == Some("assistant"))
                        .then(|| v.get("content"))
                        .flatten()
                })
                .and_then(Value::as_str)
        });
        let app = values
            .iter()
            .filter_map(|v| v.as_object().and_then(|o| app_answers(o).next()))
            .map(error_line_or_whole);
        if let Some(failure) = self.failure_in_status_sentences(assistant.chain(app)) {
            return Some(failure);
        }
        // A result in another API's shape whose `finish_reason` says why nothing came
        // (Fooocus-API's `[{"base64": null, ..., "finish_reason": "QUEUE_IS_FULL"}]`): its
        // words, read as an error's, when they name a meaning.
        let by_finish_reason = values
            .iter()
            .flat_map(|v| {
                v.as_array()
                    .map_or_else(|| vec![v], |items| items.iter().collect())
            })
            .filter_map(|v| v.get("finish_reason").and_then(Value::as_str))
            .map(|r| words_of_a_code(r).unwrap_or_else(|| r.to_ascii_lowercase()))
            .find_map(|reason| {
                failure_named_by_words(&reason, |v| classify_in_band(v, &self.head))
            });
        // Last, the words anywhere inside, read as a stream's events that no shape fits are
        // (`UnreadWords`): a chat bot's reply in its platform's message shape (DingTalk's
        // `{"msgtype": "markdown", "markdown": {"text": ...}}`, Matrix's `{"msgtype": "m.notice",
        // "body": ...}`), a bot's `{"code": 2, "detail": "Too many requests, please retry
        // later"}`. The body is no completion either way; a meaning its words name says more
        // than "unparseable", and a long text (past `ERROR_REPORT_CHARS`) is read as none. A chat
        // message inside (an object with a `role`) is an answer, whatever it says: not read.
        // A stand-in answer with the reason it stands in (LeafScan AI's canned diagnosis beside
        // `"demoReason": "API key blocked or invalid"`): the failure the reason names.
        let by_stand_in_reason = values
            .iter()
            .filter_map(Value::as_object)
            .flat_map(|o| {
                [
                    "demoReason",
                    "demo_reason",
                    "fallbackReason",
                    "fallback_reason",
                ]
                .iter()
                .filter_map(|k| o.get(*k).and_then(Value::as_str))
            })
            .find_map(|said| failure_named_by_words(said, |v| classify_in_band(v, &self.head)))
            // (Or a stand-in marked degraded, with its reason as the message: EcoScore's
            // `{"insight": null, "recommendations": [...fallbacks], "degraded": true, "message":
            // "Generation is taking longer than expected. Showing fallback actions."}`.)
            .or_else(|| {
                values
                    .iter()
                    .filter_map(Value::as_object)
                    .filter(|o| {
                        ["degraded", "fallback", "isFallback", "is_fallback"]
                            .iter()
                            .any(|k| o.get(*k) == Some(&Value::Bool(true)))
                    })
                    .filter_map(|o| o.get("message").and_then(Value::as_str))
                    .find_map(|said| {
                        failure_named_by_words(said, |v| classify_in_band(v, &self.head))
                    })
            });
        // A flag set true whose name says a failure (Quadratic's assistant message with empty
        // content beside `"exceededBillingLimit": true`): the failure its name's words name.
        let by_flag = || {
            values
                .iter()
                .filter_map(Value::as_object)
                .flatten()
                .filter(|(_, flag)| **flag == Value::Bool(true))
                .filter_map(|(key, _)| words_of_a_key(key))
                .find_map(|words| {
                    failure_named_by_words(&words, |v| classify_in_band(v, &self.head))
                })
        };
        by_stand_in_reason
            .or(by_finish_reason)
            .or_else(by_flag)
            .or_else(|| {
                UnreadWords::of_json_outside_messages(values)
                    .failure(|v| classify_in_band(v, &self.head))
            })
    }

    /// The failure the first of `sentences` that is a status sentence (at most
    /// [`answer::STATUS_SENTENCE_CHARS`]) names by its words.
    fn failure_in_status_sentences<'a>(
        &self,
        sentences: impl Iterator<Item = &'a str>,
    ) -> Option<LlmFailure> {
        sentences
            .filter(|said| said.trim().chars().count() <= answer::STATUS_SENTENCE_CHARS)
            .find_map(|said| failure_named_by_words(said, |v| classify_in_band(v, &self.head)))
    }

    /// A `finish_reason: "error"`. Its choice may carry words (Thor: "对话模型请求限流", the
    /// model's requests throttled, as the content of the finishing chunk): they are read as the
    /// error's, and a meaning they name replaces the bare "no error details" server error. Only
    /// the text this very event pushed is read, never an answer streamed before it. A chunk with
    /// no such words (Jina DeepSearch closes its `</think>` chunk with "error" and sends "HTTP
    /// Error 429" in the next) holds the finish for one more event: see `after_wordless_error`.
    fn on_error_finish(&mut self, finish: Finish, out: &mut Vec<Chunk>) {
        match self.failure_in_words(out.last()) {
            Some(failure) => self.emit_finish(
                Finish {
                    failure: Some(failure),
                    ..finish
                },
                out,
            ),
            None => self.wordless_error = Some(finish),
        }
    }

    fn failure_in_words(&self, chunk: Option<&Chunk>) -> Option<LlmFailure> {
        let Some(Chunk::Text(said)) = chunk else {
            return None;
        };
        failure_named_by_words(said, |v| classify_in_band(v, &self.head))
    }

    /// The one event read after an error finish without words: an error event, or a second error
    /// finish carrying words, names the failure; anything else (`[DONE]`, another chunk) ends the stream with the
    /// first. Nothing of this event is emitted as the answer's: the answer ended at the finish.
    fn after_wordless_error(&mut self, held: Finish, data: &str, out: &mut Vec<Chunk>) {
        let event = serde_json::from_str::<Value>(data).ok();
        if let Some(v) = event.as_ref().filter(|v| {
            v.get("error")
                .is_some_and(|e| e.is_object() || e.is_string())
        }) {
            let failure = classify_in_band(v, &self.head);
            return self.emit_error(failure, out);
        }
        let said = event
            .as_ref()
            .and_then(|v| v.pointer("/choices/0"))
            .filter(|c| c.get("finish_reason").and_then(Value::as_str) == Some("error"))
            .and_then(|c| {
                c.pointer("/delta/content")
                    .or(c.pointer("/message/content"))
            })
            .and_then(Value::as_str)
            .map(|s| Chunk::Text(s.to_string()));
        let finish = match self.failure_in_words(said.as_ref()) {
            Some(failure) => Finish {
                failure: Some(failure),
                ..held
            },
            None => held,
        };
        self.emit_finish(finish, out);
    }

    /// A whole completion that no model wrote: text in its message, yet not one output token
    /// counted. Gateways answer their prompt guards' refusals so (APISIX's Lakera Guard plugin: a
    /// 200 completion whose content is "Request blocked by Lakera Guard", with zero usage), and
    /// their own errors (busy-llm-worker's "服务器繁忙，请稍后再试。", the server busy). Its text is
    /// read as an error's: a refusal makes it a failure, and so does any other meaning named in
    /// a sentence or two (200 characters at most); a server that merely counts
    /// nothing still has its answers delivered, and a long text is an answer whatever it says.
    fn answer_no_model_wrote(&self, v: &Value) -> Option<LlmFailure> {
        let content = v.pointer("/choices/0/message/content")?.as_str()?;
        let counted = v.pointer("/usage/completion_tokens")?.as_u64()?;
        if counted != 0 || content.trim().is_empty() {
            return None;
        }
        let failure = classify_in_band(&serde_json::json!({ "message": content }), &self.head);
        // A message whose role is "error" (Hajimi's `{"role": "error", "content":
        // "所有API密钥均请求失败\n..."}`, every key of its pool failed): no model's turn but the
        // server's report, a failure whatever its words (the server's, when they name no meaning).
        if v.pointer("/choices/0/message/role").and_then(Value::as_str) == Some("error") {
            return Some(failure);
        }
        let short = content.trim().chars().count() <= answer::STATUS_SENTENCE_CHARS;
        // A longer text whose first line says it is an error report ("### **Proxy error (HTTP 429
        // Too Many Requests)**", khanon's oai-reverse-proxy, with the details below it).
        let headed_as_an_error = content
            .trim_start()
            .lines()
            .next()
            .is_some_and(|first| first.to_ascii_lowercase().contains("error"));
        (failure.code == codes::CONTENT_FILTER
            || ((short || headed_as_an_error) && !said_nothing_in_band(failure.code)))
        .then_some(failure)
    }

    /// A 2xx body that is neither a completion nor an error envelope but a proxy's or a guard's
    /// words (kgateway's "Rejected by guardrails moderation" as text, OPEA's JSON string "Violated
    /// policies: toxicity, please check your input.", NextChat's "AbortError: This operation was
    /// aborted"): the words are read as an error's, and a meaning they name replaces the
    /// "unparseable body" failure. What an in-band error without a meaning falls to (a server
    /// error, or an invalid request by its validation words) does not: the unparseable failure
    /// says more. `said` is the words, `body` the whole body (for that failure's excerpt).
    fn meaning_or_unparseable(&self, said: &str, body: &str, json: bool) -> LlmFailure {
        failure_named_by_words(said, |v| classify_in_band(v, &self.head))
            .unwrap_or_else(|| self.unparseable(body, json))
    }

    /// A 2xx JSON object in no API's shape that is an app's error: marked so (`response_type`,
    /// `string` or `status` of "error", at its top or one level down), its words the longest text
    /// inside (a JSON string inside is read for its `message`) and its `code`, if a status, read
    /// as the error's status; or a lone string field whose words name a failure.
    fn app_error(&self, v: &Value) -> Option<LlmFailure> {
        let o = v.as_object()?;
        // A type or a status of the app's own naming says "error" (Mantella's
        // `{"mantella_reply_type": "error", "mantella_message": "..."}`).
        let marks_error = |o: &serde_json::Map<String, Value>| {
            o.iter().any(|(k, v)| {
                // (Or a kind the app sorted its answer into: an AI-managed restaurant's
                // `{"message": "Restaurant not found", "intent": "error", ...}`.)
                let marker = matches!(
                    k.as_str(),
                    "string" | "status" | "intent" | "kind" | "outcome" | "result" | "state"
                ) || k.ends_with("_type")
                    || k.ends_with("_status");
                marker && v.as_str().is_some_and(|v| v.eq_ignore_ascii_case("error"))
            })
        };
        let marked = marks_error(o) || o.values().filter_map(Value::as_object).any(marks_error);
        if !marked {
            if let [Value::String(said)] = o.values().collect::<Vec<_>>()[..] {
                return failure_named_by_words(said, |v| classify_in_band(v, &self.head));
            }
            return None;
        }
        let said = longest_words(v, 0)?;
        // An `error` of its own beside the longest words says what happened too ("Request
        // timeout - server overloaded" beside "The server queue was full for too long.").
        let said = match o.get("error").and_then(Value::as_str).map(str::trim) {
            Some(error) if !error.is_empty() && !said.contains(error) => format!("{error}: {said}"),
            _ => said,
        };
        let code = o
            .get("code")
            .and_then(Value::as_u64)
            .filter(|c| (100..=599).contains(c));
        let mut error = serde_json::json!({ "message": said });
        if let Some(code) = code {
            error["code"] = code.into();
        }
        Some(classify_in_band(&error, &self.head))
    }

    /// A whole answer with nothing in it: `what` says what came ("an empty body ...").
    fn empty_response(&self, what: &str) -> LlmFailure {
        answer::empty_response(&self.head, header_request_id(&self.head), what)
    }

    /// `json`: the body parsed, as JSON in no shape this decoder knows.
    fn unparseable(&self, text: &str, json: bool) -> LlmFailure {
        let content_type = self.head.header("content-type").unwrap_or("none");
        let start = if looks_like_html(text) {
            html_title(text).map_or_else(
                || excerpt(text, QUOTE_CHARS),
                |t| format!("an HTML page titled {t:?}"),
            )
        } else {
            format!("{:?}", excerpt(text, QUOTE_CHARS))
        };
        let size = if self.input.raw_too_large() {
            " (too large to be one JSON document)"
        } else {
            ""
        };
        LlmFailure {
            request_id: header_request_id(&self.head),
            ..LlmFailure::new(
                codes::SERVER_ERROR,
                if json {
                    format!(
                        "the provider sent a JSON body that is neither a chat completion nor an error \
                         (HTTP {}, content-type {content_type}); it starts with {start}",
                        self.head.status
                    )
                } else {
                    format!(
                        "the provider sent an unparseable response body{size}: neither an SSE stream nor JSON \
                         (HTTP {}, content-type {content_type}); it starts with {start}",
                        self.head.status
                    )
                },
            )
        }
    }

    fn push_tool_call(
        &mut self,
        out: &mut Vec<Chunk>,
        index: Option<u32>,
        id: Option<&str>,
        name: Option<&str>,
        arguments: String,
        provider_data: Option<String>,
    ) {
        let id = id.filter(|s| !s.is_empty());
        let name = name.filter(|s| !s.is_empty());
        if id.is_none() && name.is_none() && arguments.is_empty() && provider_data.is_none() {
            return; // a delta that says nothing (OpenAI sends `type` alone sometimes)
        }
        let index = self.tools.index(index, id);
        self.saw_tool_call = true;
        out.push(Chunk::ToolCall(ToolCallDelta {
            index,
            id: id.map(str::to_string),
            name: name.map(str::to_string),
            arguments,
            provider_data,
        }));
    }

    /// The finish for a provider reason (`None`: the stream ended cleanly without one).
    fn finish_for(&self, reason: Option<&str>) -> Finish {
        let raw = reason.unwrap_or("");
        // (Spelled with hyphens too: Mastra's `content-filter`, as the AI SDK names it.)
        let kind = match raw.to_ascii_lowercase().replace('-', "_").as_str() {
            // DeepSparse's "capacity": the sequence reached its length cap.
            "length" | "max_tokens" | "max_output_tokens" | "model_length" | "capacity" => {
                FinishKind::Length
            }
            "tool_calls" | "function_call" | "tool_use" => FinishKind::ToolCalls,
            // OpenCSG's "sensitive": its guard blocked the prompt or the output.
            "content_filter" | "content_filtered" | "safety" | "recitation"
            | "prohibited_content" | "blocklist" | "sensitive" => FinishKind::ContentFilter,
            // PowerServe's "exception": the error's words as the chunk's content. A reason that
            // names an error ("Proxy queue error (request killed)") is one too.
            r if r == "error"
                || r == "exception"
                || r.contains(" error")
                || r.starts_with("error") =>
            {
                return self.failed_finish(
                    FinishKind::Error,
                    raw,
                    codes::SERVER_ERROR,
                    format!("the provider ended the stream with finish_reason {raw:?} and no error details"),
                );
            }
            // DeepSeek's "the request is interrupted due to insufficient resource of the inference
            // system" (its API's finish reasons): the answer cut short for want of capacity, an
            // overload to retry, never the normal end of what came before it.
            "insufficient_system_resource" => {
                return self.failed_finish(
                    FinishKind::Error,
                    raw,
                    codes::OVERLOADED,
                    format!(
                        "the provider ended the stream with finish_reason {raw:?}: its inference system ran out of resources"
                    ),
                );
            }
            // The WIT's `aborted`: the provider itself reports the request as cancelled. That is a
            // provider failure for the waterfall (retryable), never ABORTED, which is the caller's.
            "abort" | "aborted" | "cancelled" | "canceled" => {
                return self.failed_finish(
                    FinishKind::Aborted,
                    raw,
                    codes::SERVER_ERROR,
                    format!("the provider reports the request as cancelled on its side (finish_reason {raw:?})"),
                );
            }
            // Some servers (older Ollama) say `stop` after tool calls; the calls are what matter.
            _ if self.saw_tool_call => FinishKind::ToolCalls,
            // `stop`, and the many names servers have for a normal end (`eos`, `end_turn`, ...).
            _ => FinishKind::Stop,
        };
        Finish {
            kind,
            reason: reason.map(str::to_string),
            failure: None,
        }
    }

    /// A finish of `kind` that failed with `code`, as the finish reason `raw` says.
    fn failed_finish(
        &self,
        kind: FinishKind,
        raw: &str,
        code: FailureCode,
        message: String,
    ) -> Finish {
        Finish {
            kind,
            reason: Some(raw.to_string()),
            failure: Some(LlmFailure {
                request_id: header_request_id(&self.head),
                ..LlmFailure::new(code, message)
            }),
        }
    }

    fn emit_error(&mut self, failure: LlmFailure, out: &mut Vec<Chunk>) {
        let finish = Finish {
            kind: FinishKind::Error,
            reason: None,
            failure: Some(failure),
        };
        self.emit_finish(finish, out);
    }

    fn emit_finish(&mut self, finish: Finish, out: &mut Vec<Chunk>) {
        let finish = self.answer.finish(finish, out, self.saw_tool_call, |v| {
            classify_in_band(v, &self.head)
        });
        self.pending = None;
        self.finished = true;
        out.push(Chunk::Finish(finish));
    }
}

/// The longest words inside a value (a text with a space before one without), four levels down at
/// most; a string that is itself a JSON object gives its `message` (a Moodle plugin's `"result":
/// "{\"message\": ...}"`).
fn longest_words(v: &Value, depth: usize) -> Option<String> {
    // Words before tokens, then the longest: an id or a code is no message, however long (Jitsi
    // Skynet's job `{"id": "3f1c2a9e-...:LOCAL", "result": "Job timed out", "status": "error"}`).
    fn words_first(s: &String) -> (bool, usize) {
        (s.trim().contains(char::is_whitespace), s.len())
    }
    match v {
        Value::String(s) => match serde_json::from_str::<Value>(s) {
            Ok(Value::Object(inner)) => inner
                .get("message")
                .and_then(Value::as_str)
                .map(str::to_string)
                .or_else(|| Some(s.clone())),
            _ => Some(s.clone()),
        },
        Value::Object(o) if depth < 4 => o
            .values()
            .filter_map(|v| longest_words(v, depth + 1))
            .max_by_key(words_first),
        Value::Array(items) if depth < 4 => items
            .iter()
            .filter_map(|v| longest_words(v, depth + 1))
            .max_by_key(words_first),
        _ => None,
    }
    .filter(|s| !s.trim().is_empty())
}

/// An SSE event name that says error: `error`, `[ERROR]` (AIDeepin), or `error` joined to a word
/// by `_` or `-` (DataLine's `error_event`, `stream_error`). Asked of every named event, so it
/// allocates nothing.
fn names_an_error_event(name: &str) -> bool {
    let name = name.trim().trim_matches(['[', ']']);
    let is_error = |w: &str| w.eq_ignore_ascii_case("error");
    if is_error(name) {
        return true;
    }
    let mut parts = name.split(['_', '-']);
    let (Some(first), Some(second), None) = (parts.next(), parts.next(), parts.next()) else {
        return false;
    };
    let names_none = |w: &str| {
        w.is_empty()
            || ["no", "non", "clear", "cleared"]
                .iter()
                .any(|n| w.eq_ignore_ascii_case(n))
    };
    (is_error(first) && !names_none(second)) || (is_error(second) && !names_none(first))
}

fn finish(kind: FinishKind, reason: &str) -> Finish {
    Finish {
        kind,
        reason: Some(reason.to_string()),
        failure: None,
    }
}

fn output_index(v: &Value) -> Option<u32> {
    v.get("output_index")
        .and_then(Value::as_u64)
        .and_then(|i| u32::try_from(i).ok())
}

fn push_text(out: &mut Vec<Chunk>, make: fn(String) -> Chunk, v: Option<&Value>) {
    if let Some(s) = v.and_then(Value::as_str).filter(|s| !s.is_empty()) {
        out.push(make(s.to_string()));
    }
}

fn push_str(out: &mut Vec<Chunk>, make: fn(String) -> Chunk, s: Option<Str<'_>>) {
    if let Some(s) = s.filter(|s| !s.as_str().is_empty()) {
        out.push(make(s.into_string()));
    }
}

/// `content` is a string, null, or (some servers, non-streaming) a list of `{type: text, text}` parts.
fn push_content(out: &mut Vec<Chunk>, v: Option<&Value>) {
    match v {
        Some(Value::Array(parts)) => {
            let text: String = parts
                .iter()
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect();
            push_text(out, Chunk::Text, Some(&Value::String(text)));
        }
        other => push_text(out, Chunk::Text, other),
    }
}

/// Arguments are text; a server that sends a JSON object gets it back as text.
fn arguments_text(v: Option<&Value>) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        None | Some(Value::Null) => String::new(),
        Some(other) => other.to_string(),
    }
}

/// Chat-completions names, Responses names, and DeepSeek's cache counter.
fn usage_of(u: &Value) -> Option<Usage> {
    let n = |pointers: &[&str]| {
        pointers
            .iter()
            .find_map(|p| u.pointer(p).and_then(Value::as_u64))
    };
    let usage = Usage {
        input_tokens: n(&["/prompt_tokens", "/input_tokens"]),
        output_tokens: n(&["/completion_tokens", "/output_tokens"]),
        cached_input_tokens: n(&[
            "/prompt_tokens_details/cached_tokens",
            "/input_tokens_details/cached_tokens",
            "/prompt_cache_hit_tokens",
        ]),
        reasoning_tokens: n(&[
            "/completion_tokens_details/reasoning_tokens",
            "/output_tokens_details/reasoning_tokens",
        ]),
    };
    (usage != Usage::default()).then_some(usage)
}
