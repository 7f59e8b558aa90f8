//! Fleet back-pressure: a provider's "slow down, and come back in N seconds" holds every session's
//! new attempts to that provider, key and model until then, not only the session that was told.
//!
//! Providers limit per key and per model, so a 429 (or 503) with a retry-after says something about
//! every request on that key to that model: the other sessions of the process, and the other
//! processes of a fleet sharing the key, would each meet the same 429 and add to the load the
//! provider is shedding. The session that met it records a cool-down (`record`); before every
//! attempt a session asks whether one is running (`hold`) and waits the rest of it, bounded by its
//! retry policy's `max_delay_ms`, cancellably, logged as `llm/cooldown`. The sessions it held are
//! spread over a short time after its end ([`MAX_SPREAD`]), each at a place its id decides, so that
//! they do not all return to the provider at once.
//!
//! Where cool-downs are kept follows the session store: in this process's memory with the files
//! (one process), in the sessions database with PostgreSQL (table `dsh_cooldowns`, the database's
//! clock, so machines whose clocks differ agree on when a cool-down ends; see
//! [`crate::pg_store::PgCoolDowns`]).
//!
//! The session that recorded a cool-down is not held by it: its own retry decision (the `llm-retry`
//! listener honours the retry-after exactly) already waits it out, and holding it again would add
//! the few milliseconds between the provider's answer and the record to every retry.
//!
//! The key is never stored: a key is named by a digest of it ([`key_id`]).

use crate::failure::LlmFailure;
use crate::pg_store::PgCoolDowns;
use anyhow::Result;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// The longest cool-down recorded: a retry-after beyond it (a hostile or broken provider saying
/// "come back next year") is cut to it, so one answer cannot stall a fleet for longer than a retry
/// policy may wait (`max_delay_ms` is at most an hour too).
pub const MAX_COOLDOWN: Duration = Duration::from_secs(3600);

/// A cool-down shorter than this is not waited for: it is the clock's noise between two processes'
/// reads, not back-pressure.
pub const MIN_HOLD: Duration = Duration::from_millis(5);

/// What a cool-down applies to: requests with this key to this model of this provider.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CoolDownKey {
    /// The provider's name in the configuration (`openai`, `local`, ...).
    pub provider: String,
    /// A digest of the API key ([`key_id`]), or `none` for a provider sent no key.
    pub key_id: String,
    pub model: String,
}

/// Names an API key without revealing it: the first 16 hex digits of SHA-256 over a fixed prefix
/// and the key. Two processes with the same key get the same name; the name gives nothing back.
pub fn key_id(key: Option<&str>) -> String {
    use sha2::{Digest, Sha256};
    match key {
        None => "none".into(),
        Some(key) => {
            hex::encode(Sha256::digest(format!("dsh-host cool-down key\n{key}")))[..16].to_string()
        }
    }
}

/// The cool-down a failure asks the fleet for: a rate limit or an overload (a 429 or 503, or an
/// adapter's `RATE_LIMITED`/`OVERLOADED` under another status, as Anthropic's 529) that came with a
/// positive retry-after; at most [`MAX_COOLDOWN`]. Anything else (a 500, a 429 without a
/// retry-after, a quota exhausted for the month) asks nothing of other sessions.
pub fn requested(failure: &LlmFailure) -> Option<Duration> {
    let back_pressure = matches!(failure.status, Some(429 | 503))
        || matches!(failure.code.as_str(), "RATE_LIMITED" | "OVERLOADED");
    if !back_pressure
        || matches!(
            failure.code.as_str(),
            "QUOTA_EXCEEDED" | "AUTH" | "INVALID_REQUEST"
        )
    {
        return None;
    }
    let ms = failure.provider_retry_after_ms.filter(|ms| *ms > 0)?;
    Some(Duration::from_millis(ms).min(MAX_COOLDOWN))
}

/// The most a held session waits past a cool-down's end: the sessions a cool-down held are spread
/// over up to a tenth of it, at most this, so that they do not all reach the provider in the same
/// instant it ends (and meet its limit again together).
pub const MAX_SPREAD: Duration = Duration::from_secs(1);

/// How long to hold an attempt for a cool-down with `remaining` to run, under a retry policy whose
/// longest wait is `cap`: `None` when there is nothing worth waiting for. `place` (0.0 to 1.0, from
/// [`spread_place`]) puts this session in the spread after the end (see [`MAX_SPREAD`]); the wait
/// never exceeds `cap`.
pub fn hold_for(remaining: Duration, cap: Duration, place: f64) -> Option<Duration> {
    if remaining.min(cap) < MIN_HOLD {
        return None;
    }
    let spread = remaining
        .mul_f64(0.1)
        .min(MAX_SPREAD)
        .mul_f64(place.clamp(0.0, 1.0));
    Some((remaining + spread).min(cap))
}

/// A session's place in a cool-down's spread, 0.0 to 1.0: from a digest of its id, so the sessions
/// a cool-down holds spread out, and a session's wait is the same every time it is replayed.
pub fn spread_place(session: &str) -> f64 {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("dsh-host cool-down spread\n{session}"));
    let n = u16::from_be_bytes([digest[0], digest[1]]);
    f64::from(n) / f64::from(u16::MAX)
}

