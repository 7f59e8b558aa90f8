//! Server-Sent-Events framing (the WHATWG `text/event-stream` rules), fed by arbitrary network
//! reads: a read may end anywhere, inside a line, a UTF-8 character or a CRLF pair.
//!
//! Lines are cut on bytes (the line ends are ASCII, so a multi-byte character is never split by a
//! cut) and only complete lines are decoded, so split characters come out whole.

/// One dispatched event.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SseEvent {
    /// The `event:` field, if the event had one (the spec's default type is "message").
    pub event: Option<String>,
    /// The `data:` lines joined with `\n`.
    pub data: String,
    /// The last `id:` seen in the stream, if any.
    pub id: Option<String>,
}

#[derive(Debug, Default)]
pub struct SseParser {
    /// Bytes of the current, unfinished line.
    line: Vec<u8>,
    /// The last line ended with CR: a LF at the start of the next read belongs to it.
    after_cr: bool,
    /// Still at the start of the stream, where a UTF-8 BOM is skipped.
    at_start: bool,
    event: Option<String>,
    data: String,
    has_data: bool,
    last_id: Option<String>,
    /// Whether any line was SSE framing (a known field or a comment): tells a stream from a plain
    /// JSON or garbage body.
    saw_framing: bool,
}

impl SseParser {
    pub fn new() -> Self {
        SseParser {
            at_start: true,
            ..SseParser::default()
        }
    }

    /// Whether anything so far was recognisably SSE (a `data`/`event`/`id`/`retry` field or a
    /// `:` comment line).
    pub fn saw_framing(&self) -> bool {
        self.saw_framing
    }

    /// Parse one network read; returns the events it completed.
    pub fn feed(&mut self, bytes: &[u8]) -> Vec<SseEvent> {
        let mut events = Vec::new();
        let mut rest = bytes;
        if self.after_cr && !rest.is_empty() {
            self.after_cr = false;
            if rest[0] == b'\n' {
                rest = &rest[1..];
            }
        }
        while let Some(i) = crate::scan::find2(rest, b'\n', b'\r') {
            if self.line.is_empty() {
                // A whole line inside this read (the common case): read where it lies, uncopied.
                self.take_line(&rest[..i], &mut events);
            } else {
                self.line.extend_from_slice(&rest[..i]);
                self.end_line(&mut events);
            }
            let cr = rest[i] == b'\r';
            rest = &rest[i + 1..];
            if cr {
                match rest.first() {
                    Some(b'\n') => rest = &rest[1..],
                    Some(_) => {}
                    // A LF at the start of the next read belongs to this CR.
                    None => self.after_cr = true,
                }
            }
        }
        self.line.extend_from_slice(rest);
        events
    }

    /// The body is complete. A last line without a line end is still a line, and a last event
    /// without the closing blank line is still dispatched: servers that omit the final blank line
    /// (or the newline after `data: [DONE]`) are common, and a cut-off JSON payload will fail to
    /// parse downstream anyway.
    pub fn finish(&mut self) -> Vec<SseEvent> {
        let mut events = Vec::new();
        if !self.line.is_empty() {
            self.end_line(&mut events);
        }
        self.dispatch(&mut events);
        events
    }

    fn end_line(&mut self, events: &mut Vec<SseEvent>) {
        // The line buffer is handed back afterwards, so its allocation serves every line.
        let mut raw = std::mem::take(&mut self.line);
        self.take_line(&raw, events);
        raw.clear();
        self.line = raw;
    }

