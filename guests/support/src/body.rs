//! A 2xx response body as an adapter's decoder receives it: each network read goes to the SSE
//! parser, and, until the body shows SSE framing, a copy is kept (capped) so that a server that
//! answered with a plain JSON body instead of a stream can still be decoded at the end.

use crate::sse::{SseEvent, SseParser};

/// A plain (non-SSE) body larger than this is not kept: it is reported, not parsed.
pub const MAX_PLAIN_BODY: usize = 32 * 1024 * 1024;

#[derive(Debug, Default)]
pub struct BodyInput {
    sse: SseParser,
    raw: Vec<u8>,
    raw_too_large: bool,
}

impl BodyInput {
    pub fn new() -> Self {
        Self::default()
    }

    /// One network read: the SSE events it completes.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        if !self.sse.saw_framing() && !self.raw_too_large {
            if self.raw.len() + bytes.len() > MAX_PLAIN_BODY {
                self.raw_too_large = true;
            } else {
                self.raw.extend_from_slice(bytes);
            }
        }
        let events = self.sse.feed(bytes);
        if self.sse.saw_framing() && !self.raw.is_empty() {
            self.raw = Vec::new(); // a stream: the copy is not needed
        }
        events
    }

    /// The body is complete: the events still pending.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        self.sse.finish()
    }

    /// Whether the body looked like SSE at all.
    pub fn saw_framing(&self) -> bool {
        self.sse.saw_framing()
    }

    /// Whether a plain body outgrew [`MAX_PLAIN_BODY`] (and was not kept).
    pub fn raw_too_large(&self) -> bool {
        self.raw_too_large
    }

    /// The plain body kept so far (empty once SSE framing was seen).
    pub fn take_raw(&mut self) -> Vec<u8> {
        std::mem::take(&mut self.raw)
    }

    /// Drops the kept copy (the decoder finished).
    pub fn discard_raw(&mut self) {
        self.raw = Vec::new();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stream_keeps_no_copy_and_a_plain_body_is_kept_whole() {
        let mut s = BodyInput::new();
        assert!(s.feed(b"data: {\"a\":1}\n\n").len() == 1);
        assert!(s.saw_framing());
        assert!(s.take_raw().is_empty());

        let mut p = BodyInput::new();
        assert!(p.feed(b"{\"choices\":").is_empty());
        assert!(p.feed(b"[]}").is_empty());
        assert!(p.finish().is_empty() || !p.saw_framing());
        assert_eq!(p.take_raw(), b"{\"choices\":[]}");
        assert!(!p.raw_too_large());
    }
}
