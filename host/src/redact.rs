//! Keeping a provider's key out of everything the host hands on: the bytes a guest is given (error
//! bodies, response headers, stream reads) and the text it writes (failure messages, the log, the
//! terminal). Pure code; `transport` applies it at the one point where provider bytes enter the host.
//!
//! A provider may echo the key back ("Incorrect API key provided: sk-..."), and not always verbatim:
//! inside a JSON string, URL-encoded in an echoed URL, or base64-encoded in an echoed
//! `Authorization: Basic` header or a debug blob. So the key is searched in each of those forms; for
//! base64 at each of the three alignments the key can have inside a longer encoded string (only the
//! characters that depend on the key's bytes alone are searched for).
//!
//! A placeholder key ("k", "x", "none": common for local servers that want no key) is not a secret,
//! and treating it as one would turn every "k" of a conversation into "[redacted]": keys shorter than
//! [`MIN_SECRET_LEN`] bytes are not redacted, and the host warns once at start-up.

use aho_corasick::{AhoCorasick, MatchKind};
use base64::Engine as _;
use std::borrow::Cow;
use std::sync::Arc;

/// What replaces a key wherever it is found.
pub const REDACTED: &str = "[redacted]";

/// Keys shorter than this are placeholders, not secrets: real provider keys are 20 to 200 bytes.
pub const MIN_SECRET_LEN: usize = 8;

/// The forms of one key, ready to search for.
pub struct Redactor {
    forms: Vec<Vec<u8>>,
    searcher: AhoCorasick,
}

impl std::fmt::Debug for Redactor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the forms: they are the key.
        write!(f, "Redactor({} forms)", self.forms.len())
    }
}

impl Redactor {
    /// `None` for a key too short to be a secret (see [`MIN_SECRET_LEN`]).
    pub fn new(key: &str) -> Option<Arc<Redactor>> {
        if key.len() < MIN_SECRET_LEN {
            return None;
        }
        let forms = forms_of(key.as_bytes());
        let searcher = AhoCorasick::builder()
            .match_kind(MatchKind::LeftmostLongest)
            .build(&forms)
            .expect("a handful of short literal patterns always builds");
        Some(Arc::new(Redactor { forms, searcher }))
    }

    /// `bytes` with every form of the key replaced by [`REDACTED`].
    pub fn bytes<'a>(&self, bytes: &'a [u8]) -> Cow<'a, [u8]> {
        if self.searcher.find(bytes).is_none() {
            return Cow::Borrowed(bytes);
        }
        let replacements = vec![REDACTED.as_bytes(); self.forms.len()];
        Cow::Owned(self.searcher.replace_all_bytes(bytes, &replacements))
    }

    /// `text` with every form of the key replaced by [`REDACTED`].
    pub fn text<'a>(&self, text: &'a str) -> Cow<'a, str> {
        if self.searcher.find(text).is_none() {
            return Cow::Borrowed(text);
        }
        let replacements = vec![REDACTED; self.forms.len()];
        Cow::Owned(self.searcher.replace_all(text, &replacements))
    }

    /// The length of the longest tail of `bytes` that could be the start of a form of the key: what
    /// a stream must hold back until the next read shows whether the key follows.
    fn pending_tail(&self, bytes: &[u8]) -> usize {
        let longest = self.forms.iter().map(Vec::len).max().unwrap_or(0);
        let most = longest.saturating_sub(1).min(bytes.len());
        (1..=most)
            .rev()
            .find(|&n| {
                let tail = &bytes[bytes.len() - n..];
                self.forms
                    .iter()
                    .any(|f| f.len() > n && f.starts_with(tail))
            })
            .unwrap_or(0)
    }
}

/// Redacts a byte stream read by read: a form of the key split across two reads is caught by
/// holding back, between reads, the few bytes at the end of a read that could begin one.
pub struct StreamRedactor {
    redactor: Option<Arc<Redactor>>,
    held: Vec<u8>,
}

impl StreamRedactor {
    pub fn new(redactor: Option<Arc<Redactor>>) -> Self {
        StreamRedactor {
            redactor,
            held: Vec::new(),
        }
    }

    /// The bytes of `read` (after any held back from the last read) that are safe to pass on.
    pub fn push(&mut self, read: bytes::Bytes) -> bytes::Bytes {
        let Some(redactor) = &self.redactor else {
            return read;
        };
        let joined: Cow<[u8]> = if self.held.is_empty() {
            Cow::Borrowed(&read[..])
        } else {
            let mut joined = std::mem::take(&mut self.held);
            joined.extend_from_slice(&read);
            Cow::Owned(joined)
        };
        let clean = redactor.bytes(&joined);
        // What is held is still raw provider bytes: replacements never need holding.
        let hold = redactor.pending_tail(&clean);
        let (out, tail) = clean.split_at(clean.len() - hold);
        self.held = tail.to_vec();
        bytes::Bytes::copy_from_slice(out)
    }

    /// At the end of the stream: what was held back (it turned out not to begin the key).
    pub fn finish(&mut self) -> bytes::Bytes {
        bytes::Bytes::from(std::mem::take(&mut self.held))
    }
}

