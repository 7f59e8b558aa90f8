//! Group commit for session logs: the durable points that may become durable just after the caller
//! has answered (the gateway's end of an exchange) are synced by one background thread, in batches.
//!
//! Why: a gateway that fsyncs every request's log before answering adds a disk flush (hundreds of
//! microseconds to milliseconds) to every response, and one flush per request caps its throughput at
//! the disk's flush rate. The contract (docs/DESIGN.md, "Session log") only needs the retry count to
//! survive a crash: an `llm/retry` is still synced before its wait (`crate::log::FileLog::append_durable`).
//! What a crash can lose here is the end of an exchange answered in the last moments before it; a
//! client that retries with the same idempotency key then runs it again, as it would had the gateway
//! died before answering.
//!
//! On Linux one `syncfs` on the sessions directory makes a whole batch durable (every file written
//! and the directory's new entries) in one call, however many requests it holds; elsewhere each file
//! and then the directory are synced.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, mpsc};

/// The most files one batch takes before it is synced (a bound on the work between two flushes
/// when requests arrive faster than the disk syncs).
const MAX_BATCH: usize = 4096;

enum Job {
    /// A session file by path: the writer's descriptor is not shared, since the session's write
    /// lock belongs to it (a duplicate would hold the lock until the batch is done).
    Sync(PathBuf),
    /// Answered once everything submitted before it is durable.
    Flush(mpsc::SyncSender<()>),
}

/// The background committer of one sessions directory.
pub struct GroupCommit {
    jobs: mpsc::Sender<Job>,
    dir: File,
    path: PathBuf,
    stats: Arc<Stats>,
}

#[derive(Default)]
struct Stats {
    batches: AtomicU64,
    files: AtomicU64,
    failures: AtomicU64,
}

impl GroupCommit {
    /// Starts the committer thread for the sessions directory `dir` (opened for reading) at `path`.
    pub fn start(dir: File, path: &Path) -> std::io::Result<Arc<GroupCommit>> {
        let (jobs, queue) = mpsc::channel();
        let stats = Arc::new(Stats::default());
        let thread_dir = dir.try_clone()?;
        let thread_path = path.to_path_buf();
        let thread_stats = stats.clone();
        std::thread::Builder::new()
            .name("dsh-log-commit".into())
            .spawn(move || run(queue, thread_dir, thread_path, thread_stats))?;
        Ok(Arc::new(GroupCommit {
            jobs,
            dir,
            path: path.to_path_buf(),
            stats,
        }))
    }

    /// Hands a session file to the committer: it is durable after the next batch.
    pub fn submit(&self, file: PathBuf) {
        // The thread only ends when every sender is gone, and `self` is one.
        let _ = self.jobs.send(Job::Sync(file));
    }

    /// Waits until everything submitted so far is durable (a draining gateway, before it exits).
    pub fn flush(&self) {
        let (done, wait) = mpsc::sync_channel(1);
        if self.jobs.send(Job::Flush(done)).is_ok() {
            let _ = wait.recv();
        }
    }

