//! Sessions in PostgreSQL: the backend of [`crate::store::SessionStore`] chosen by `DSH_SESSIONS_URL`
//! or `[sessions] url`, for processes on several machines that must see each other's sessions.
//!
//! Tables (created and migrated at start, each migration recorded in `dsh_schema_version`):
//! `dsh_sessions`, one row per session (when it was last written, its size, its lease), and
//! `dsh_events`, one row per event, `(session, seq)` its primary key, the event's JSON kept as
//! written (type `json`, so `log --json` prints what the file backend would).
//!
//! Durability: a durable point is a committed transaction. [`PgLog::append`] keeps the event in
//! memory; [`PgLog::append_durable`] commits every event kept so far with it, in one transaction, so
//! a database lost mid-turn leaves the log at its last durable point, never with part of a batch.
//! What is kept in memory when the log is dropped is committed then (best effort, as a file's
//! unsynced lines are flushed to the OS); a process that dies loses it, as a crash loses a file's
//! unsynced lines.
//!
//! One writer per session: a lease on the session's row (`lease_holder`, `lease_expires`, the
//! database's clock), taken by a claim or a create, renewed by its holder every third of its length
//! and released when the log is dropped. A holder that dies stops renewing, and its lease lapses.
//! Every commit checks in its transaction that the lease is still its own, so a holder that lost it
//! (paused past its expiry while another took over) cannot write. Not an advisory lock: a session-level
//! one stays with a pooled connection after its user is done, and outlives a dead machine until TCP
//! notices. (Migrations do use a transaction-level advisory lock, released by their commit.)
//!
//! Sync over async: the session log's API is synchronous (the file backend's writes and fsyncs block,
//! and the session code calls them from its async tasks). The PostgreSQL client is async. Rather than
//! make every append async across the session code for one backend, this store owns a small tokio
//! runtime on threads of its own, with the connection pool on it; a call spawns its query there and
//! waits for the answer on a std channel. The caller's thread blocks for a round trip, as it blocks for
//! an fsync with files; the caller's runtime is never re-entered (a `block_on` inside it would panic),
//! and lease renewals run on the store's runtime whatever the callers do.
//!
//! No TLS: loopback and private networks. A URL that asks for TLS (`sslmode=require`, `verify-ca`,
//! `verify-full`) is refused rather than silently sent in the clear.

use crate::log::{Event, SessionInfo, SessionRead, check_session_id};
use anyhow::{Context, Result, anyhow, bail};
use deadpool_postgres::{Manager, ManagerConfig, Pool, RecyclingMethod};
use serde_json::{Map, Value};
use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};
use tokio_postgres::config::SslMode;
use tokio_postgres::types::ToSql;

/// A statement's parameter, owned: it goes to the store's runtime with the statement.
type Param = Box<dyn ToSql + Send + Sync>;

/// The schema, one migration per version: version N is `MIGRATIONS[N - 1]`. Never edit one that has
/// shipped; add the next.
const MIGRATIONS: &[&str] = &[
    // 1: sessions and their events.
    "CREATE TABLE dsh_sessions (
         id text PRIMARY KEY,
         created timestamptz NOT NULL DEFAULT now(),
         modified timestamptz NOT NULL DEFAULT now(),
         bytes bigint NOT NULL DEFAULT 0,
         lease_holder text,
         lease_expires timestamptz
     );
     CREATE TABLE dsh_events (
         session text NOT NULL REFERENCES dsh_sessions (id) ON DELETE CASCADE,
         seq bigint NOT NULL CHECK (seq > 0),
         event json NOT NULL,
         PRIMARY KEY (session, seq)
     );",
    // 2: fleet back-pressure (crate::cooldown): one row per (provider, key digest, model) limited.
    "CREATE TABLE dsh_cooldowns (
         provider text NOT NULL,
         key_id text NOT NULL,
         model text NOT NULL,
         until timestamptz NOT NULL,
         code text NOT NULL,
         set_by text NOT NULL,
         PRIMARY KEY (provider, key_id, model)
     );",
];

/// The key of the transaction-level advisory lock that serializes migrations of one database.
const MIGRATION_LOCK: i64 = 0x6473_685f_7363_6865; // "dsh_sche"

/// Connections per process: enough for a gateway's concurrent sessions to commit side by side.
const POOL_SIZE: usize = 16;

/// Calls that may wait at once without holding up their caller's other tasks (see `Db::call`).
const OVERLAPPING_CALLS: usize = 2 * POOL_SIZE;

/// How long connecting (or waiting for a free connection) may take before a call fails.
const CONNECT_BOUND: Duration = Duration::from_secs(10);

/// The bound on one call to the database, whatever it does: a caller never hangs on a lost network.
const CALL_BOUND: Duration = Duration::from_secs(30);

/// Sessions in a PostgreSQL database.
pub struct PgStore {
    db: Arc<Db>,
}

/// The pool, the runtime it runs on, and how this process names itself as a lease holder.
struct Db {
    pool: Pool,
    handle: tokio::runtime::Handle,
    /// The URL without its password, for every message.
    location: String,
    lease: Duration,
    /// `host pid N`: who holds a lease, as another process's error names it.
    process: String,
    leases: AtomicU64,
    /// Calls waiting now through `block_in_place` (at most [`OVERLAPPING_CALLS`]).
    overlapping: AtomicUsize,
    /// Dropped with the store: the runtime's thread then ends (and the runtime with it).
    _stop: tokio::sync::oneshot::Sender<()>,
}

