//! The provider's retry hint, from the response headers only (never from message text: a delay in
//! prose is a guess about someone else's wording, while the headers are the protocol).

use std::time::UNIX_EPOCH;

use crate::types::ResponseHead;

/// `retry-after-ms` (float milliseconds; the official Anthropic and OpenAI SDKs read it) first, else
/// `retry-after` (seconds or HTTP date).
/// Reported as sent, even 0 or very large: capping is the retry policy's job, not the adapter's.
pub fn retry_after_ms(head: &ResponseHead) -> Option<u64> {
    head.header("retry-after-ms")
        .and_then(parse_millis)
        .or_else(|| {
            head.header("retry-after")
                .and_then(|v| parse_retry_after(v, head.received_at_ms))
        })
}

/// A `retry-after-ms` value: a non-negative decimal number of milliseconds.
pub fn parse_millis(value: &str) -> Option<u64> {
    non_negative_ms(parse_number(value)?)
}

/// A `retry-after` value: delay-seconds (integer, or a float as some servers send), or an HTTP date,
/// turned into a delay against `now_ms`, the host's clock when the head arrived.
pub fn parse_retry_after(value: &str, now_ms: u64) -> Option<u64> {
    let value = value.trim();
    if let Some(seconds) = parse_number(value) {
        // A number of seconds past 10^9 (31 years) is no delay but a Unix time, in seconds or,
        // past 10^12, in milliseconds (Dub sends `retry-after: 1735776060000`, its window's
        // reset): read as the moment it names, as an HTTP date is, and with no clock, no hint.
        if seconds >= 1e9 {
            let at_ms = if seconds >= 1e12 {
                seconds
            } else {
                seconds * 1000.0
            };
            return (now_ms > 0)
                .then(|| delay_until(at_ms as u64, now_ms))
                .flatten();
        }
        // A smaller number is never re-read as a date, even a negative (invalid) one.
        return non_negative_ms(seconds * 1000.0);
    }
    let date = httpdate::parse_http_date(value).ok()?;
    let date_ms = u64::try_from(date.duration_since(UNIX_EPOCH).ok()?.as_millis()).ok()?;
    delay_until(date_ms, now_ms)
}

/// The delay from `now_ms`, the host's clock, until `date_ms`.
fn delay_until(date_ms: u64, now_ms: u64) -> Option<u64> {
    match date_ms.checked_sub(now_ms) {
        Some(delay) => Some(delay),
        // An HTTP date has one-second resolution: a date within the current second means "now".
        None if now_ms - date_ms < 1000 => Some(0),
        // A date well in the past is a broken hint, not an instruction to retry at once.
        None => None,
    }
}

