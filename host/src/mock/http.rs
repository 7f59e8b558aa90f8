//! Just enough HTTP/1.1 for the mock: one request per connection, `Connection: close`.
//! Hand-written rather than hyper because the faults need byte-level control of the socket:
//! stop after N body bytes, stall, or close with a RST instead of a FIN.

use super::script::{Drip, StallAfterBytes};
use std::io;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// Larger heads are refused with 431: a real client never sends one, a broken one might loop.
pub const MAX_HEAD_BYTES: usize = 64 * 1024;
/// Larger bodies are refused with 413 (a request with a huge conversation is still far below).
pub const MAX_BODY_BYTES: usize = 32 * 1024 * 1024;

pub struct Request {
    pub method: String,
    pub path: String,
    /// Names lower-cased, values trimmed, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

pub enum ReadError {
    /// The client went away before sending a whole request: nothing to answer.
    Closed,
    /// Answer with this status and message, without taking a step.
    Bad(u16, String),
}

impl From<io::Error> for ReadError {
    fn from(_: io::Error) -> Self {
        ReadError::Closed
    }
}

pub async fn read_request(stream: &mut TcpStream) -> Result<Request, ReadError> {
    let mut buf = Vec::with_capacity(4096);
    let head_end = loop {
        // Re-scan only the tail that could hold a new CRLFCRLF.
        let from = buf.len().saturating_sub(3);
        let mut chunk = [0u8; 8192];
        let n = stream.read(&mut chunk).await?;
        if n == 0 {
            return Err(ReadError::Closed);
        }
        buf.extend_from_slice(&chunk[..n]);
        if let Some(p) = buf[from..].windows(4).position(|w| w == b"\r\n\r\n") {
            break from + p + 4;
        }
        if buf.len() > MAX_HEAD_BYTES {
            return Err(ReadError::Bad(
                431,
                format!("request head exceeds {MAX_HEAD_BYTES} bytes"),
            ));
        }
    };
    let mut body = buf.split_off(head_end);
    let head = std::str::from_utf8(&buf[..head_end - 4])
        .map_err(|_| ReadError::Bad(400, "request head is not UTF-8".into()))?;
    let mut lines = head.split("\r\n");
    let request_line = lines.next().unwrap_or_default();
    let mut parts = request_line.split(' ');
    let (Some(method), Some(path), Some(version), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return Err(ReadError::Bad(
            400,
            format!("malformed request line {request_line:?}"),
        ));
    };
    if !version.starts_with("HTTP/1.") {
        return Err(ReadError::Bad(
            505,
            format!("unsupported version {version:?}; the mock speaks HTTP/1.1"),
        ));
    }
    let mut headers = Vec::new();
    for line in lines {
        let Some((name, value)) = line.split_once(':') else {
            return Err(ReadError::Bad(
                400,
                format!("malformed header line {line:?}"),
            ));
        };
        headers.push((name.trim().to_ascii_lowercase(), value.trim().to_string()));
    }
    if headers.iter().any(|(n, _)| n == "transfer-encoding") {
        return Err(ReadError::Bad(
            501,
            "chunked request bodies are not supported by the mock; send Content-Length".into(),
        ));
    }
    let mut lengths = headers
        .iter()
        .filter(|(n, _)| n == "content-length")
        .map(|(_, v)| v.parse::<usize>());
    let len = match (lengths.next(), lengths.next()) {
        (None, _) => 0,
        (Some(Ok(n)), None) => n,
        _ => {
            return Err(ReadError::Bad(
                400,
                "invalid or repeated Content-Length".into(),
            ));
        }
    };
    if len > MAX_BODY_BYTES {
        return Err(ReadError::Bad(
            413,
            format!("request body of {len} bytes exceeds {MAX_BODY_BYTES}"),
        ));
    }
    body.truncate(len); // a pipelined second request is not served: we close after one answer
    if body.len() < len {
        let start = body.len();
        body.resize(len, 0);
        stream.read_exact(&mut body[start..]).await?;
    }
    Ok(Request {
        method: method.to_string(),
        path: path.to_string(),
        headers,
        body,
    })
}

pub fn reason_phrase(status: u16) -> &'static str {
    match status {
        200 => "OK",
        201 => "Created",
        204 => "No Content",
        400 => "Bad Request",
        401 => "Unauthorized",
        402 => "Payment Required",
        403 => "Forbidden",
        404 => "Not Found",
        408 => "Request Timeout",
        409 => "Conflict",
        413 => "Content Too Large",
        422 => "Unprocessable Content",
        429 => "Too Many Requests",
        431 => "Request Header Fields Too Large",
        500 => "Internal Server Error",
        501 => "Not Implemented",
        502 => "Bad Gateway",
        503 => "Service Unavailable",
        504 => "Gateway Timeout",
        505 => "HTTP Version Not Supported",
        529 => "Overloaded",
        _ => "Mock Status",
    }
}

