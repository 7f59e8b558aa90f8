//! The `dsh-host` command line: parsing (clap) and the glue from flags to the library.

use crate::adapter::Adapter;
use crate::config::{self, AdapterRef, ProviderConfig};
use crate::guests::{self, GuestSource};
use crate::log::SessionStore;
use crate::mock::{MockScript, MockServer};
use crate::session::{Provider, Session, StreamEvent, TurnError, default_engine};
use crate::transport::Transport;
use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use std::io::Write;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Arc;

/// Exit status when the turn failed with a canonical failure.
pub const EXIT_TURN_FAILED: u8 = 1;
/// Exit status for a usage, configuration or host error.
pub const EXIT_HOST_ERROR: u8 = 2;

#[derive(Parser, Debug)]
#[command(name = "dsh-host", version, about = "Run LLM provider adapters as sandboxed WebAssembly components")]
pub struct Cli {
    /// Directory of session logs (one JSON Lines file per session).
    #[arg(long, global = true, env = "DSH_SESSIONS_DIR", value_name = "DIR")]
    pub sessions: Option<PathBuf>,
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Subcommand, Debug)]
pub enum Command {
    /// Send PROMPT to a provider and stream the answer to stdout.
    Run(RunArgs),
    /// Serve the embedded mock provider on loopback, driven by a script file.
    Mock {
        /// The script (JSON): see docs/mock-script.md.
        #[arg(long, value_name = "FILE")]
        script: PathBuf,
        /// Port on 127.0.0.1 (0 picks a free one).
        #[arg(long, default_value_t = 0)]
        port: u16,
    },
    /// Run scripted sessions against the embedded mock provider: no network, no key needed.
    Demo,
    /// Print a session's timeline.
    Log {
        /// The session id printed by `dsh-host run`.
        id: String,
        /// Print the raw JSON Lines events.
        #[arg(long)]
        json: bool,
    },
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Provider preset: openai, openai-compatible.
    #[arg(long, default_value = "openai")]
    pub provider: String,
    /// Model name (defaults to the preset's).
    #[arg(long)]
    pub model: Option<String>,
    /// Provider base URL, e.g. http://127.0.0.1:8080/v1.
    #[arg(long)]
    pub base_url: Option<String>,
    /// An adapter component (.wasm) to use instead of the built-in one.
    #[arg(long, value_name = "FILE.wasm")]
    pub adapter: Option<PathBuf>,
    /// A system message.
    #[arg(long)]
    pub system: Option<String>,
    /// The user prompt.
    pub prompt: String,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_all().build() {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("error: cannot start the async runtime: {e}");
            return ExitCode::from(EXIT_HOST_ERROR);
        }
    };
    match runtime.block_on(dispatch(cli)) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("error: {e:#}");
            ExitCode::from(EXIT_HOST_ERROR)
        }
    }
}

fn init_tracing() {
    let filter = tracing_subscriber::EnvFilter::try_from_env("DSH_LOG")
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn"));
    let _ = tracing_subscriber::fmt().with_env_filter(filter).with_writer(std::io::stderr).try_init();
}

async fn dispatch(cli: Cli) -> Result<ExitCode> {
    let sessions_dir = cli.sessions.clone().unwrap_or_else(default_sessions_dir);
    match cli.command {
        Command::Run(args) => run(args, &sessions_dir).await,
        Command::Mock { script, port } => serve_mock(&script, port).await,
        Command::Demo => crate::demo::run(&sessions_dir).await,
        Command::Log { id, json } => print_log(&sessions_dir, &id, json),
    }
}

/// `$XDG_STATE_HOME/dsh-host/sessions`, else `~/.local/state/dsh-host/sessions`, else `./sessions`.
pub fn default_sessions_dir() -> PathBuf {
    if let Some(state) = std::env::var_os("XDG_STATE_HOME") {
        return Path::new(&state).join("dsh-host/sessions");
    }
    if let Some(home) = std::env::var_os("HOME") {
        return Path::new(&home).join(".local/state/dsh-host/sessions");
    }
    PathBuf::from("sessions")
}

