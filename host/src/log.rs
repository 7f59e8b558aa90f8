//! The session log in files (the default backend of [`crate::store::SessionStore`]): one append-only
//! JSON Lines file per session, in a sessions directory opened once as a capability (cap-std), so a
//! session id can never name a path outside it. The event format and [`SessionRead`] are shared
//! with the PostgreSQL backend ([`crate::pg_store`]).
//!
//! Every event carries a sequence number and a timestamp. The log is the only writer of session
//! files; `fsync` happens at the durable points the caller names (`append_durable`).
//!
//! One writer per session: a [`FileLog`] holds an exclusive lock on its file (`flock`, through
//! std's `File::try_lock`) for as long as it lives, so a second process that tries to write the same
//! session gets an error instead of interleaving lines (after [`WRITER_GRACE`], which outlasts a
//! copy of the descriptor held for an instant by a child being spawned). Readers never modify a file and never take
//! the lock except for the instant needed to tell a line being written from a torn one.
//!
//! The tail of a file is whatever follows the last valid event: blank lines, a line torn by a crash
//! mid-write, a malformed line. A writer that continues a session moves a tail that holds anything
//! but whitespace to `<id>.jsonl.torn` (bytes kept, fsynced) before it appends, and cuts the file to
//! its last valid event. A malformed line with valid events after it is corruption, never tail.
//!
//! Session logs hold whole conversations: the directory is created 0700 and each file 0600, and a
//! directory that other users may write is refused (they could replace or delete logs).

