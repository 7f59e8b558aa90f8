//! The stream-idle watchdog: bounds every wait on the provider (the response head, then each read of
//! the body) by `stream_idle_timeout_ms`. It wraps only those awaits, so it is never armed while the
//! consumer holds a chunk: a slow consumer cannot look like a stalled provider.

use crate::failure::LlmFailure;
use std::future::Future;
use std::time::Duration;

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
    pub async fn guard<T>(&self, what: impl FnOnce() -> String, wait: impl Future<Output = T>) -> Result<T, LlmFailure> {
        tokio::time::timeout(self.idle, wait).await.map_err(|_| {
            LlmFailure::new(
                "TIMEOUT",
                format!("{} within the stream idle timeout of {} ms", what(), self.idle.as_millis()),
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
        let f = w.guard(|| "no response head from x".into(), std::future::pending::<()>()).await.unwrap_err();
        assert_eq!(f.code, "TIMEOUT");
        assert_eq!(f.message, "no response head from x within the stream idle timeout of 300000 ms");
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