impl PgStore {
    /// Connects to the database at `url` and creates or migrates its schema. A URL that cannot be
    /// used, a database that cannot be reached, or a schema newer than this dsh-host is an error that
    /// names the URL, without its password.
    pub fn connect(url: &str, lease: Duration) -> Result<PgStore> {
        let location = redact_url(url);
        let mut config = pg_config(url, &location)?;
        if config.get_connect_timeout().is_none() {
            config.connect_timeout(CONNECT_BOUND);
        }
        if config.get_application_name().is_none() {
            config.application_name("dsh-host");
        }
        let manager = Manager::from_config(
            config,
            tokio_postgres::NoTls,
            ManagerConfig {
                recycling_method: RecyclingMethod::Fast,
            },
        );
        let pool = Pool::builder(manager)
            .max_size(POOL_SIZE)
            .runtime(deadpool_postgres::Runtime::Tokio1)
            .wait_timeout(Some(CONNECT_BOUND))
            .create_timeout(Some(CONNECT_BOUND))
            .build()
            .with_context(|| {
                format!("setting up connections to the sessions database {location}")
            })?;
        let (handle, stop) = start_runtime()?;
        let db = Arc::new(Db {
            pool,
            handle,
            location,
            lease,
            process: process_name(),
            leases: AtomicU64::new(0),
            overlapping: AtomicUsize::new(0),
            _stop: stop,
        });
        let pool = db.pool.clone();
        db.call(migrate(pool)).map_err(|e| {
            anyhow!(
                "cannot use the sessions database {}: {e:#}. Check that PostgreSQL is running there and \
                 that DSH_SESSIONS_URL (or `url` under [sessions] in the config) names it",
                db.location
            )
        })?;
        Ok(PgStore { db })
    }

    /// The database URL without its password.
    pub fn location(&self) -> &str {
        &self.db.location
    }

    /// Starts a new session under a fresh id, held for writing.
    pub fn create(&self) -> Result<PgLog> {
        self.create_named(&crate::log::new_session_id())
    }

    /// Starts a new session under `id`, held for writing; fails if it exists.
    pub fn create_named(&self, id: &str) -> Result<PgLog> {
        check_session_id(id)?;
        let holder = self.db.new_holder();
        let created = self
            .db
            .execute(
                "INSERT INTO dsh_sessions (id, lease_holder, lease_expires)
                 VALUES ($1, $2, now() + make_interval(secs => $3)) ON CONFLICT (id) DO NOTHING",
                vec![
                    Box::new(id.to_string()),
                    Box::new(holder.clone()),
                    Box::new(self.db.lease_secs()),
                ],
            )
            .with_context(|| format!("creating session '{id}' in {}", self.db.location))?;
        if created == 0 {
            bail!("session '{id}' exists already in {}", self.db.location);
        }
        Ok(PgLog {
            lease: Lease::start(&self.db, id, holder),
            next_seq: 1,
            pending: Vec::new(),
            broken: None,
        })
    }