use crate::group_commit::GroupCommit;
use crate::private_fs;
use anyhow::{Context, Result, anyhow, bail};
use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions, OpenOptionsExt};
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};
use std::fs::{File, TryLockError};
use std::io::{Read, Seek, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

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

/// How long a writer waits for readers that hold the lock shared (each only while it rereads a file
/// whose last line looks torn) before it gives up.
const READERS_PATIENCE: Duration = Duration::from_secs(5);

/// The sessions directory, opened once.
pub struct FileStore {
    dir: Dir,
    path: PathBuf,
    /// Set for a gateway: the ends of turns are synced in batches after the caller answered (see
    /// [`crate::group_commit`]); `None`: every durable point is synced before it returns.
    commit: Option<Arc<GroupCommit>>,
}

impl FileStore {
    /// Opens (creating if needed, 0700) the sessions directory; refuses one that is not the user's or
    /// that other users may write, and warns when other users may read it.
    pub fn open(path: &Path) -> Result<Self> {
        private_fs::create_private_dir(path)
            .with_context(|| format!("creating the sessions directory {}", path.display()))?;
        check_sessions_dir(path)?;
        let dir = Dir::open_ambient_dir(path, ambient_authority())
            .with_context(|| format!("opening the sessions directory {}", path.display()))?;
        Ok(FileStore {
            dir,
            path: path.to_path_buf(),
            commit: None,
        })
    }

    /// This store with group commit: [`FileLog::append_committed`] hands the file to a
    /// background committer instead of syncing it, and a new session's directory entry is synced
    /// with its first event that must be durable at once (or its batch). For a gateway, where a
    /// sync per request would bound latency and throughput by the disk.
    pub fn with_group_commit(mut self) -> Result<Self> {
        let dir = self
            .dir
            .open(".")
            .with_context(|| format!("opening the sessions directory {}", self.path.display()))?
            .into_std();
        let commit = GroupCommit::start(dir, &self.path)
            .with_context(|| format!("starting the log committer for {}", self.path.display()))?;
        self.commit = Some(commit);
        Ok(self)
    }

    /// Waits until every event appended so far is durable (a no-op without group commit).
    pub fn flush(&self) {
        if let Some(commit) = &self.commit {
            commit.flush();
        }
    }

    /// The committer, when this store groups its syncs.
    pub fn group_commit(&self) -> Option<&Arc<GroupCommit>> {
        self.commit.as_ref()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file of a session inside this directory.
    pub fn file_of(&self, id: &str) -> PathBuf {
        self.path.join(log_name(id))
    }

    /// Where the torn tails of a session are kept (`<id>.jsonl.torn`), once a writer moved one aside.
    pub fn torn_file_of(&self, id: &str) -> PathBuf {
        self.path.join(torn_name(id))
    }

    /// Starts a new session log under a fresh id, locked for writing. The directory is fsynced so the
    /// new file's entry survives a crash along with the events later made durable in it.
    pub fn create(&self) -> Result<FileLog> {
        self.create_named(&new_session_id())
    }

    /// Starts a new session log under `id` (a front end that derives ids, such as the gateway's
    /// idempotency keys). Fails if the session exists.
    pub fn create_named(&self, id: &str) -> Result<FileLog> {
        check_session_id(id)?;
        let id = id.to_string();
        let path = self.file_of(&id);
        let file = self
            .dir
            .open_with(
                log_name(&id),
                OpenOptions::new()
                    .append(true)
                    .create_new(true)
                    .mode(private_fs::PRIVATE_FILE_MODE),
            )
            .with_context(|| format!("creating session log {}", path.display()))?
            .into_std();
        lock_for_writing(&file, &id, &path)?;
        // With group commit the entry is synced later: with the first event that must be durable
        // at once, or by the batch that syncs the file.
        if self.commit.is_none() {
            self.sync_dir()?;
        }
        Ok(FileLog {
            id,
            file,
            next_seq: 1,
            commit: self.commit.clone(),
            dir_pending: self.commit.is_some(),
        })
    }

    /// Claims a session for writing: takes its lock (failing at once if another process writes it)
    /// and reads it under the lock. Nothing is modified: the caller checks what it read, then calls
    /// [`FileClaim::open_for_append`], or drops the claim and leaves the file as it was.
    pub fn claim(&self, id: &str) -> Result<FileClaim<'_>> {
        check_session_id(id)?;
        let path = self.file_of(id);
        let mut file = self
            .dir
            .open_with(log_name(id), OpenOptions::new().read(true).append(true))
            .map_err(|e| self.open_error(id, e))?
            .into_std();
        lock_for_writing(&file, id, &path)?;
        if is_removed(&file) {
            // Pruned between our open and our lock: appending would write to a deleted file.
            return Err(self.open_error(id, std::io::ErrorKind::NotFound.into()));
        }
        let bytes = read_all(&mut file, id)?;
        // We hold the lock, so no one is writing: an unfinished last line is torn.
        let scan = scan(id, &path, &bytes)?;
        let layout = scan.layout.clone();
        let read = scan.into_read(&bytes, false);
        Ok(FileClaim {
            store: self,
            id: id.to_string(),
            file,
            bytes,
            layout,
            read,
        })
    }

    /// Claims a session and opens it for appending at once (see [`FileStore::claim`]).
    pub fn reopen(&self, id: &str) -> Result<(FileLog, SessionRead)> {
        self.claim(id)?.open_for_append()
    }

    /// Reads a session's events, modifying nothing. A tail after the last valid event (a crash
    /// mid-write) is returned apart, never fatal; a malformed line with valid events after it is
    /// corruption and an error naming the line, the file and the fix. An unfinished last line while
    /// a writer holds the session is the line being written: skipped, and reported as such.
    pub fn read(&self, id: &str) -> Result<SessionRead> {
        check_session_id(id)?;
        let path = self.file_of(id);
        let mut file = self
            .dir
            .open(log_name(id))
            .map_err(|e| self.open_error(id, e))?
            .into_std();
        let bytes = read_all(&mut file, id)?;
        let first = scan(id, &path, &bytes)?;
        if !first.ends_mid_line(&bytes) {
            return Ok(first.into_read(&bytes, false));
        }
        // The last line is unfinished: being written by a live writer, or torn by a dead one. Only
        // a writer holds the lock exclusively, so a shared lock is refused exactly while one lives.
        match file.try_lock_shared() {
            Err(TryLockError::WouldBlock) => Ok(first.into_read(&bytes, true)),
            Ok(()) => {
                // No writer now, and none can start while we hold this: every line a writer began
                // is finished or torn for good. Read again, since one may have finished meanwhile.
                let again = read_all(&mut file, id);
                let _ = file.unlock();
                let bytes = again?;
                Ok(scan(id, &path, &bytes)?.into_read(&bytes, false))
            }
            // No locks on this file system: no writer can hold one either (it would have failed to
            // start), so the line is torn.
            Err(TryLockError::Error(_)) => Ok(first.into_read(&bytes, false)),
        }
    }

    /// Every session in the directory (each `<id>.jsonl` with a valid id), with when it was last
    /// written and its size, sorted by id (which sorts by creation time for generated ids).
    pub fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        let context = || format!("listing the sessions directory {}", self.path.display());
        let mut sessions = Vec::new();
        for entry in self.dir.entries().with_context(context)? {
            let entry = entry.with_context(context)?;
            let name = entry.file_name();
            let Some(id) = name.to_str().and_then(|n| n.strip_suffix(".jsonl")) else {
                continue;
            };
            if check_session_id(id).is_err() {
                continue;
            }
            let meta = entry
                .metadata()
                .with_context(|| format!("reading {}", self.file_of(id).display()))?;
            if !meta.is_file() {
                continue;
            }
            sessions.push(SessionInfo {
                id: id.to_string(),
                modified: meta
                    .modified()
                    .with_context(|| format!("reading {}", self.file_of(id).display()))?
                    .into_std(),
                bytes: meta.len(),
            });
        }
        sessions.sort_by(|a, b| a.id.cmp(&b.id));
        Ok(sessions)
    }

    /// Deletes a session: its log and the `.torn` file beside it, if any. A session that a writer
    /// holds is left alone (`Ok(false)`). The write lock is held while deleting, and `claim` checks
    /// after locking that its file is still there, so no writer appends to a deleted log.
    pub fn remove_session(&self, id: &str) -> Result<bool> {
        check_session_id(id)?;
        let path = self.file_of(id);
        let file = self
            .dir
            .open_with(log_name(id), OpenOptions::new().read(true).append(true))
            .map_err(|e| self.open_error(id, e))?
            .into_std();
        if let WriteLock::HeldByWriter = try_write_lock(&file, &path)? {
            return Ok(false);
        }
        // The `.torn` file first: a crash in between leaves a session that is still listed.
        match self.dir.remove_file(torn_name(id)) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                return Err(e)
                    .with_context(|| format!("deleting {}", self.torn_file_of(id).display()));
            }
            _ => {}
        }
        self.dir
            .remove_file(log_name(id))
            .with_context(|| format!("deleting {}", path.display()))?;
        self.sync_dir()?;
        Ok(true)
    }

    /// The ids of the sessions in the directory (its `<id>.jsonl` files), in no particular order.
    pub fn ids(&self) -> Result<Vec<String>> {
        let entries = self
            .dir
            .entries()
            .with_context(|| format!("listing the sessions directory {}", self.path.display()))?;
        let mut ids = Vec::new();
        for entry in entries {
            let name = entry
                .with_context(|| format!("listing the sessions directory {}", self.path.display()))?
                .file_name();
            let id = name.to_str().and_then(|n| n.strip_suffix(".jsonl"));
            if let Some(id) = id.filter(|id| check_session_id(id).is_ok()) {
                ids.push(id.to_string());
            }
        }
        Ok(ids)
    }

    /// Whether a live writer holds the session now (a `run` or a gateway request in progress).
    pub fn is_being_written(&self, id: &str) -> Result<bool> {
        check_session_id(id)?;
        let file = self
            .dir
            .open(log_name(id))
            .map_err(|e| self.open_error(id, e))?
            .into_std();
        // Only a writer holds the lock exclusively, so a shared lock is refused exactly while one lives.
        Ok(match file.try_lock_shared() {
            Ok(()) => false,
            Err(TryLockError::WouldBlock) => true,
            Err(TryLockError::Error(_)) => false,
        })
    }

    /// Follows a session that a writer may be appending to, from after event `after_seq`
    /// (`dsh-host log --follow`). Modifies nothing.
    pub fn follow(&self, id: &str, after_seq: u64) -> Result<FileFollower> {
        check_session_id(id)?;
        let file = self
            .dir
            .open(log_name(id))
            .map_err(|e| self.open_error(id, e))?
            .into_std();
        Ok(FileFollower {
            id: id.to_string(),
            path: self.file_of(id),
            file,
            offset: 0,
            last_seq: after_seq,
        })
    }

    fn open_error(&self, id: &str, e: std::io::Error) -> anyhow::Error {
        if e.kind() == std::io::ErrorKind::NotFound {
            anyhow!(
                "no session '{id}' in {} (list them with `dsh-host --sessions {} sessions list`)",
                self.path.display(),
                self.path.display()
            )
        } else {
            anyhow::Error::new(e).context(format!(
                "opening session log {}",
                self.file_of(id).display()
            ))
        }
    }

    /// Appends a tail to the session's `.torn` file, verbatim and ended by a newline, durably.
    fn keep_torn(&self, id: &str, tail: &[u8]) -> Result<()> {
        let path = self.torn_file_of(id);
        let mut file = self
            .dir
            .open_with(
                torn_name(id),
                OpenOptions::new()
                    .append(true)
                    .create(true)
                    .mode(private_fs::PRIVATE_FILE_MODE),
            )
            .with_context(|| format!("opening {}", path.display()))?;
        let mut record = tail.to_vec();
        if !record.ends_with(b"\n") {
            record.push(b'\n');
        }
        file.write_all(&record)
            .and_then(|()| file.sync_data())
            .with_context(|| {
                format!(
                    "keeping the torn tail of session '{id}' in {}",
                    path.display()
                )
            })?;
        self.sync_dir()
    }

    /// Makes the directory's entries durable (a new session file, a new `.torn` file).
    fn sync_dir(&self) -> Result<()> {
        #[cfg(unix)]
        {
            // The capability handle is O_PATH on Linux, which cannot be fsynced: open the directory
            // itself, through the capability, for reading.
            self.dir
                .open(".")
                .and_then(|d| d.sync_all())
                .with_context(|| {
                    format!("syncing the sessions directory {}", self.path.display())
                })?;
        }
        Ok(())
    }
}

