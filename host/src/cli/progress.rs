//! The live line of `dsh-host run` on a terminal: a spinner with the elapsed time while an attempt
//! waits for its response head and first chunk (and while a tool runs), a countdown during every
//! backoff. It is drawn on stderr by indicatif and cleared before anything else is written, so the
//! answer on stdout and the notices on stderr never hold a trace of it.
//!
//! [`Status`] decides what the line says from the turn's events and a time given by the caller
//! (pure, tested with a made-up clock); [`Progress`] draws it, or nothing off a terminal or with
//! `--quiet`.

use super::colour::Palette;
use crate::attempt::StreamEvent;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// How often the line is redrawn: often enough for the spinner to move and the countdown to tick.
const TICK: Duration = Duration::from_millis(100);

/// What the turn is doing now, as far as the person waiting needs to know.
#[derive(Debug, Clone, PartialEq)]
enum Phase {
    /// Nothing to show: text is streaming, or nothing is in flight.
    Quiet,
    /// An attempt waits for its response head (`connected` false) or its first chunk.
    Waiting {
        since: Instant,
        attempt: u32,
        connected: bool,
    },
    /// Reasoning chunks arrive, no text yet.
    Thinking { since: Instant },
    /// A backoff before a retry.
    Backoff {
        code: String,
        retry: u32,
        of: Option<u32>,
        until: Instant,
    },
    /// A tool call runs.
    Tool { name: String, since: Instant },
    /// Held by a cool-down another session's rate limit began (same provider, key and model).
    CoolDown { code: String, until: Instant },
}

/// The live line's content, driven by the turn's events.
#[derive(Debug, Clone)]
pub struct Status {
    phase: Phase,
    /// The retry limit of the provider's `llm-retry` policy, for "retry 2 of 5" (None: unbounded).
    llm_retry_limit: Option<u32>,
    palette: Palette,
}

/// The key under which the `llm-retry` listener records its retries (`llm/retry` `policy_key`).
const LLM_RETRY: &str = "llm-retry";

impl Status {
    pub fn new(llm_retry_limit: Option<u32>, palette: Palette) -> Self {
        Status {
            phase: Phase::Quiet,
            llm_retry_limit,
            palette,
        }
    }

    /// A backoff that began before this process (a resumed turn continues what is left of it).
    pub fn backoff(
        &mut self,
        code: &str,
        retry: u32,
        policy_key: &str,
        wait: Duration,
        now: Instant,
    ) {
        let of = (policy_key == LLM_RETRY)
            .then_some(self.llm_retry_limit)
            .flatten();
        self.phase = Phase::Backoff {
            code: code.to_string(),
            retry,
            of,
            until: now + wait,
        };
    }

    /// Nothing is in flight any more (the turn ended).
    pub fn stop(&mut self) {
        self.phase = Phase::Quiet;
    }

    pub fn observe(&mut self, event: &StreamEvent, now: Instant) {
        match event {
            StreamEvent::Attempt { attempt, .. } => {
                self.phase = Phase::Waiting {
                    since: now,
                    attempt: *attempt,
                    connected: false,
                };
            }
            StreamEvent::ResponseHead { .. } => {
                if let Phase::Waiting { connected, .. } = &mut self.phase {
                    *connected = true;
                }
            }
            StreamEvent::Reasoning(_) => {
                if let Phase::Waiting { since, .. } = self.phase {
                    self.phase = Phase::Thinking { since };
                }
            }
            StreamEvent::Text(_)
            | StreamEvent::AttemptFailed(_)
            | StreamEvent::ToolResult { .. } => {
                self.phase = Phase::Quiet;
            }
            StreamEvent::Retrying {
                code,
                retry,
                delay_ms,
                policy_key,
            } => {
                self.backoff(
                    code,
                    *retry,
                    policy_key,
                    Duration::from_millis(*delay_ms),
                    now,
                );
            }
            StreamEvent::ToolCall { name, .. } => {
                self.phase = Phase::Tool {
                    name: name.clone(),
                    since: now,
                };
            }
            StreamEvent::CoolingDown { code, delay_ms } => {
                self.phase = Phase::CoolDown {
                    code: code.clone(),
                    until: now + Duration::from_millis(*delay_ms),
                };
            }
            StreamEvent::Compacted { .. } => {}
        }
    }

