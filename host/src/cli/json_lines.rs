//! `dsh-host run --json`: one JSON object per line on stdout for every event of the run, flushed as
//! it happens. The shapes are documented in docs/cli-json.md and are a stable interface: fields are
//! only ever added. Text deltas carry the attempt they belong to, so a program can drop the text of
//! an attempt that failed.

use super::run_output::{Outcome, RunOutput};
use crate::attempt::StreamEvent;
use crate::resume::UnfinishedTurn;
use crate::session::TurnError;
use serde_json::{Value, json};
use std::io::Write;

/// The version of the line format, in the first line (`session`); raised only if a shape changes
/// in a way a reader of the previous one would misread.
pub const FORMAT: u32 = 1;

pub struct JsonLines<W: Write + Send> {
    out: W,
    /// Where the run is: the turn, step and attempt of the latest `attempt` event.
    turn: u32,
    step: u32,
    attempt: u32,
}

impl<W: Write + Send> JsonLines<W> {
    pub fn new(out: W) -> Self {
        JsonLines {
            out,
            turn: 0,
            step: 0,
            attempt: 0,
        }
    }

    pub fn into_inner(self) -> W {
        self.out
    }

    fn emit(&mut self, kind: &str, fields: Value) {
        let mut line = json!({"type": kind});
        if let (Value::Object(line), Value::Object(fields)) = (&mut line, fields) {
            line.extend(fields);
        }
        // A reader that went away (a closed pipe) must not stop the turn: its log still matters.
        let _ = writeln!(self.out, "{line}");
        let _ = self.out.flush();
    }

    /// The turn, step and attempt a delta belongs to.
    fn at(&self, mut fields: Value) -> Value {
        fields["turn"] = json!(self.turn);
        fields["step"] = json!(self.step);
        fields["attempt"] = json!(self.attempt);
        fields
    }

    fn at_step(&self, mut fields: Value) -> Value {
        fields["turn"] = json!(self.turn);
        fields["step"] = json!(self.step);
        fields
    }
}

impl<W: Write + Send> RunOutput for JsonLines<W> {
    fn start(&mut self, session: &str, resuming: Option<&UnfinishedTurn>) {
        self.emit(
            "session",
            json!({"format": FORMAT, "session": session, "resuming_turn": resuming.map(|t| t.turn)}),
        );
        let Some(open) = resuming else { return };
        (self.turn, self.step, self.attempt) = (open.turn, open.step, open.attempts);
        if let Some((record, wait)) = &open.pending_retry {
            let fields = json!({"code": record.code, "retry": record.retry,
                "delay_ms": wait.as_millis() as u64, "policy_key": record.policy_key, "resumed": true});
            let fields = self.at(fields);
            self.emit("retry", fields);
        }
    }

    fn event(&mut self, event: StreamEvent) {
        let (kind, fields) = match event {
            StreamEvent::Attempt { turn, step, attempt } => {
                (self.turn, self.step, self.attempt) = (turn, step, attempt);
                ("attempt", self.at(json!({})))
            }
            StreamEvent::ResponseHead { status } => ("response", self.at(json!({"status": status}))),
            StreamEvent::Text(text) => ("text", self.at(json!({"text": text}))),
            StreamEvent::Reasoning(text) => ("reasoning", self.at(json!({"text": text}))),
            StreamEvent::AttemptFailed(failure) => ("attempt_failed", self.at(json!({"failure": failure}))),
            StreamEvent::Retrying { code, retry, delay_ms, policy_key } => (
                "retry",
                self.at(json!({"code": code, "retry": retry, "delay_ms": delay_ms, "policy_key": policy_key})),
            ),
            StreamEvent::CoolingDown { code, delay_ms } => {
                ("cooldown", self.at_step(json!({"code": code, "delay_ms": delay_ms})))
            }
            StreamEvent::Compacted { before, after } => {
                ("compacted", self.at_step(json!({"messages_before": before, "messages_after": after})))
            }
            StreamEvent::ToolCall { id, name, arguments } => {
                ("tool_call", self.at_step(json!({"id": id, "name": name, "arguments": arguments})))
            }
            StreamEvent::ToolResult { id, name, content, is_error } => (
                "tool_result",
                self.at_step(json!({"id": id, "name": name, "content": content, "is_error": is_error})),
            ),
        };
        self.emit(kind, fields);
    }

