//! Where sessions are kept: the session store every front end uses, over one of two backends.
//!
//! - Files ([`crate::log`]): one JSON Lines file per session in the sessions directory. The default,
//!   embedded: nothing to run.
//! - PostgreSQL ([`crate::pg_store`]): one row per event, for several processes (machines) that must
//!   see each other's sessions. Chosen by `DSH_SESSIONS_URL` or `[sessions] url` in the config, never
//!   by a flag: a URL may hold a password, and a command line is readable by every user of the machine.
//!
//! Both give the same contract: one writer per session (a file lock, or a lease), events numbered
//! from 1, a durable point survives a crash (an fsync, or a committed transaction), and readers
//! ([`SessionRead`]) never modify anything. The types here only dispatch; each backend's module says
//! how it keeps that contract.

use crate::config::SessionsConfig;
use crate::group_commit::GroupCommit;
use crate::log::{FileClaim, FileFollower, FileLog, FileStore};
use crate::pg_store::{PgClaim, PgFollower, PgLog, PgStore};
use anyhow::Result;
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;

pub use crate::log::{Event, SessionInfo, SessionRead, check_session_id};

/// The environment variable that names a PostgreSQL sessions database (it overrides `[sessions] url`).
pub const SESSIONS_URL_ENV: &str = "DSH_SESSIONS_URL";

/// Which backend, from the environment and the config: `DSH_SESSIONS_URL` (when set and not empty),
/// else `[sessions] url`, else the files of the sessions directory.
pub fn sessions_url(env: Option<String>, config: &SessionsConfig) -> Option<String> {
    env.filter(|url| !url.trim().is_empty())
        .or_else(|| config.url.as_ref().map(|url| url.expose().to_string()))
}

/// The sessions, in files or in PostgreSQL.
pub enum SessionStore {
    Files(FileStore),
    Postgres(PgStore),
}

impl SessionStore {
    /// The files of the sessions directory `dir` (see [`FileStore::open`]).
    pub fn open(dir: &Path) -> Result<Self> {
        Ok(SessionStore::Files(FileStore::open(dir)?))
    }

    /// The backend the environment and the config choose (see [`sessions_url`]): PostgreSQL, connected
    /// and its schema migrated, or the files of `dir`.
    pub fn open_configured(dir: &Path, config: &SessionsConfig) -> Result<Self> {
        match sessions_url(std::env::var(SESSIONS_URL_ENV).ok(), config) {
            Some(url) => Ok(SessionStore::Postgres(PgStore::connect(
                &url,
                config.lease,
            )?)),
            None => Self::open(dir),
        }
    }

    /// For a gateway: the files' durable points at the end of an exchange are synced in batches
    /// ([`crate::group_commit`]). PostgreSQL groups its own commits; nothing changes there.
    pub fn with_group_commit(self) -> Result<Self> {
        Ok(match self {
            SessionStore::Files(files) => SessionStore::Files(files.with_group_commit()?),
            postgres => postgres,
        })
    }

    /// Waits until every event appended so far is durable.
    pub fn flush(&self) {
        if let SessionStore::Files(files) = self {
            files.flush();
        }
    }

    /// The files' committer, when they group their syncs.
    pub fn group_commit(&self) -> Option<&Arc<GroupCommit>> {
        match self {
            SessionStore::Files(files) => files.group_commit(),
            SessionStore::Postgres(_) => None,
        }
    }

    /// The fleet's cool-downs ([`crate::cooldown`]) as this store shares them: in the database with
    /// PostgreSQL (every process that uses it sees them), in this process's memory with the files.
    pub fn cooldowns(&self) -> crate::cooldown::CoolDowns {
        match self {
            SessionStore::Files(_) => crate::cooldown::CoolDowns::local(),
            SessionStore::Postgres(pg) => crate::cooldown::CoolDowns::Postgres(pg.cooldowns()),
        }
    }