    /// Syncs the directory itself now: a new session file's entry, before the first event that must
    /// be durable at once.
    pub fn sync_dir(&self) -> std::io::Result<()> {
        self.dir.sync_all()
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Batches synced so far.
    pub fn batches(&self) -> u64 {
        self.stats.batches.load(Ordering::Relaxed)
    }

    /// Files submitted and synced so far (a file submitted twice counts twice).
    pub fn files(&self) -> u64 {
        self.stats.files.load(Ordering::Relaxed)
    }

    /// Batches whose sync failed (each is logged as an error naming the directory).
    pub fn failures(&self) -> u64 {
        self.stats.failures.load(Ordering::Relaxed)
    }
}

fn run(queue: mpsc::Receiver<Job>, dir: File, path: PathBuf, stats: Arc<Stats>) {
    while let Some((files, waiters)) = next_batch(&queue) {
        if !files.is_empty() {
            match sync_batch(&dir, &files) {
                Ok(()) => {
                    stats.batches.fetch_add(1, Ordering::Relaxed);
                    stats.files.fetch_add(files.len() as u64, Ordering::Relaxed);
                }
                Err(e) => {
                    // The requests were answered already: the error cannot reach them. It is loud,
                    // counted, and the next durable point of each session syncs its file again.
                    stats.failures.fetch_add(1, Ordering::Relaxed);
                    tracing::error!(
                        "syncing {} session logs in {} failed: {e}; their last events may not survive a crash \
                         (check the disk: full, read-only, or failing)",
                        files.len(),
                        path.display()
                    );
                }
            }
        }
        for done in waiters {
            let _ = done.send(());
        }
    }
}

/// Waits for a job, then takes everything queued behind it (up to [`MAX_BATCH`] files): what
/// arrived while the previous batch was syncing is synced together. `None` once every sender is gone.
fn next_batch(queue: &mpsc::Receiver<Job>) -> Option<(Vec<PathBuf>, Vec<mpsc::SyncSender<()>>)> {
    let mut files = Vec::new();
    let mut waiters = Vec::new();
    let mut next = Some(queue.recv().ok()?);
    while let Some(job) = next {
        match job {
            Job::Sync(file) => files.push(file),
            Job::Flush(done) => waiters.push(done),
        }
        next = if files.len() < MAX_BATCH {
            queue.try_recv().ok()
        } else {
            None
        };
    }
    Some((files, waiters))
}

#[cfg(target_os = "linux")]
fn sync_batch(dir: &File, _files: &[PathBuf]) -> std::io::Result<()> {
    use std::os::fd::AsRawFd;
    // SAFETY: syncfs only reads the descriptor, which `dir` keeps open for the call.
    if unsafe { libc::syncfs(dir.as_raw_fd()) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

#[cfg(not(target_os = "linux"))]
fn sync_batch(dir: &File, files: &[PathBuf]) -> std::io::Result<()> {
    for file in files {
        File::open(file)?.sync_data()?;
    }
    dir.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn committer(dir: &Path) -> Arc<GroupCommit> {
        GroupCommit::start(File::open(dir).unwrap(), dir).unwrap()
    }

    #[test]
    fn flush_returns_once_every_submitted_file_is_synced() {
        let tmp = tempfile::tempdir().unwrap();
        let commit = committer(tmp.path());
        for i in 0..50 {
            let path = tmp.path().join(format!("{i}.jsonl"));
            File::create(&path).unwrap().write_all(b"{}\n").unwrap();
            commit.submit(path);
        }
        commit.flush();
        assert_eq!(commit.files(), 50);
        assert!(
            commit.batches() >= 1 && commit.batches() <= 50,
            "{} batches",
            commit.batches()
        );
        assert_eq!(commit.failures(), 0);
    }

    #[test]
    fn what_queued_up_during_a_sync_is_one_batch_up_to_the_bound() {
        let tmp = tempfile::tempdir().unwrap();
        let (jobs, queue) = mpsc::channel();
        for _ in 0..MAX_BATCH + 10 {
            jobs.send(Job::Sync(tmp.path().join("s.jsonl"))).unwrap();
        }
        let (done, _wait) = mpsc::sync_channel(1);
        jobs.send(Job::Flush(done)).unwrap();
        let (files, waiters) = next_batch(&queue).unwrap();
        assert_eq!((files.len(), waiters.len()), (MAX_BATCH, 0));
        let (files, waiters) = next_batch(&queue).unwrap();
        assert_eq!(
            (files.len(), waiters.len()),
            (10, 1),
            "the rest, and the flush behind it"
        );
        drop(jobs);
        assert!(
            next_batch(&queue).is_none(),
            "the committer ends when every sender is gone"
        );
    }

    #[test]
    fn a_flush_with_nothing_submitted_returns() {
        let tmp = tempfile::tempdir().unwrap();
        let commit = committer(tmp.path());
        commit.flush();
        assert_eq!((commit.files(), commit.batches()), (0, 0));
    }
}