    /// Takes the session's lease (failing at once, naming the holder, while another writer holds it)
    /// and reads it. Nothing but the lease is modified; dropping the claim releases it.
    pub fn claim(&self, id: &str) -> Result<PgClaim> {
        check_session_id(id)?;
        let holder = self.db.new_holder();
        let rows = self
            .db
            .query(
                // The outer SELECT sees the row as it was before the UPDATE: the holder that refused us.
                "WITH taken AS (
                     UPDATE dsh_sessions
                     SET lease_holder = $2, lease_expires = now() + make_interval(secs => $3)
                     WHERE id = $1 AND (lease_holder IS NULL OR lease_expires <= now())
                     RETURNING id)
                 SELECT EXISTS (SELECT 1 FROM taken), s.lease_holder, s.lease_expires,
                        greatest(0, extract(epoch FROM s.lease_expires - now()))::float8
                 FROM dsh_sessions s WHERE s.id = $1",
                vec![
                    Box::new(id.to_string()),
                    Box::new(holder.clone()),
                    Box::new(self.db.lease_secs()),
                ],
            )
            .with_context(|| format!("claiming session '{id}' in {}", self.db.location))?;
        let Some(row) = rows.first() else {
            return Err(self.missing(id));
        };
        if row.get::<_, bool>(0) {
            let lease = Lease::start(&self.db, id, holder);
            let read = self.read(id)?;
            let next_seq = read.events.last().map_or(1, |e| e.seq + 1);
            return Ok(PgClaim {
                log: PgLog {
                    lease,
                    next_seq,
                    pending: Vec::new(),
                    broken: None,
                },
                read,
            });
        }
        Err(LeaseHeld {
            id: id.to_string(),
            holder: row
                .get::<_, Option<String>>(1)
                .unwrap_or_else(|| "unknown".into()),
            until: row.get::<_, Option<SystemTime>>(2),
            lapses_in: Duration::from_secs_f64(row.get::<_, Option<f64>>(3).unwrap_or(0.0)),
        }
        .into())
    }

    /// The fleet's cool-downs ([`crate::cooldown`]), in this database.
    pub fn cooldowns(&self) -> PgCoolDowns {
        PgCoolDowns {
            db: self.db.clone(),
        }
    }

    /// A session's events, in order, modifying nothing.
    pub fn read(&self, id: &str) -> Result<SessionRead> {
        check_session_id(id)?;
        match self.events_after(id, 0)? {
            None => Err(self.missing(id)),
            Some(events) => Ok(SessionRead {
                events,
                torn_tail: None,
                torn_tail_file: None,
                line_in_progress: false,
            }),
        }
    }

    /// The events of session `id` after `after`, or `None` when there is no such session.
    fn events_after(&self, id: &str, after: u64) -> Result<Option<Vec<Event>>> {
        let (pool, sid, after_seq) = (self.db.pool.clone(), id.to_string(), after as i64);
        let rows = self
            .db
            .call(async move {
                let client = pool.get().await?;
                let exists: bool = client
                    .query_one("SELECT EXISTS (SELECT 1 FROM dsh_sessions WHERE id = $1)", &[&sid])
                    .await?
                    .get(0);
                if !exists {
                    return Ok(None);
                }
                let rows = client
                    .query(
                        "SELECT seq, event::text FROM dsh_events WHERE session = $1 AND seq > $2 ORDER BY seq",
                        &[&sid, &after_seq],
                    )
                    .await?;
                Ok(Some(rows.iter().map(|r| (r.get::<_, i64>(0), r.get::<_, String>(1))).collect::<Vec<_>>()))
            })
            .with_context(|| format!("reading session '{id}' from {}", self.db.location))?;
        let Some(rows) = rows else { return Ok(None) };
        rows.into_iter()
            .map(|(seq, text)| {
                serde_json::from_str::<Event>(&text).with_context(|| {
                    format!(
                        "session '{id}' event {seq} in {} is not a valid event",
                        self.db.location
                    )
                })
            })
            .collect::<Result<Vec<_>>>()
            .map(Some)
    }

    /// Whether session `id` exists.
    pub fn exists(&self, id: &str) -> Result<bool> {
        let rows = self
            .db
            .query(
                "SELECT 1 FROM dsh_sessions WHERE id = $1",
                vec![Box::new(id.to_string())],
            )
            .with_context(|| format!("looking up session '{id}' in {}", self.db.location))?;
        Ok(!rows.is_empty())
    }

    /// Every session, with when it was last written and the size of its events, sorted by id.
    pub fn list_sessions(&self) -> Result<Vec<SessionInfo>> {
        let rows = self
            .db
            .query(
                "SELECT id, modified, bytes FROM dsh_sessions ORDER BY id",
                Vec::new(),
            )
            .with_context(|| format!("listing the sessions in {}", self.db.location))?;
        Ok(rows
            .iter()
            .map(|r| SessionInfo {
                id: r.get(0),
                modified: r.get(1),
                bytes: r.get::<_, i64>(2).max(0) as u64,
            })
            .collect())
    }

    /// The ids of every session.
    pub fn ids(&self) -> Result<Vec<String>> {
        Ok(self.list_sessions()?.into_iter().map(|s| s.id).collect())
    }

    /// Deletes a session and its events, unless a live lease holds it (`Ok(false)`): one statement,
    /// so no writer can take the session between the check and the deletion.
    pub fn remove_session(&self, id: &str) -> Result<bool> {
        check_session_id(id)?;
        let deleted = self
            .db
            .execute(
                "DELETE FROM dsh_sessions WHERE id = $1 AND (lease_holder IS NULL OR lease_expires <= now())",
                vec![Box::new(id.to_string())],
            )
            .with_context(|| format!("deleting session '{id}' from {}", self.db.location))?;
        if deleted == 1 {
            return Ok(true);
        }
        if self.exists(id)? {
            Ok(false)
        } else {
            Err(self.missing(id))
        }
    }

    /// Whether a live lease holds the session now.
    pub fn is_being_written(&self, id: &str) -> Result<bool> {
        check_session_id(id)?;
        let rows = self
            .db
            .query(
                "SELECT lease_holder IS NOT NULL AND lease_expires > now() FROM dsh_sessions WHERE id = $1",
                vec![Box::new(id.to_string())],
            )
            .with_context(|| format!("looking up session '{id}' in {}", self.db.location))?;
        rows.first()
            .map(|r| r.get::<_, bool>(0))
            .ok_or_else(|| self.missing(id))
    }

    /// How long until the live lease on session `id` lapses unless renewed (the database's clock);
    /// `None` when no live lease holds it.
    pub fn lease_lapses_in(&self, id: &str) -> Result<Option<Duration>> {
        check_session_id(id)?;
        let rows = self
            .db
            .query(
                "SELECT extract(epoch FROM lease_expires - now())::float8 FROM dsh_sessions
                 WHERE id = $1 AND lease_holder IS NOT NULL AND lease_expires > now()",
                vec![Box::new(id.to_string())],
            )
            .with_context(|| format!("looking up session '{id}' in {}", self.db.location))?;
        Ok(rows
            .first()
            .map(|r| Duration::from_secs_f64(r.get::<_, f64>(0).max(0.0))))
    }

    /// Follows a session from after event `after_seq`.
    pub fn follow(&self, id: &str, after_seq: u64) -> Result<PgFollower> {
        check_session_id(id)?;
        if !self.exists(id)? {
            return Err(self.missing(id));
        }
        Ok(PgFollower {
            store: PgStore {
                db: self.db.clone(),
            },
            id: id.to_string(),
            last_seq: after_seq,
        })
    }

    /// Imports session `id`'s events, read from elsewhere (a JSON Lines log; `modified`: when it was
    /// last written). Idempotent: a session not here is created with every event in one transaction;
    /// one here already whose events are the first of `events` gets the rest, under its lease (refused
    /// while another writer holds it), and one that holds them all is left alone; one that differs is
    /// an error naming the first event that does.
    pub fn import(&self, id: &str, events: &[Event], modified: SystemTime) -> Result<Imported> {
        check_session_id(id)?;
        if let Some(bad) = (1..).zip(events).find(|(n, e)| e.seq != *n) {
            bail!(
                "session '{id}': its events are not numbered 1, 2, 3...: event {} is numbered {}; not imported",
                bad.0,
                bad.1.seq
            );
        }
        let rows = events
            .iter()
            .map(|e| Ok((e.seq as i64, serde_json::to_string(e)?)))
            .collect::<Result<Vec<(i64, String)>>>()?;
        let created = self
            .db
            .call(write_events(
                self.db.pool.clone(),
                "INSERT INTO dsh_sessions (id, modified, bytes) VALUES ($1, $2, $3) ON CONFLICT (id) DO NOTHING",
                vec![Box::new(id.to_string()), Box::new(modified), Box::new(size_of(&rows))],
                id.to_string(),
                rows.clone(),
            ))
            .with_context(|| format!("importing session '{id}' into {}", self.db.location))?;
        if created {
            return Ok(Imported::Created(events.len()));
        }
        let claim = self.claim(id)?;
        let here = &claim.read.events;
        if let Some(n) = here.iter().zip(events).position(|(a, b)| a != b) {
            bail!(
                "session '{id}' is in {} already and differs from the one imported at event {}: not imported \
                 (two different sessions under one id: rename the file, or delete the session in the database)",
                self.db.location,
                n + 1
            );
        }
        // Here with every event (perhaps continued here since): nothing to add.
        if here.len() >= events.len() {
            return Ok(Imported::AlreadyThere);
        }
        let kept = here.len();
        let new = rows.len() - kept;
        let (mut log, _) = claim.open_for_append();
        log.pending = rows[kept..].to_vec();
        log.next_seq = rows.len() as u64 + 1;
        log.commit()?;
        Ok(Imported::Extended(new))
    }

    fn missing(&self, id: &str) -> anyhow::Error {
        anyhow!(
            "no session '{id}' in the sessions database {} (list them with `dsh-host sessions list`)",
            self.db.location
        )
    }
}