    /// The line to show at `now`, or None when nothing should be shown.
    pub fn line(&self, now: Instant) -> Option<String> {
        let elapsed = |since: Instant| clock(now.saturating_duration_since(since), false);
        Some(match &self.phase {
            Phase::Quiet => return None,
            Phase::Waiting {
                since,
                attempt,
                connected,
            } => {
                let what = if *connected {
                    "connected, waiting for the first token"
                } else {
                    "waiting for the response"
                };
                let attempt = if *attempt > 1 {
                    format!(" (attempt {attempt})")
                } else {
                    String::new()
                };
                format!("{what}{attempt} {}", elapsed(*since))
            }
            Phase::Thinking { since } => format!("the model is thinking {}", elapsed(*since)),
            Phase::Tool { name, since } => format!("running tool {name} {}", elapsed(*since)),
            Phase::Backoff {
                code,
                retry,
                of,
                until,
            } => {
                let of = of.map(|n| format!(" of {n}")).unwrap_or_default();
                let left = until.saturating_duration_since(now);
                let when = if left.is_zero() {
                    "now".to_string()
                } else {
                    format!("in {}", clock(left, true))
                };
                format!(
                    "{} — retry {retry}{of} {when}, Ctrl-C to stop",
                    self.palette.retry(code)
                )
            }
            Phase::CoolDown { code, until } => {
                let left = clock(until.saturating_duration_since(now), true);
                format!(
                    "{} — the provider's cool-down for this key and model, sending in {left}, Ctrl-C to stop",
                    self.palette.retry(code)
                )
            }
        })
    }
}

/// `m:ss` (or `h:mm:ss`); a countdown rounds up, so it shows 0:01 until the wait is over.
fn clock(d: Duration, round_up: bool) -> String {
    let mut secs = d.as_secs();
    if round_up && d.subsec_nanos() > 0 {
        secs += 1;
    }
    let (h, m, s) = (secs / 3600, secs / 60 % 60, secs % 60);
    if h > 0 {
        format!("{h}:{m:02}:{s:02}")
    } else {
        format!("{m}:{s:02}")
    }
}

/// Draws the [`Status`] line on stderr with a spinner, redrawn every [`TICK`] by indicatif's own
/// thread (the session's runtime is busy with the turn).
pub struct Progress {
    status: Arc<Mutex<Status>>,
    /// The line on screen, if any. A new bar per waiting phase: a cleared bar is finished for good.
    bar: Option<ProgressBar>,
    enabled: bool,
}

impl Progress {
    /// `enabled`: stderr is a terminal and neither `--quiet` nor `--json` was given.
    pub fn new(status: Status, enabled: bool) -> Self {
        Progress {
            status: Arc::new(Mutex::new(status)),
            bar: None,
            enabled,
        }
    }

    /// Clears the line (before anything else is written to the terminal).
    pub fn clear(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }

    /// Takes an event (after whatever it printed), then draws the line its new state calls for.
    pub fn observe(&mut self, event: &StreamEvent) {
        self.update(|s| s.observe(event, Instant::now()));
    }

    /// Changes the status some other way (a resumed backoff, the end of the turn), then redraws.
    pub fn update(&mut self, change: impl FnOnce(&mut Status)) {
        let showing = {
            let mut status = self.status.lock().expect("progress lock");
            change(&mut status);
            status.line(Instant::now()).is_some()
        };
        if !self.enabled {
            return;
        }
        match (showing, &self.bar) {
            (false, _) => self.clear(),
            (true, Some(bar)) => bar.tick(),
            (true, None) => self.bar = Some(self.draw()),
        }
    }

    fn draw(&self) -> ProgressBar {
        let status = self.status.clone();
        let style = ProgressStyle::with_template("{spinner} {status}")
            .expect("a valid template")
            .with_key(
                "status",
                move |_: &ProgressState, out: &mut dyn std::fmt::Write| {
                    let line = status.lock().expect("progress lock").line(Instant::now());
                    let _ = out.write_str(&line.unwrap_or_default());
                },
            );
        let bar =
            ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()).with_style(style);
        bar.enable_steady_tick(TICK);
        bar
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::LlmFailure;

    fn status() -> Status {
        Status::new(Some(5), Palette::new(false))
    }

    fn secs(s: f64) -> Duration {
        Duration::from_secs_f64(s)
    }

    #[test]
    fn a_backoff_counts_down_to_its_retry() {
        let t0 = Instant::now();
        let mut s = status();
        s.observe(
            &StreamEvent::Attempt {
                turn: 1,
                step: 1,
                attempt: 1,
            },
            t0,
        );
        s.observe(
            &StreamEvent::AttemptFailed(LlmFailure::new("RATE_LIMITED", "slow down")),
            t0,
        );
        assert_eq!(
            s.line(t0),
            None,
            "between the failure and the decision there is nothing to say"
        );
        let retrying = StreamEvent::Retrying {
            code: "RATE_LIMITED".into(),
            retry: 2,
            delay_ms: 102_000,
            policy_key: "llm-retry".into(),
        };
        s.observe(&retrying, t0);
        assert_eq!(
            s.line(t0).unwrap(),
            "RATE_LIMITED — retry 2 of 5 in 1:42, Ctrl-C to stop"
        );
        assert_eq!(
            s.line(t0 + secs(60.5)).unwrap(),
            "RATE_LIMITED — retry 2 of 5 in 0:42, Ctrl-C to stop"
        );
        assert_eq!(
            s.line(t0 + secs(101.9)).unwrap(),
            "RATE_LIMITED — retry 2 of 5 in 0:01, Ctrl-C to stop"
        );
        assert_eq!(
            s.line(t0 + secs(102.0)).unwrap(),
            "RATE_LIMITED — retry 2 of 5 now, Ctrl-C to stop"
        );
        // The next attempt starts: the countdown gives way to the spinner of that attempt.
        let t1 = t0 + secs(102.1);
        s.observe(
            &StreamEvent::Attempt {
                turn: 1,
                step: 1,
                attempt: 3,
            },
            t1,
        );
        assert_eq!(
            s.line(t1 + secs(3.2)).unwrap(),
            "waiting for the response (attempt 3) 0:03"
        );
    }