/// A complete answer for the mock's own errors (bad request, exhausted script): OpenAI-style JSON.
pub async fn write_error(stream: &mut TcpStream, status: u16, kind: &str, message: &str) {
    let body = serde_json::json!({ "error": { "message": message, "type": kind, "code": kind } })
        .to_string();
    let head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\nconnection: close\r\n\r\n",
        reason_phrase(status),
        body.len()
    );
    // The client may be gone already; nothing to do about it.
    let _ = stream.write_all(head.as_bytes()).await;
    let _ = stream.write_all(body.as_bytes()).await;
    let _ = stream.shutdown().await;
}

/// Appends `bytes` to `out` as one chunk of a `transfer-encoding: chunked` body. Empty bytes add
/// nothing: an empty chunk is the end of the body.
pub fn put_chunk(out: &mut Vec<u8>, bytes: &[u8]) {
    if bytes.is_empty() {
        return;
    }
    out.extend_from_slice(format!("{:x}\r\n", bytes.len()).as_bytes());
    out.extend_from_slice(bytes);
    out.extend_from_slice(b"\r\n");
}

/// The end of a chunked body: the empty last chunk, no trailers.
pub const LAST_CHUNK: &[u8] = b"0\r\n\r\n";

/// Writes the body, firing the step's byte-positioned faults exactly at their byte. Positions
/// count what follows the head, chunk framing included: the bytes a client reads.
pub struct BodyWriter {
    stream: TcpStream,
    written: u64,
    drip: Option<Drip>,
    stall: Option<StallAfterBytes>,
    reset_at: Option<u64>,
    /// Set once reset: the socket must then only be dropped, since a shutdown would send a FIN.
    reset_done: bool,
}

/// Whether the connection is still usable after a write.
#[derive(Debug, PartialEq, Eq)]
pub enum Flow {
    Open,
    Reset,
}

impl BodyWriter {
    pub fn new(
        stream: TcpStream,
        drip: Option<Drip>,
        stall: Option<StallAfterBytes>,
        reset_at: Option<u64>,
    ) -> Self {
        BodyWriter {
            stream,
            written: 0,
            drip,
            stall,
            reset_at,
            reset_done: false,
        }
    }

    pub async fn write_head(&mut self, head: &[u8]) -> io::Result<Flow> {
        self.stream.write_all(head).await?;
        // Faults at byte 0 fire right after the head, not when the first event is due.
        self.write(&[]).await
    }

    pub async fn write(&mut self, mut data: &[u8]) -> io::Result<Flow> {
        loop {
            let end = self.written + data.len() as u64;
            // The validator guarantees a stall comes before any reset, so check it first.
            if let Some(stall) = self.stall.filter(|s| s.bytes <= end) {
                data = self.put_until(data, stall.bytes).await?;
                self.stall = None;
                tokio::time::sleep(Duration::from_millis(stall.ms)).await;
                continue;
            }
            if let Some(at) = self.reset_at.filter(|&at| at <= end) {
                self.put_until(data, at).await?;
                return Ok(self.reset());
            }
            self.put_until(data, end).await?;
            return Ok(Flow::Open);
        }
    }

    /// End of body. A fault placed past the end fires here, so `reset_after_bytes: 1e9` means
    /// "reset instead of a clean close".
    pub async fn finish(mut self) {
        if self.reset_done {
            return;
        }
        if let Some(stall) = self.stall.take() {
            tokio::time::sleep(Duration::from_millis(stall.ms)).await;
        }
        if self.reset_at.is_some() {
            self.reset();
        } else {
            let _ = self.stream.shutdown().await;
        }
    }

    async fn put_until<'a>(&mut self, data: &'a [u8], at: u64) -> io::Result<&'a [u8]> {
        let (now, rest) = data.split_at((at - self.written) as usize);
        match self.drip {
            None => self.stream.write_all(now).await?,
            // Each drop is its own write after its own pause (the socket has no Nagle delay), so
            // the client reads the body a few bytes at a time.
            Some(Drip { bytes, every_ms }) => {
                for drop in now.chunks(usize::try_from(bytes).unwrap_or(usize::MAX)) {
                    tokio::time::sleep(Duration::from_millis(every_ms)).await;
                    self.stream.write_all(drop).await?;
                }
            }
        }
        self.written = at;
        Ok(rest)
    }

    /// Marks the socket so that closing it sends a RST; the close happens when `self` is dropped.
    fn reset(&mut self) -> Flow {
        self.reset_at = None;
        self.reset_done = true;
        abort_on_close(&self.stream);
        Flow::Reset
    }
}

/// SO_LINGER 0: `close` then discards the socket at once with a RST, the way a crashed proxy does,
/// so the client sees "connection reset", never a clean EOF.
pub fn abort_on_close(stream: &TcpStream) {
    if let Err(e) = socket2::SockRef::from(stream).set_linger(Some(Duration::ZERO)) {
        tracing::warn!("mock: cannot set SO_LINGER 0 for a reset: {e}");
    }
}
