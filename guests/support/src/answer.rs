//! What a decoder keeps of the answer it streams, to tell at the finish whether the answer was
//! really an error report: some servers stream their upstream's failure as the answer's text and
//! finish normally (Open WebUI's pipelines server: "Error: 529 - {\"type\":\"error\", ...}";
//! JManus: "Error: Internal server error: Not implemented"). Shared by the Rust adapters.

use serde_json::Value;

use crate::classify::failure_named_by_words;
use crate::types::{Chunk, Finish, FinishKind, LlmFailure, ResponseHead, codes};

/// The longest answer still read as an error report: a sentence or two and an upstream's error
/// body. Past it, nothing more is kept or counted, so a long answer costs one comparison per read.
pub const ERROR_REPORT_CHARS: usize = 1_000;

/// The longest text read as a status sentence rather than an answer: a sentence or two (a
/// gateway's "Request blocked by Lakera Guard" written as a completion).
pub const STATUS_SENTENCE_CHARS: usize = 200;

/// Text kept up to [`ERROR_REPORT_CHARS`], and a count of all that was offered: what
/// [`AnswerHead`] and [`UnreadWords`] each keep.
#[derive(Debug, Default)]
struct KeptText {
    said: String,
    chars: usize,
}

impl KeptText {
    /// Past the limit: nothing more is kept, and what is kept is no report.
    fn full(&self) -> bool {
        self.chars > ERROR_REPORT_CHARS
    }

    /// Counts `text` (and `separator`), and keeps it after `separator` while the count stays
    /// within the limit.
    fn push(&mut self, text: &str, separator: &str) {
        self.chars += text.chars().count() + separator.chars().count();
        if self.chars <= ERROR_REPORT_CHARS {
            if !self.said.is_empty() {
                self.said.push_str(separator);
            }
            self.said.push_str(text);
        }
    }
}

/// The answer's first words, and a count of them up to [`ERROR_REPORT_CHARS`].
#[derive(Debug, Default)]
pub struct AnswerHead {
    kept: KeptText,
}

impl AnswerHead {
    /// Keeps the text a batch of chunks streamed as the answer.
    pub fn note(&mut self, out: &[Chunk]) {
        if self.kept.full() {
            return;
        }
        for chunk in out {
            if let Chunk::Text(text) = chunk {
                self.kept.push(text, "");
            }
        }
    }

    /// The failure the whole answer reports, if it is an error report: at most
    /// [`ERROR_REPORT_CHARS`], opening with "Error:" or in "[Error: ...]" (or a limit notice to the caller, "You have
    /// exceeded ...", of at most [`STATUS_SENTENCE_CHARS`]), and naming a failure (see
    /// [`failure_named_by_words`]). `out` is the batch being decoded, not noted yet; `classify`
    /// is the adapter's in-band classification. An answer that opens with "Error:" and names no
    /// failure ("Error: division by zero on line 3.") is an answer.
    pub fn error_report(
        &self,
        out: &[Chunk],
        classify: impl Fn(&Value) -> LlmFailure,
    ) -> Option<LlmFailure> {
        let mut said = self.kept.said.clone();
        let mut chars = self.kept.chars;
        for chunk in out {
            if let Chunk::Text(text) = chunk {
                chars += text.chars().count();
                said.push_str(text);
            }
        }
        if chars > ERROR_REPORT_CHARS {
            return None;
        }
        let said = said.trim();
        if let Some(report) = said.strip_prefix("Error:") {
            return failure_named_by_words(report, classify);
        }
        // The same report in brackets, as the whole answer ("\n\n[Error: status_code: 429, ...]",
        // an Obsidian agent's server writing its exception into the stream).
        if let Some(report) = said
            .strip_prefix("[Error:")
            .and_then(|r| r.strip_suffix(']'))
        {
            return failure_named_by_words(report, classify);
        }
        // A limit notice addressed to the caller, and nothing else ("You have exceeded your token
        // limit for this model", Bionic GPT's chunk): a status sentence, no model's answer. Or
        // one that names the system's limit the caller went over ("The number of characters in
        // your message exceeds the system maximum of 1024", BotSharp's replies): an app speaking
        // of its own rules, not a model answering.
        let lower = said.to_ascii_lowercase();
        let names_the_systems_limit = || {
            let words = crate::meaning::words(&lower);
            words.iter().any(|w| matches!(*w, "you" | "your"))
                && words.iter().any(|w| w.starts_with("exceed"))
                && words.contains(&"system")
        };
        let notice = ["you have exceeded", "you've exceeded", "you exceeded"]
            .iter()
            .any(|lead| lower.starts_with(lead))
            || names_the_systems_limit();
        (notice && said.chars().count() <= STATUS_SENTENCE_CHARS)
            .then(|| failure_named_by_words(said, classify))
            .flatten()
    }

