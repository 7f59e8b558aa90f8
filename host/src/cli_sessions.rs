//! `dsh-host sessions ...`: the commands about the stored sessions as a whole (clap parsing and glue;
//! the work is the session store's and `retention`'s).

use crate::config::Config;
use crate::store::SessionInfo;
use anyhow::{Result, bail};
use clap::Subcommand;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, SystemTime};

#[derive(Subcommand, Debug)]
pub enum SessionsCommand {
    /// List sessions, newest first: id, start, provider, model, turns, last outcome.
    List {
        /// How many to list.
        #[arg(long, short = 'n', value_name = "N", default_value_t = 20)]
        limit: usize,
        /// List them all.
        #[arg(long, conflicts_with = "limit")]
        all: bool,
        /// One JSON object per session and line.
        #[arg(long)]
        json: bool,
    },
    /// Delete the sessions whose log was last written longer ago than an age (a session a running
    /// dsh-host is writing is kept).
    Prune(PruneArgs),
    /// Copy the JSON Lines session logs of DIR into the PostgreSQL database that DSH_SESSIONS_URL
    /// (or `url` under [sessions]) names. Idempotent: what was imported already is left alone, and a
    /// session that grew in its file gets its new events. The files are left as they were.
    Import {
        /// A sessions directory (its `<id>.jsonl` files).
        #[arg(value_name = "DIR")]
        dir: PathBuf,
    },
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

pub fn run(
    command: SessionsCommand,
    config_path: Option<&Path>,
    sessions_dir: &Path,
) -> Result<ExitCode> {
    match command {
        SessionsCommand::List { limit, all, json } => {
            list(config_path, sessions_dir, (!all).then_some(limit), json)
        }
        SessionsCommand::Prune(args) => prune(args, config_path, sessions_dir),
        SessionsCommand::Import { dir } => import(&dir, config_path),
    }
}

fn list(
    config_path: Option<&Path>,
    sessions_dir: &Path,
    limit: Option<usize>,
    json: bool,
) -> Result<ExitCode> {
    let store = crate::cli::open_sessions(config_path, sessions_dir)?;
    let all = crate::cli::sessions_list::list(&store)?;
    let shown = &all[..limit.unwrap_or(all.len()).min(all.len())];
    let mut out = std::io::stdout().lock();
    // A reader that stops reading (`| head`) is not an error.
    let _ = crate::cli::sessions_list::print(
        &mut out,
        shown,
        json,
        &crate::cli::colour::Palette::stdout(),
    );
    if all.is_empty() && !json {
        eprintln!("no session in {} yet", store.location());
    } else if shown.len() < all.len() {
        eprintln!(
            "({} older session(s) not shown: --all lists them)",
            all.len() - shown.len()
        );
    }
    Ok(ExitCode::SUCCESS)
}

fn prune(args: PruneArgs, config_path: Option<&Path>, sessions_dir: &Path) -> Result<ExitCode> {
    let config = Config::load(config_path)?;
    let Some(age) = args.older_than.or(config.sessions.retention) else {
        bail!(
            "say how old a session must be to be deleted: --older-than 30d (or set `retention = \"30d\"` \
             under [sessions] in the config)"
        );
    };
    let store = crate::store::SessionStore::open_configured(sessions_dir, &config.sessions)?;
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
            store.location()
        );
    } else {
        eprintln!(
            "deleted {count} session(s) ({bytes} bytes) not written for {age_text}, from {}",
            store.location()
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

fn import(dir: &Path, config_path: Option<&Path>) -> Result<ExitCode> {
    use crate::pg_store::Imported;
    use crate::session_import::Outcome;
    let config = Config::load(config_path)?;
    let Some(url) = crate::store::sessions_url(
        std::env::var(crate::store::SESSIONS_URL_ENV).ok(),
        &config.sessions,
    ) else {
        bail!(
            "`sessions import` copies JSON Lines logs into PostgreSQL: name the database with DSH_SESSIONS_URL \
             (or `url = \"postgres://...\"` under [sessions] in the config)"
        );
    };
    let into = crate::pg_store::PgStore::connect(&url, config.sessions.lease)?;
    let reports = crate::session_import::import_dir(dir, &into)?;
    // Stdout: one session per line (id, what was done), for scripts; notes and the summary on stderr.
    let (mut copied, mut there, mut failed) = (0, 0, 0);
    for report in &reports {
        let id = &report.id;
        match &report.outcome {
            Ok(Outcome::Imported {
                imported,
                torn_tail,
            }) => {
                match imported {
                    Imported::Created(n) => println!("{id}  imported  {n} events"),
                    Imported::Extended(n) => println!("{id}  extended  {n} new events"),
                    Imported::AlreadyThere => println!("{id}  already imported"),
                }
                if *imported == Imported::AlreadyThere {
                    there += 1
                } else {
                    copied += 1
                }
                if *torn_tail {
                    eprintln!(
                        "note: session '{id}' ends in a torn or malformed line, not imported (it stays in its file)"
                    );
                }
            }
            Ok(Outcome::BeingWritten) => {
                eprintln!(
                    "kept session '{id}': a running dsh-host is writing it; import it again once it ends"
                );
            }
            Err(error) => {
                failed += 1;
                eprintln!("error: could not import session '{id}': {error}");
            }
        }
    }
    eprintln!(
        "{copied} session(s) imported or extended, {there} already there, {failed} failed: from {} into {}; \
         the files are left as they were",
        dir.display(),
        into.location()
    );
    Ok(if failed == 0 {
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
