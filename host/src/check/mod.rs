//! `dsh-host check`: proves a guest against the contract before it meets a provider (docs/check.md).
//! The guest is loaded and called exactly as `run` loads and calls it (`Adapter::load` and
//! `AdapterInstance`, `Listener::load` and `Listener::decide`, 0.1 guests through `compat`); the
//! cases come from the corpus built into the binary and from the author's case files.
//!
//! - [`cases`]: the case file format;
//! - [`corpus`]: the built-in provider-neutral corpus and the built-in guests' own cases;
//! - [`decode`]: one adapter instance driven as an attempt drives it;
//! - [`adapter_checks`], [`listener_checks`]: the checks;
//! - [`report`]: the table and the JSON report.

pub mod adapter_checks;
pub mod cases;
pub mod corpus;
pub mod decode;
pub mod listener_checks;
pub mod report;

use crate::adapter::Adapter;
use crate::engine::{GuestEngine, GuestLimits};
use crate::guests::GuestSource;
use anyhow::{Result, bail};
use cases::{CaseText, DEFAULT_CREDENTIAL_HEADERS};
use report::{GuestDescription, Measurements, Report, Row};
use std::path::PathBuf;

/// What to check.
#[derive(Debug, Clone)]
pub enum Target {
    File(PathBuf),
    /// A guest built into the binary, by name (`openai`, `llm-retry`, ...).
    Builtin(String),
}

#[derive(Debug, Clone, Default)]
pub struct CheckOptions {
    /// A case file or a directory of them; a built-in guest's own cases without one.
    pub cases: Option<PathBuf>,
    /// The seed of the random cuttings, samples and fuzz.
    pub seed: u64,
    /// A listener's configuration (JSON), over a scenario file's `config`.
    pub listener_config: Option<String>,
}

/// Checks the guest. An `Err` is a check that could not run (a malformed `.wasm` or case file);
/// a guest that fails its cases, traps included, is a report that did not pass.
pub async fn check(
    engine: &GuestEngine,
    target: &Target,
    options: &CheckOptions,
) -> Result<Report> {
    let (source, builtin) = match target {
        Target::File(path) => (GuestSource::file(path), None),
        Target::Builtin(name) => {
            let source = crate::guests::builtin_adapter(name)
                .or_else(|| crate::guests::builtin_listener(name));
            match source {
                Some(source) => (source, Some(name.as_str())),
                None => bail!(
                    "there is no built-in guest {name:?}: the built-in adapters are {} and the listeners {}",
                    crate::guests::BUILTIN_ADAPTERS.join(", "),
                    crate::guests::BUILTIN_LISTENERS.join(", ")
                ),
            }
        }
    };
    let files = match (&options.cases, builtin) {
        (Some(path), _) => cases::read_case_files(path)?,
        (None, Some(name)) => corpus::builtin_guest_cases(name).into_iter().collect(),
        (None, None) => Vec::new(),
    };
    let limits = GuestLimits::default_for(&source);
    if is_listener(engine, &source)? {
        check_listener(engine, &source, limits, &files, options).await
    } else {
        check_adapter(engine, &source, limits, &files, options.seed).await
    }
}

/// Whether the component exports the listener interface (anything else is loaded as an adapter,
/// whose loading says precisely what is wrong with it).
fn is_listener(engine: &GuestEngine, source: &GuestSource) -> Result<bool> {
    let component = engine.compile(&source.origin(), &source.read()?)?;
    Ok(component
        .component_type()
        .exports(engine.engine())
        .any(|(name, _)| name.starts_with("dsh:llm/listener@")))
}

