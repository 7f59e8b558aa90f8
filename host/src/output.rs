//! Guest stdout/stderr: captured in memory for fault messages, never inherited, and size-capped by
//! dropping what exceeds the cap (a chatty guest is not a faulty one, so it must not trap).

use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use tokio::io::AsyncWrite;
use wasmtime_wasi::cli::{IsTerminal, StdoutStream};

#[derive(Clone)]
pub struct CapturedOutput {
    inner: Arc<Mutex<Captured>>,
}

struct Captured {
    bytes: Vec<u8>,
    cap: usize,
    dropped: usize,
}

impl CapturedOutput {
    pub fn new(cap: usize) -> Self {
        CapturedOutput {
            inner: Arc::new(Mutex::new(Captured {
                bytes: Vec::new(),
                cap,
                dropped: 0,
            })),
        }
    }

    fn write(&self, buf: &[u8]) {
        let mut c = self.inner.lock().expect("output lock");
        let room = c.cap.saturating_sub(c.bytes.len());
        let take = room.min(buf.len());
        c.bytes.extend_from_slice(&buf[..take]);
        c.dropped += buf.len() - take;
    }

    /// What was kept, lossily decoded, with a note of what was dropped.
    pub fn text(&self) -> String {
        let c = self.inner.lock().expect("output lock");
        let mut text = String::from_utf8_lossy(&c.bytes).into_owned();
        if c.dropped > 0 {
            text.push_str(&format!(
                " [... {} more bytes dropped at the {}-byte cap]",
                c.dropped, c.cap
            ));
        }
        text
    }
}

impl IsTerminal for CapturedOutput {
    fn is_terminal(&self) -> bool {
        false
    }
}

impl StdoutStream for CapturedOutput {
    fn async_stream(&self) -> Box<dyn AsyncWrite + Send + Sync> {
        Box::new(self.clone())
    }
}

impl AsyncWrite for CapturedOutput {
    fn poll_write(
        self: Pin<&mut Self>,
        _cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        self.write(buf);
        Poll::Ready(Ok(buf.len()))
    }

    fn poll_flush(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(self: Pin<&mut Self>, _cx: &mut Context<'_>) -> Poll<std::io::Result<()>> {
        Poll::Ready(Ok(()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn output_beyond_the_cap_is_dropped_and_counted() {
        let out = CapturedOutput::new(5);
        out.write(b"hel");
        out.write(b"lo world");
        assert_eq!(
            out.text(),
            "hello [... 6 more bytes dropped at the 5-byte cap]"
        );
    }
}
