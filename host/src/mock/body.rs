//! What a step answers, as pieces of body bytes each sent after a delay: a raw body is one piece,
//! a stream one piece per event, comment or line. Pieces are generated as they go out, so a step
//! that repeats an event 50,000 times costs the memory of one.

use super::echo::Echo;
use super::render::{DONE, RenderCtx, Shape, SseEvent, sse_comment_bytes};
use super::script::{LineSpec, SseEventSpec, Step};
use serde_json::Value;

/// Bytes to send after a pause.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub delay_ms: u64,
    pub bytes: Vec<u8>,
}

pub type Pieces<'a> = Box<dyn Iterator<Item = Piece> + Send + 'a>;

/// What the body is, for the framing headers the server adds.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// `body` / `body_base64` / no body: one piece, with a known length.
    Raw { len: usize },
    /// `events` / `completion`: `text/event-stream`.
    Sse,
    /// `lines`: `application/x-ndjson`.
    Ndjson,
}

pub struct Body<'a> {
    pub kind: Kind,
    pub pieces: Pieces<'a>,
}

/// Why a step cannot answer this request; sent as the mock's own JSON error.
pub struct PlanError {
    pub status: u16,
    pub kind: &'static str,
    pub message: String,
}

/// The body of `step` answering a request for `path`. Everything that could refuse the request
/// is decided here, before the head goes out.
pub fn plan<'a>(step: &'a Step, ctx: &'a RenderCtx, path: &str) -> Result<Body<'a>, PlanError> {
    if let Some(events) = &step.events {
        let done = step.done.unwrap_or(false).then(done_piece);
        let pieces = events
            .iter()
            .flat_map(|e| event_entry(e, &ctx.echo))
            .chain(done);
        return Ok(Body {
            kind: Kind::Sse,
            pieces: Box::new(pieces),
        });
    }
    if let Some(lines) = &step.lines {
        let pieces = lines.iter().flat_map(|l| line_entry(l, &ctx.echo));
        return Ok(Body {
            kind: Kind::Ndjson,
            pieces: Box::new(pieces),
        });
    }
    if let Some(c) = &step.completion {
        let index = ctx.step;
        let shape = Shape::for_path(path).ok_or_else(|| PlanError {
            status: 404,
            kind: "mock_no_shape",
            message: format!(
                "mock provider: steps[{index}] is a completion, but the request path {path} has no completion shape; the mock renders completions for {}",
                Shape::SUPPORTED
            ),
        })?;
        shape.check_query(path).map_err(|msg| PlanError {
            status: 400,
            kind: "mock_bad_request",
            message: format!("mock provider: steps[{index}]: {msg}"),
        })?;
        let (events, done) = shape.render(c, step.done, ctx).map_err(|msg| PlanError {
            status: 500,
            kind: "mock_script_error",
            message: format!("mock provider: steps[{index}]: {msg}"),
        })?;
        let chunks = events.map(|e| Piece {
            delay_ms: e.delay_ms,
            bytes: e.to_bytes(),
        });
        let keepalive = c
            .keepalive
            .as_ref()
            .map(|k| (k.after_chunks, event_entry(&k.entry(), &ctx.echo)));
        let pieces = match keepalive {
            Some((after, keepalive)) => Box::new(Splice::new(chunks, after, keepalive)) as Pieces,
            None => Box::new(chunks),
        };
        return Ok(Body {
            kind: Kind::Sse,
            pieces: Box::new(pieces.chain(done.then(done_piece))),
        });
    }
    let bytes = match &step.body {
        Some(text) => ctx.echo.fill(text).into_owned().into_bytes(),
        None => step.raw_body().unwrap_or_default(),
    };
    Ok(Body {
        kind: Kind::Raw { len: bytes.len() },
        pieces: Box::new(std::iter::once(Piece { delay_ms: 0, bytes })),
    })
}

fn done_piece() -> Piece {
    Piece {
        delay_ms: 0,
        bytes: DONE.to_vec(),
    }
}

/// The entry's bytes, rendered once, `repeat` times.
fn repeated(bytes: Vec<u8>, delay_ms: u64, repeat: Option<u64>) -> impl Iterator<Item = Piece> {
    (0..repeat.unwrap_or(1)).map(move |_| Piece {
        delay_ms,
        bytes: bytes.clone(),
    })
}

/// An `events` entry: an event, or a comment when it has `sse_comment`.
pub fn event_entry(spec: &SseEventSpec, echo: &Echo) -> impl Iterator<Item = Piece> + use<> {
    let bytes = match &spec.sse_comment {
        Some(text) => sse_comment_bytes(text),
        None => SseEvent::from_spec(spec, echo).to_bytes(),
    };
    repeated(bytes, spec.delay_ms.unwrap_or(0), spec.repeat)
}

/// A `lines` entry: its data on one line, then `\n`.
fn line_entry(spec: &LineSpec, echo: &Echo) -> impl Iterator<Item = Piece> + use<> {
    let mut bytes = match &spec.data {
        Value::String(s) => echo.fill(s).into_owned(),
        other => echo.fill_json(other).to_string(),
    }
    .into_bytes();
    bytes.push(b'\n');
    repeated(bytes, spec.delay_ms.unwrap_or(0), spec.repeat)
}

/// The chunks, with the keepalives inserted after the first `before` of them (or after the last,
/// if there are fewer).
struct Splice<C, K> {
    chunks: C,
    before: u64,
    keepalive: Option<K>,
    chunks_done: bool,
}

impl<C, K> Splice<C, K> {
    fn new(chunks: C, before: u64, keepalive: K) -> Self {
        Splice {
            chunks,
            before,
            keepalive: Some(keepalive),
            chunks_done: false,
        }
    }
}

impl<C: Iterator<Item = Piece>, K: Iterator<Item = Piece>> Iterator for Splice<C, K> {
    type Item = Piece;
    fn next(&mut self) -> Option<Piece> {
        if (self.before == 0 || self.chunks_done)
            && let Some(keepalive) = &mut self.keepalive
        {
            match keepalive.next() {
                Some(p) => return Some(p),
                None => self.keepalive = None,
            }
        }
        if self.chunks_done {
            return None;
        }
        match self.chunks.next() {
            Some(p) => {
                self.before = self.before.saturating_sub(1);
                Some(p)
            }
            None => {
                self.chunks_done = true;
                self.next()
            }
        }
    }
}