impl Db {
    /// Runs `work` on the store's runtime and waits for it (see the module's comment), at most
    /// [`CALL_BOUND`].
    fn call<T: Send + 'static>(
        &self,
        work: impl Future<Output = Result<T>> + Send + 'static,
    ) -> Result<T> {
        let (done, answer) = std::sync::mpsc::sync_channel(1);
        self.handle.spawn(async move {
            let _ = done.send(tokio::time::timeout(CALL_BOUND, work).await);
        });
        // On a caller's multi-threaded runtime (the gateway), the wait hands this worker's other
        // tasks to another thread first, so that a round trip holds up only its own session: with
        // a plain blocking wait, every session of the process queued behind each round trip on the
        // few workers (1,000 sessions: 1.9× the files' time, against 1.4×; BENCHMARKS.md §7). Each
        // such wait costs a thread, so at most OVERLAPPING_CALLS wait that way (more could not run
        // anyway: the pool has POOL_SIZE connections); the rest block their worker as before. A
        // current-thread runtime (`run`) has nothing else to run meanwhile.
        let multi_thread = tokio::runtime::Handle::try_current().is_ok_and(|caller| {
            caller.runtime_flavor() == tokio::runtime::RuntimeFlavor::MultiThread
        });
        let received = if multi_thread
            && self.overlapping.fetch_add(1, Ordering::SeqCst) < OVERLAPPING_CALLS
        {
            let received = tokio::task::block_in_place(|| answer.recv());
            self.overlapping.fetch_sub(1, Ordering::SeqCst);
            received
        } else {
            if multi_thread {
                self.overlapping.fetch_sub(1, Ordering::SeqCst);
            }
            answer.recv()
        };
        match received {
            Ok(Ok(result)) => result,
            Ok(Err(_)) => bail!(
                "the database did not answer within {} s",
                CALL_BOUND.as_secs()
            ),
            Err(_) => bail!("the database client stopped"),
        }
    }

    /// Runs one statement on a pooled connection; the rows it returns.
    fn query(&self, sql: &'static str, params: Vec<Param>) -> Result<Vec<tokio_postgres::Row>> {
        let pool = self.pool.clone();
        self.call(async move {
            let client = pool.get().await?;
            let params: Vec<&(dyn ToSql + Sync)> = params
                .iter()
                .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                .collect();
            Ok(client.query(sql, &params).await?)
        })
    }

    /// Runs one statement on a pooled connection; how many rows it changed.
    fn execute(&self, sql: &'static str, params: Vec<Param>) -> Result<u64> {
        let pool = self.pool.clone();
        self.call(async move {
            let client = pool.get().await?;
            let params: Vec<&(dyn ToSql + Sync)> = params
                .iter()
                .map(|p| p.as_ref() as &(dyn ToSql + Sync))
                .collect();
            Ok(client.execute(sql, &params).await?)
        })
    }

    fn lease_secs(&self) -> f64 {
        self.lease.as_secs_f64()
    }

    /// A holder name for one lease: this process, and which of its leases.
    fn new_holder(&self) -> String {
        format!(
            "{} lease {}",
            self.process,
            self.leases.fetch_add(1, Ordering::Relaxed) + 1
        )
    }
}

