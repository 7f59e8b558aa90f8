//! The recovery waterfall (docs/DESIGN.md, "Recovery"): listeners in configured order, the first that does
//! not delegate decides. Also the two things a decision needs from the host: the random sample
//! (seedable) and the cancellable wait.

use crate::adapter::Message;
use crate::failure::LlmFailure;
use crate::listener::{Decision, EarlierRetry, FailureContext, Listener, RetryDecision};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// What the waterfall decided.
#[derive(Debug, Clone, PartialEq)]
pub enum Verdict {
    Retry {
        listener: String,
        decision: RetryDecision,
    },
    GiveUp {
        listener: Option<String>,
        reason: String,
    },
}

/// A listener that faulted while deciding: reported, then skipped (treated as delegating), so a broken
/// third-party listener cannot stop the ones after it from recovering.
#[derive(Debug, Clone)]
pub struct ListenerFault {
    pub listener: String,
    pub failure: LlmFailure,
}

pub struct Recovery {
    listeners: Vec<Arc<Listener>>,
    random: Mutex<SplitMix64>,
}

/// What the waterfall is told about the failure.
pub struct FailureFacts<'a> {
    pub failure: &'a LlmFailure,
    pub turn: u32,
    pub step: u32,
    pub provider: &'a str,
    pub earlier_retries: Vec<EarlierRetry>,
    pub retry_policy_json: String,
    pub messages: &'a [Message],
}

impl Recovery {
    /// `seed`: fixes the random samples (tests); `None` seeds from the clock.
    pub fn new(listeners: Vec<Arc<Listener>>, seed: Option<u64>) -> Self {
        let seed = seed.unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
        Recovery {
            listeners,
            random: Mutex::new(SplitMix64(seed)),
        }
    }

    pub fn listener_names(&self) -> Vec<String> {
        self.listeners
            .iter()
            .map(|l| l.name().to_string())
            .collect()
    }

    pub async fn decide(&self, facts: FailureFacts<'_>) -> (Verdict, Vec<ListenerFault>) {
        let mut faults = Vec::new();
        // The user asked to stop: no policy may overrule that.
        if facts.failure.code == "ABORTED" {
            return (
                Verdict::GiveUp {
                    listener: None,
                    reason: "aborted by the caller".into(),
                },
                faults,
            );
        }
        let random = self.random.lock().expect("random state").next_f64();
        let f = facts.failure;
        let ctx = FailureContext {
            failure: crate::adapter::WitFailure::from(f),
            turn: facts.turn,
            step: facts.step,
            provider: facts.provider.to_string(),
            earlier_retries: facts.earlier_retries,
            retry_policy_json: facts.retry_policy_json,
            messages: facts.messages.to_vec(),
            random,
        };
        for listener in &self.listeners {
            match listener.decide(&ctx).await {
                Ok(Decision::Delegate) => continue,
                Ok(Decision::Retry(decision)) => {
                    return (
                        Verdict::Retry {
                            listener: listener.name().to_string(),
                            decision,
                        },
                        faults,
                    );
                }
                Ok(Decision::GiveUp(reason)) => {
                    return (
                        Verdict::GiveUp {
                            listener: Some(listener.name().to_string()),
                            reason,
                        },
                        faults,
                    );
                }
                Err(failure) => faults.push(ListenerFault {
                    listener: listener.name().to_string(),
                    failure,
                }),
            }
        }
        let reason = if self.listeners.is_empty() {
            "no recovery listeners are configured".to_string()
        } else {
            format!(
                "no listener retries {} (asked: {})",
                facts.failure.code,
                self.listener_names().join(", ")
            )
        };
        (
            Verdict::GiveUp {
                listener: None,
                reason,
            },
            faults,
        )
    }
}

/// A small, seedable generator for the listeners' random samples (the host supplies randomness so
/// that tests can pin it; it is jitter, not cryptography).
struct SplitMix64(u64);

impl SplitMix64 {
    fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in [0, 1).
    fn next_f64(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The caller's "stop": Ctrl-C in the CLI, or `abort()` through the library. Cloning shares it.
#[derive(Clone)]
pub struct AbortSignal {
    tx: Arc<watch::Sender<bool>>,
}

impl Default for AbortSignal {
    fn default() -> Self {
        AbortSignal {
            tx: Arc::new(watch::channel(false).0),
        }
    }
}

impl AbortSignal {
    pub fn abort(&self) {
        self.tx.send_replace(true);
    }

    /// Ready for the next turn: an abort ends the turn it was meant for, not every turn after it.
    pub fn reset(&self) {
        self.tx.send_replace(false);
    }

    pub fn is_aborted(&self) -> bool {
        *self.tx.borrow()
    }

    /// Resolves once `abort` has been called (at once if it already was).
    pub async fn aborted(&self) {
        let mut rx = self.tx.subscribe();
        let _ = rx.wait_for(|aborted| *aborted).await;
    }

    /// Waits `delay` unless aborted first; `false` means aborted.
    pub async fn sleep(&self, delay: Duration) -> bool {
        tokio::select! {
            _ = tokio::time::sleep(delay) => !self.is_aborted(),
            _ = self.aborted() => false,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn random_samples_are_uniform_in_unit_interval_and_seedable() {
        let mut a = SplitMix64(42);
        let mut b = SplitMix64(42);
        let xs: Vec<f64> = (0..1000).map(|_| a.next_f64()).collect();
        let ys: Vec<f64> = (0..1000).map(|_| b.next_f64()).collect();
        assert_eq!(xs, ys);
        assert!(xs.iter().all(|x| (0.0..1.0).contains(x)));
        let mean = xs.iter().sum::<f64>() / xs.len() as f64;
        assert!((0.45..0.55).contains(&mean), "{mean}");
    }

    #[tokio::test]
    async fn an_abort_ends_a_long_wait_at_once() {
        let signal = AbortSignal::default();
        let s2 = signal.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(20)).await;
            s2.abort();
        });
        let started = std::time::Instant::now();
        assert!(!signal.sleep(Duration::from_secs(600)).await);
        assert!(started.elapsed() < Duration::from_secs(60));
        // Already aborted: returns at once.
        assert!(!signal.sleep(Duration::from_secs(600)).await);
    }

    #[tokio::test]
    async fn a_wait_without_abort_completes() {
        assert!(AbortSignal::default().sleep(Duration::from_millis(5)).await);
    }

    #[tokio::test]
    async fn no_listeners_means_give_up_and_aborted_is_never_retried() {
        let r = Recovery::new(vec![], Some(1));
        let f = LlmFailure::new("RATE_LIMITED", "x");
        let facts = |f| FailureFacts {
            failure: f,
            turn: 1,
            step: 1,
            provider: "p",
            earlier_retries: vec![],
            retry_policy_json: "{}".into(),
            messages: &[],
        };
        let (v, _) = r.decide(facts(&f)).await;
        assert!(
            matches!(v, Verdict::GiveUp { listener: None, ref reason } if reason.contains("no recovery listeners"))
        );
        let aborted = LlmFailure::new("ABORTED", "stop");
        let (v, _) = r.decide(facts(&aborted)).await;
        assert!(matches!(v, Verdict::GiveUp { ref reason, .. } if reason.contains("aborted")));
    }
}