    #[test]
    fn a_retry_of_another_listener_or_an_unbounded_policy_has_no_total() {
        let t0 = Instant::now();
        for (limit, key) in [(Some(5), "compaction-basic"), (None, "llm-retry")] {
            let mut s = Status::new(limit, Palette::new(false));
            s.backoff(
                "SERVER_ERROR",
                1,
                key,
                Duration::from_millis(3_600_000 + 61_000),
                t0,
            );
            assert_eq!(
                s.line(t0).unwrap(),
                "SERVER_ERROR — retry 1 in 1:01:01, Ctrl-C to stop"
            );
        }
    }

    #[test]
    fn the_spinner_waits_for_the_head_then_the_first_chunk_and_clears_at_the_text() {
        let t0 = Instant::now();
        let mut s = status();
        assert_eq!(s.line(t0), None);
        s.observe(
            &StreamEvent::Attempt {
                turn: 1,
                step: 1,
                attempt: 1,
            },
            t0,
        );
        assert_eq!(s.line(t0).unwrap(), "waiting for the response 0:00");
        s.observe(&StreamEvent::ResponseHead { status: 200 }, t0 + secs(1.0));
        assert_eq!(
            s.line(t0 + secs(75.0)).unwrap(),
            "connected, waiting for the first token 1:15"
        );
        s.observe(&StreamEvent::Reasoning("hmm".into()), t0 + secs(76.0));
        assert_eq!(
            s.line(t0 + secs(80.0)).unwrap(),
            "the model is thinking 1:20"
        );
        s.observe(&StreamEvent::Text("Hi".into()), t0 + secs(81.0));
        assert_eq!(s.line(t0 + secs(81.0)), None);
        // Reasoning after the text started does not bring the spinner back over the text.
        s.observe(&StreamEvent::Reasoning("more".into()), t0 + secs(82.0));
        assert_eq!(s.line(t0 + secs(82.0)), None);
    }

    #[test]
    fn a_running_tool_shows_its_name_until_its_result() {
        let t0 = Instant::now();
        let mut s = status();
        let call = StreamEvent::ToolCall {
            id: "c1".into(),
            name: "clock".into(),
            arguments: "{}".into(),
        };
        s.observe(&call, t0);
        assert_eq!(s.line(t0 + secs(2.5)).unwrap(), "running tool clock 0:02");
        let result = StreamEvent::ToolResult {
            id: "c1".into(),
            name: "clock".into(),
            content: "now".into(),
            is_error: false,
        };
        s.observe(&result, t0 + secs(3.0));
        assert_eq!(s.line(t0 + secs(3.0)), None);
    }

    #[test]
    fn a_cool_down_counts_down_to_the_attempt_it_holds() {
        let t0 = Instant::now();
        let mut s = status();
        s.observe(
            &StreamEvent::CoolingDown {
                code: "RATE_LIMITED".into(),
                delay_ms: 2_500,
            },
            t0,
        );
        let line = s.line(t0 + secs(0.2)).unwrap();
        assert_eq!(
            line,
            "RATE_LIMITED — the provider's cool-down for this key and model, sending in 0:03, Ctrl-C to stop"
        );
        s.observe(
            &StreamEvent::Attempt {
                turn: 1,
                step: 1,
                attempt: 1,
            },
            t0 + secs(2.5),
        );
        assert_eq!(
            s.line(t0 + secs(2.5)).unwrap(),
            "waiting for the response 0:00"
        );
    }

    #[test]
    fn a_coloured_countdown_colours_the_code() {
        let t0 = Instant::now();
        let mut s = Status::new(Some(5), Palette::new(true));
        s.backoff("OVERLOADED", 1, "llm-retry", Duration::from_secs(6), t0);
        let line = s.line(t0).unwrap();
        assert!(
            line.contains("\u{1b}[33mOVERLOADED\u{1b}[0m — retry 1 of 5 in 0:06"),
            "{line:?}"
        );
    }
}