    /// `finish` as emitted: a plain stop of an answer that is an error report becomes that
    /// error's finish (see [`AnswerHead::error_report`]); any other finish is unchanged. An answer
    /// that called tools is never a report: pass `called_tools`.
    pub fn finish(
        &self,
        finish: Finish,
        out: &[Chunk],
        called_tools: bool,
        classify: impl Fn(&Value) -> LlmFailure,
    ) -> Finish {
        if finish.kind != FinishKind::Stop || finish.failure.is_some() || called_tools {
            return finish;
        }
        match self.error_report(out, classify) {
            Some(failure) => Finish {
                kind: FinishKind::Error,
                failure: Some(failure),
                ..finish
            },
            None => finish,
        }
    }
}

/// The failure of a whole answer with nothing in it: `what` says what came ("an empty body
/// (content-length: 0)"), `request_id` is the adapter's reading of the head.
pub fn empty_response(head: &ResponseHead, request_id: Option<String>, what: &str) -> LlmFailure {
    LlmFailure {
        request_id,
        ..LlmFailure::new(
            codes::EMPTY_RESPONSE,
            format!("the provider answered HTTP {} with {what}", head.status),
        )
    }
}

/// What an empty body declared empty is called in [`empty_response`].
pub const DECLARED_EMPTY: &str = "an empty body (content-length: 0)";

/// Whether a response declares its body empty (`content-length: 0`): an empty body that is
/// complete, and so an empty response. Any other empty body may have been cut off before its
/// first byte, which only the host can call truncated.
pub fn declared_empty(head: &ResponseHead) -> bool {
    head.header("content-length").map(str::trim) == Some("0")
}

/// The words of the events a decoder could not read: a platform's stream of its own, such as
/// ruoyi-ai's plain-text `data:余额不足，无法使用AI服务，请充值后再试` or JeecgBoot's `{"event":
/// "MESSAGE", "data": {"message": "当前用户较多，排队中，请稍后再试！"}}`, which it sends in place of an
/// answer when the request failed. Kept up to [`ERROR_REPORT_CHARS`], so that a stream that gave
/// nothing the decoder could read ends as the failure its words name, not as a truncated stream.
#[derive(Debug, Default)]
pub struct UnreadWords {
    kept: KeptText,
}

impl UnreadWords {
    /// Keeps an event's text that is not JSON.
    pub fn note_text(&mut self, text: &str) {
        let text = text.trim();
        if !self.kept.full() && !text.is_empty() {
            self.kept.push(text, " ");
        }
    }

    /// Keeps the strings inside an event's JSON (its ids and names too: they name no failure).
    pub fn note_json(&mut self, v: &Value) {
        match v {
            Value::String(s) => self.note_text(s),
            Value::Array(items) => items.iter().for_each(|item| self.note_json(item)),
            Value::Object(o) => o.values().for_each(|item| self.note_json(item)),
            _ => {}
        }
    }

    /// The words of JSON bodies in no shape the decoder reads, kept as
    /// [`UnreadWords::note_json_outside_messages`] keeps them.
    pub fn of_json_outside_messages<'a>(values: impl IntoIterator<Item = &'a Value>) -> Self {
        let mut unread = UnreadWords::default();
        values
            .into_iter()
            .for_each(|v| unread.note_json_outside_messages(v));
        unread
    }

    /// Keeps the strings inside a JSON body in no shape the decoder reads, except those of the
    /// chat messages inside it (objects with a `role`), which are answers whatever they say.
    pub fn note_json_outside_messages(&mut self, v: &Value) {
        match v {
            Value::Object(o) if o.contains_key("role") => {}
            Value::Object(o) => o
                .values()
                .for_each(|item| self.note_json_outside_messages(item)),
            Value::Array(items) => items
                .iter()
                .for_each(|item| self.note_json_outside_messages(item)),
            other => self.note_json(other),
        }
    }

    /// The failure the unread words name, if they are short enough to be a report (at most
    /// [`ERROR_REPORT_CHARS`]) and name one (see [`failure_named_by_words`]). For a decoder to
    /// ask only when the stream gave nothing else: an answer it read is the answer.
    /// Words marked as an error (chatgpt-on-wechat's `{"type": "done", "content": "[ERROR]\n提问太快啦，
    /// ..."}`) are one whatever they name: a server error when they name nothing.
    pub fn failure(&self, classify: impl Fn(&Value) -> LlmFailure) -> Option<LlmFailure> {
        if self.kept.full() {
            return None;
        }
        let said = &self.kept.said;
        if said.to_ascii_lowercase().contains("[error]") {
            let said = said.replace("[ERROR]", "").replace("[error]", "");
            return Some(classify(&serde_json::json!({ "message": said.trim() })));
        }
        failure_named_by_words(said, classify)
    }
}
