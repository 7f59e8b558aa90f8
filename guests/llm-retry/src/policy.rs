//! The provider's retry policy (`[providers.NAME.retry_policy]`), as the host hands it over in JSON.
//!
//! The host validates the policy at start-up; this parser checks it again (defence in depth) so that a
//! bad value never turns into a silly delay. Every error names the field.

use serde_json::{Map, Value};

use crate::types::{FailureCode, codes};

/// How the policy bounds retries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mode {
    /// Finite `max_retries` and an explicit `retryable_codes` allowlist.
    Normal,
    /// Unbounded retries of the default retryable codes, same backoff shape: a deliberate choice for
    /// unattended deployments.
    Always,
}

#[derive(Debug, Clone, PartialEq)]
pub struct RetryPolicy {
    pub mode: Mode,
    /// Normal mode only (checked, then ignored, in always mode).
    pub max_retries: u32,
    pub initial_delay_ms: u64,
    pub max_delay_ms: u64,
    /// In [0, 1].
    pub jitter_ratio: f64,
    /// Normal mode only (checked, then ignored, in always mode): always mode retries
    /// [`codes::DEFAULT_RETRYABLE`]. Codes outside that set are never retried, listed or not.
    pub retryable_codes: Vec<FailureCode>,
}

pub const DEFAULT_MAX_RETRIES: u32 = 5;
pub const DEFAULT_INITIAL_DELAY_MS: u64 = 1000;
/// The newest openai-python honours a provider's retry-after up to two minutes.
pub const DEFAULT_MAX_DELAY_MS: u64 = 120_000;
pub const DEFAULT_JITTER_RATIO: f64 = 0.2;

/// The fields a policy may have.
pub const FIELDS: [&str; 6] = [
    "mode",
    "max_retries",
    "initial_delay_ms",
    "max_delay_ms",
    "jitter_ratio",
    "retryable_codes",
];

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            mode: Mode::Normal,
            max_retries: DEFAULT_MAX_RETRIES,
            initial_delay_ms: DEFAULT_INITIAL_DELAY_MS,
            max_delay_ms: DEFAULT_MAX_DELAY_MS,
            jitter_ratio: DEFAULT_JITTER_RATIO,
            retryable_codes: codes::DEFAULT_RETRYABLE.to_vec(),
        }
    }
}

impl RetryPolicy {
    /// Parses the policy JSON: a JSON object, missing fields take their defaults. An empty (or
    /// whitespace) string is the empty policy. Unknown fields and bad values are errors naming the
    /// field.
    pub fn from_json(json: &str) -> Result<RetryPolicy, String> {
        if json.trim().is_empty() {
            return Ok(RetryPolicy::default());
        }
        let value: Value =
            serde_json::from_str(json).map_err(|e| format!("not valid JSON ({e})"))?;
        let Value::Object(map) = value else {
            return Err(format!("must be a JSON object, got {}", kind(&value)));
        };
        RetryPolicy::from_map(&map)
    }