/// A session locked for writing and read under the lock, not yet modified (see
/// [`FileStore::claim`]). Dropping it releases the lock and leaves the file untouched.
pub struct FileClaim<'a> {
    store: &'a FileStore,
    id: String,
    file: File,
    bytes: Vec<u8>,
    layout: Layout,
    read: SessionRead,
}

impl FileClaim<'_> {
    /// What the session holds (read under the lock).
    pub fn read(&self) -> &SessionRead {
        &self.read
    }

    /// Prepares the file for appending, keeping the lock: a tail that holds more than whitespace is
    /// appended to `<id>.jsonl.torn` and fsynced (with the directory) first, then the file is cut to
    /// its last valid event, a lost final newline is restored, and the file is fsynced. A crash in
    /// between leaves the tail in both files, never in neither.
    pub fn open_for_append(self) -> Result<(FileLog, SessionRead)> {
        let FileClaim {
            store,
            id,
            mut file,
            bytes,
            layout,
            mut read,
        } = self;
        if let Some(torn) = layout.torn {
            store.keep_torn(&id, &bytes[torn])?;
            read.torn_tail_file = Some(torn_name(&id));
        }
        let path = store.file_of(&id);
        if layout.keep < bytes.len() {
            file.set_len(layout.keep as u64)
                .with_context(|| format!("cutting the tail of session log {}", path.display()))?;
        }
        if layout.finish_line {
            // The last event is whole but its newline never made it: finish the line.
            file.write_all(b"\n")?;
        }
        file.sync_data()
            .with_context(|| format!("syncing session log {}", path.display()))?;
        let next_seq = read.events.last().map(|e| e.seq + 1).unwrap_or(1);
        let commit = store.commit.clone();
        Ok((
            FileLog {
                id,
                file,
                next_seq,
                commit,
                dir_pending: false,
            },
            read,
        ))
    }
}

/// A reader that follows a session as its writer appends (see [`FileStore::follow`]).
pub struct FileFollower {
    id: String,
    path: PathBuf,
    file: File,
    /// Where the next read starts: just after the last valid event read.
    offset: u64,
    last_seq: u64,
}

impl FileFollower {
    /// The events appended since the last call (those after `after_seq` on the first). Only the
    /// valid events count: an unfinished or torn last line is read again at the next call, and a
    /// writer that cuts a torn tail (on resume) only shortens the file behind the last of them.
    pub fn poll(&mut self) -> Result<Vec<Event>> {
        let len = self
            .file
            .metadata()
            .with_context(|| format!("reading session '{}'", self.id))?
            .len();
        // The file was cut behind us (a torn tail moved aside): read on from its new end.
        self.offset = self.offset.min(len);
        let mut bytes = Vec::new();
        self.file
            .seek(std::io::SeekFrom::Start(self.offset))
            .and_then(|_| self.file.read_to_end(&mut bytes))
            .with_context(|| format!("reading session '{}'", self.id))?;
        let scan = scan(&self.id, &self.path, &bytes)?;
        self.offset += scan.layout.keep as u64;
        let last = self.last_seq;
        let events: Vec<Event> = scan.events.into_iter().filter(|e| e.seq > last).collect();
        if let Some(e) = events.last() {
            self.last_seq = e.seq;
        }
        Ok(events)
    }
}

