//! The `dsh-host` command line: parsing (clap) and the glue from flags to the library. What a
//! command prints lives in the modules below, one per responsibility.

mod answer;
pub mod colour;
mod generate;
pub mod json_lines;
mod log_view;
pub mod progress;
pub mod run_output;
pub mod sessions_list;

use crate::config::{Config, GuestRef, ProviderConfig};
use crate::mock::{MockOptions, MockScript, MockServer};
use crate::runtime::Runtime;
use crate::session::{Session, TurnError, default_engine};
use crate::store::SessionStore;
use anyhow::{Context, Result, bail};
use clap::{Parser, Subcommand};
use run_output::{Outcome, RunOutput};
use std::io::{IsTerminal, Write};
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
/// Exit status when the turn failed with a canonical failure.
pub const EXIT_TURN_FAILED: u8 = 1;
/// Exit status when `check` found a failing case.
pub const EXIT_CHECK_FAILED: u8 = 1;
/// Exit status for a usage, configuration or host error.
pub const EXIT_HOST_ERROR: u8 = 2;
/// Exit status when the user interrupted the turn (Ctrl-C): 128 + SIGINT, as shells expect.
pub const EXIT_INTERRUPTED: u8 = 130;

#[derive(Parser, Debug)]
#[command(
    name = "dsh-host",
    version,
    about = "Run LLM provider adapters as sandboxed WebAssembly components"
)]
pub struct Cli {
    /// Directory of session logs (one JSON Lines file per session). Unused when DSH_SESSIONS_URL (or
    /// `url` under [sessions] in the config) names a PostgreSQL database to keep them in.
    #[arg(long, global = true, env = "DSH_SESSIONS_DIR", value_name = "DIR")]
    pub sessions: Option<PathBuf>,
    /// Configuration file (dsh.toml); without one, the built-in defaults apply.
    #[arg(long, global = true, env = "DSH_CONFIG", value_name = "FILE")]
    pub config: Option<PathBuf>,
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
        /// Append every request received to FILE as JSON Lines (method, path, headers, body,
        /// step, time), each written as it arrives. Headers are kept as sent, keys included.
        #[arg(long, value_name = "FILE")]
        record: Option<PathBuf>,
    },
    /// Serve an OpenAI-compatible endpoint (POST /v1/chat/completions) over the same runtime:
    /// sandboxed adapters, the recovery waterfall and the durable log for any OpenAI SDK.
    Serve {
        /// Address to listen on (default: [gateway] listen, else 127.0.0.1:8080).
        #[arg(long, value_name = "ADDR")]
        listen: Option<SocketAddr>,
        /// Serve loopback clients without a gateway key (refused off loopback).
        #[arg(long)]
        allow_unauthenticated: bool,
    },
    /// Run scripted sessions against the embedded mock provider: no network, no key needed.
    Demo,
    /// Check an adapter or listener component against the contract: the built-in corpus, your own
    /// cases, split-invariant and deterministic decoding, a seeded fuzz (see docs/check.md).
    /// Exits 0 if every case passes, 1 if one fails, 2 if the component or a case file is malformed.
    Check(CheckArgs),
    /// Print a session's timeline.
    Log {
        /// The session id printed by `dsh-host run` (see `dsh-host sessions list`).
        #[arg(required_unless_present = "last")]
        id: Option<String>,
        /// The newest session (by start).
        #[arg(long, conflicts_with = "id")]
        last: bool,
        /// Keep printing the events another process appends, as they come (until Ctrl-C).
        #[arg(long, short = 'f')]
        follow: bool,
        /// Print the raw JSON Lines events.
        #[arg(long)]
        json: bool,
    },
    /// The stored sessions: list them, prune old ones.
    Sessions {
        #[command(subcommand)]
        command: crate::cli_sessions::SessionsCommand,
    },
    /// Print a shell completion script, e.g. `dsh-host completions bash > ~/.local/share/bash-completion/completions/dsh-host`.
    Completions {
        /// The shell: bash, zsh, fish, elvish or powershell.
        shell: clap_complete::Shell,
    },
    /// Print the man page, or write one page per command to DIR (e.g. ~/.local/share/man/man1).
    Man {
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
    /// Create a guest project of its own: the WIT this binary speaks, the bindings and SDK, a build,
    /// a test over recorded cases, a README saying how to run it against `dsh-host mock`.
    New {
        /// What the guest is: an adapter (world provider-adapter) or a listener (world recovery-listener).
        #[arg(value_enum)]
        kind: crate::new_project::Kind,
        /// The guest's name: lower-case letters, digits and single hyphens, starting with a letter.
        name: String,
        /// The language (and toolchain): rust (wasm32-wasip2), python (componentize-py) or js (componentize-js).
        #[arg(long, value_enum)]
        lang: crate::new_project::Lang,
        /// Where to write it (default: ./NAME); it must be new or empty.
        #[arg(long, value_name = "DIR")]
        dir: Option<PathBuf>,
    },
}