    fn from_map(map: &Map<String, Value>) -> Result<RetryPolicy, String> {
        let mut unknown: Vec<&str> = map
            .keys()
            .map(String::as_str)
            .filter(|k| !FIELDS.contains(k))
            .collect();
        unknown.sort_unstable();
        if !unknown.is_empty() {
            return Err(format!(
                "unknown field{} {} (known fields: {})",
                if unknown.len() == 1 { "" } else { "s" },
                quoted_list(&unknown),
                FIELDS.join(", ")
            ));
        }

        let mut p = RetryPolicy::default();
        if let Some(v) = map.get("mode") {
            p.mode = match v.as_str() {
                Some("normal") => Mode::Normal,
                Some("always") => Mode::Always,
                _ => {
                    return Err(format!(
                        "mode must be \"normal\" or \"always\", got {}",
                        shown(v)
                    ));
                }
            };
        }
        // `max_retries` and `retryable_codes` only matter in normal mode, but the host serializes the
        // whole policy (every field, whatever the mode): in always mode they are checked and ignored.
        if let Some(v) = map.get("max_retries") {
            p.max_retries = integer(v, u64::from(u32::MAX))
                .and_then(|n| u32::try_from(n).ok())
                .ok_or_else(|| {
                    format!(
                        "max_retries must be an integer from 0 to {}, got {}",
                        u32::MAX,
                        shown(v)
                    )
                })?;
        }
        if let Some(v) = map.get("initial_delay_ms") {
            p.initial_delay_ms = integer(v, u64::MAX).filter(|&n| n > 0).ok_or_else(|| {
                format!(
                    "initial_delay_ms must be a positive integer (milliseconds), got {}",
                    shown(v)
                )
            })?;
        }
        if let Some(v) = map.get("max_delay_ms") {
            p.max_delay_ms = integer(v, u64::MAX).ok_or_else(|| {
                format!(
                    "max_delay_ms must be a non-negative integer (milliseconds), got {}",
                    shown(v)
                )
            })?;
        }
        if let Some(v) = map.get("jitter_ratio") {
            p.jitter_ratio = v
                .as_f64()
                .filter(|j| j.is_finite() && (0.0..=1.0).contains(j))
                .ok_or_else(|| {
                    format!(
                        "jitter_ratio must be a number from 0 to 1, got {}",
                        shown(v)
                    )
                })?;
        }
        if let Some(v) = map.get("retryable_codes") {
            p.retryable_codes = retryable_codes(v)?;
        }
        if p.max_delay_ms < p.initial_delay_ms {
            return Err(format!(
                "max_delay_ms ({}) is below initial_delay_ms ({})",
                p.max_delay_ms, p.initial_delay_ms
            ));
        }
        Ok(p)
    }

    /// Whether this policy retries `code` at all. A code outside the default retryable set is never
    /// retried, in either mode, even if `retryable_codes` lists it.
    pub fn retries_code(&self, code: FailureCode) -> bool {
        codes::DEFAULT_RETRYABLE.contains(&code)
            && match self.mode {
                Mode::Normal => self.retryable_codes.contains(&code),
                Mode::Always => true,
            }
    }

    /// The policy's own delay before retry number `retry` (1-based), for a uniform sample `random`
    /// in [0, 1):
    /// `initial_delay_ms * 2^min(retry-1, 1024)`, capped at `max_delay_ms`, times
    /// `1 - jitter_ratio + 2 * jitter_ratio * random`, rounded to whole milliseconds.
    ///
    /// Computed in f64: 2^1024 is infinity, which the cap turns back into `max_delay_ms`.
    pub fn backoff_ms(&self, retry: u32, random: f64) -> u64 {
        let exponent = retry.saturating_sub(1).min(1024) as i32;
        let capped = if self.initial_delay_ms == 0 {
            // 0 * inf would be NaN.
            0.0
        } else {
            (self.initial_delay_ms as f64 * 2f64.powi(exponent)).min(self.max_delay_ms as f64)
        };
        // The host promises [0, 1); a bad sample must not produce a bad delay.
        let random = if random.is_finite() {
            random.clamp(0.0, 1.0)
        } else {
            0.5
        };
        let jitter = self.jitter_ratio.clamp(0.0, 1.0);
        let factor = 1.0 - jitter + 2.0 * jitter * random;
        // `as` saturates; the value is finite and non-negative here.
        (capped * factor).round() as u64
    }
}

fn retryable_codes(v: &Value) -> Result<Vec<FailureCode>, String> {
    let Some(items) = v.as_array() else {
        return Err(format!(
            "retryable_codes must be a list of failure codes, got {}",
            shown(v)
        ));
    };
    let mut out = Vec::with_capacity(items.len());
    for item in items {
        let Some(code) = item.as_str() else {
            return Err(format!(
                "retryable_codes must be a list of failure codes (strings), got the item {}",
                shown(item)
            ));
        };
        // A never-retried code is accepted (the host accepts every canonical code) but never acts:
        // `retries_code` leaves it out, and `on_failure` delegates it before reading the policy.
        let Some(code) = FailureCode::parse(code) else {
            let retryable: Vec<&str> = codes::DEFAULT_RETRYABLE
                .iter()
                .map(|c| c.as_str())
                .collect();
            return Err(format!(
                "retryable_codes: unknown failure code {} (retryable codes: {})",
                shown(item),
                retryable.join(", ")
            ));
        };
        out.push(code);
    }
    Ok(out)
}

