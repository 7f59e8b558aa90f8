//! `dsh-host completions SHELL` and `dsh-host man`: shell completions (clap_complete) and man pages
//! (clap_mangen), generated from the same clap definitions the binary parses, so they never drift.

use super::Cli;
use anyhow::{Context, Result};
use clap::CommandFactory;
use std::io::Write;
use std::path::Path;

/// The completion script for `shell` on stdout.
pub fn completions(shell: clap_complete::Shell) -> Result<()> {
    let mut cmd = Cli::command();
    let name = cmd.get_name().to_string();
    let mut out = Vec::new();
    clap_complete::generate(shell, &mut cmd, name, &mut out);
    std::io::stdout()
        .write_all(&out)
        .context("writing the completions to stdout")
}

/// The man page of `dsh-host` on stdout, or (`dir`) one page per command written to `dir`:
/// `dsh-host.1`, `dsh-host-run.1`, `dsh-host-sessions-list.1`, ...
pub fn man(dir: Option<&Path>) -> Result<()> {
    let cmd = Cli::command();
    match dir {
        None => {
            let mut out = Vec::new();
            clap_mangen::Man::new(cmd)
                .render(&mut out)
                .context("rendering the man page")?;
            std::io::stdout()
                .write_all(&out)
                .context("writing the man page to stdout")
        }
        Some(dir) => {
            std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
            clap_mangen::generate_to(cmd, dir)
                .with_context(|| format!("writing the man pages to {}", dir.display()))?;
            eprintln!(
                "man pages written to {} (read one with `man dsh-host`)",
                dir.display()
            );
            Ok(())
        }
    }
}