/// Builds the provider config from the preset and the flags, every value checked.
pub fn provider_config(args: &RunArgs) -> Result<ProviderConfig> {
    let mut cfg = config::preset(&args.provider)?;
    if let Some(model) = &args.model {
        cfg.model = model.clone();
    }
    if let Some(url) = &args.base_url {
        cfg.base_url = url.clone();
    }
    cfg.base_url = config::normalize_base_url(&cfg.name, &cfg.base_url)?;
    if let Some(path) = &args.adapter {
        cfg.adapter = AdapterRef::File(path.clone());
    }
    Ok(cfg)
}

pub fn adapter_source(adapter: &AdapterRef) -> Result<GuestSource> {
    match adapter {
        AdapterRef::File(path) => Ok(GuestSource::file(path)),
        AdapterRef::Builtin(name) => guests::builtin_adapter(name).with_context(|| {
            format!("no built-in adapter '{name}' (built in: {})", guests::BUILTIN_ADAPTERS.join(", "))
        }),
    }
}

async fn run(args: RunArgs, sessions_dir: &Path) -> Result<ExitCode> {
    let cfg = provider_config(&args)?;
    let engine = default_engine()?;
    let adapter = Adapter::load(&engine, &adapter_source(&cfg.adapter)?).await?;
    let credential = std::env::var(&cfg.api_key_env).ok();
    let provider = Arc::new(Provider::new(cfg, Arc::new(adapter), credential));
    let store = SessionStore::open(sessions_dir)?;
    let mut session = Session::start(provider, Transport::new()?, store.create()?, args.system.clone())?;

    let mut stdout = std::io::stdout();
    let mut sink = |event: StreamEvent| {
        if let StreamEvent::Text(text) = event {
            let _ = stdout.write_all(text.as_bytes());
            let _ = stdout.flush();
        }
    };
    let outcome = session.run_turn(&args.prompt, &mut sink).await;
    let _ = writeln!(std::io::stdout());
    match outcome {
        Ok(_) => {
            eprintln!("session {} (dsh-host log {})", session.id(), session.id());
            Ok(ExitCode::SUCCESS)
        }
        Err(TurnError::Failed(failure)) => {
            eprintln!("error: {failure}");
            eprintln!("  code:       {}", failure.code);
            if let Some(status) = failure.status {
                eprintln!("  status:     {status}");
            }
            if let Some(id) = &failure.request_id {
                eprintln!("  request id: {id}");
            }
            eprintln!("  session:    {} (dsh-host log {})", session.id(), session.id());
            Ok(ExitCode::from(EXIT_TURN_FAILED))
        }
        Err(TurnError::Host(e)) => Err(e),
    }
}

async fn serve_mock(script_path: &Path, port: u16) -> Result<ExitCode> {
    let script = MockScript::from_path(script_path)?;
    let steps = script.steps.len();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let server = MockServer::start(script, addr).await?;
    // The first line is machine-readable so scripts can pick up an ephemeral port.
    println!("mock provider listening on {}", server.base_url());
    println!("{steps} scripted step(s); Ctrl-C to stop");
    tokio::signal::ctrl_c().await.context("waiting for Ctrl-C")?;
    server.shutdown().await;
    Ok(ExitCode::SUCCESS)
}

fn print_log(sessions_dir: &Path, id: &str, json: bool) -> Result<ExitCode> {
    let store = SessionStore::open(sessions_dir)?;
    let read = store.read(id)?;
    if read.events.is_empty() && read.torn_tail.is_none() {
        bail!("session '{id}' is empty");
    }
    for event in &read.events {
        if json {
            println!("{}", serde_json::to_string(event)?);
        } else {
            println!("{}", crate::demo::describe_event(event));
        }
    }
    if let Some(torn) = &read.torn_tail {
        eprintln!("warning: the last line of session '{id}' is torn (the writer stopped mid-line) and was skipped: {torn:.120}");
    }
    Ok(ExitCode::SUCCESS)
}