/// What a session file holds.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionRead {
    pub events: Vec<Event>,
    /// The tail after the last valid event when it holds more than whitespace (a crash mid-write,
    /// or a malformed line): its text, verbatim (invalid UTF-8 replaced).
    pub torn_tail: Option<String>,
    /// Where [`FileClaim::open_for_append`] kept the torn tail: a file name in the sessions
    /// directory. `None` until a writer moved it.
    pub torn_tail_file: Option<String>,
    /// The last line is unfinished and a live writer holds the session: it is being written, and
    /// is neither an event yet nor part of `torn_tail`.
    pub line_in_progress: bool,
}

/// A session as [`FileStore::list_sessions`] lists it.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionInfo {
    pub id: String,
    /// When its log was last written.
    pub modified: SystemTime,
    /// The size of its log in bytes.
    pub bytes: u64,
}

/// An open session log, owned by one session. It holds the session's write lock until dropped.
pub struct FileLog {
    id: String,
    file: File,
    next_seq: u64,
    commit: Option<Arc<GroupCommit>>,
    /// The file is new and its directory entry not yet synced (group commit only).
    dir_pending: bool,
}

impl FileLog {
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

    /// Appends an event and makes it durable (fsync) before returning: what must survive a crash
    /// before the caller goes on (an `llm/retry` before its wait).
    pub fn append_durable(&mut self, kind: &str, data: Value) -> Result<u64> {
        let seq = self.append(kind, data)?;
        self.file
            .sync_data()
            .with_context(|| format!("syncing session log '{}'", self.id))?;
        if self.dir_pending
            && let Some(commit) = &self.commit
        {
            commit.sync_dir().with_context(|| {
                format!("syncing the sessions directory {}", commit.path().display())
            })?;
            self.dir_pending = false;
        }
        Ok(seq)
    }