    fn answer(&mut self, text: &str) {
        let fields = json!({"turn": self.turn, "text": text});
        self.emit("answer", fields);
    }

    fn failed(&mut self, error: &TurnError) {
        let mut fields = json!({"turn": self.turn, "message": error.to_string()});
        match error {
            TurnError::Failed(failure) => {
                fields["reason"] = json!("failure");
                fields["failure"] = json!(failure);
            }
            TurnError::StepLimit { max_steps } => {
                fields["reason"] = json!("step_limit");
                fields["max_steps"] = json!(max_steps);
            }
            TurnError::Host(_) => fields["reason"] = json!("host"),
        }
        self.emit("error", fields);
    }

    fn end(&mut self, session: &str, outcome: Outcome) {
        self.emit(
            "end",
            json!({"session": session, "outcome": outcome.name(), "exit_code": outcome.exit_code()}),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::LlmFailure;

    fn lines(out: JsonLines<Vec<u8>>) -> Vec<Value> {
        String::from_utf8(out.into_inner())
            .unwrap()
            .lines()
            .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{l:?} is not JSON: {e}")))
            .collect()
    }

    #[test]
    fn deltas_carry_the_attempt_they_belong_to() {
        let mut out = JsonLines::new(Vec::new());
        out.start("s1", None);
        out.event(StreamEvent::Attempt {
            turn: 1,
            step: 1,
            attempt: 1,
        });
        out.event(StreamEvent::ResponseHead { status: 200 });
        out.event(StreamEvent::Text("Hel".into()));
        out.event(StreamEvent::AttemptFailed(LlmFailure::new(
            "STREAM_TRUNCATED",
            "cut",
        )));
        out.event(StreamEvent::Retrying {
            code: "STREAM_TRUNCATED".into(),
            retry: 1,
            delay_ms: 250,
            policy_key: "llm-retry".into(),
        });
        out.event(StreamEvent::Attempt {
            turn: 1,
            step: 1,
            attempt: 2,
        });
        out.event(StreamEvent::Text("Hello".into()));
        out.answer("Hello");
        out.end("s1", Outcome::Completed);
        let lines = lines(out);
        let kinds: Vec<&str> = lines.iter().map(|l| l["type"].as_str().unwrap()).collect();
        assert_eq!(
            kinds,
            [
                "session",
                "attempt",
                "response",
                "text",
                "attempt_failed",
                "retry",
                "attempt",
                "text",
                "answer",
                "end"
            ]
        );
        assert_eq!(
            lines[0],
            json!({"type": "session", "format": 1, "session": "s1", "resuming_turn": null})
        );
        assert_eq!(
            lines[3],
            json!({"type": "text", "turn": 1, "step": 1, "attempt": 1, "text": "Hel"})
        );
        assert_eq!(lines[4]["failure"]["code"], "STREAM_TRUNCATED");
        assert_eq!(lines[5]["delay_ms"], 250);
        assert_eq!(
            lines[7],
            json!({"type": "text", "turn": 1, "step": 1, "attempt": 2, "text": "Hello"})
        );
        assert_eq!(
            lines[9],
            json!({"type": "end", "session": "s1", "outcome": "completed", "exit_code": 0})
        );
    }

    #[test]
    fn a_failed_turn_says_why_and_exits_1() {
        let mut out = JsonLines::new(Vec::new());
        out.event(StreamEvent::Attempt {
            turn: 2,
            step: 3,
            attempt: 1,
        });
        out.failed(&TurnError::StepLimit { max_steps: 3 });
        out.failed(&TurnError::Failed(
            LlmFailure::new("AUTH", "bad key").with_status(401),
        ));
        out.end("s", Outcome::Failed);
        let lines = lines(out);
        assert_eq!(lines[1]["reason"], "step_limit");
        assert_eq!(lines[1]["max_steps"], 3);
        assert_eq!(lines[1]["turn"], 2);
        assert_eq!(lines[2]["reason"], "failure");
        assert_eq!(
            lines[2]["failure"],
            json!({"code": "AUTH", "message": "bad key", "status": 401})
        );
        assert_eq!(lines[3]["exit_code"], 1);
    }
}