/// The key as it may appear in an echo: verbatim, URL-encoded (percent and form encoding), escaped
/// in a JSON string, and base64 (standard and URL-safe alphabets) at each alignment.
fn forms_of(key: &[u8]) -> Vec<Vec<u8>> {
    let mut forms: Vec<Vec<u8>> = vec![key.to_vec()];
    let percent =
        percent_encoding::percent_encode(key, percent_encoding::NON_ALPHANUMERIC).to_string();
    forms.push(percent.clone().into_bytes());
    // Unreserved characters (`-._~`) are usually left as they are; spaces may be `+`.
    let unreserved = percent
        .replace("%2D", "-")
        .replace("%2E", ".")
        .replace("%5F", "_")
        .replace("%7E", "~");
    forms.push(unreserved.replace("%20", "+").into_bytes());
    forms.push(unreserved.into_bytes());
    let json = serde_json::to_string(&String::from_utf8_lossy(key)).expect("a string serializes");
    forms.push(json.as_bytes()[1..json.len() - 1].to_vec());
    // Some encoders also escape `/` as `\/`.
    forms.push(json[1..json.len() - 1].replace('/', "\\/").into_bytes());
    for engine in [
        &base64::engine::general_purpose::STANDARD_NO_PAD,
        &base64::engine::general_purpose::URL_SAFE_NO_PAD,
    ] {
        for offset in 0..3usize {
            let mut shifted = vec![0u8; offset];
            shifted.extend_from_slice(key);
            let encoded = engine.encode(&shifted);
            // Characters that encode only the key's bits: from the first whole sextet after the
            // `offset` bytes of prefix to the last whole sextet inside the key.
            let first = (8 * offset).div_ceil(6);
            let end = (8 * (offset + key.len())) / 6;
            if end > first {
                forms.push(encoded.as_bytes()[first..end].to_vec());
            }
        }
    }
    forms.sort();
    forms.dedup();
    forms
}

#[cfg(test)]
mod tests {
    use super::*;
    use base64::engine::general_purpose::{STANDARD, URL_SAFE};

    const KEY: &str = "sk-proj-Abc123/+=xyz_T0p.Secret~9";

    fn redactor() -> Arc<Redactor> {
        Redactor::new(KEY).unwrap()
    }

    #[test]
    fn every_form_of_the_key_is_found() {
        let r = redactor();
        let echoes = [
            format!("Incorrect API key provided: {KEY}. You can find your key at ..."),
            format!(
                "{{\"error\":{{\"message\":{}}}}}",
                serde_json::to_string(&format!("bad key {KEY}")).unwrap()
            ),
            format!(
                "url=https://x/?key={}",
                percent_encoding::percent_encode(
                    KEY.as_bytes(),
                    percent_encoding::NON_ALPHANUMERIC
                )
            ),
            KEY.replace('/', "\\/"),
        ];
        for echo in &echoes {
            let out = r.text(echo);
            assert!(out.contains(REDACTED), "{echo}");
            assert!(!out.contains("Secret"), "{out}");
        }
    }

    #[test]
    fn base64_is_found_at_every_alignment_and_in_both_alphabets() {
        let r = redactor();
        for prefix in ["", "a", "ab", "Bearer ", "user:", "xy:"] {
            for engine in [&STANDARD, &URL_SAFE] {
                let blob = engine.encode(format!("{prefix}{KEY}-and-more"));
                let out = r.text(&blob);
                assert!(out.contains(REDACTED), "prefix {prefix:?}: {blob} -> {out}");
                // What is left cannot be decoded back into the key.
                assert!(!out.contains(&engine.encode(KEY)[4..20]), "{out}");
            }
        }
    }

    #[test]
    fn text_without_the_key_is_untouched_and_borrowed() {
        let r = redactor();
        let text = "sk-proj-Abc12 is not the key, and neither is Secret~9";
        assert!(matches!(r.text(text), Cow::Borrowed(_)));
    }

    #[test]
    fn placeholder_keys_are_not_secrets() {
        for key in ["", "k", "x", "none", "sk-1234"] {
            assert!(Redactor::new(key).is_none(), "{key:?}");
        }
        assert!(Redactor::new("sk-12345").is_some());
    }

    /// A key split across reads at every position, and reads of one byte, never come out whole.
    #[test]
    fn a_key_split_across_reads_is_caught_at_every_split() {
        let body = format!("data: {{\"echo\":\"Bearer {KEY}\"}}\n\ndata: [DONE]\n\n");
        let raw = body.as_bytes();
        for split in 0..=raw.len() {
            let mut s = StreamRedactor::new(Some(redactor()));
            let mut out = Vec::new();
            out.extend_from_slice(&s.push(bytes::Bytes::copy_from_slice(&raw[..split])));
            out.extend_from_slice(&s.push(bytes::Bytes::copy_from_slice(&raw[split..])));
            out.extend_from_slice(&s.finish());
            let out = String::from_utf8(out).unwrap();
            assert_eq!(out, body.replace(KEY, REDACTED), "split at {split}");
        }
        let mut s = StreamRedactor::new(Some(redactor()));
        let mut out = Vec::new();
        for b in raw {
            out.extend_from_slice(&s.push(bytes::Bytes::copy_from_slice(&[*b])));
        }
        out.extend_from_slice(&s.finish());
        assert_eq!(String::from_utf8(out).unwrap(), body.replace(KEY, REDACTED));
    }

    /// Nothing is held back when no key could be starting: a stream is not delayed by redaction.
    #[test]
    fn reads_that_cannot_begin_the_key_pass_whole() {
        let mut s = StreamRedactor::new(Some(redactor()));
        let read = bytes::Bytes::from_static(
            b"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n",
        );
        assert_eq!(s.push(read.clone()), read);
        assert!(s.finish().is_empty());
    }

    #[test]
    fn without_a_secret_reads_pass_through() {
        let mut s = StreamRedactor::new(None);
        let read = bytes::Bytes::from_static(b"k k k");
        assert_eq!(s.push(read.clone()), read);
    }
}