    /// Appends an event that ends a unit of work (a turn, a step). Without group commit it is
    /// durable before this returns, as with [`Self::append_durable`]; with it, the file is synced
    /// by the next batch, which may be after the caller answered.
    pub fn append_committed(&mut self, kind: &str, data: Value) -> Result<u64> {
        let Some(commit) = self.commit.clone() else {
            return self.append_durable(kind, data);
        };
        let seq = self.append(kind, data)?;
        commit.submit(commit.path().join(log_name(&self.id)));
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

pub(crate) fn now_rfc3339() -> String {
    humantime::format_rfc3339_millis(SystemTime::now()).to_string()
}

/// A sortable, unique id: UTC time, then random bits from the std hasher's per-process seed.
pub(crate) fn new_session_id() -> String {
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

/// A parsed session file: its events, and where the valid part ends.
struct Scan {
    events: Vec<Event>,
    layout: Layout,
}

/// Where a session file's valid part ends, and the tail after it.
#[derive(Debug, Clone)]
struct Layout {
    /// The bytes up to and including the last valid event's line.
    keep: usize,
    /// The last valid event ends the file without its newline.
    finish_line: bool,
    /// The tail after `keep`, when it holds anything but whitespace.
    torn: Option<Range<usize>>,
}

impl Scan {
    /// The file ends in an unfinished line that is not an event: a line being written or torn.
    fn ends_mid_line(&self, bytes: &[u8]) -> bool {
        self.layout.torn.is_some() && !bytes.ends_with(b"\n")
    }

    /// The public view; `in_progress` says the unfinished last line belongs to a live writer.
    fn into_read(self, bytes: &[u8], in_progress: bool) -> SessionRead {
        let torn = self.layout.torn.and_then(|range| {
            let end = if in_progress {
                // Only the lines before the one being written can be torn.
                bytes[range.clone()]
                    .iter()
                    .rposition(|b| *b == b'\n')
                    .map_or(range.start, |i| range.start + i + 1)
            } else {
                range.end
            };
            let text = &bytes[range.start..end];
            (!is_blank(text)).then(|| String::from_utf8_lossy(text).into_owned())
        });
        SessionRead {
            events: self.events,
            torn_tail: torn,
            torn_tail_file: None,
            line_in_progress: in_progress,
        }
    }
}

/// Splits a file into events and a tail. A malformed line counts as tail only when no valid event
/// follows it; otherwise the file is damaged in the middle and the error says where and what to do.
fn scan(id: &str, path: &Path, bytes: &[u8]) -> Result<Scan> {
    let mut events = Vec::new();
    let mut keep = 0;
    let mut first_bad: Option<(usize, serde_json::Error)> = None;
    let mut start = 0;
    let mut number = 0;
    while start < bytes.len() {
        number += 1;
        let end = bytes[start..]
            .iter()
            .position(|b| *b == b'\n')
            .map_or(bytes.len(), |i| start + i);
        let line = &bytes[start..end];
        let next = (end + 1).min(bytes.len());
        if !is_blank(line) {
            match serde_json::from_slice::<Event>(line) {
                Ok(event) => {
                    if let Some((bad, e)) = first_bad.take() {
                        bail!(
                            "session '{id}' line {bad} is not a valid event ({e}), and valid events \
                             follow it: {} is damaged in the middle. Repair or delete line {bad} in \
                             that file (copy it first); until then `log` and `--resume` refuse it",
                            path.display()
                        );
                    }
                    events.push(event);
                    keep = next;
                }
                Err(e) => {
                    first_bad.get_or_insert((number, e));
                }
            }
        }
        start = next;
    }
    let finish_line = keep > 0 && bytes[keep - 1] != b'\n';
    let torn = (!is_blank(&bytes[keep..])).then_some(keep..bytes.len());
    Ok(Scan {
        events,
        layout: Layout {
            keep,
            finish_line,
            torn,
        },
    })
}

fn is_blank(bytes: &[u8]) -> bool {
    bytes.iter().all(u8::is_ascii_whitespace)
}

fn log_name(id: &str) -> String {
    format!("{id}.jsonl")
}

fn torn_name(id: &str) -> String {
    format!("{id}.jsonl.torn")
}

/// The whole file, from its start.
fn read_all(file: &mut File, id: &str) -> Result<Vec<u8>> {
    let mut bytes = Vec::new();
    file.rewind()
        .and_then(|_| file.read_to_end(&mut bytes))
        .with_context(|| format!("reading session '{id}'"))?;
    Ok(bytes)
}

/// How long a writer's lock is waited for before the session is called busy: a descriptor of the
/// file copied into a child process between its fork and its exec (any thread of this process
/// spawning a command) holds the lock until the exec, and a writer that just ended may not have let
/// go yet. Both are gone within milliseconds; a live writer is still there after this.
const WRITER_GRACE: Duration = Duration::from_secs(1);

/// Takes a session's exclusive lock. Readers hold the lock shared for an instant (see
/// [`FileStore::read`]); those are waited out, and a writer's lock for [`WRITER_GRACE`], after which
/// the session is someone else's and that is an error.
fn lock_for_writing(file: &File, id: &str, path: &Path) -> Result<()> {
    let grace = Instant::now() + WRITER_GRACE;
    let mut held = try_write_lock(file, path)?;
    while matches!(held, WriteLock::HeldByWriter) && Instant::now() < grace {
        std::thread::sleep(Duration::from_millis(10));
        held = try_write_lock(file, path)?;
    }
    match held {
        WriteLock::Taken => Ok(()),
        WriteLock::HeldByWriter => bail!(
            "session '{id}' is being written by another dsh-host process (it holds the lock on \
             {}); wait for that process to end, or stop it, then try again",
            path.display()
        ),
    }
}

enum WriteLock {
    Taken,
    HeldByWriter,
}

/// The exclusive lock of a session file, unless a writer holds it; readers are waited out.
fn try_write_lock(file: &File, path: &Path) -> Result<WriteLock> {
    let unsupported = |e: std::io::Error| {
        anyhow::Error::new(e).context(format!(
            "locking session log {} for writing: the sessions directory must be on a file system \
             with file locks (choose another with --sessions or DSH_SESSIONS_DIR)",
            path.display()
        ))
    };
    let patience = Instant::now() + READERS_PATIENCE;
    loop {
        match file.try_lock() {
            Ok(()) => return Ok(WriteLock::Taken),
            Err(TryLockError::WouldBlock) => {}
            Err(TryLockError::Error(e)) => return Err(unsupported(e)),
        }
        // Refused: a writer (exclusive) or readers (shared)? A shared lock is granted beside readers.
        match file.try_lock_shared() {
            Ok(()) => file.unlock().map_err(unsupported)?,
            Err(TryLockError::WouldBlock) => return Ok(WriteLock::HeldByWriter),
            Err(TryLockError::Error(e)) => return Err(unsupported(e)),
        }
        if Instant::now() >= patience {
            bail!(
                "session log {} stayed locked by readers for {} s; try again",
                path.display(),
                READERS_PATIENCE.as_secs()
            );
        }
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// Whether an open file has been deleted (no name links to it any more).
fn is_removed(file: &File) -> bool {
    #[cfg(unix)]
    {
        use std::os::unix::fs::MetadataExt;
        file.metadata().is_ok_and(|m| m.nlink() == 0)
    }
    #[cfg(not(unix))]
    {
        let _ = file;
        false
    }
}

/// Refuses a sessions directory that is not the user's or that others may write; warns when others
/// may read it (logs written before this check existed were created 0644 in a 0755 directory).
fn check_sessions_dir(path: &Path) -> Result<()> {
    let meta = std::fs::metadata(path)
        .with_context(|| format!("reading the sessions directory {}", path.display()))?;
    if let Some(why) = private_fs::untrusted_because(&meta) {
        bail!(
            "refusing the sessions directory {}: {why}, so they could read, replace or delete session \
             logs; run `chmod 700 {}` if it is yours, or choose another with --sessions or \
             DSH_SESSIONS_DIR",
            path.display(),
            path.display()
        );
    }
    if let Some(mode) = private_fs::others_may_access(&meta) {
        tracing::warn!(
            "the sessions directory {} is readable by other users (mode {mode:03o}) and session logs \
             hold whole conversations; run `chmod 700 {}`",
            path.display(),
            path.display()
        );
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const EVENT_1: &str = r#"{"seq":1,"ts":"t","type":"session/start"}"#;
    const EVENT_2: &str = r#"{"seq":2,"ts":"t","type":"turn/start","turn":1}"#;

    /// A sessions directory holding session `s` with exactly `contents`.
    fn store_with(contents: &str) -> (tempfile::TempDir, FileStore) {
        let tmp = tempfile::tempdir().unwrap();
        std::fs::write(tmp.path().join("s.jsonl"), contents).unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        (tmp, store)
    }

    fn file(store: &FileStore, id: &str) -> String {
        std::fs::read_to_string(store.file_of(id)).unwrap()
    }

    fn append_raw(store: &FileStore, id: &str, bytes: &[u8]) {
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(store.file_of(id))
            .unwrap();
        f.write_all(bytes).unwrap();
    }

    #[test]
    fn with_group_commit_a_turns_end_goes_to_the_committer_and_a_retry_is_synced_at_once() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path())
            .unwrap()
            .with_group_commit()
            .unwrap();
        let commit = store.group_commit().unwrap().clone();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        log.append_committed("turn/end", json!({"turn": 1}))
            .unwrap();
        // Written to the OS at once: a reader (an idempotent replay) sees it before the sync.
        assert_eq!(store.read(log.id()).unwrap().events.len(), 2);
        store.flush();
        assert_eq!(
            commit.files(),
            1,
            "the turn's end was synced by the committer"
        );
        log.append_durable("llm/retry", json!({"retry": 1}))
            .unwrap();
        log.append_committed("turn/end", json!({"turn": 2}))
            .unwrap();
        store.flush();
        assert_eq!(
            commit.files(),
            2,
            "a retry is synced by its writer, not handed over"
        );
        assert_eq!(commit.failures(), 0);
        // Reopened (another request with the same key), the log keeps the committer.
        // The session's lock is its writer's alone, whatever the committer holds: once the writer
        // is gone, another request with the same key reopens it at once.
        let id = log.id().to_string();
        log.append_committed("turn/end", json!({"turn": 2}))
            .unwrap();
        drop(log);
        let (mut log, read) = store.reopen(&id).unwrap();
        assert_eq!(read.events.len(), 5);
        log.append_committed("turn/end", json!({"turn": 3}))
            .unwrap();
        store.flush();
        assert_eq!(commit.files(), 4);
    }

    #[test]
    fn events_get_increasing_sequence_numbers_and_read_back() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
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
        assert!(!read.line_in_progress);
    }

    #[test]
    fn a_torn_last_line_is_reported_not_fatal() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n{}", r#"{"seq":2,"ts":"2026-"#));
        let read = store.read("s").unwrap();
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.torn_tail.as_deref(), Some(r#"{"seq":2,"ts":"2026-"#));
        assert!(!read.line_in_progress);
    }

    #[test]
    fn an_unfinished_line_beside_a_live_writer_is_being_written_not_torn() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        let id = log.id().to_string();
        // The writer's next line, caught half-way (a reader sees this while a long line goes out).
        append_raw(&store, &id, br#"{"seq":2,"ts":"2026-"#);
        let before = file(&store, &id);

        let read = store.read(&id).unwrap();
        assert_eq!(read.events.len(), 1);
        assert!(read.line_in_progress);
        assert_eq!(read.torn_tail, None, "a live writer's line is not torn");
        assert_eq!(file(&store, &id), before, "a reader modifies nothing");

        // The writer is gone (a crash): now the same line is torn.
        drop(log);
        let read = store.read(&id).unwrap();
        assert!(!read.line_in_progress);
        assert_eq!(read.torn_tail.as_deref(), Some(r#"{"seq":2,"ts":"2026-"#));
        assert_eq!(file(&store, &id), before);
        assert!(!store.torn_file_of(&id).exists());
    }

    #[test]
    fn a_corrupt_middle_line_is_an_error_naming_the_line_the_file_and_the_fix() {
        for contents in [
            format!("garbage\n{EVENT_1}\n"),
            format!("{EVENT_1}\nnot json\n\n{EVENT_2}\n"),
        ] {
            let (_tmp, store) = store_with(&contents);
            let line = if contents.starts_with("garbage") {
                1
            } else {
                2
            };
            for err in [
                store.read("s").unwrap_err().to_string(),
                store.claim("s").err().unwrap().to_string(),
            ] {
                assert!(err.contains(&format!("line {line} ")), "{err}");
                assert!(
                    err.contains(&store.file_of("s").display().to_string()),
                    "{err}"
                );
                assert!(err.contains("Repair or delete"), "{err}");
            }
            assert_eq!(file(&store, "s"), contents);
        }
    }

    #[test]
    fn a_malformed_last_line_with_its_newline_is_moved_aside_before_anything_is_appended() {
        // The field report: a malformed but terminated last line used to stay, the resumed events
        // went after it, and from then on the session could be neither read nor resumed.
        let contents = format!("{EVENT_1}\n{EVENT_2}\n{{\"seq\":3,\"ts\":\n");
        let (_tmp, store) = store_with(&contents);
        let (mut log, read) = store.reopen("s").unwrap();
        assert_eq!(read.events.len(), 2);
        assert_eq!(read.torn_tail.as_deref(), Some("{\"seq\":3,\"ts\":\n"));
        assert_eq!(read.torn_tail_file.as_deref(), Some("s.jsonl.torn"));
        assert_eq!(
            std::fs::read_to_string(store.torn_file_of("s")).unwrap(),
            "{\"seq\":3,\"ts\":\n"
        );
        assert_eq!(file(&store, "s"), format!("{EVENT_1}\n{EVENT_2}\n"));
        assert_eq!(log.append("session/resumed", json!({})).unwrap(), 3);
        drop(log);

        let again = store.read("s").unwrap();
        assert_eq!(again.torn_tail, None);
        let seqs: Vec<u64> = again.events.iter().map(|e| e.seq).collect();
        assert_eq!(seqs, [1, 2, 3]);
        // And it can be continued again.
        let (_, read) = store.reopen("s").unwrap();
        assert_eq!(read.torn_tail_file, None);
    }

    #[test]
    fn a_tail_of_several_lines_moves_aside_whole_and_torn_files_accumulate() {
        let tail = "\nnot an event\n  \n{\"seq\":3,\"t";
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n{EVENT_2}\n{tail}"));
        let (log, read) = store.reopen("s").unwrap();
        assert_eq!(read.torn_tail.as_deref(), Some(tail));
        drop(log);
        append_raw(&store, "s", b"second crash");
        let (log, read) = store.reopen("s").unwrap();
        assert_eq!(read.torn_tail.as_deref(), Some("second crash"));
        drop(log);
        // Bytes kept verbatim, each tail ended by a newline so the next one starts on its own line.
        assert_eq!(
            std::fs::read_to_string(store.torn_file_of("s")).unwrap(),
            format!("{tail}\nsecond crash\n")
        );
        assert_eq!(file(&store, "s"), format!("{EVENT_1}\n{EVENT_2}\n"));
    }

    #[test]
    fn a_file_with_no_valid_event_is_all_tail() {
        let (_tmp, store) = store_with("garbage\n");
        let read = store.read("s").unwrap();
        assert!(read.events.is_empty());
        assert_eq!(read.torn_tail.as_deref(), Some("garbage\n"));
    }

    #[test]
    fn blank_lines_after_the_last_event_are_not_torn_and_are_cut() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n\n  \n"));
        let read = store.read("s").unwrap();
        assert_eq!(read.torn_tail, None);
        let (log, read) = store.reopen("s").unwrap();
        assert_eq!(read.torn_tail_file, None);
        drop(log);
        assert_eq!(file(&store, "s"), format!("{EVENT_1}\n"));
        assert!(!store.torn_file_of("s").exists());
    }

    #[test]
    fn a_claim_modifies_nothing_until_opened_for_append() {
        let contents = format!("{EVENT_1}\ngarbage\n{{\"seq\":2");
        let (_tmp, store) = store_with(&contents);
        let claim = store.claim("s").unwrap();
        assert_eq!(claim.read().events.len(), 1);
        assert_eq!(
            claim.read().torn_tail.as_deref(),
            Some("garbage\n{\"seq\":2")
        );
        drop(claim);
        assert_eq!(file(&store, "s"), contents);
        assert!(!store.torn_file_of("s").exists());
    }

    #[test]
    fn one_writer_per_session() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        let id = log.id().to_string();
        // Another store is another open file, as in another process.
        let other = FileStore::open(tmp.path()).unwrap();
        let err = other.claim(&id).err().unwrap().to_string();
        assert!(err.contains(&id), "{err}");
        assert!(err.contains("another dsh-host process"), "{err}");
        // Reading beside the writer is fine.
        assert_eq!(other.read(&id).unwrap().events.len(), 1);
        drop(log);

        let (log, _) = other.reopen(&id).unwrap();
        let err = store.reopen(&id).err().unwrap().to_string();
        assert!(err.contains("another dsh-host process"), "{err}");
        drop(log);
        store.reopen(&id).unwrap();
    }

    #[test]
    fn a_writer_waits_out_a_reader_instead_of_failing() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n"));
        // A reader holds the lock shared while it rereads a torn-looking file.
        let reader = std::fs::File::open(store.file_of("s")).unwrap();
        reader.lock_shared().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            reader.unlock().unwrap();
        });
        let (log, read) = store.reopen("s").unwrap();
        assert_eq!(read.events.len(), 1);
        release.join().unwrap();
        drop(log);
    }

    #[test]
    fn a_writer_lock_let_go_within_the_grace_is_taken_a_held_one_is_refused() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n"));
        // A copy of the writer's descriptor that lives a moment longer than the writer, as one
        // inherited by a child between its fork and its exec does.
        let copy = std::fs::File::open(store.file_of("s")).unwrap();
        copy.lock().unwrap();
        let release = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            copy.unlock().unwrap();
        });
        let (log, read) = store.reopen("s").unwrap();
        assert_eq!(read.events.len(), 1);
        release.join().unwrap();
        // A writer still there after the grace is someone else's: refused, after the grace.
        let started = Instant::now();
        let other = FileStore::open(_tmp.path()).unwrap();
        let err = other.reopen("s").err().unwrap().to_string();
        assert!(err.contains("another dsh-host process"), "{err}");
        assert!(started.elapsed() >= WRITER_GRACE, "{:?}", started.elapsed());
        drop(log);
    }

    #[test]
    fn session_ids_that_would_escape_are_refused() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
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
            let err = store.claim(bad).err().unwrap().to_string();
            assert!(err.contains("invalid session id"), "{bad:?}: {err}");
        }
    }

    #[test]
    fn a_missing_session_is_an_error_naming_it() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        for err in [
            store.read("nope").unwrap_err().to_string(),
            store.claim("nope").err().unwrap().to_string(),
        ] {
            assert!(err.contains("no session 'nope'"), "{err}");
        }
        assert!(!store.file_of("nope").exists());
    }

    #[test]
    fn reopening_cuts_a_torn_line_and_continues_the_sequence() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        log.append("turn/start", json!({"turn": 1})).unwrap();
        let id = log.id().to_string();
        drop(log);
        append_raw(&store, &id, br#"{"seq":3,"ts":"2026-11-29T"#);

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
        let (_tmp, store) = store_with(EVENT_1);
        let (mut log, read) = store.reopen("s").unwrap();
        assert_eq!(read.events.len(), 1);
        assert_eq!(read.torn_tail, None);
        log.append("session/resumed", json!({})).unwrap();
        let again = store.read("s").unwrap();
        assert_eq!(again.events.len(), 2);
        assert!(!store.torn_file_of("s").exists());
    }

    #[cfg(unix)]
    fn mode(path: &Path) -> u32 {
        use std::os::unix::fs::PermissionsExt;
        std::fs::metadata(path).unwrap().permissions().mode() & 0o777
    }

    #[cfg(unix)]
    #[test]
    fn the_directory_and_every_log_are_private_to_the_user() {
        let tmp = tempfile::tempdir().unwrap();
        let dir = tmp.path().join("state/sessions");
        let store = FileStore::open(&dir).unwrap();
        assert_eq!(mode(&dir), 0o700);
        let mut log = store.create().unwrap();
        log.append("session/start", json!({})).unwrap();
        let id = log.id().to_string();
        drop(log);
        assert_eq!(mode(&store.file_of(&id)), 0o600);
        append_raw(&store, &id, b"{\"seq\":2,\"ts\":");
        drop(store.reopen(&id).unwrap());
        assert_eq!(mode(&store.torn_file_of(&id)), 0o600);
    }

    #[cfg(unix)]
    #[test]
    fn a_sessions_directory_others_may_write_is_refused_naming_it_and_the_fix() {
        use std::os::unix::fs::PermissionsExt;
        let tmp = tempfile::tempdir().unwrap();
        for bad in [0o777, 0o775, 0o1777] {
            std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(bad)).unwrap();
            let e = FileStore::open(tmp.path()).err().unwrap().to_string();
            assert!(e.contains(&tmp.path().display().to_string()), "{e}");
            assert!(
                e.contains("other users may write it") && e.contains("chmod 700"),
                "{e}"
            );
        }
        // Readable by others (as created by earlier versions): used, with a warning.
        std::fs::set_permissions(tmp.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
        FileStore::open(tmp.path()).unwrap();
    }

    #[test]
    fn sessions_are_listed_and_removed_with_their_torn_tails_unless_being_written() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        for id in ["b", "a"] {
            store
                .create_named(id)
                .unwrap()
                .append("session/start", json!({}))
                .unwrap();
        }
        std::fs::write(store.torn_file_of("a"), "torn\n").unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "not a session").unwrap();
        let listed = store.list_sessions().unwrap();
        let ids: Vec<&str> = listed.iter().map(|s| s.id.as_str()).collect();
        assert_eq!(ids, ["a", "b"]);
        assert_eq!(
            listed[0].bytes,
            std::fs::metadata(store.file_of("a")).unwrap().len()
        );
        assert!(listed[0].modified <= SystemTime::now());

        let writer = store.claim("b").unwrap();
        assert!(
            !store.remove_session("b").unwrap(),
            "a session being written is kept"
        );
        assert!(store.file_of("b").exists());
        drop(writer);
        assert!(store.remove_session("a").unwrap());
        assert!(!store.file_of("a").exists() && !store.torn_file_of("a").exists());
        let err = store.remove_session("a").unwrap_err().to_string();
        assert!(err.contains("no session 'a'"), "{err}");
    }

    #[test]
    fn a_session_removed_while_being_claimed_is_not_written_to() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n"));
        // A reader holds the lock shared: a claim opens the file, then waits for the lock.
        let reader = std::fs::File::open(store.file_of("s")).unwrap();
        reader.lock_shared().unwrap();
        let claimer = std::thread::scope(|scope| {
            let claimer = scope.spawn(|| store.claim("s").map(|_| ()));
            // Let the claim open the file; then a prune deletes it, and the reader lets go.
            std::thread::sleep(Duration::from_millis(100));
            std::fs::remove_file(store.file_of("s")).unwrap();
            reader.unlock().unwrap();
            claimer.join().unwrap()
        });
        let err = claimer.unwrap_err().to_string();
        assert!(err.contains("no session 's'"), "{err}");
    }

    #[test]
    fn a_follower_reads_each_event_once_as_it_is_appended_and_survives_a_cut_tail() {
        let (_tmp, store) = store_with(&format!("{EVENT_1}\n"));
        let mut follower = store.follow("s", 0).unwrap();
        let seqs = |events: Vec<Event>| events.iter().map(|e| e.seq).collect::<Vec<_>>();
        assert_eq!(seqs(follower.poll().unwrap()), [1]);
        assert_eq!(seqs(follower.poll().unwrap()), Vec::<u64>::new());
        // A line half written is not read until it is whole.
        append_raw(&store, "s", br#"{"seq":2,"ts":"t","type":"turn/st"#);
        assert_eq!(seqs(follower.poll().unwrap()), Vec::<u64>::new());
        append_raw(&store, "s", b"art\",\"turn\":1}\n");
        assert_eq!(seqs(follower.poll().unwrap()), [2]);
        // A writer dies mid-line; the next one moves the torn tail aside and appends.
        append_raw(&store, "s", br#"{"seq":3,"ts""#);
        assert_eq!(seqs(follower.poll().unwrap()), Vec::<u64>::new());
        let (mut log, _) = store.reopen("s").unwrap();
        log.append("session/resumed", json!({})).unwrap();
        assert_eq!(seqs(follower.poll().unwrap()), [3]);
        // Following from a known event skips those before it.
        assert_eq!(seqs(store.follow("s", 2).unwrap().poll().unwrap()), [3]);
    }

    #[test]
    fn ids_are_the_session_files_and_a_live_writer_is_seen() {
        let tmp = tempfile::tempdir().unwrap();
        let store = FileStore::open(tmp.path()).unwrap();
        let log = store.create().unwrap();
        std::fs::write(tmp.path().join("old.jsonl"), format!("{EVENT_1}\n")).unwrap();
        std::fs::write(tmp.path().join("old.jsonl.torn"), "tail").unwrap();
        std::fs::write(tmp.path().join(".hidden.jsonl"), "").unwrap();
        std::fs::write(tmp.path().join("notes.txt"), "").unwrap();
        let mut ids = store.ids().unwrap();
        ids.sort();
        let mut expected = vec![log.id().to_string(), "old".to_string()];
        expected.sort();
        assert_eq!(ids, expected);
        assert!(store.is_being_written(log.id()).unwrap());
        assert!(!store.is_being_written("old").unwrap());
        let id = log.id().to_string();
        drop(log);
        assert!(!store.is_being_written(&id).unwrap());
    }

    #[test]
    fn session_ids_are_unique() {
        let a = new_session_id();
        let b = new_session_id();
        assert_ne!(a, b);
        check_session_id(&a).unwrap();
    }
}
