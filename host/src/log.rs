//! The session log: one append-only JSON Lines file per session, in a sessions directory opened once
//! as a capability (cap-std), so a session id can never name a path outside it.
//!
//! Every event carries a sequence number and a timestamp. The log is the only writer of session
//! files; `fsync` happens at the durable points the caller names (`append_durable`).

use anyhow::{Context, Result, bail};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// One event as stored: `{"seq": N, "ts": "...", "type": "...", ...payload}`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Event {
    pub seq: u64,
    pub ts: String,
    #[serde(rename = "type")]
    pub kind: String,
    #[serde(flatten)]
    pub data: Map<String, Value>,
}

/// The sessions directory, opened once.
pub struct SessionStore {
    dir: Dir,
    path: PathBuf,
}

impl SessionStore {
    /// Opens (creating if needed) the sessions directory.
    pub fn open(path: &Path) -> Result<Self> {
        std::fs::create_dir_all(path)
            .with_context(|| format!("creating the sessions directory {}", path.display()))?;
        let dir = Dir::open_ambient_dir(path, ambient_authority())
            .with_context(|| format!("opening the sessions directory {}", path.display()))?;
        Ok(SessionStore {
            dir,
            path: path.to_path_buf(),
        })
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file of a session inside this directory.
    pub fn file_of(&self, id: &str) -> PathBuf {
        self.path.join(format!("{id}.jsonl"))
    }

    /// Starts a new session log under a fresh id.
    pub fn create(&self) -> Result<SessionLog> {
        self.create_named(&new_session_id())
    }

    /// Starts a new session log under `id` (a front end that derives ids, such as the gateway's
    /// idempotency keys). Fails if the session exists.
    pub fn create_named(&self, id: &str) -> Result<SessionLog> {
        check_session_id(id)?;
        let id = id.to_string();
        let file = self
            .dir
            .open_with(
                format!("{id}.jsonl"),
                OpenOptions::new().append(true).create_new(true),
            )
            .with_context(|| format!("creating session log {}", self.file_of(&id).display()))?;
        Ok(SessionLog {
            id,
            file,
            next_seq: 1,
        })
    }

    /// Reopens a session to continue it: reads its events, then prepares the file for appending. A
    /// torn last line is cut from the file (it never became an event) and returned, so the caller
    /// can record its text in the log: nothing is lost, and the next event starts on a line of its own.
    pub fn reopen(&self, id: &str) -> Result<(SessionLog, SessionRead)> {
        let read = self.read(id)?;
        let name = format!("{id}.jsonl");
        let mut file = self
            .dir
            .open_with(&name, OpenOptions::new().read(true).write(true))
            .with_context(|| format!("reopening session log {}", self.file_of(id).display()))?;
        let len = file.metadata()?.len();
        let mut contents = Vec::with_capacity(len as usize);
        std::io::Read::read_to_end(&mut file, &mut contents)?;
        let keep = if read.torn_tail.is_some() {
            contents
                .iter()
                .rposition(|b| *b == b'\n')
                .map(|i| i + 1)
                .unwrap_or(0)
        } else {
            contents.len()
        };
        file.set_len(keep as u64)
            .with_context(|| format!("cutting the torn line of session '{id}'"))?;
        let mut file = self.dir.open_with(&name, OpenOptions::new().append(true))?;
        if keep > 0 && contents[keep - 1] != b'\n' {
            // The last event is whole but its newline never made it: finish the line.
            file.write_all(b"\n")?;
        }
        file.sync_data()?;
        let next_seq = read.events.last().map(|e| e.seq + 1).unwrap_or(1);
        Ok((
            SessionLog {
                id: id.to_string(),
                file,
                next_seq,
            },
            read,
        ))
    }

    /// Reads a session's events. A torn last line (a crash mid-write) is returned apart, never fatal;
    /// a malformed line elsewhere is corruption and an error naming the line.
    pub fn read(&self, id: &str) -> Result<SessionRead> {
        check_session_id(id)?;
        let file = self.dir.open(format!("{id}.jsonl")).with_context(|| {
            format!(
                "no session '{id}' in {} (list it with `ls`)",
                self.path.display()
            )
        })?;
        let mut lines = Vec::new();
        for line in BufReader::new(file.into_std()).split(b'\n') {
            lines.push(line.with_context(|| format!("reading session '{id}'"))?);
        }
        let mut events = Vec::new();
        let mut torn_tail = None;
        let count = lines.len();
        for (i, line) in lines.into_iter().enumerate() {
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Event>(&line) {
                Ok(event) => events.push(event),
                Err(_) if i + 1 == count => {
                    torn_tail = Some(String::from_utf8_lossy(&line).into_owned());
                }
                Err(e) => bail!("session '{id}' line {} is not a valid event: {e}", i + 1),
            }
        }
        Ok(SessionRead { events, torn_tail })
    }
}

/// What a session file holds.
#[derive(Debug)]
pub struct SessionRead {
    pub events: Vec<Event>,
    /// The unparseable last line, if the writer crashed mid-line.
    pub torn_tail: Option<String>,
}

/// An open session log, owned by one session.
pub struct SessionLog {
    id: String,
    file: cap_std::fs::File,
    next_seq: u64,
}

impl SessionLog {
    pub fn id(&self) -> &str {
        &self.id
    }