/// A non-negative integer up to `max`; an integral float (`1000.0`) counts.
fn integer(v: &Value, max: u64) -> Option<u64> {
    if let Some(n) = v.as_u64() {
        return (n <= max).then_some(n);
    }
    let f = v.as_f64()?;
    // u64::MAX as f64 rounds up to 2^64, so `<` keeps the cast exact.
    (f.is_finite() && f >= 0.0 && f.fract() == 0.0 && f < u64::MAX as f64 && f <= max as f64)
        .then_some(f as u64)
}

/// A value as it appears in an error message: JSON, shortened.
fn shown(v: &Value) -> String {
    let s = v.to_string();
    if s.chars().count() > 60 {
        let short: String = s.chars().take(57).collect();
        format!("{short}...")
    } else {
        s
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "a list",
        Value::Object(_) => "an object",
    }
}

pub(crate) fn quoted_list(keys: &[&str]) -> String {
    keys.iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(json: &str) -> RetryPolicy {
        RetryPolicy::from_json(json).unwrap()
    }

    fn error(json: &str) -> String {
        RetryPolicy::from_json(json).unwrap_err()
    }

    #[test]
    fn empty_policy_takes_the_defaults() {
        for json in ["{}", "", "  \n"] {
            let p = policy(json);
            assert_eq!(p, RetryPolicy::default());
            assert_eq!(p.mode, Mode::Normal);
            assert_eq!(p.max_retries, 5);
            assert_eq!(p.initial_delay_ms, 1000);
            assert_eq!(p.max_delay_ms, 120_000);
            assert_eq!(p.jitter_ratio, 0.2);
            assert_eq!(
                p.retryable_codes,
                [
                    "RATE_LIMITED",
                    "OVERLOADED",
                    "SERVER_ERROR",
                    "NETWORK",
                    "STREAM_TRUNCATED",
                    "TIMEOUT",
                    "EMPTY_RESPONSE"
                ]
            );
        }
    }

    #[test]
    fn every_field_is_read() {
        let p = policy(
            r#"{"mode":"normal","max_retries":2,"initial_delay_ms":250,"max_delay_ms":4000,
                "jitter_ratio":0.5,"retryable_codes":["NETWORK","TIMEOUT"]}"#,
        );
        assert_eq!(
            p,
            RetryPolicy {
                mode: Mode::Normal,
                max_retries: 2,
                initial_delay_ms: 250,
                max_delay_ms: 4000,
                jitter_ratio: 0.5,
                retryable_codes: vec![codes::NETWORK, codes::TIMEOUT],
            }
        );
        let p = policy(r#"{"mode":"always","initial_delay_ms":1000.0,"jitter_ratio":0}"#);
        assert_eq!(p.max_retries, 5);
        assert_eq!(p.mode, Mode::Always);
        assert_eq!(p.initial_delay_ms, 1000);
        assert_eq!(p.jitter_ratio, 0.0);
        assert_eq!(policy(r#"{"jitter_ratio":1}"#).jitter_ratio, 1.0);
        assert_eq!(policy(r#"{"max_retries":0}"#).max_retries, 0);
        assert!(
            policy(r#"{"retryable_codes":[]}"#)
                .retryable_codes
                .is_empty()
        );
    }

    #[test]
    fn unknown_fields_are_named() {
        let e = error(r#"{"max_retry":3}"#);
        assert!(e.contains("unknown field `max_retry`"), "{e}");
        assert!(e.contains("max_retries"), "{e}");
        let e = error(r#"{"a":1,"b":2}"#);
        assert!(e.contains("unknown fields `a`, `b`"), "{e}");
    }

    #[test]
    fn bad_values_name_the_field() {
        let cases = [
            (r#"{"mode":"sometimes"}"#, "mode must be"),
            (r#"{"mode":1}"#, "mode must be"),
            (r#"{"max_retries":-1}"#, "max_retries must be"),
            (r#"{"max_retries":1.5}"#, "max_retries must be"),
            (r#"{"max_retries":"5"}"#, "max_retries must be"),
            (r#"{"max_retries":4294967296}"#, "max_retries must be"),
            (r#"{"initial_delay_ms":-5}"#, "initial_delay_ms must be"),
            (
                r#"{"initial_delay_ms":0}"#,
                "initial_delay_ms must be a positive integer",
            ),
            (
                r#"{"initial_delay_ms":5000,"max_delay_ms":1000}"#,
                "max_delay_ms (1000) is below initial_delay_ms (5000)",
            ),
            (
                r#"{"max_delay_ms":999}"#,
                "max_delay_ms (999) is below initial_delay_ms (1000)",
            ),
            (r#"{"initial_delay_ms":null}"#, "initial_delay_ms must be"),
            (r#"{"max_delay_ms":1e300}"#, "max_delay_ms must be"),
            (r#"{"max_delay_ms":true}"#, "max_delay_ms must be"),
            (r#"{"jitter_ratio":1.5}"#, "jitter_ratio must be"),
            (r#"{"jitter_ratio":-0.1}"#, "jitter_ratio must be"),
            (r#"{"jitter_ratio":"0.2"}"#, "jitter_ratio must be"),
            (
                r#"{"retryable_codes":"NETWORK"}"#,
                "retryable_codes must be",
            ),
            (r#"{"retryable_codes":[1]}"#, "retryable_codes must be"),
            (
                r#"{"retryable_codes":["RATE_LIMITTED"]}"#,
                "unknown failure code \"RATE_LIMITTED\"",
            ),
            (
                r#"{"retryable_codes":["rate_limited"]}"#,
                "unknown failure code",
            ),
            // Always mode still checks the normal-mode fields it ignores.
            (
                r#"{"mode":"always","max_retries":-3}"#,
                "max_retries must be",
            ),
            (
                r#"{"mode":"always","retryable_codes":["NOPE"]}"#,
                "unknown failure code",
            ),
            ("[]", "must be a JSON object, got a list"),
            ("5", "must be a JSON object, got a number"),
            ("{", "not valid JSON"),
        ];
        for (json, want) in cases {
            let e = error(json);
            assert!(e.contains(want), "{json}: {e:?} lacks {want:?}");
        }
    }

    #[test]
    fn the_hosts_serialized_policy_is_accepted() {
        // The host serializes every field, whatever the mode.
        let json = r#"{"mode":"always","max_retries":5,"initial_delay_ms":1000,"max_delay_ms":120000,"jitter_ratio":0.2,"retryable_codes":["RATE_LIMITED","OVERLOADED","SERVER_ERROR","NETWORK","STREAM_TRUNCATED","TIMEOUT","EMPTY_RESPONSE"]}"#;
        assert_eq!(
            policy(json),
            RetryPolicy {
                mode: Mode::Always,
                ..RetryPolicy::default()
            }
        );
        // Normal-mode fields in always mode are ignored: NETWORK is retried although the list omits it.
        let p = policy(r#"{"mode":"always","max_retries":0,"retryable_codes":["TIMEOUT"]}"#);
        assert!(p.retries_code(codes::NETWORK));
    }

    #[test]
    fn never_retried_codes_in_the_allowlist_are_accepted_but_never_retried() {
        for code in codes::NEVER_RETRIED {
            let p = policy(&format!(r#"{{"retryable_codes":["NETWORK","{code}"]}}"#));
            assert!(!p.retries_code(code), "{code}");
            assert!(p.retries_code(codes::NETWORK));
        }
    }

    #[test]
    fn which_codes_each_mode_retries() {
        let normal = policy(r#"{"retryable_codes":["NETWORK"]}"#);
        assert!(normal.retries_code(codes::NETWORK));
        assert!(!normal.retries_code(codes::RATE_LIMITED));
        let always = policy(r#"{"mode":"always"}"#);
        for code in codes::DEFAULT_RETRYABLE {
            assert!(always.retries_code(code));
        }
        for code in codes::NEVER_RETRIED {
            assert!(!always.retries_code(code));
            assert!(!RetryPolicy::default().retries_code(code));
        }
    }

    #[test]
    fn backoff_doubles_without_jitter_effect_at_half() {
        let p = RetryPolicy::default();
        let got: Vec<u64> = (1..=9).map(|r| p.backoff_ms(r, 0.5)).collect();
        assert_eq!(
            got,
            [
                1000, 2000, 4000, 8000, 16000, 32000, 64000, 120_000, 120_000
            ]
        );
    }

    #[test]
    fn backoff_is_capped() {
        let p = policy(r#"{"initial_delay_ms":300,"max_delay_ms":1000,"jitter_ratio":0}"#);
        assert_eq!(p.backoff_ms(1, 0.9), 300);
        assert_eq!(p.backoff_ms(2, 0.9), 600);
        assert_eq!(p.backoff_ms(3, 0.9), 1000);
        assert_eq!(p.backoff_ms(60, 0.9), 1000);
        // An initial delay above the cap (which the parser refuses) is capped too.
        let p = RetryPolicy {
            initial_delay_ms: 5000,
            max_delay_ms: 1000,
            ..RetryPolicy::default()
        };
        assert_eq!(p.backoff_ms(1, 0.5), 1000);
    }

    #[test]
    fn backoff_survives_two_to_the_1024() {
        let p = RetryPolicy::default();
        // 2^1023 * 1000 is already infinite in f64; 2^1024 is infinite on its own.
        for retry in [64, 1024, 1025, 1026, 100_000, u32::MAX] {
            assert_eq!(p.backoff_ms(retry, 0.5), 120_000, "retry {retry}");
        }
        // The cap is the largest a delay gets, whatever the retry number (before jitter).
        let p = policy(&format!(
            r#"{{"initial_delay_ms":{},"max_delay_ms":{},"jitter_ratio":0}}"#,
            u64::MAX,
            u64::MAX
        ));
        assert_eq!(p.backoff_ms(u32::MAX, 0.5), u64::MAX);
        // initial 0 (which the parser refuses): 0 * inf would be NaN; the delay stays 0.
        let p = RetryPolicy {
            initial_delay_ms: 0,
            ..RetryPolicy::default()
        };
        assert_eq!(p.backoff_ms(1025, 0.5), 0);
        assert_eq!(p.backoff_ms(1, 0.5), 0);
        // retry 0 is treated as the first.
        assert_eq!(RetryPolicy::default().backoff_ms(0, 0.5), 1000);
    }

    #[test]
    fn jitter_bounds() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff_ms(1, 0.0), 800);
        assert_eq!(p.backoff_ms(1, 1.0 - f64::EPSILON), 1200);
        assert_eq!(p.backoff_ms(4, 0.0), 6400);
        assert_eq!(p.backoff_ms(4, 1.0 - f64::EPSILON), 9600);
        assert_eq!(p.backoff_ms(20, 0.0), 96_000);
        assert_eq!(p.backoff_ms(20, 1.0 - f64::EPSILON), 144_000);
        assert_eq!(p.backoff_ms(1, 0.25), 900);
        let full = policy(r#"{"jitter_ratio":1}"#);
        assert_eq!(full.backoff_ms(2, 0.0), 0);
        assert_eq!(full.backoff_ms(2, 1.0 - f64::EPSILON), 4000);
        let none = policy(r#"{"jitter_ratio":0}"#);
        assert_eq!(none.backoff_ms(2, 0.0), 2000);
        assert_eq!(none.backoff_ms(2, 0.999), 2000);
        // Rounded to whole milliseconds.
        let odd = policy(r#"{"initial_delay_ms":3,"jitter_ratio":0.1}"#);
        assert_eq!(odd.backoff_ms(1, 0.0), 3); // 2.7
        assert_eq!(odd.backoff_ms(1, 0.99), 3); // 3.29...
    }

    #[test]
    fn a_bad_random_sample_does_not_make_a_bad_delay() {
        let p = RetryPolicy::default();
        assert_eq!(p.backoff_ms(1, f64::NAN), 1000);
        assert_eq!(p.backoff_ms(1, f64::INFINITY), 1000);
        assert_eq!(p.backoff_ms(1, -3.0), 800);
        assert_eq!(p.backoff_ms(1, 7.0), 1200);
    }
}
