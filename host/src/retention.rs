//! Retention of session logs: which sessions were last written longer ago than an age, and their
//! deletion. Only through the session store's own listing and removal
//! ([`SessionStore::list_sessions`], [`SessionStore::remove_session`]), so another store backend
//! prunes the same way. A session that a running process writes is never deleted.
//!
//! Off unless asked for: by `dsh-host sessions prune --older-than AGE`, or by `[sessions] retention`
//! in the config, which `run` and `serve` apply when they start (and `serve` every hour).

use crate::config::SessionsConfig;
use crate::store::{SessionInfo, SessionStore};
use anyhow::Result;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

/// How often a long-running `serve` applies the configured retention again.
pub const SERVE_PRUNE_INTERVAL: Duration = Duration::from_secs(3600);

/// What a prune did (or, dry, would do).
#[derive(Debug, Default)]
pub struct Pruned {
    /// Deleted (or, dry, to be deleted), oldest first.
    pub removed: Vec<SessionInfo>,
    /// Old enough, but being written by a running process: kept.
    pub in_use: Vec<SessionInfo>,
    /// Old enough, but deleting them failed: each with the error.
    pub failed: Vec<(SessionInfo, String)>,
}

impl Pruned {
    pub fn removed_bytes(&self) -> u64 {
        self.removed.iter().map(|s| s.bytes).sum()
    }
}

/// The sessions last written more than `age` before `now`, oldest first.
pub fn older_than(
    store: &SessionStore,
    age: Duration,
    now: SystemTime,
) -> Result<Vec<SessionInfo>> {
    let cutoff = now.checked_sub(age).unwrap_or(SystemTime::UNIX_EPOCH);
    let mut old: Vec<SessionInfo> = store
        .list_sessions()?
        .into_iter()
        .filter(|s| s.modified < cutoff)
        .collect();
    old.sort_by(|a, b| a.modified.cmp(&b.modified).then_with(|| a.id.cmp(&b.id)));
    Ok(old)
}

/// Deletes the sessions last written more than `age` before `now` (with `dry_run`, only says which).
pub fn prune(
    store: &SessionStore,
    age: Duration,
    now: SystemTime,
    dry_run: bool,
) -> Result<Pruned> {
    let mut pruned = Pruned::default();
    for session in older_than(store, age, now)? {
        if dry_run {
            pruned.removed.push(session);
            continue;
        }
        match store.remove_session(&session.id) {
            Ok(true) => pruned.removed.push(session),
            Ok(false) => pruned.in_use.push(session),
            Err(e) => pruned.failed.push((session, format!("{e:#}"))),
        }
    }
    Ok(pruned)
}

/// Applies `[sessions] retention`, if set: deletes the sessions older than it, says so at info level,
/// and warns about what could not be deleted. A failure here never stops the caller's work.
pub fn apply_configured(store: &SessionStore, config: &SessionsConfig) {
    let Some(age) = config.retention else {
        return;
    };
    match prune(store, age, SystemTime::now(), false) {
        Ok(pruned) => {
            if !pruned.removed.is_empty() {
                tracing::info!(
                    "[sessions] retention = {}: deleted {} session(s) ({} bytes) from {}",
                    humantime::format_duration(age),
                    pruned.removed.len(),
                    pruned.removed_bytes(),
                    store.location()
                );
            }
            for (session, error) in &pruned.failed {
                tracing::warn!(
                    "[sessions] retention: could not delete session '{}': {error}",
                    session.id
                );
            }
        }
        Err(e) => tracing::warn!(
            "[sessions] retention: could not prune {}: {e:#}",
            store.location()
        ),
    }
}

