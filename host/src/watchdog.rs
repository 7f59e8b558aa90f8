//! The stream-idle watchdog: bounds every wait on the provider by `stream_idle_timeout_ms`, and
//! measures **progress, not bytes** (docs/DESIGN.md, "The watchdog").
//!
//! - The response head must arrive within the idle time of the request ([`Watchdog::guard`]).
//! - From the head on, an [`IdleTimer`] runs: each body read is awaited against its deadline, and the
//!   deadline moves only when the attempt sees progress ([`IdleTimer::progress`]: the adapter yielded
//!   a chunk). Bytes that decode to nothing (SSE comments, `event: ping`, keepalive newlines, a body
//!   dripping a byte at a time) never move it, so a stalled provider that keeps pinging still times
//!   out. An error body is read against a timer that is never moved: its whole read is bounded.
//! - The attempt moves the deadline after the consumer has taken the chunks, so time the consumer
//!   spends holding a chunk is never counted: a slow consumer cannot look like a stalled provider.

use crate::failure::LlmFailure;
use std::future::Future;
use std::time::Duration;
use tokio::time::Instant;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Watchdog {
    idle: Duration,
}

impl Watchdog {
    /// `idle` has been validated by `config::stream_idle_timeout` (positive, finite, sane).
    pub fn new(idle: Duration) -> Self {
        Watchdog { idle }
    }

    pub fn idle(&self) -> Duration {
        self.idle
    }

    /// Awaits `wait`, or fails with `TIMEOUT` once the provider has been silent for the idle time.
    /// `what` describes the wait for the message ("no response head from api.openai.com").
    pub async fn guard<T>(
        &self,
        what: impl FnOnce() -> String,
        wait: impl Future<Output = T>,
    ) -> Result<T, LlmFailure> {
        self.arm().guard(what, wait).await
    }

    /// A timer armed now: the body's reads must show progress within the idle time.
    pub fn arm(&self) -> IdleTimer {
        IdleTimer {
            idle: self.idle,
            deadline: Instant::now() + self.idle,
        }
    }
}

/// The watchdog's timer over one response body.
#[derive(Debug, Clone, Copy)]
pub struct IdleTimer {
    idle: Duration,
    deadline: Instant,
}

impl IdleTimer {
    /// The provider made progress: the next wait has the whole idle time again.
    pub fn progress(&mut self) {
        self.deadline = Instant::now() + self.idle;
    }

    /// Awaits `wait` until the deadline, or fails with `TIMEOUT`.
    pub async fn guard<T>(
        &self,
        what: impl FnOnce() -> String,
        wait: impl Future<Output = T>,
    ) -> Result<T, LlmFailure> {
        tokio::time::timeout_at(self.deadline, wait)
            .await
            .map_err(|_| {
                LlmFailure::new(
                    "TIMEOUT",
                    format!(
                        "{} within the stream idle timeout of {} ms",
                        what(),
                        self.idle.as_millis()
                    ),
                )
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_silent_provider_times_out() {
        let w = Watchdog::new(Duration::from_secs(300));
        let f = w
            .guard(
                || "no response head from x".into(),
                std::future::pending::<()>(),
            )
            .await
            .unwrap_err();
        assert_eq!(f.code, "TIMEOUT");
        assert_eq!(
            f.message,
            "no response head from x within the stream idle timeout of 300000 ms"
        );
    }

    /// Waits that each end in time but show no progress add up: the deadline does not move.
    #[tokio::test(start_paused = true)]
    async fn waits_without_progress_share_one_deadline() {
        let w = Watchdog::new(Duration::from_secs(10));
        let timer = w.arm();
        for _ in 0..9 {
            timer
                .guard(
                    || unreachable!(),
                    tokio::time::sleep(Duration::from_secs(1)),
                )
                .await
                .unwrap();
        }
        let f = timer
            .guard(
                || "the stream from x sent nothing new".into(),
                tokio::time::sleep(Duration::from_secs(2)),
            )
            .await
            .unwrap_err();
        assert_eq!(f.code, "TIMEOUT");
    }

    /// Progress gives the next wait the whole idle time again.
    #[tokio::test(start_paused = true)]
    async fn progress_rearms_the_timer() {
        let w = Watchdog::new(Duration::from_secs(10));
        let mut timer = w.arm();
        for _ in 0..30 {
            timer
                .guard(
                    || unreachable!(),
                    tokio::time::sleep(Duration::from_secs(9)),
                )
                .await
                .unwrap();
            timer.progress();
        }
    }

    #[tokio::test(start_paused = true)]
    async fn an_answer_in_time_passes_through() {
        let w = Watchdog::new(Duration::from_secs(1));
        let v = w
            .guard(|| unreachable!(), async {
                tokio::time::sleep(Duration::from_millis(999)).await;
                7
            })
            .await
            .unwrap();
        assert_eq!(v, 7);
    }
}