/// A cool-down running now, as [`CoolDowns::hold`] finds it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CoolDown {
    /// How much of it is left.
    pub remaining: Duration,
    /// The failure code that began it (`RATE_LIMITED`, `OVERLOADED`).
    pub code: String,
}

/// The cool-downs every session of this process sees: in memory, or in the sessions database.
pub enum CoolDowns {
    Local(LocalCoolDowns),
    Postgres(PgCoolDowns),
}

impl CoolDowns {
    /// Cool-downs in this process's memory (the files backend, tests, embedders).
    pub fn local() -> Self {
        CoolDowns::Local(LocalCoolDowns::default())
    }

    /// Records that requests under `key` should wait `wait` from now (a later end than one already
    /// recorded wins; an earlier one changes nothing). `session`: who met the failure.
    pub fn record(
        &self,
        key: &CoolDownKey,
        wait: Duration,
        code: &str,
        session: &str,
    ) -> Result<()> {
        match self {
            CoolDowns::Local(local) => {
                local.record(key, wait, code, session);
                Ok(())
            }
            CoolDowns::Postgres(pg) => pg.record(key, wait, code, session),
        }
    }

    /// The cool-down running now under `key` that another session began, if any.
    pub fn hold(&self, key: &CoolDownKey, session: &str) -> Result<Option<CoolDown>> {
        match self {
            CoolDowns::Local(local) => Ok(local.hold(key, session)),
            CoolDowns::Postgres(pg) => pg.hold(key, session),
        }
    }
}

/// Cool-downs in memory, on this process's monotonic clock.
#[derive(Default)]
pub struct LocalCoolDowns {
    entries: Mutex<HashMap<CoolDownKey, Entry>>,
}

struct Entry {
    until: Instant,
    code: String,
    set_by: String,
}

impl LocalCoolDowns {
    fn record(&self, key: &CoolDownKey, wait: Duration, code: &str, session: &str) {
        let now = Instant::now();
        let until = now + wait;
        let mut entries = self.entries.lock().expect("cool-down lock");
        // Ended ones go, so the map holds only what is running (it is small: one entry per key and
        // model being limited right now).
        entries.retain(|_, e| e.until > now);
        match entries.get_mut(key) {
            Some(e) if e.until >= until => {}
            _ => {
                entries.insert(
                    key.clone(),
                    Entry {
                        until,
                        code: code.into(),
                        set_by: session.into(),
                    },
                );
            }
        }
    }

