//! `dsh-host sessions ...`: the commands about the stored sessions as a whole (clap parsing and glue;
//! the work is the session store's and `retention`'s).

use crate::config::Config;
use crate::log::{SessionInfo, SessionStore};
use anyhow::{Result, bail};
use clap::Subcommand;
use std::path::Path;
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

#[derive(Subcommand, Debug)]
pub enum SessionsCommand {
    /// Delete the sessions whose log was last written longer ago than an age (a session a running
    /// dsh-host is writing is kept).
    Prune(PruneArgs),
}

#[derive(clap::Args, Debug)]
pub struct PruneArgs {
    /// The age: 30d, 12h, 2w, ... (default: `[sessions] retention` of the config).
    #[arg(long, value_name = "AGE", value_parser = parse_age)]
    pub older_than: Option<Duration>,
    /// List the sessions that would be deleted, and delete nothing.
    #[arg(long)]
    pub dry_run: bool,
}

fn parse_age(text: &str) -> Result<Duration> {
    crate::config::parse_retention(text)
}

pub fn run(command: SessionsCommand, config_path: Option<&Path>, sessions_dir: &Path) -> Result<ExitCode> {
    match command {
        SessionsCommand::Prune(args) => prune(args, config_path, sessions_dir),
    }
}

fn prune(args: PruneArgs, config_path: Option<&Path>, sessions_dir: &Path) -> Result<ExitCode> {
    let config = Config::load(config_path)?;
    let Some(age) = args.older_than.or(config.sessions.retention) else {
        bail!(
            "say how old a session must be to be deleted: --older-than 30d (or set `retention = \"30d\"` \
             under [sessions] in the config)"
        );
    };
    let store = SessionStore::open(sessions_dir)?;
    let pruned = crate::retention::prune(&store, age, SystemTime::now(), args.dry_run)?;
    // Stdout: one session per line (id, last written, size), for scripts; the summary goes to stderr.
    for session in &pruned.removed {
        println!("{}", describe(session));
    }
    let age_text = humantime::format_duration(age);
    let count = pruned.removed.len();
    let bytes = pruned.removed_bytes();
    if args.dry_run {
        eprintln!(
            "would delete {count} session(s) ({bytes} bytes) not written for {age_text}, from {}; \
             run without --dry-run to delete them",
            store.path().display()
        );
    } else {
        eprintln!(
            "deleted {count} session(s) ({bytes} bytes) not written for {age_text}, from {}",
            store.path().display()
        );
    }
    for session in &pruned.in_use {
        eprintln!(
            "kept session '{}': a running dsh-host is writing it",
            session.id
        );
    }
    for (session, error) in &pruned.failed {
        eprintln!("error: could not delete session '{}': {error}", session.id);
    }
    Ok(if pruned.failed.is_empty() {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(crate::cli::EXIT_HOST_ERROR)
    })
}

/// `ID  2026-10-01T12:00:00Z  12345 bytes`.
fn describe(session: &SessionInfo) -> String {
    format!(
        "{}  {}  {} bytes",
        session.id,
        humantime::format_rfc3339_seconds(session.modified),
        session.bytes
    )
}