#[derive(clap::Args, Debug)]
pub struct CheckArgs {
    /// The component to check (.wasm): an adapter or a listener, of dsh:llm 0.2.0 or 0.1.0.
    #[arg(
        value_name = "FILE.wasm",
        required_unless_present = "builtin",
        conflicts_with = "builtin"
    )]
    pub file: Option<PathBuf>,
    /// Check a guest built into dsh-host instead (openai, anthropic, gemini, llm-retry,
    /// compaction-basic), with its own cases unless --cases is given.
    #[arg(long, value_name = "NAME")]
    pub builtin: Option<String>,
    /// Your cases: a case file or a directory of them (*.json), as docs/check.md describes.
    #[arg(long, value_name = "FILE_OR_DIR")]
    pub cases: Option<PathBuf>,
    /// A listener's configuration (JSON), as `config` under [[listeners]] would give it.
    #[arg(long, value_name = "JSON")]
    pub listener_config: Option<String>,
    /// The seed of the random cuttings, samples and fuzz: the same seed replays the same check.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print the report as JSON (docs/check.md) instead of the table.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args, Debug)]
pub struct RunArgs {
    /// Provider: a preset (openai, anthropic, gemini, deepseek, openai-compatible) or a name from the config
    /// file. openai-compatible (vLLM, llama.cpp, Ollama, OpenRouter, ...) needs --base-url and --model.
    #[arg(long)]
    pub provider: Option<String>,
    /// Model name (defaults to the preset's; openai-compatible has none and needs it).
    #[arg(long)]
    pub model: Option<String>,
    /// Provider base URL, e.g. http://127.0.0.1:8080/v1.
    #[arg(long)]
    pub base_url: Option<String>,
    /// Send the key in environment variable VAR to this provider, wherever its base URL points (a
    /// preset's own variable goes only to the preset's own host; openai-compatible sends none unless
    /// given one).
    #[arg(long, value_name = "VAR")]
    pub api_key_env: Option<String>,
    /// An adapter component (.wasm) to use instead of the built-in one.
    #[arg(long, value_name = "FILE.wasm")]
    pub adapter: Option<PathBuf>,
    /// A system message.
    #[arg(long)]
    pub system: Option<String>,
    /// Continue session ID: finish its unfinished turn (continuing its retry count), then PROMPT if given.
    #[arg(long, value_name = "ID")]
    pub resume: Option<String>,
    /// Offer the model the built-in demo tools: clock (the current UTC time) and calculator
    /// (+ - * / and parentheses). Turns then run in steps: a tool call, its result, the next step.
    #[arg(long)]
    pub tools: bool,
    /// The most steps (completions) one turn may take before it fails.
    #[arg(long, value_name = "N", default_value_t = crate::session::DEFAULT_MAX_STEPS,
          value_parser = clap::value_parser!(u32).range(1..))]
    pub max_steps: u32,
    /// One JSON object per line on stdout for every event (see docs/cli-json.md), instead of the
    /// answer and the notices.
    #[arg(long)]
    pub json: bool,
    /// Only the answer on stdout and errors on stderr: no live progress, no retry or tool notices.
    #[arg(long, short = 'q')]
    pub quiet: bool,
    /// The user prompt (optional with --resume).
    #[arg(required_unless_present = "resume")]
    pub prompt: Option<String>,
}

