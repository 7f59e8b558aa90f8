//! What `dsh-host run` writes for a person. Stdout holds the answer and nothing else, so that
//! `dsh-host run ... > answer.txt` keeps exactly the final answer:
//! - on a terminal, text streams live; when an attempt fails after streaming part of its text, the
//!   retry's notice says the text above is discarded, and the retry streams the answer anew;
//! - off a terminal (a pipe, a file), the answer is written when its completion is complete; the
//!   partial text of a failed attempt, and the text of steps that called tools, go to stderr.
//!
//! Tool calls and retries are reported on stderr (not with `--quiet`), and on a terminal the live
//! line of [`Progress`] shows what the turn is waiting for.

use super::colour::Palette;
use super::progress::Progress;
use super::run_output::{Outcome, RunOutput};
use crate::attempt::StreamEvent;
use crate::resume::UnfinishedTurn;
use crate::session::TurnError;
use std::io::Write;
use std::time::Instant;

pub struct AnswerPrinter {
    /// Stdout is a terminal: the text streams as it comes.
    terminal: bool,
    /// `--quiet`: the answer and errors only.
    quiet: bool,
    palette: Palette,
    progress: Progress,
    /// The text of the attempt (or step) in progress.
    attempt: String,
    /// On a terminal: whether the cursor is mid-line after streamed text.
    mid_line: bool,
    calls: Vec<(String, String)>,
}

impl AnswerPrinter {
    pub fn new(terminal: bool, quiet: bool, palette: Palette, progress: Progress) -> Self {
        AnswerPrinter {
            terminal,
            quiet,
            palette,
            progress,
            attempt: String::new(),
            mid_line: false,
            calls: Vec::new(),
        }
    }

    /// A notice on stderr (none with `--quiet`).
    fn note(&self, line: &str) {
        if !self.quiet {
            eprintln!("{line}");
        }
    }

    fn print(&mut self, event: &StreamEvent) {
        match event {
            StreamEvent::Text(text) => {
                self.attempt.push_str(text);
                if self.terminal {
                    let mut stdout = std::io::stdout();
                    let _ = stdout.write_all(text.as_bytes());
                    let _ = stdout.flush();
                    self.mid_line = !text.ends_with('\n');
                }
            }
            StreamEvent::Retrying {
                code,
                retry,
                delay_ms,
                policy_key,
            } => {
                // The text so far came from the failed attempt; the retry streams the answer anew.
                let partial = std::mem::take(&mut self.attempt);
                if self.terminal {
                    self.end_line();
                    if !partial.is_empty() {
                        self.note("[the text above is from a failed attempt and is discarded]");
                    }
                } else if !partial.is_empty() {
                    self.note(&format!(
                        "[partial text of the failed attempt, discarded: {}]",
                        partial.trim_end()
                    ));
                }
                self.note(&format!(
                    "[{}: {policy_key} retry {retry} in {delay_ms} ms]",
                    self.palette.retry(code)
                ));
            }
            StreamEvent::CoolingDown { code, delay_ms } => {
                self.note(&format!(
                    "[{}: held {delay_ms} ms by the provider's cool-down for this key and model (another session's rate limit)]",
                    self.palette.retry(code)
                ));
            }
            StreamEvent::ToolCall { id, arguments, .. } => {
                // The step's text (if any) ends here; the answer comes in a later step.
                let text = std::mem::take(&mut self.attempt);
                if self.terminal {
                    self.end_line();
                } else if !text.trim().is_empty() {
                    self.note(text.trim_end());
                }
                self.calls.push((id.clone(), arguments.clone()));
            }
            StreamEvent::ToolResult {
                id, name, content, ..
            } => {
                let arguments = self
                    .calls
                    .iter()
                    .find(|(i, _)| i == id)
                    .map(|(_, a)| a.as_str())
                    .unwrap_or("");
                self.note(&super::tool_line(name, arguments, content));
            }
            StreamEvent::Reasoning(_)
            | StreamEvent::Compacted { .. }
            | StreamEvent::Attempt { .. }
            | StreamEvent::ResponseHead { .. }
            | StreamEvent::AttemptFailed(_) => {}
        }
    }

    fn end_line(&mut self) {
        if self.mid_line {
            let _ = writeln!(std::io::stdout());
            self.mid_line = false;
        }
    }
}

impl RunOutput for AnswerPrinter {
    fn start(&mut self, session: &str, resuming: Option<&UnfinishedTurn>) {
        let Some(open) = resuming else { return };
        self.note(&format!("resuming turn {} of session {session}", open.turn));
        if let Some((record, wait)) = &open.pending_retry {
            // The dead process was waiting: what is left of its backoff counts down here.
            self.progress.update(|s| {
                s.backoff(
                    &record.code,
                    record.retry,
                    &record.policy_key,
                    *wait,
                    Instant::now(),
                )
            });
        }
    }

    fn event(&mut self, event: StreamEvent) {
        self.progress.clear();
        self.print(&event);
        self.progress.observe(&event);
    }

    /// A turn's answer: complete on stdout.
    fn answer(&mut self, answer: &str) {
        self.progress.update(|s| s.stop());
        self.attempt.clear();
        let mut stdout = std::io::stdout();
        if !self.terminal {
            let _ = stdout.write_all(answer.as_bytes());
        }
        let _ = writeln!(stdout);
        let _ = stdout.flush();
        self.mid_line = false;
    }

    /// The turn failed: whatever its last attempt streamed is no answer.
    fn failed(&mut self, _error: &TurnError) {
        self.progress.update(|s| s.stop());
        let partial = std::mem::take(&mut self.attempt);
        if self.terminal {
            self.end_line();
        } else if !partial.is_empty() {
            self.note(&format!(
                "[partial text of the failed attempt, discarded: {}]",
                partial.trim_end()
            ));
        }
    }

    fn end(&mut self, session: &str, outcome: Outcome) {
        if outcome == Outcome::Completed {
            self.note(&format!("session {session} (dsh-host log {session})"));
        }
    }
}