/// Only plain decimal numbers: Rust's float parser also takes `inf`, `NaN` and `infinity`.
fn parse_number(value: &str) -> Option<f64> {
    let value = value.trim();
    let plain = !value.is_empty()
        && value
            .chars()
            .all(|c| c.is_ascii_digit() || matches!(c, '.' | '-' | '+' | 'e' | 'E'));
    if !plain {
        return None;
    }
    value.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// Round to whole milliseconds (`0.1 * 1000` is 100.00000000000001). Negative (but not `-0`) or
/// beyond u64 is garbage, not a hint.
fn non_negative_ms(ms: f64) -> Option<u64> {
    if ms < 0.0 {
        return None;
    }
    let ms = ms.round();
    // 2^64: beyond it the value is not a delay anyone meant.
    (ms < 18_446_744_073_709_551_616.0).then_some(ms as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn head(headers: &[(&str, &str)], now_ms: u64) -> ResponseHead {
        ResponseHead {
            status: 429,
            headers: headers
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            received_at_ms: now_ms,
        }
    }

    #[test]
    fn seconds_integer_and_float() {
        assert_eq!(parse_retry_after("20", 0), Some(20_000));
        assert_eq!(parse_retry_after(" 0 ", 0), Some(0));
        assert_eq!(parse_retry_after("121", 0), Some(121_000));
        assert_eq!(parse_retry_after("1.5", 0), Some(1_500));
        assert_eq!(parse_retry_after("0.1", 0), Some(100));
        assert_eq!(parse_retry_after("11.054", 0), Some(11_054));
        assert_eq!(parse_retry_after("86400", 0), Some(86_400_000));
    }

    #[test]
    fn a_unix_time_is_the_moment_it_names_not_a_delay() {
        let now_ms = 1_735_776_000_000;
        // In milliseconds (Dub's window reset) and in seconds: the delay until then.
        assert_eq!(parse_retry_after("1735776060000", now_ms), Some(60_000));
        assert_eq!(parse_retry_after("1735776030", now_ms), Some(30_000));
        // Long past is a broken hint; without a clock, no hint at all.
        assert_eq!(parse_retry_after("1600000000", now_ms), None);
        assert_eq!(parse_retry_after("1735776060000", 0), None);
        // A long delay under 10^9 seconds is still a delay.
        assert_eq!(
            parse_retry_after("999999999", now_ms),
            Some(999_999_999_000)
        );
    }

    #[test]
    fn milliseconds_header_wins_and_accepts_floats() {
        assert_eq!(
            retry_after_ms(&head(&[("retry-after-ms", "120000")], 0)),
            Some(120_000)
        );
        assert_eq!(
            retry_after_ms(&head(&[("retry-after-ms", "174.4")], 0)),
            Some(174)
        );
        assert_eq!(
            retry_after_ms(&head(
                &[("retry-after", "20"), ("retry-after-ms", "1500")],
                0
            )),
            Some(1_500)
        );
        // A broken ms header falls back to the seconds one, as the official SDKs do.
        assert_eq!(
            retry_after_ms(&head(
                &[("retry-after-ms", "soon"), ("retry-after", "3")],
                0
            )),
            Some(3_000)
        );
        assert_eq!(
            retry_after_ms(&head(&[("Retry-After", "2")], 0)),
            Some(2_000)
        );
        assert_eq!(retry_after_ms(&head(&[], 0)), None);
    }

    #[test]
    fn http_date_against_the_host_clock() {
        // 1696004797 = Fri, 29 Sep 2023 16:26:37 GMT (openai-python's mocked clock).
        let now = 1_696_004_797_000;
        assert_eq!(
            parse_retry_after("Fri, 29 Sep 2023 16:26:57 GMT", now),
            Some(20_000)
        );
        assert_eq!(
            parse_retry_after("Friday, 29-Sep-23 16:26:57 GMT", now),
            Some(20_000)
        );
        assert_eq!(
            parse_retry_after("Fri Sep 29 16:26:57 2023", now),
            Some(20_000)
        );
        assert_eq!(
            parse_retry_after("Fri, 29 Sep 2023 16:26:37 GMT", now + 400),
            Some(0)
        );
        assert_eq!(
            parse_retry_after("Fri, 29 Sep 2023 16:26:27 GMT", now),
            None
        );
        assert_eq!(
            retry_after_ms(&head(
                &[("retry-after", "Fri, 29 Sep 2023 16:28:37 GMT")],
                now
            )),
            Some(120_000)
        );
    }

    #[test]
    fn garbage_and_negative_are_none() {
        for v in [
            "",
            " ",
            "-10",
            "-0.5",
            "-0.0001",
            "soon",
            "nan",
            "NaN",
            "inf",
            "-inf",
            "infinity",
            "1e400",
            "20s",
            "0x10",
            "Fri, 32 Sep 2023 99:00:00 GMT",
        ] {
            assert_eq!(
                parse_retry_after(v, 1_696_004_797_000),
                None,
                "retry-after {v:?}"
            );
            assert_eq!(parse_millis(v), None, "retry-after-ms {v:?}");
        }
        assert_eq!(parse_millis("-0"), Some(0));
        assert_eq!(parse_millis("1e3"), Some(1_000));
    }
}