async fn check_adapter(
    engine: &GuestEngine,
    source: &GuestSource,
    limits: GuestLimits,
    files: &[CaseText],
    seed: u64,
) -> Result<Report> {
    let adapter = Adapter::load(engine, source, limits).await?;
    let corpus: Vec<(String, cases::AdapterCaseFile)> = corpus::corpus()
        .iter()
        .map(|f| Ok((f.origin.clone(), cases::parse_adapter_cases(f)?)))
        .collect::<Result<_>>()?;
    let authored: Vec<(String, cases::AdapterCaseFile)> = files
        .iter()
        .map(|f| Ok((f.origin.clone(), cases::parse_adapter_cases(f)?)))
        .collect::<Result<_>>()?;

    let mut credential_headers: Vec<String> = Vec::new();
    for (origin, file) in &authored {
        if let Some(headers) = &file.credential_headers {
            let checked = crate::plan::check_credential_headers(headers)
                .map_err(|e| anyhow::anyhow!("{origin}: {e}"))?;
            credential_headers.extend(checked);
        }
    }
    if credential_headers.is_empty() {
        credential_headers = DEFAULT_CREDENTIAL_HEADERS
            .iter()
            .map(|h| h.to_string())
            .collect();
    }

    let mut checker = adapter_checks::AdapterChecker::new(&adapter, seed);
    let mut rows = checker.builtin_plans(&credential_headers).await;
    for (origin, file) in corpus.iter().chain(&authored) {
        for case in &file.cases {
            rows.extend(checker.case(origin, case, &credential_headers).await);
        }
    }
    rows.extend(checker.fuzz().await);

    let measurements = Measurements {
        decode_micros_per_event: (checker.events > 0)
            .then(|| checker.decoder_time.as_secs_f64() * 1e6 / checker.events as f64),
        events: checker.events,
        peak_memory_bytes: Some(checker.peak_memory_bytes),
        seed,
    };
    let guest = GuestDescription {
        name: adapter.name().to_string(),
        origin: adapter.origin().to_string(),
        world: "adapter",
        contract: adapter.contract_version().as_str().to_string(),
    };
    Ok(Report::new(guest, rows, measurements))
}

async fn check_listener(
    engine: &GuestEngine,
    source: &GuestSource,
    limits: GuestLimits,
    files: &[CaseText],
    options: &CheckOptions,
) -> Result<Report> {
    let parsed: Vec<(String, cases::ListenerCaseFile)> = files
        .iter()
        .map(|f| Ok((f.origin.clone(), cases::parse_listener_cases(f)?)))
        .collect::<Result<_>>()?;
    let from_files = |pick: fn(&cases::ListenerCaseFile) -> Option<&serde_json::Value>,
                      what: &str|
     -> Result<Option<serde_json::Value>> {
        let mut found: Option<(&str, &serde_json::Value)> = None;
        for (origin, file) in &parsed {
            if let Some(value) = pick(file) {
                match found {
                    Some((first, v)) if v != value => bail!(
                        "{first} and {origin} give different `{what}`; scenario files checked together share one"
                    ),
                    _ => found = Some((origin, value)),
                }
            }
        }
        Ok(found.map(|(_, v)| v.clone()))
    };
    let config = match &options.listener_config {
        Some(json) => json.clone(),
        None => from_files(|f| f.config.as_ref(), "config")?
            .map_or_else(|| "{}".to_string(), |v| v.to_string()),
    };
    let policy = listener_checks::Policy::new(
        from_files(|f| f.retry_policy.as_ref(), "retry_policy")?.as_ref(),
    )
    .map_err(|e| anyhow::anyhow!("the retry_policy of the scenario file: {e}"))?;

    let version = engine.prepare(source, &crate::listener::LISTENER_WORLD)?.1;
    let checker =
        match listener_checks::ListenerChecker::load(engine, source, limits, &config, policy).await
        {
            Ok(checker) => checker,
            Err(row) => {
                let guest = GuestDescription {
                    name: source.origin(),
                    origin: source.origin(),
                    world: "listener",
                    contract: version.as_str().to_string(),
                };
                return Ok(Report::new(
                    guest,
                    vec![row],
                    Measurements {
                        seed: options.seed,
                        ..Default::default()
                    },
                ));
            }
        };
    let mut loaded = Row::new(
        "built-in",
        &format!("configure {}", report::clip(&config, 60)),
        "accepted",
    );
    loaded.got = "accepted".into();
    let mut rows = vec![loaded];
    rows.extend(checker.configuration(&config).await);
    rows.extend(checker.every_code(options.seed).await);
    for (origin, file) in &parsed {
        for scenario in &file.scenarios {
            rows.push(checker.scenario(origin, scenario).await);
        }
    }
    let listener = checker.listener();
    let guest = GuestDescription {
        name: listener.name().to_string(),
        origin: source.origin(),
        world: "listener",
        contract: listener.contract_version().as_str().to_string(),
    };
    Ok(Report::new(
        guest,
        rows,
        Measurements {
            seed: options.seed,
            ..Default::default()
        },
    ))
}