    fn hold(&self, key: &CoolDownKey, session: &str) -> Option<CoolDown> {
        let entries = self.entries.lock().expect("cool-down lock");
        let e = entries.get(key)?;
        let remaining = e.until.checked_duration_since(Instant::now())?;
        (e.set_by != session && !remaining.is_zero()).then(|| CoolDown {
            remaining,
            code: e.code.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn failure(code: &str, status: Option<u16>, retry_after_ms: Option<u64>) -> LlmFailure {
        LlmFailure {
            status,
            provider_retry_after_ms: retry_after_ms,
            ..LlmFailure::new(code, "m")
        }
    }

    fn key(model: &str) -> CoolDownKey {
        CoolDownKey {
            provider: "openai".into(),
            key_id: key_id(Some("sk-test-1234567890")),
            model: model.into(),
        }
    }

    #[test]
    fn rate_limits_and_overloads_with_a_retry_after_ask_the_fleet_to_wait() {
        let s = Duration::from_secs;
        assert_eq!(
            requested(&failure("RATE_LIMITED", Some(429), Some(3000))),
            Some(s(3))
        );
        assert_eq!(
            requested(&failure("OVERLOADED", Some(503), Some(1000))),
            Some(s(1))
        );
        // Anthropic's 529 and a 503 an adapter read as a server error: by code, and by status.
        assert_eq!(
            requested(&failure("OVERLOADED", Some(529), Some(2000))),
            Some(s(2))
        );
        assert_eq!(
            requested(&failure("SERVER_ERROR", Some(503), Some(2000))),
            Some(s(2))
        );
        // An in-band rate limit in a 200 stream has no status.
        assert_eq!(
            requested(&failure("RATE_LIMITED", None, Some(500))),
            Some(Duration::from_millis(500))
        );
    }

    #[test]
    fn nothing_else_asks_anything_of_other_sessions() {
        // No retry-after: each session's own backoff (with its jitter) is the right spread.
        assert_eq!(requested(&failure("RATE_LIMITED", Some(429), None)), None);
        assert_eq!(
            requested(&failure("RATE_LIMITED", Some(429), Some(0))),
            None
        );
        // A 500 with a retry-after is one request's trouble, not the key's.
        assert_eq!(
            requested(&failure("SERVER_ERROR", Some(500), Some(1000))),
            None
        );
        // A month's quota, a bad key, a bad request: waiting does not help and retries are not made.
        assert_eq!(
            requested(&failure("QUOTA_EXCEEDED", Some(429), Some(3_600_000))),
            None
        );
        assert_eq!(requested(&failure("AUTH", Some(429), Some(1000))), None);
        assert_eq!(
            requested(&failure("INVALID_REQUEST", Some(429), Some(1000))),
            None
        );
        assert_eq!(requested(&failure("NETWORK", None, Some(1000))), None);
    }

    #[test]
    fn a_retry_after_of_a_year_is_cut_to_the_longest_cool_down() {
        assert_eq!(
            requested(&failure("RATE_LIMITED", Some(429), Some(365 * 86_400_000))),
            Some(MAX_COOLDOWN)
        );
    }

    #[test]
    fn a_hold_is_bounded_by_the_policy_and_noise_is_not_waited_for() {
        let ms = Duration::from_millis;
        assert_eq!(hold_for(ms(3000), ms(120_000), 0.0), Some(ms(3000)));
        assert_eq!(hold_for(ms(300_000), ms(120_000), 1.0), Some(ms(120_000)));
        assert_eq!(hold_for(ms(2), ms(120_000), 1.0), None);
        assert_eq!(hold_for(ms(3000), ms(0), 0.5), None);
    }

    #[test]
    fn held_sessions_are_spread_after_the_end_by_a_tenth_of_it_at_most_a_second() {
        let ms = Duration::from_millis;
        assert_eq!(hold_for(ms(3000), ms(120_000), 1.0), Some(ms(3300)));
        assert_eq!(hold_for(ms(3000), ms(120_000), 0.5), Some(ms(3150)));
        assert_eq!(hold_for(ms(60_000), ms(120_000), 1.0), Some(ms(61_000)));
        // Never past the policy's cap, and never before the end.
        assert_eq!(hold_for(ms(3000), ms(3100), 1.0), Some(ms(3100)));
        assert_eq!(hold_for(ms(3000), ms(120_000), -4.0), Some(ms(3000)));
        assert_eq!(hold_for(ms(3000), ms(120_000), 9.0), Some(ms(3300)));
    }

    #[test]
    fn sessions_take_different_places_in_the_spread_and_the_same_one_each_time() {
        let places: Vec<f64> = (0..200).map(|i| spread_place(&format!("s-{i}"))).collect();
        assert!(places.iter().all(|p| (0.0..=1.0).contains(p)));
        assert_eq!(spread_place("s-7"), places[7]);
        // Spread over the whole range, not bunched: every tenth of it holds some sessions.
        for tenth in 0..10 {
            let (lo, hi) = (tenth as f64 / 10.0, (tenth + 1) as f64 / 10.0);
            assert!(
                places.iter().any(|p| *p >= lo && *p <= hi),
                "nothing in {lo}..{hi}"
            );
        }
    }

    #[test]
    fn key_ids_name_a_key_without_holding_it() {
        let id = key_id(Some("sk-live-abcdefghijklmnop"));
        assert_eq!(id.len(), 16);
        assert!(!id.contains("abcdefgh"));
        assert_eq!(
            id,
            key_id(Some("sk-live-abcdefghijklmnop")),
            "the same key, the same name, in any process"
        );
        assert_ne!(id, key_id(Some("sk-live-abcdefghijklmnoq")));
        assert_eq!(key_id(None), "none");
    }

    #[test]
    fn other_sessions_are_held_the_one_that_was_told_is_not() {
        let cool = CoolDowns::local();
        cool.record(&key("gpt-4o"), Duration::from_secs(5), "RATE_LIMITED", "a")
            .unwrap();
        let held = cool.hold(&key("gpt-4o"), "b").unwrap().expect("b is held");
        assert_eq!(held.code, "RATE_LIMITED");
        assert!(
            held.remaining > Duration::from_secs(4) && held.remaining <= Duration::from_secs(5),
            "{held:?}"
        );
        assert_eq!(
            cool.hold(&key("gpt-4o"), "a").unwrap(),
            None,
            "its own retry already waits"
        );
        // Another model of the same key, and the same model under another key, are not limited.
        assert_eq!(cool.hold(&key("gpt-4o-mini"), "b").unwrap(), None);
        let other_key = CoolDownKey {
            key_id: key_id(Some("sk-other-key-0000")),
            ..key("gpt-4o")
        };
        assert_eq!(cool.hold(&other_key, "b").unwrap(), None);
    }

    #[test]
    fn the_later_end_wins_and_an_ended_cool_down_holds_nobody() {
        let cool = CoolDowns::local();
        cool.record(&key("m"), Duration::from_secs(10), "RATE_LIMITED", "a")
            .unwrap();
        cool.record(&key("m"), Duration::from_secs(1), "OVERLOADED", "c")
            .unwrap();
        let held = cool.hold(&key("m"), "b").unwrap().unwrap();
        assert!(held.remaining > Duration::from_secs(9));
        assert_eq!(
            held.code, "RATE_LIMITED",
            "a shorter cool-down does not shorten a longer one"
        );
        cool.record(&key("n"), Duration::from_millis(30), "RATE_LIMITED", "a")
            .unwrap();
        std::thread::sleep(Duration::from_millis(60));
        assert_eq!(cool.hold(&key("n"), "b").unwrap(), None);
    }
}