/// A claim refused: another process holds the session's lease. `lapses_in`: how long until the
/// lease lapses unless its holder renews it (a holder that died never does), on the database's clock.
#[derive(Debug, Clone)]
pub struct LeaseHeld {
    pub id: String,
    pub holder: String,
    pub until: Option<SystemTime>,
    pub lapses_in: Duration,
}

impl std::fmt::Display for LeaseHeld {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "session '{}' is being written by another dsh-host process ({}, its lease on the session lasts until {} \
             unless renewed); wait for that process to end, or stop it: the lease of a process that died lapses by then",
            self.id,
            self.holder,
            self.until
                .map_or("now".into(), |t| humantime::format_rfc3339_seconds(t)
                    .to_string())
        )
    }
}

impl std::error::Error for LeaseHeld {}

/// Cool-downs in the sessions database (table `dsh_cooldowns`): every process of a fleet reads the
/// ones any of them recorded. Times are the database's (`now()`), never a process's clock.
pub struct PgCoolDowns {
    db: Arc<Db>,
}

impl PgCoolDowns {
    /// Records a cool-down of `wait` from now under `key`, unless one that ends later is there.
    pub fn record(
        &self,
        key: &crate::cooldown::CoolDownKey,
        wait: Duration,
        code: &str,
        session: &str,
    ) -> Result<()> {
        self.db
            .execute(
                "INSERT INTO dsh_cooldowns (provider, key_id, model, until, code, set_by)
                 VALUES ($1, $2, $3, now() + make_interval(secs => $4), $5, $6)
                 ON CONFLICT (provider, key_id, model) DO UPDATE
                 SET until = excluded.until, code = excluded.code, set_by = excluded.set_by
                 WHERE dsh_cooldowns.until < excluded.until",
                vec![
                    Box::new(key.provider.clone()),
                    Box::new(key.key_id.clone()),
                    Box::new(key.model.clone()),
                    Box::new(wait.as_secs_f64()),
                    Box::new(code.to_string()),
                    Box::new(session.to_string()),
                ],
            )
            .with_context(|| {
                format!(
                    "recording a cool-down of {} for {} in {}",
                    key.provider, key.model, self.db.location
                )
            })?;
        Ok(())
    }

    /// The cool-down running under `key` that another session than `session` recorded.
    pub fn hold(
        &self,
        key: &crate::cooldown::CoolDownKey,
        session: &str,
    ) -> Result<Option<crate::cooldown::CoolDown>> {
        let rows = self
            .db
            .query(
                "SELECT extract(epoch FROM until - now())::float8, code FROM dsh_cooldowns
                 WHERE provider = $1 AND key_id = $2 AND model = $3 AND until > now() AND set_by <> $4",
                vec![
                    Box::new(key.provider.clone()),
                    Box::new(key.key_id.clone()),
                    Box::new(key.model.clone()),
                    Box::new(session.to_string()),
                ],
            )
            .with_context(|| format!("reading the cool-downs of {} in {}", key.provider, self.db.location))?;
        Ok(rows.first().map(|r| crate::cooldown::CoolDown {
            remaining: Duration::from_secs_f64(r.get::<_, f64>(0).max(0.0)),
            code: r.get(1),
        }))
    }
}

/// A session's lease, renewed in the background until dropped, then released.
struct Lease {
    db: Arc<Db>,
    id: String,
    holder: String,
    renewer: tokio::task::JoinHandle<()>,
}

impl Lease {
    fn start(db: &Arc<Db>, id: &str, holder: String) -> Lease {
        let renewer = db.handle.spawn(renew(
            db.pool.clone(),
            id.to_string(),
            holder.clone(),
            db.lease,
        ));
        Lease {
            db: db.clone(),
            id: id.to_string(),
            holder,
            renewer,
        }
    }
}

impl Drop for Lease {
    fn drop(&mut self) {
        self.renewer.abort();
        let released = self.db.execute(
            "UPDATE dsh_sessions SET lease_holder = NULL, lease_expires = NULL WHERE id = $1 AND lease_holder = $2",
            vec![Box::new(self.id.clone()), Box::new(self.holder.clone())],
        );
        if let Err(e) = released {
            // Not lost: the lease lapses on its own.
            tracing::warn!(
                "releasing session '{}' in {}: {e:#}; another process can take it once its lease lapses",
                self.id,
                self.db.location
            );
        }
    }
}