    /// Appends an event (flushed to the OS, not fsynced).
    pub fn append(&mut self, kind: &str, data: Value) -> Result<u64> {
        let seq = self.next_seq;
        let data = match data {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => bail!("event data must be an object, got {other}"),
        };
        let event = Event {
            seq,
            ts: now_rfc3339(),
            kind: kind.to_string(),
            data,
        };
        let mut line = serde_json::to_vec(&event)?;
        line.push(b'\n');
        // One write per line: a crash leaves at most one torn line at the end.
        self.file
            .write_all(&line)
            .with_context(|| format!("appending to session log '{}'", self.id))?;
        self.next_seq += 1;
        Ok(seq)
    }

    /// Appends an event and makes it durable (fsync) before returning.
    pub fn append_durable(&mut self, kind: &str, data: Value) -> Result<u64> {
        let seq = self.append(kind, data)?;
        self.file
            .sync_data()
            .with_context(|| format!("syncing session log '{}'", self.id))?;
        Ok(seq)
    }
}

/// Session ids are file stems inside the sessions directory: a conservative alphabet, no leading dot,
/// no separators. cap-std would refuse an escape anyway; this gives the clearer message first.
pub fn check_session_id(id: &str) -> Result<()> {
    let ok = !id.is_empty()
        && id.len() <= 128
        && !id.starts_with('.')
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
    if !ok {
        bail!(
            "invalid session id {id:?}: a session id is letters, digits, '-', '_' and '.', \
             not starting with '.' (as printed by `dsh-host run`)"
        );
    }
    Ok(())
}

fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// A sortable, unique id: UTC time, then random bits from the std hasher's per-process seed.
fn new_session_id() -> String {
    use std::hash::{BuildHasher, Hasher};
    let mut h = std::collections::hash_map::RandomState::new().build_hasher();
    h.write_u128(
        SystemTime::now()
            .duration_since(SystemTime::UNIX_EPOCH)
            .unwrap_or_default()
            .as_nanos(),
    );
    h.write_u32(std::process::id());
    let stamp = humantime::format_rfc3339_seconds(SystemTime::now()).to_string();
    let compact: String = stamp
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    format!("{compact}-{:08x}", h.finish() as u32)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn events_get_increasing_sequence_numbers_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        assert_eq!(
            log.append("session/start", json!({"model": "m"})).unwrap(),
            1
        );
        assert_eq!(
            log.append_durable("turn/end", json!({"turn": 1})).unwrap(),
            2
        );
        let read = store.read(log.id()).unwrap();
        assert_eq!(read.events.len(), 2);
        assert_eq!(read.events[0].kind, "session/start");
        assert_eq!(read.events[0].data["model"], "m");
        assert_eq!(read.events[1].seq, 2);
        assert!(read.torn_tail.is_none());
    }

    #[test]
    fn a_torn_last_line_is_reported_not_fatal() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        let path = store.file_of(log.id());
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(br#"{"seq":2,"ts":"2026-"#).unwrap();
        let read = store.read(log.id()).unwrap();
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.torn_tail.as_deref(), Some(r#"{"seq":2,"ts":"2026-"#));
    }

    #[test]
    fn a_corrupt_middle_line_is_an_error_naming_the_line() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        std::fs::write(
            tmp.path().join("s1.jsonl"),
            "garbage\n{\"seq\":1,\"ts\":\"t\",\"type\":\"x\"}\n",
        )
        .unwrap();
        let err = store.read("s1").unwrap_err().to_string();
        assert!(err.contains("line 1"), "{err}");
    }

    #[test]
    fn session_ids_that_would_escape_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        for bad in [
            "../etc/passwd",
            "/etc/passwd",
            "..",
            ".hidden",
            "a/b",
            "",
            "a\\b",
        ] {
            let err = store
                .read(bad)
                .err()
                .unwrap_or_else(|| panic!("{bad:?} accepted"))
                .to_string();
            assert!(err.contains("invalid session id"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn reopening_cuts_a_torn_line_and_continues_the_sequence() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        log.append("turn/start", json!({"turn": 1})).unwrap();
        let id = log.id().to_string();
        drop(log);
        let path = store.file_of(&id);
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(br#"{"seq":3,"ts":"2026-11-29T"#).unwrap();
        drop(f);

        let (mut log, read) = store.reopen(&id).unwrap();
        assert_eq!(read.events.len(), 2);
        assert_eq!(
            read.torn_tail.as_deref(),
            Some(r#"{"seq":3,"ts":"2026-11-29T"#)
        );
        assert_eq!(log.append("session/resumed", json!({})).unwrap(), 3);
        let again = store.read(&id).unwrap();
        assert!(again.torn_tail.is_none());
        let seqs: Vec<u64> = again.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
    }

    #[test]
    fn reopening_finishes_a_line_whose_newline_was_lost() {
        let tmp = tempfile::tempdir().unwrap();
        let store = SessionStore::open(tmp.path()).unwrap();
        std::fs::write(
            tmp.path().join("s.jsonl"),
            r#"{"seq":1,"ts":"t","type":"session/start"}"#,
        )
        .unwrap();
        let (mut log, read) = store.reopen("s").unwrap();
        assert_eq!(read.events.len(), 1);
        log.append("session/resumed", json!({})).unwrap();
        let again = store.read("s").unwrap();
        assert_eq!(again.events.len(), 2);
    }

    #[test]
    fn session_ids_are_unique() {
        let a = new_session_id();
        let b = new_session_id();
        assert_ne!(a, b);
        check_session_id(&a).unwrap();
    }
}