pub fn main() -> ExitCode {
    let cli = Cli::parse();
    init_tracing();
    // One session is one chain of awaits: a single-threaded runtime spares it the cross-thread
    // wake-ups. The mock and the demo serve many connections at once and keep the multi-threaded one.
    let mut builder = match cli.command {
        Command::Run(_) => tokio::runtime::Builder::new_current_thread(),
        _ => tokio::runtime::Builder::new_multi_thread(),
    };
    let runtime = match builder.enable_all().build() {
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
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .try_init();
}

async fn dispatch(cli: Cli) -> Result<ExitCode> {
    let sessions_dir = cli.sessions.clone().unwrap_or_else(default_sessions_dir);
    match cli.command {
        Command::Run(args) => run(args, cli.config.as_deref(), &sessions_dir).await,
        Command::Mock {
            script,
            port,
            record,
        } => serve_mock(&script, port, record).await,
        Command::Demo => crate::demo::run(&sessions_dir).await,
        Command::Check(args) => check(args).await,
        Command::Serve {
            listen,
            allow_unauthenticated,
        } => {
            serve(
                cli.config.as_deref(),
                &sessions_dir,
                listen,
                allow_unauthenticated,
            )
            .await
        }
        Command::Log {
            id,
            last,
            follow,
            json,
        } => {
            let which = match (id, last) {
                (Some(id), false) => log_view::Which::Id(id),
                _ => log_view::Which::Newest,
            };
            log_view::show(cli.config.as_deref(), &sessions_dir, which, json, follow).await
        }
        Command::Sessions { command } => {
            crate::cli_sessions::run(command, cli.config.as_deref(), &sessions_dir)
        }
        Command::Completions { shell } => generate::completions(shell).map(|()| ExitCode::SUCCESS),
        Command::Man { dir } => generate::man(dir.as_deref()).map(|()| ExitCode::SUCCESS),
        Command::New {
            kind,
            name,
            lang,
            dir,
        } => new_project(kind, lang, &name, dir),
    }
}

fn new_project(
    kind: crate::new_project::Kind,
    lang: crate::new_project::Lang,
    name: &str,
    dir: Option<PathBuf>,
) -> Result<ExitCode> {
    let dir = dir.unwrap_or_else(|| PathBuf::from(name));
    let written = crate::new_project::create(kind, lang, name, &dir)?;
    println!("created {} ({} files)", dir.display(), written.len());
    println!("{}", crate::new_project::next_steps(kind, lang, &dir));
    Ok(ExitCode::SUCCESS)
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

/// The provider for this run: from the config (or a preset), then the flags, every value checked.
/// On resume, the session's own provider, model and base URL are the defaults.
pub fn provider_config(
    config: &Config,
    args: &RunArgs,
    resumed: Option<&crate::resume::SessionHeader>,
) -> Result<ProviderConfig> {
    let name = args
        .provider
        .as_deref()
        .or(resumed.map(|h| h.provider.as_str()))
        .unwrap_or("openai");
    let mut cfg = config.provider(name)?.clone();
    if let Some(h) = resumed {
        cfg.model = h.model.clone();
        cfg.base_url = h.base_url.clone();
    }
    if let Some(model) = &args.model {
        cfg.model = model.clone();
    }
    if let Some(url) = &args.base_url {
        cfg.base_url = url.clone();
    }
    cfg.base_url = crate::config::normalize_base_url(&cfg.name, &cfg.base_url)?;
    if cfg.model.trim().is_empty() {
        bail!(
            "provider '{}' has no default model: pass --model NAME (the model the server at {} serves), \
             or set `model = \"...\"` under [providers.{}] in the config",
            cfg.name,
            cfg.base_url,
            cfg.name
        );
    }
    if let Some(var) = &args.api_key_env {
        cfg.api_key_env = var.clone();
        cfg.api_key_scope = crate::config::KeyScope::Explicit;
    }
    if let Some(path) = &args.adapter {
        cfg.adapter = GuestRef::File(path.clone());
    }
    Ok(cfg)
}

/// The session store the config (and `DSH_SESSIONS_URL`) chooses: PostgreSQL, or the files of
/// `sessions_dir` (see [`crate::store`]).
pub(crate) fn open_sessions(
    config_path: Option<&Path>,
    sessions_dir: &Path,
) -> Result<SessionStore> {
    SessionStore::open_configured(sessions_dir, &Config::load(config_path)?.sessions)
}

/// `DSH_RANDOM_SEED` pins the samples handed to listeners (reproducible jitter in tests).
fn random_seed() -> Result<Option<u64>> {
    match std::env::var("DSH_RANDOM_SEED") {
        Ok(text) => text
            .parse()
            .map(Some)
            .with_context(|| format!("DSH_RANDOM_SEED={text:?} is not a whole number")),
        Err(_) => Ok(None),
    }
}

async fn run(args: RunArgs, config_path: Option<&Path>, sessions_dir: &Path) -> Result<ExitCode> {
    let config = Config::load(config_path)?;
    let store = SessionStore::open_configured(sessions_dir, &config.sessions)?;
    // On resume, every check runs before anything is written: the claim locks the session (one
    // writer) and reads it, and the file is only touched by `open_for_append` below.
    let reopened = match &args.resume {
        Some(id) => {
            let claim = store.claim(id)?;
            let rebuilt =
                crate::resume::rebuild(&claim.read().events, std::time::SystemTime::now())
                    .with_context(|| format!("session '{id}' cannot be resumed"))?;
            if rebuilt.unfinished.is_none() && args.prompt.is_none() {
                bail!(
                    "session '{id}' has no unfinished turn; give a PROMPT to continue the conversation"
                );
            }
            Some((claim, rebuilt.header, rebuilt.tools))
        }
        None => None,
    };
    // After the claim: the session being resumed is locked, so retention cannot delete it.
    crate::retention::apply_configured(&store, &config.sessions);
    let provider_cfg = provider_config(&config, &args, reopened.as_ref().map(|r| &r.1))?;
    let mut output = run_output(&args, &provider_cfg.retry_policy);
    let runtime = Runtime::new(config, default_engine()?, random_seed()?)
        .await?
        .with_cooldowns(store.cooldowns());
    let deps = runtime.deps(runtime.provider(provider_cfg).await?);

    let mut use_tools = args.tools;
    let (session, unfinished) = match reopened {
        Some((claim, _, tools)) => {
            let (log, read) = claim.open_for_append()?;
            if let (Some(torn), Some(file)) = (&read.torn_tail, &read.torn_tail_file) {
                eprintln!(
                    "warning: session '{}' ended in a torn or malformed line (a crash mid-write); it was moved to {file} in the sessions directory: {:.120}",
                    log.id(),
                    torn.trim_end()
                );
            }
            if !use_tools && !tools.is_empty() {
                // Its history holds tool calls, and its unfinished step may still have calls to run.
                eprintln!(
                    "note: the session offered tools ({}) in its last turn; the built-in tools are enabled",
                    tools.join(", ")
                );
                use_tools = true;
            }
            Session::resume(deps, log, &read)?
        }
        None => (
            Session::start(deps, store.create()?, args.system.clone())?,
            None,
        ),
    };
    let mut session = session.with_max_steps(args.max_steps);
    if use_tools {
        session = session.with_tools(std::sync::Arc::new(crate::tools::builtin::builtin_tools()));
    }

    // Ctrl-C aborts the request or the backoff in flight; the session logs it as ABORTED.
    let abort = session.abort_signal();
    let interrupted = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let flag = interrupted.clone();
    tokio::spawn(async move {
        if tokio::signal::ctrl_c().await.is_ok() {
            flag.store(true, std::sync::atomic::Ordering::SeqCst);
            abort.abort();
        }
    });

    output.start(session.id(), unfinished.as_ref());
    let mut outcome = Ok(());
    if let Some(open) = unfinished {
        outcome = session
            .continue_turn(open, &mut |e| output.event(e))
            .await
            .map(|c| output.answer(&c.text));
    }
    if let (Ok(()), Some(prompt)) = (&outcome, &args.prompt) {
        outcome = session
            .run_turn(prompt, &mut |e| output.event(e))
            .await
            .map(|c| output.answer(&c.text));
    }
    if let Err(e) = &outcome {
        output.failed(e);
    }
    let id = session.id().to_string();
    let paint = colour::Palette::stderr();
    let ended = match outcome {
        Ok(()) => Outcome::Completed,
        Err(TurnError::Failed(failure)) => {
            eprintln!("{} {failure}", paint.failure("error:"));
            eprintln!("  code:       {}", paint.failure(&failure.code));
            if let Some(status) = failure.status {
                eprintln!("  status:     {status}");
            }
            if let Some(rid) = &failure.request_id {
                eprintln!("  request id: {rid}");
            }
            eprintln!(
                "  session:    {id} (dsh-host log {id}; continue with dsh-host run --resume {id})"
            );
            if interrupted.load(std::sync::atomic::Ordering::SeqCst) {
                Outcome::Interrupted
            } else {
                Outcome::Failed
            }
        }
        Err(e @ TurnError::StepLimit { .. }) => {
            eprintln!("{} {e}", paint.failure("error:"));
            eprintln!("  session:    {id} (dsh-host log {id}; raise the limit with --max-steps)");
            Outcome::Failed
        }
        Err(TurnError::Host(e)) => {
            output.end(&id, Outcome::HostError);
            return Err(e);
        }
    };
    output.end(&id, ended);
    Ok(ExitCode::from(ended.exit_code()))
}

/// How `run` reports: JSON lines for a program, or the answer (and on a terminal, unless
/// `--quiet`, the live progress line) for a person.
fn run_output(args: &RunArgs, policy: &crate::config::RetryPolicy) -> Box<dyn RunOutput> {
    if args.json {
        return Box::new(json_lines::JsonLines::new(std::io::stdout()));
    }
    let palette = colour::Palette::stderr();
    let limit = (policy.mode == crate::config::RetryMode::Normal).then_some(policy.max_retries);
    let live = std::io::stderr().is_terminal() && !args.quiet;
    let progress = progress::Progress::new(progress::Status::new(limit, palette.clone()), live);
    Box::new(answer::AnswerPrinter::new(
        std::io::stdout().is_terminal(),
        args.quiet,
        palette,
        progress,
    ))
}

/// One line per tool call for the terminal: `[tool calculator({"expression":"2+2"}) → 4]`. Long
/// arguments and results are shortened, and a result of several lines shows its first.
pub fn tool_line(name: &str, arguments: &str, content: &str) -> String {
    fn short(text: &str, max: usize) -> String {
        let first = text.lines().next().unwrap_or("");
        let more = first.len() < text.trim_end().len();
        let mut out: String = first.chars().take(max).collect();
        if more || first.chars().count() > max {
            out.push('…');
        }
        out
    }
    format!(
        "[tool {name}({}) → {}]",
        short(arguments, 120),
        short(content, 160)
    )
}

/// `dsh-host check`: the report on stdout, the exit status says whether every case passed.
async fn check(args: CheckArgs) -> Result<ExitCode> {
    let target = match (args.file, args.builtin) {
        (Some(file), _) => crate::check::Target::File(file),
        (None, Some(name)) => crate::check::Target::Builtin(name),
        (None, None) => bail!("give the component to check (FILE.wasm) or --builtin NAME"),
    };
    let options = crate::check::CheckOptions {
        cases: args.cases,
        seed: args.seed,
        listener_config: args.listener_config,
    };
    let report = crate::check::check(&default_engine()?, &target, &options).await?;
    let mut out = std::io::stdout();
    let text = if args.json {
        report.json() + "\n"
    } else {
        report.table()
    };
    let _ = out.write_all(text.as_bytes());
    let _ = out.flush();
    Ok(if report.passed {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(EXIT_CHECK_FAILED)
    })
}

async fn serve(
    config_path: Option<&Path>,
    sessions_dir: &Path,
    listen: Option<SocketAddr>,
    allow_unauthenticated: bool,
) -> Result<ExitCode> {
    let config = Config::load(config_path)?;
    let listen = match listen {
        Some(l) => l,
        None => config.gateway.listen.parse().with_context(|| {
            format!(
                "[gateway] listen = {:?} is not an address such as 127.0.0.1:8080",
                config.gateway.listen
            )
        })?,
    };
    let options = crate::gateway::ServeOptions {
        listen,
        allow_unauthenticated,
    };
    crate::retention::spawn_periodic(sessions_dir, &config.sessions);
    crate::gateway::serve(config, sessions_dir, options, |addr| {
        // The first line is machine-readable so scripts can pick up an ephemeral port.
        let mut out = std::io::stdout();
        let _ = writeln!(out, "dsh-host gateway listening on http://{addr}/v1");
        let _ = out.flush();
    })
    .await?;
    Ok(ExitCode::SUCCESS)
}

async fn serve_mock(script_path: &Path, port: u16, record: Option<PathBuf>) -> Result<ExitCode> {
    let script = MockScript::from_path(script_path)?;
    let steps = script.steps.len();
    let addr: SocketAddr = ([127, 0, 0, 1], port).into();
    let recording = record
        .as_ref()
        .map(|p| format!("; recording every request to {}", p.display()))
        .unwrap_or_default();
    let server = MockServer::start_with(script, addr, MockOptions { record }).await?;
    // The first line is machine-readable so scripts can pick up an ephemeral port.
    // A reader that stops reading (a script that only wanted the URL) must not kill the server.
    let mut out = std::io::stdout();
    let _ = writeln!(out, "mock provider listening on {}", server.base_url());
    let _ = writeln!(out, "{steps} scripted step(s){recording}; Ctrl-C to stop");
    let _ = out.flush();
    tokio::signal::ctrl_c()
        .await
        .context("waiting for Ctrl-C")?;
    server.shutdown().await;
    Ok(ExitCode::SUCCESS)
}