/// Renews a lease every third of its length while its holder lives; stops once it is lost.
async fn renew(pool: Pool, id: String, holder: String, lease: Duration) {
    let secs = lease.as_secs_f64();
    let mut every = tokio::time::interval(lease / 3);
    every.tick().await;
    loop {
        every.tick().await;
        let renewed = async {
            let client = pool.get().await?;
            let n = client
                .execute(
                    "UPDATE dsh_sessions SET lease_expires = now() + make_interval(secs => $3)
                     WHERE id = $1 AND lease_holder = $2",
                    &[&id, &holder, &secs],
                )
                .await?;
            anyhow::Ok(n)
        }
        .await;
        match renewed {
            Ok(0) => {
                tracing::warn!(
                    "session '{id}': its lease was taken over or the session deleted; its next write will fail"
                );
                return;
            }
            Ok(_) => {}
            // The next commit reports a lost database to its caller; keep trying until then.
            Err(e) => tracing::warn!("session '{id}': renewing its lease failed: {e:#}"),
        }
    }
}

/// What [`PgStore::import`] did with a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Imported {
    /// New here: created with this many events.
    Created(usize),
    /// Here already with the first events: this many were added after them.
    Extended(usize),
    /// Here already with every event (and perhaps more, written here since): nothing written.
    AlreadyThere,
}

/// A session held for writing and read (see [`PgStore::claim`]).
pub struct PgClaim {
    log: PgLog,
    read: SessionRead,
}

impl PgClaim {
    pub fn read(&self) -> &SessionRead {
        &self.read
    }

    /// The session's log, still held. Nothing to repair: a transaction is whole or absent.
    pub fn open_for_append(self) -> (PgLog, SessionRead) {
        (self.log, self.read)
    }
}

/// An open session log in PostgreSQL, holding the session's lease until dropped.
pub struct PgLog {
    lease: Lease,
    next_seq: u64,
    /// Events appended since the last durable point: `(seq, JSON)`.
    pending: Vec<(i64, String)>,
    /// Set once a commit failed: the log ends at its last durable point, and nothing more is written.
    broken: Option<String>,
}

impl PgLog {
    pub fn id(&self) -> &str {
        &self.lease.id
    }

    /// Appends an event, kept until the next durable point.
    pub fn append(&mut self, kind: &str, data: Value) -> Result<u64> {
        if let Some(why) = &self.broken {
            bail!("{why}");
        }
        let seq = self.next_seq;
        let data = match data {
            Value::Object(map) => map,
            Value::Null => Map::new(),
            other => bail!("event data must be an object, got {other}"),
        };
        let event = Event {
            seq,
            ts: crate::log::now_rfc3339(),
            kind: kind.to_string(),
            data,
        };
        self.pending
            .push((seq as i64, serde_json::to_string(&event)?));
        self.next_seq += 1;
        Ok(seq)
    }

    /// Appends an event and commits it with every event kept before it, in one transaction.
    pub fn append_durable(&mut self, kind: &str, data: Value) -> Result<u64> {
        let seq = self.append(kind, data)?;
        self.commit()?;
        Ok(seq)
    }

    /// Commits the kept events; on failure none of them is written, and the log is closed to writes.
    fn commit(&mut self) -> Result<()> {
        if self.pending.is_empty() {
            return Ok(());
        }
        let events = std::mem::take(&mut self.pending);
        let (first, last) = (events[0].0, events[events.len() - 1].0);
        let db = &self.lease.db;
        let id = &self.lease.id;
        // The lease is checked (and renewed) in the transaction that writes: a holder that lost it
        // changes no row, and writes nothing.
        let committed = db.call(write_events(
            db.pool.clone(),
            "UPDATE dsh_sessions SET modified = now(), bytes = bytes + $3,
                 lease_expires = now() + make_interval(secs => $4)
             WHERE id = $1 AND lease_holder = $2",
            vec![
                Box::new(id.clone()),
                Box::new(self.lease.holder.clone()),
                Box::new(size_of(&events)),
                Box::new(db.lease_secs()),
            ],
            id.clone(),
            events,
        ));
        let why = match committed {
            Ok(true) => return Ok(()),
            Ok(false) => format!(
                "session '{id}' is no longer this process's to write: its lease lapsed and another \
                 process took it over, or the session was deleted; events {first}..{last} were not written"
            ),
            Err(e) => format!(
                "session '{id}': events {first}..{last} could not be committed to the sessions database {} \
                 ({e:#}); none of them was written and the log ends at event {}. Continue it with \
                 `dsh-host run --resume {id}` once the database is back",
                db.location,
                first - 1
            ),
        };
        self.broken = Some(why.clone());
        bail!("{why}")
    }
}

impl Drop for PgLog {
    fn drop(&mut self) {
        // Events appended after the last durable point, as a file's are on the OS's: committed now.
        if self.broken.is_none()
            && let Err(e) = self.commit()
        {
            tracing::warn!("{e:#}");
        }
    }
}

