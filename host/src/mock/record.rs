//! `dsh-host mock --record FILE`: every request the mock receives, one JSON line each, appended and
//! written out as the request arrives, so a test or a person can see what a client sent while the
//! server still runs.

use super::server::RecordedRequest;
use anyhow::Context;
use serde_json::json;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

pub struct Recorder {
    path: PathBuf,
    file: File,
    /// Warn about a failed write once, not for every request after a full disk.
    warned: bool,
}

impl Recorder {
    /// Opens `path` for appending, creating it if needed. A new file is readable by its owner
    /// only: it holds the requests' headers as sent, credentials included.
    pub fn open(path: &Path) -> anyhow::Result<Recorder> {
        let mut options = std::fs::OpenOptions::new();
        options.create(true).append(true);
        #[cfg(unix)]
        std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
        let file = options.open(path).with_context(|| {
            format!(
                "mock provider: cannot open the record file {} for appending; give a path in a writable directory",
                path.display()
            )
        })?;
        Ok(Recorder {
            path: path.to_owned(),
            file,
            warned: false,
        })
    }

    /// Appends one request as one line, in one write (the file is unbuffered, so the line is in
    /// the file when this returns). A failure is reported once and does not stop the server: the
    /// answers matter more than the record.
    pub fn write(&mut self, number: usize, req: &RecordedRequest) {
        let mut line = line(number, req).to_string();
        line.push('\n');
        if let Err(e) = self.file.write_all(line.as_bytes())
            && !self.warned
        {
            self.warned = true;
            tracing::warn!(
                "mock provider: cannot write to the record file {}: {e}; later requests may be missing from it",
                self.path.display()
            );
        }
    }
}

/// The JSON object for one request. The body is text when it is UTF-8, else `body_base64`.
pub fn line(number: usize, req: &RecordedRequest) -> serde_json::Value {
    let mut out = json!({
        "request": number,
        "time": humantime::format_rfc3339_millis(req.received).to_string(),
        "step": req.step,
        "method": req.method,
        "path": req.path,
        "headers": req.headers,
    });
    match std::str::from_utf8(&req.body) {
        Ok(text) => out["body"] = json!(text),
        Err(_) => out["body_base64"] = json!(super::script::encode_base64(&req.body)),
    }
    out
}