    /// Where the sessions are, for messages: the directory, or the database URL without its password.
    pub fn location(&self) -> String {
        match self {
            SessionStore::Files(files) => files.path().display().to_string(),
            SessionStore::Postgres(pg) => pg.location().to_string(),
        }
    }

    /// Starts a new session under a fresh id, held for writing.
    pub fn create(&self) -> Result<SessionLog> {
        Ok(match self {
            SessionStore::Files(files) => SessionLog::Files(files.create()?),
            SessionStore::Postgres(pg) => SessionLog::Postgres(pg.create()?),
        })
    }

    /// Starts a new session under `id`; fails if it exists.
    pub fn create_named(&self, id: &str) -> Result<SessionLog> {
        Ok(match self {
            SessionStore::Files(files) => SessionLog::Files(files.create_named(id)?),
            SessionStore::Postgres(pg) => SessionLog::Postgres(pg.create_named(id)?),
        })
    }

    /// Claims a session for writing (failing at once if another writer holds it) and reads it;
    /// nothing is modified until [`SessionClaim::open_for_append`].
    pub fn claim(&self, id: &str) -> Result<SessionClaim<'_>> {
        Ok(match self {
            SessionStore::Files(files) => SessionClaim::Files(files.claim(id)?),
            SessionStore::Postgres(pg) => SessionClaim::Postgres(pg.claim(id)?),
        })
    }

    /// Claims a session and opens it for appending at once.
    pub fn reopen(&self, id: &str) -> Result<(SessionLog, SessionRead)> {
        self.claim(id)?.open_for_append()
    }

    /// A session's events, modifying nothing.
    pub fn read(&self, id: &str) -> Result<SessionRead> {
        match self {
            SessionStore::Files(files) => files.read(id),
            SessionStore::Postgres(pg) => pg.read(id),
        }
    }

    /// Whether session `id` exists.
    pub fn exists(&self, id: &str) -> Result<bool> {
        check_session_id(id)?;
        match self {
            SessionStore::Files(files) => Ok(files.file_of(id).exists()),
            SessionStore::Postgres(pg) => pg.exists(id),
        }
    }

    /// Every session, with when it was last written and its size, sorted by id.
    pub fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        match self {
            SessionStore::Files(files) => files.list_sessions(),
            SessionStore::Postgres(pg) => pg.list_sessions(),
        }
    }

    /// Deletes a session unless a writer holds it (`Ok(false)`).
    pub fn remove_session(&self, id: &str) -> Result<bool> {
        match self {
            SessionStore::Files(files) => files.remove_session(id),
            SessionStore::Postgres(pg) => pg.remove_session(id),
        }
    }

    /// The ids of every session, in no particular order.
    pub fn ids(&self) -> Result<Vec<String>> {
        match self {
            SessionStore::Files(files) => files.ids(),
            SessionStore::Postgres(pg) => pg.ids(),
        }
    }

    /// Whether a live writer holds the session now.
    pub fn is_being_written(&self, id: &str) -> Result<bool> {
        match self {
            SessionStore::Files(files) => files.is_being_written(id),
            SessionStore::Postgres(pg) => pg.is_being_written(id),
        }
    }

    /// How long until another process's hold on session `id` ends if that process is dead: the rest
    /// of its lease in PostgreSQL (a live holder renews it first). `None` when nothing holds it, and
    /// always with the files, whose lock the system releases the moment its holder dies.
    pub fn lease_lapses_in(&self, id: &str) -> Result<Option<std::time::Duration>> {
        match self {
            SessionStore::Files(_) => Ok(None),
            SessionStore::Postgres(pg) => pg.lease_lapses_in(id),
        }
    }

    /// Follows a session from after event `after_seq` (`dsh-host log --follow`).
    pub fn follow(&self, id: &str, after_seq: u64) -> Result<SessionFollower> {
        Ok(match self {
            SessionStore::Files(files) => SessionFollower::Files(files.follow(id, after_seq)?),
            SessionStore::Postgres(pg) => SessionFollower::Postgres(pg.follow(id, after_seq)?),
        })
    }
}