/// A reader that follows a session as its writer commits.
pub struct PgFollower {
    store: PgStore,
    id: String,
    last_seq: u64,
}

impl PgFollower {
    /// The events committed since the last call.
    pub fn poll(&mut self) -> Result<Vec<Event>> {
        let events = self
            .store
            .events_after(&self.id, self.last_seq)?
            .ok_or_else(|| self.store.missing(&self.id))?;
        if let Some(e) = events.last() {
            self.last_seq = e.seq;
        }
        Ok(events)
    }
}

/// In one transaction: `session_sql` on the session's row, then (unless it changed no row, which
/// writes nothing) the events `(seq, JSON)`. Whether they were written.
async fn write_events(
    pool: Pool,
    session_sql: &'static str,
    session_params: Vec<Param>,
    id: String,
    events: Vec<(i64, String)>,
) -> Result<bool> {
    let (seqs, texts): (Vec<i64>, Vec<String>) = events.into_iter().unzip();
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    let params: Vec<&(dyn ToSql + Sync)> = session_params
        .iter()
        .map(|p| p.as_ref() as &(dyn ToSql + Sync))
        .collect();
    if tx.execute(session_sql, &params).await? == 0 {
        return Ok(false);
    }
    tx.execute(
        "INSERT INTO dsh_events (session, seq, event)
         SELECT $1, seq, event::json FROM unnest($2::bigint[], $3::text[]) AS e (seq, event)",
        &[&id, &seqs, &texts],
    )
    .await?;
    tx.commit().await?;
    Ok(true)
}

/// The size of events as a file would hold them (each line and its newline).
fn size_of(events: &[(i64, String)]) -> i64 {
    events.iter().map(|(_, text)| text.len() as i64 + 1).sum()
}

/// Creates the schema or migrates it to the latest version, in one transaction that other processes
/// starting at the same time wait for.
async fn migrate(pool: Pool) -> Result<()> {
    let mut client = pool.get().await?;
    let tx = client.transaction().await?;
    tx.execute("SELECT pg_advisory_xact_lock($1)", &[&MIGRATION_LOCK])
        .await?;
    tx.batch_execute(
        "CREATE TABLE IF NOT EXISTS dsh_schema_version (
             version integer PRIMARY KEY,
             applied timestamptz NOT NULL DEFAULT now()
         )",
    )
    .await?;
    let current: i32 = tx
        .query_one(
            "SELECT coalesce(max(version), 0) FROM dsh_schema_version",
            &[],
        )
        .await?
        .get(0);
    let latest = MIGRATIONS.len() as i32;
    if current > latest {
        bail!(
            "its session schema is version {current}, newer than this dsh-host knows ({latest}): a newer \
             dsh-host created it; upgrade this one"
        );
    }
    for (version, sql) in (1..).zip(MIGRATIONS).skip(current as usize) {
        tx.batch_execute(sql)
            .await
            .with_context(|| format!("migrating the session schema to version {version}"))?;
        tx.execute(
            "INSERT INTO dsh_schema_version (version) VALUES ($1)",
            &[&version],
        )
        .await?;
    }
    tx.commit().await?;
    Ok(())
}

/// The store's runtime, on a thread of its own that ends (dropping the runtime) when `stop` is dropped.
fn start_runtime() -> Result<(tokio::runtime::Handle, tokio::sync::oneshot::Sender<()>)> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .thread_name("dsh-sessions-db")
        .enable_all()
        .build()
        .context("starting the sessions database client")?;
    let handle = runtime.handle().clone();
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    std::thread::Builder::new()
        .name("dsh-sessions-db".into())
        .spawn(move || {
            runtime.block_on(async {
                let _ = stopped.await;
            });
        })
        .context("starting the sessions database client")?;
    Ok((handle, stop))
}

/// `HOST pid PID`: who holds a lease, for the error another process shows.
fn process_name() -> String {
    let mut buf = [0u8; 256];
    // SAFETY: gethostname writes at most `buf.len()` bytes into the buffer it is given.
    let host = if unsafe { libc::gethostname(buf.as_mut_ptr().cast(), buf.len()) } == 0 {
        let end = buf.iter().position(|b| *b == 0).unwrap_or(buf.len());
        String::from_utf8_lossy(&buf[..end]).into_owned()
    } else {
        "unknown host".to_string()
    };
    format!("{host} pid {}", std::process::id())
}

/// Parses a PostgreSQL URL (or `key=value` string) and checks its TLS mode: none is supported, so a
/// mode that requires TLS is refused, and the default (`prefer`) is made explicit (`disable`).
fn pg_config(url: &str, location: &str) -> Result<tokio_postgres::Config> {
    if let Some(mode) = requested_ssl_mode(url)
        && !matches!(mode.as_str(), "disable" | "allow" | "prefer")
    {
        bail!(
            "the sessions database URL {location} asks for TLS (sslmode={mode}), which dsh-host does not \
             support: use PostgreSQL over loopback or a private network with sslmode=disable, or reach it \
             through a TLS tunnel"
        );
    }
    let mut config: tokio_postgres::Config = url.parse().map_err(|e| {
        anyhow!(
            "the sessions database URL {location} is not a PostgreSQL URL ({e}): write it as \
             postgres://USER:PASSWORD@HOST:PORT/DATABASE"
        )
    })?;
    config.ssl_mode(SslMode::Disable);
    Ok(config)
}