    fn take_line(&mut self, raw: &[u8], events: &mut Vec<SseEvent>) {
        let mut line: &[u8] = raw;
        if self.at_start {
            self.at_start = false;
            line = line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line);
        }
        if line.is_empty() {
            self.dispatch(events);
            return;
        }
        if line[0] == b':' {
            self.saw_framing = true; // a comment, such as a keep-alive
            return;
        }
        let (name, value) = match line.iter().position(|&b| b == b':') {
            Some(i) => {
                let value = &line[i + 1..];
                (&line[..i], value.strip_prefix(b" ").unwrap_or(value))
            }
            None => (line, &[][..]),
        };
        // Valid UTF-8 (nearly always) is checked a word at a time; only invalid text takes the
        // byte-by-byte replacing path.
        let value = match std::str::from_utf8(value) {
            Ok(text) => std::borrow::Cow::Borrowed(text),
            Err(_) => String::from_utf8_lossy(value),
        };
        match name {
            b"data" => {
                self.saw_framing = true;
                if self.has_data {
                    self.data.push('\n');
                }
                self.data.push_str(&value);
                self.has_data = true;
            }
            b"event" => {
                self.saw_framing = true;
                self.event = Some(value.into_owned());
            }
            b"id" => {
                self.saw_framing = true;
                if !value.contains('\0') {
                    self.last_id = Some(value.into_owned());
                }
            }
            b"retry" => self.saw_framing = true,
            _ => {} // unknown fields are ignored, per the spec
        }
    }

    /// A blank line ends an event; one without data is dropped, per the spec.
    fn dispatch(&mut self, events: &mut Vec<SseEvent>) {
        let event = self.event.take();
        if self.has_data {
            self.has_data = false;
            events.push(SseEvent {
                event,
                data: std::mem::take(&mut self.data),
                id: self.last_id.clone(),
            });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse_in_pieces(body: &[u8], piece: usize) -> Vec<SseEvent> {
        let mut p = SseParser::new();
        let mut out = Vec::new();
        for chunk in body.chunks(piece.max(1)) {
            out.extend(p.feed(chunk));
        }
        out.extend(p.finish());
        out
    }

    fn ev(event: Option<&str>, data: &str) -> SseEvent {
        SseEvent {
            event: event.map(str::to_string),
            data: data.to_string(),
            id: None,
        }
    }

    #[test]
    fn line_ends_lf_crlf_cr_in_any_split() {
        let bodies: [&[u8]; 3] = [
            b"event: a\ndata: one\n\ndata: two\n\n",
            b"event: a\r\ndata: one\r\n\r\ndata: two\r\n\r\n",
            b"event: a\rdata: one\r\rdata: two\r\r",
        ];
        for body in bodies {
            for piece in 1..=body.len() {
                assert_eq!(
                    parse_in_pieces(body, piece),
                    vec![ev(Some("a"), "one"), ev(None, "two")],
                    "{:?} in pieces of {piece}",
                    String::from_utf8_lossy(body)
                );
            }
        }
    }

    #[test]
    fn crlf_split_between_reads_is_one_line_end() {
        let mut p = SseParser::new();
        assert!(p.feed(b"data: x\r").is_empty());
        // This LF completes the CRLF: it is not a blank line, so nothing is dispatched yet.
        assert!(p.feed(b"\n").is_empty());
        assert_eq!(p.feed(b"\r\n"), vec![ev(None, "x")]);
        assert!(p.finish().is_empty());
    }

    #[test]
    fn multi_line_data_comments_and_field_forms() {
        let body = b": keep-alive\ndata: first\ndata:second\ndata\ndata:  two spaces\nretry: 10\nfoo: ignored\n\n";
        assert_eq!(
            parse_in_pieces(body, 3),
            vec![ev(None, "first\nsecond\n\n two spaces")]
        );
    }

    #[test]
    fn utf8_split_inside_a_character_comes_out_whole() {
        let body = "data: h\u{e9}llo \u{1F600}\n\n".as_bytes();
        for piece in 1..body.len() {
            assert_eq!(
                parse_in_pieces(body, piece),
                vec![ev(None, "h\u{e9}llo \u{1F600}")]
            );
        }
    }

    #[test]
    fn invalid_utf8_is_replaced_whole_lines_and_lines_across_reads_alike() {
        let body = b"data: ok \xff\xfe end\n\ndata: fine\n\n";
        for piece in 1..=body.len() {
            assert_eq!(
                parse_in_pieces(body, piece),
                vec![ev(None, "ok \u{FFFD}\u{FFFD} end"), ev(None, "fine")],
                "in pieces of {piece}"
            );
        }
    }

    #[test]
    fn event_without_data_is_dropped_and_event_name_resets() {
        let body = b"event: ping\n\ndata: x\n\n";
        assert_eq!(parse_in_pieces(body, 2), vec![ev(None, "x")]);
    }

    #[test]
    fn bom_ids_and_unterminated_last_event() {
        let body = b"\xEF\xBB\xBFid: 7\ndata: a\n\ndata: [DONE]";
        let events = parse_in_pieces(body, 1);
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].id.as_deref(), Some("7"));
        assert_eq!(events[1].data, "[DONE]");
    }

    #[test]
    fn plain_json_is_not_framing() {
        let mut p = SseParser::new();
        assert!(p.feed(b"{\"choices\": []}\n").is_empty());
        assert!(p.finish().is_empty());
        assert!(!p.saw_framing());
        let mut p = SseParser::new();
        p.feed(b": hello\n");
        assert!(p.saw_framing());
    }
}