/// For `serve`: applies the configured retention now and then every [`SERVE_PRUNE_INTERVAL`], in the
/// background, for as long as the process runs. Nothing is started when retention is off.
pub fn spawn_periodic(sessions_dir: &Path, config: &SessionsConfig) {
    if config.retention.is_none() {
        return;
    }
    let (dir, config): (PathBuf, SessionsConfig) = (sessions_dir.to_path_buf(), config.clone());
    tokio::spawn(async move {
        loop {
            let (dir, config) = (dir.clone(), config.clone());
            // Listing and deleting files blocks: keep it off the gateway's workers.
            let _ = tokio::task::spawn_blocking(move || {
                match SessionStore::open_configured(&dir, &config) {
                    Ok(store) => apply_configured(&store, &config),
                    Err(e) => tracing::warn!("[sessions] retention: {e:#}"),
                }
            })
            .await;
            tokio::time::sleep(SERVE_PRUNE_INTERVAL).await;
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const DAY: Duration = Duration::from_secs(86_400);

    /// A store holding sessions `ids`, the i-th last written `ages[i]` ago.
    fn store_with(ages: &[(&str, Duration)]) -> (tempfile::TempDir, SessionStore) {
        let tmp = tempfile::tempdir().unwrap();
        let files = crate::log::FileStore::open(tmp.path()).unwrap();
        for (id, age) in ages {
            let mut log = files.create_named(id).unwrap();
            log.append("session/start", json!({})).unwrap();
            drop(log);
            let file = std::fs::File::options()
                .append(true)
                .open(files.file_of(id))
                .unwrap();
            file.set_modified(SystemTime::now() - *age).unwrap();
        }
        (tmp, SessionStore::Files(files))
    }

    fn torn_file_of(store: &SessionStore, id: &str) -> PathBuf {
        Path::new(&store.location()).join(format!("{id}.jsonl.torn"))
    }

    fn ids(sessions: &[SessionInfo]) -> Vec<&str> {
        sessions.iter().map(|s| s.id.as_str()).collect()
    }

    #[test]
    fn only_sessions_older_than_the_age_are_deleted_oldest_first() {
        let (_tmp, store) = store_with(&[("fresh", DAY), ("old", 40 * DAY), ("older", 90 * DAY)]);
        std::fs::write(torn_file_of(&store, "old"), "torn\n").unwrap();

        let pruned = prune(&store, 30 * DAY, SystemTime::now(), false).unwrap();
        assert_eq!(ids(&pruned.removed), ["older", "old"]);
        assert!(pruned.in_use.is_empty() && pruned.failed.is_empty());
        assert!(pruned.removed_bytes() > 0);
        assert_eq!(ids(&store.list_sessions().unwrap()), ["fresh"]);
        assert!(
            !torn_file_of(&store, "old").exists(),
            "the torn tail goes with its session"
        );
    }

    #[test]
    fn a_dry_run_deletes_nothing() {
        let (_tmp, store) = store_with(&[("fresh", DAY), ("old", 40 * DAY)]);
        let pruned = prune(&store, 30 * DAY, SystemTime::now(), true).unwrap();
        assert_eq!(ids(&pruned.removed), ["old"]);
        assert_eq!(ids(&store.list_sessions().unwrap()), ["fresh", "old"]);
    }

    #[test]
    fn a_session_being_written_is_kept_and_reported() {
        let (_tmp, store) = store_with(&[("old", 40 * DAY)]);
        let writer = store.claim("old").unwrap();
        let pruned = prune(&store, 30 * DAY, SystemTime::now(), false).unwrap();
        assert!(pruned.removed.is_empty());
        assert_eq!(ids(&pruned.in_use), ["old"]);
        drop(writer);
        assert_eq!(ids(&store.list_sessions().unwrap()), ["old"]);
    }

    #[test]
    fn configured_retention_is_off_unless_set() {
        let (_tmp, store) = store_with(&[("old", 4000 * DAY)]);
        apply_configured(&store, &SessionsConfig::default());
        assert_eq!(ids(&store.list_sessions().unwrap()), ["old"]);
        apply_configured(
            &store,
            &SessionsConfig {
                retention: Some(30 * DAY),
                ..SessionsConfig::default()
            },
        );
        assert!(store.list_sessions().unwrap().is_empty());
    }
}