/// The `sslmode` a URL or `key=value` string names, if any.
fn requested_ssl_mode(url: &str) -> Option<String> {
    let params: Vec<&str> = match url.split_once("://") {
        Some((_, rest)) => rest
            .split_once('?')
            .map_or(Vec::new(), |(_, q)| q.split('&').collect()),
        None => url.split_whitespace().collect(),
    };
    params.iter().find_map(|p| {
        let (key, value) = p.split_once('=')?;
        (key.trim() == "sslmode").then(|| value.trim().trim_matches('\'').to_ascii_lowercase())
    })
}

/// The URL without its password, for messages: `postgres://user:***@host/db`, a `password=` query
/// parameter or `key=value` entry as `password=***`.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return redact_key_values(url);
    };
    let authority_end = rest.find(['/', '?']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let authority = match authority.rsplit_once('@') {
        Some((userinfo, host)) => match userinfo.split_once(':') {
            Some((user, _password)) => format!("{user}:***@{host}"),
            None => format!("{userinfo}@{host}"),
        },
        None => authority.to_string(),
    };
    let path = match path.split_once('?') {
        Some((before, query)) => {
            let query: Vec<String> = query
                .split('&')
                .map(|pair| match pair.split_once('=') {
                    Some((key, _)) if key == "password" => format!("{key}=***"),
                    _ => pair.to_string(),
                })
                .collect();
            format!("{before}?{}", query.join("&"))
        }
        None => path.to_string(),
    };
    format!("{scheme}://{authority}{path}")
}

/// `host=h password=secret` as `host=h password=***` (a quoted value may hold spaces).
fn redact_key_values(text: &str) -> String {
    let mut out = String::new();
    let mut rest = text;
    while let Some(at) = rest.find("password") {
        let (before, after) = rest.split_at(at);
        out.push_str(before);
        out.push_str("password");
        let after = &after["password".len()..];
        let trimmed = after.trim_start();
        let Some(value) = trimmed.strip_prefix('=') else {
            rest = after;
            continue;
        };
        let value = value.trim_start();
        let end = if let Some(quoted) = value.strip_prefix('\'') {
            let mut escaped = false;
            let close = quoted.char_indices().find(|(_, c)| {
                let close = *c == '\'' && !escaped;
                escaped = *c == '\\' && !escaped;
                close
            });
            close.map_or(value.len(), |(i, _)| i + 2)
        } else {
            value.find(char::is_whitespace).unwrap_or(value.len())
        };
        out.push_str("=***");
        rest = &value[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_password_never_shows_in_the_location() {
        for (url, shown) in [
            (
                "postgres://dsh:s3cret@localhost:5432/db",
                "postgres://dsh:***@localhost:5432/db",
            ),
            (
                "postgresql://dsh:p@ss@db.internal/db?sslmode=disable",
                "postgresql://dsh:***@db.internal/db?sslmode=disable",
            ),
            ("postgres://dsh@localhost/db", "postgres://dsh@localhost/db"),
            (
                "postgres://localhost/db?user=dsh&password=s3cret&port=5",
                "postgres://localhost/db?user=dsh&password=***&port=5",
            ),
            (
                "postgres://dsh:s3cret@localhost",
                "postgres://dsh:***@localhost",
            ),
            (
                "host=localhost user=dsh password=s3cret dbname=db",
                "host=localhost user=dsh password=*** dbname=db",
            ),
            (
                "host=localhost password = 's3 c\\'ret' dbname=db",
                "host=localhost password=*** dbname=db",
            ),
        ] {
            assert_eq!(redact_url(url), shown, "{url}");
        }
    }

    #[test]
    fn a_url_that_asks_for_tls_is_refused_naming_it_without_its_password() {
        for url in [
            "postgres://dsh:s3cret@db/dsh?sslmode=require",
            "postgres://dsh:s3cret@db/dsh?application_name=x&sslmode=verify-full",
            "host=db password=s3cret sslmode=verify-ca",
        ] {
            let e = pg_config(url, &redact_url(url)).unwrap_err().to_string();
            assert!(
                e.contains("asks for TLS") && e.contains("sslmode=disable"),
                "{e}"
            );
            assert!(!e.contains("s3cret") && e.contains("***"), "{e}");
        }
        for url in [
            "postgres://dsh@db/dsh",
            "postgres://dsh@db/dsh?sslmode=prefer",
            "postgres://dsh@db/dsh?sslmode=disable",
        ] {
            assert_eq!(
                pg_config(url, url).unwrap().get_ssl_mode(),
                SslMode::Disable,
                "{url}"
            );
        }
    }

    #[test]
    fn a_url_that_is_not_postgres_is_an_error_naming_it_without_its_password() {
        let url = "postgres://dsh:s3cret@db:notaport/dsh";
        let e = pg_config(url, &redact_url(url)).unwrap_err().to_string();
        assert!(
            e.contains("postgres://dsh:***@db:notaport/dsh") && !e.contains("s3cret"),
            "{e}"
        );
    }
}
