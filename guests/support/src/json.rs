//! A guard for the adapters' typed fast path.
//!
//! The decoders deserialize the common event shapes into small typed structs and fall back to a
//! `serde_json::Value` for everything else. A typed parse skips unknown fields with serde's
//! `IgnoredAny`, which is more lenient than building a `Value`: it does not check that a number
//! fits an `f64`, that a `\u` escape is not a lone surrogate, or how deep the nesting goes. An
//! event the `Value` parse would reject must stay rejected, so the typed path is only taken when
//! [`typed_parse_is_exact`] says none of those can occur. [`Str`] is the fast path's string: borrowed
//! from the event unless it had escapes.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{Deserializer, Visitor};

/// A JSON string, borrowed from the event unless it had escapes.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Cow<'de, str>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
                Ok(Cow::Borrowed(s))
            }
            fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s.to_string()))
            }
            fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
                Ok(Cow::Owned(s))
            }
        }
        d.deserialize_str(V).map(Str)
    }
}

impl Str<'_> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_string(self) -> String {
        self.0.into_owned()
    }
}

/// Deeper nesting than this goes to the `Value` parse (which stops at 128).
const MAX_DEPTH: usize = 64;
/// A number literal longer than this might not fit an `f64`: it goes to the `Value` parse.
const MAX_NUMBER_LEN: usize = 200;

/// Whether a typed parse of `json` accepts and rejects exactly what a `Value` parse does: false
/// (conservatively) when the text has a number with an exponent or a very long one, a surrogate
/// `\u` escape that is not a high-low pair, or deep nesting. A false only costs the slower path.
pub fn typed_parse_is_exact(json: &str) -> bool {
    let b = json.as_bytes();
    let mut i = 0;
    let mut depth = 0usize;
    while i < b.len() {
        match b[i] {
            b'"' => {
                i += 1;
                // Inside a string: only escapes matter.
                loop {
                    let Some(rel) = crate::scan::find2(&b[i..], b'"', b'\\') else {
                        return true; // unterminated: both parses reject it
                    };
                    i += rel;
                    if b[i] == b'"' {
                        i += 1;
                        break;
                    }
                    // A backslash escape.
                    if b.get(i + 1) == Some(&b'u') {
                        match hex4(b, i + 2) {
                            Some(0xD800..=0xDBFF) => {
                                let low = (b.get(i + 6) == Some(&b'\\')
                                    && b.get(i + 7) == Some(&b'u'))
                                .then(|| hex4(b, i + 8))
                                .flatten();
                                if !matches!(low, Some(0xDC00..=0xDFFF)) {
                                    return false;
                                }
                                i += 12;
                            }
                            Some(0xDC00..=0xDFFF) => return false,
                            _ => i += 6,
                        }
                    } else {
                        i += 2;
                    }
                }
            }
            b'{' | b'[' => {
                depth += 1;
                if depth > MAX_DEPTH {
                    return false;
                }
                i += 1;
            }
            b'}' | b']' => {
                depth = depth.saturating_sub(1);
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                while i < b.len() && matches!(b[i], b'-' | b'+' | b'.' | b'0'..=b'9' | b'e' | b'E')
                {
                    if matches!(b[i], b'e' | b'E') {
                        return false;
                    }
                    i += 1;
                }
                if i - start > MAX_NUMBER_LEN {
                    return false;
                }
            }
            _ => i += 1,
        }
    }
    true
}

fn hex4(b: &[u8], at: usize) -> Option<u16> {
    let digits = b.get(at..at + 4)?;
    let s = std::str::from_utf8(digits).ok()?;
    u16::from_str_radix(s, 16).ok()
}

#[cfg(test)]
mod tests {
    use super::typed_parse_is_exact as exact;

    #[test]
    fn ordinary_events_are_exact() {
        assert!(exact(
            r#"{"a":[1,2.5,-3,{"b":"x\n\"y\u00e9 \ud83d\ude00 1e999"}],"c":null}"#
        ));
        assert!(exact(r#"{"s":"\\ud800"}"#)); // an escaped backslash, then plain text
    }

    #[test]
    fn risky_events_are_not() {
        assert!(!exact(r#"{"n":1e400}"#));
        assert!(!exact(r#"{"n":1E2}"#));
        assert!(!exact(&format!(r#"{{"n":{}}}"#, "9".repeat(400))));
        assert!(!exact(r#"{"s":"\ud800"}"#));
        assert!(!exact(r#"{"s":"\ud800\u0041"}"#));
        assert!(!exact(r#"{"s":"\udc00"}"#));
        assert!(!exact(&format!("{}{}", "[".repeat(100), "]".repeat(100))));
    }
}