/// A session held for writing and read, not yet modified (see [`SessionStore::claim`]). Dropping it
/// lets the session go untouched.
pub enum SessionClaim<'a> {
    Files(FileClaim<'a>),
    Postgres(PgClaim),
}

impl SessionClaim<'_> {
    /// What the session holds (read while held).
    pub fn read(&self) -> &SessionRead {
        match self {
            SessionClaim::Files(claim) => claim.read(),
            SessionClaim::Postgres(claim) => claim.read(),
        }
    }

    /// Opens the session for appending, still held.
    pub fn open_for_append(self) -> Result<(SessionLog, SessionRead)> {
        Ok(match self {
            SessionClaim::Files(claim) => {
                let (log, read) = claim.open_for_append()?;
                (SessionLog::Files(log), read)
            }
            SessionClaim::Postgres(claim) => {
                let (log, read) = claim.open_for_append();
                (SessionLog::Postgres(log), read)
            }
        })
    }
}

/// An open session log, the session's one writer until dropped.
pub enum SessionLog {
    Files(FileLog),
    Postgres(PgLog),
}

impl SessionLog {
    pub fn id(&self) -> &str {
        match self {
            SessionLog::Files(log) => log.id(),
            SessionLog::Postgres(log) => log.id(),
        }
    }

    /// Appends an event: seen by readers, not yet durable (files: written to the OS; PostgreSQL:
    /// committed with the next durable point, or when the log is dropped).
    pub fn append(&mut self, kind: &str, data: Value) -> Result<u64> {
        match self {
            SessionLog::Files(log) => log.append(kind, data),
            SessionLog::Postgres(log) => log.append(kind, data),
        }
    }

    /// Appends an event and makes it, and every event before it, durable before returning.
    pub fn append_durable(&mut self, kind: &str, data: Value) -> Result<u64> {
        match self {
            SessionLog::Files(log) => log.append_durable(kind, data),
            SessionLog::Postgres(log) => log.append_durable(kind, data),
        }
    }

    /// Appends an event that ends a unit of work: durable before returning, except with the files'
    /// group commit (durable with the next batch).
    pub fn append_committed(&mut self, kind: &str, data: Value) -> Result<u64> {
        match self {
            SessionLog::Files(log) => log.append_committed(kind, data),
            SessionLog::Postgres(log) => log.append_durable(kind, data),
        }
    }
}

/// A reader that follows a session as its writer appends.
pub enum SessionFollower {
    Files(FileFollower),
    Postgres(PgFollower),
}

impl SessionFollower {
    /// The events appended since the last call.
    pub fn poll(&mut self) -> Result<Vec<Event>> {
        match self {
            SessionFollower::Files(follower) => follower.poll(),
            SessionFollower::Postgres(follower) => follower.poll(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::SessionsUrl;

    #[test]
    fn the_environment_wins_over_the_config_and_neither_means_files() {
        let configured = SessionsConfig {
            url: Some(SessionsUrl::new("postgres://config/db".into())),
            ..SessionsConfig::default()
        };
        assert_eq!(
            sessions_url(Some("postgres://env/db".into()), &configured).as_deref(),
            Some("postgres://env/db")
        );
        assert_eq!(
            sessions_url(None, &configured).as_deref(),
            Some("postgres://config/db")
        );
        // An empty variable is unset (as `DSH_SESSIONS_URL= dsh-host ...` means to a person).
        assert_eq!(
            sessions_url(Some(" ".into()), &configured).as_deref(),
            Some("postgres://config/db")
        );
        assert_eq!(sessions_url(None, &SessionsConfig::default()), None);
        assert_eq!(
            sessions_url(Some(String::new()), &SessionsConfig::default()),
            None
        );
    }
}
