//! `dsh-host sessions import DIR`: the JSON Lines logs of a sessions directory copied into the
//! PostgreSQL store, so that sessions begun on one machine's files continue on any process sharing
//! the database. Idempotent ([`PgStore::import`]): a session imported already is left alone, one that
//! grew in its file since gets the new events. The files are only read: a session that a running
//! process writes is skipped, and a torn tail stays in its file (its valid events are imported).

use crate::log::FileStore;
use crate::pg_store::{Imported, PgStore};
use anyhow::{Result, bail};
use std::path::Path;

/// What became of one session of the directory.
#[derive(Debug)]
pub struct Report {
    pub id: String,
    pub outcome: Result<Outcome, String>,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Imported {
        imported: Imported,
        /// The file ended in a torn tail, not imported (it stays in the file).
        torn_tail: bool,
    },
    /// A running process writes it: not imported now.
    BeingWritten,
}

/// Imports every session log of `dir` into `into`, each on its own (one failing stops none of the
/// others), sorted by id.
pub fn import_dir(dir: &Path, into: &PgStore) -> Result<Vec<Report>> {
    if !dir.is_dir() {
        bail!(
            "{} is not a directory: give the sessions directory whose JSON Lines logs to import",
            dir.display()
        );
    }
    let files = FileStore::open(dir)?;
    Ok(files
        .list_sessions()?
        .into_iter()
        .map(|info| {
            let outcome = import_one(&files, into, &info).map_err(|e| format!("{e:#}"));
            Report {
                id: info.id,
                outcome,
            }
        })
        .collect())
}

fn import_one(
    files: &FileStore,
    into: &PgStore,
    info: &crate::log::SessionInfo,
) -> Result<Outcome> {
    if files.is_being_written(&info.id)? {
        return Ok(Outcome::BeingWritten);
    }
    let read = files.read(&info.id)?;
    let imported = into.import(&info.id, &read.events, info.modified)?;
    Ok(Outcome::Imported {
        imported,
        torn_tail: read.torn_tail.is_some(),
    })
}
