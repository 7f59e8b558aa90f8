//! Configuration: `dsh.toml` (path by `--config` or `DSH_CONFIG`), whose built-in defaults need no
//! file. Pure code: parsing and checking only; nothing here touches the network, a guest or the disk
//! (the caller reads the file).
//!
//! ```toml
//! [providers.openai]                  # a preset name: its defaults apply
//! model = "gpt-4o"
//! stream_idle_timeout_ms = 120000
//! [providers.openai.retry_policy]
//! mode = "normal"                     # or "always"
//! max_retries = 5
//!
//! [providers.local]                   # any other name picks a preset explicitly
//! preset = "openai-compatible"
//! base_url = "https://llm.corp.example/v1"
//! api_key_env = "CORP_LLM_KEY"        # explicit, so this key goes to this provider's hosts
//! credential_headers = ["authorization"]
//! ca_file = "corp-ca.pem"             # extra trusted roots, relative to this file
//!
//! [[listeners]]                       # the recovery waterfall, in order
//! name = "compaction-basic"
//! [[listeners]]
//! name = "llm-retry"
//! [[listeners]]
//! wasm = "./my-listener.wasm"
//! config = { budget_ms = 60000 }
//!
//! [sessions]
//! retention = "30d"                   # sessions untouched this long are deleted (default: kept)
//! ```

use anyhow::{Context, Result, bail};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

/// docs/DESIGN.md: five minutes unless configured.
pub const DEFAULT_STREAM_IDLE_TIMEOUT_MS: f64 = 300_000.0;
/// Anything above a day is a typo (seconds given as milliseconds twice over), not a wish.
pub const MAX_STREAM_IDLE_TIMEOUT_MS: f64 = 86_400_000.0;

/// The longest backoff a retry policy may be configured with (the default cap on a listener's delay).
pub const MAX_RETRY_DELAY_MS: u64 = 3_600_000;
/// Below a millisecond, a watchdog times out before any provider could answer.
pub const MIN_STREAM_IDLE_TIMEOUT_MS: f64 = 1.0;

/// The provider presets usable with no config file.
pub const PRESETS: &[&str] = &[
    "openai",
    "anthropic",
    "gemini",
    "deepseek",
    "openai-compatible",
];

/// The default waterfall: compaction first (it acts only on overflows), then the retry policy.
pub const DEFAULT_LISTENERS: &[&str] = &["compaction-basic", "llm-retry"];

/// Which component a provider or listener uses.
#[derive(Debug, Clone, PartialEq)]
pub enum GuestRef {
    /// A first-party guest compiled into the binary.
    Builtin(String),
    /// A third-party `.wasm` component.
    File(PathBuf),
}

pub type AdapterRef = GuestRef;

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    pub name: String,
    pub adapter: AdapterRef,
    /// Without trailing slash, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// Hosts the provider's requests may go to (default: the base URL's host).
    pub allowed_hosts: Vec<String>,
    /// The environment variable holding the API key.
    pub api_key_env: String,
    /// Where that variable's key may be sent: see [`ProviderConfig::key_env`].
    pub api_key_scope: KeyScope,
    /// Whether a request without a key is refused before it is sent (local servers need none).
    pub api_key_required: bool,
    /// The header names (lower-case) the adapter may put `{credential}` in; anywhere else is the
    /// adapter's fault.
    pub credential_headers: Vec<String>,
    /// Extra trusted root certificates (PEM) for this provider's TLS, added to the system's: a
    /// self-hosted provider behind an internal CA. Read and checked when the provider is built.
    pub ca_file: Option<PathBuf>,
    pub model: String,
    pub stream_idle_timeout: Duration,
    pub retry_policy: RetryPolicy,
    /// Overrides of the adapter's sandbox limits.
    pub adapter_limits: LimitsOverride,
}

/// Where a provider's key may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum KeyScope {
    /// `api_key_env` was configured for this provider (in its `[providers.NAME]` section, by
    /// `--api-key-env`, or by an embedding program): its key goes to the provider's allowed hosts.
    Explicit,
    /// The preset's default variable: its key goes only to the preset's own hosts (none for
    /// `openai-compatible`, which has no host of its own). Pointing a hosted preset elsewhere
    /// (`base_url`, `allowed_hosts`) does not take its key along.
    PresetHosts(Vec<String>),
}

impl ProviderConfig {
    /// The environment variable whose key this provider may send, or why it may send none (a
    /// sentence naming the setting that would allow it).
    pub fn key_env(&self) -> std::result::Result<&str, String> {
        let hosts = match &self.api_key_scope {
            KeyScope::Explicit => return Ok(&self.api_key_env),
            KeyScope::PresetHosts(hosts) => hosts,
        };
        let fix = format!(
            "set api_key_env under [providers.{}] (or pass --api-key-env VAR) to send a key there",
            self.name
        );
        if hosts.is_empty() {
            return Err(format!(
                "provider '{}' sends a key only when one is configured for it: {fix}",
                self.name
            ));
        }
        let targets = crate::network::NetworkPolicy::for_provider(
            &self.name,
            &self.base_url,
            &self.allowed_hosts,
        )
        .map(|p| p.allowed_hosts)
        .map_err(|r| r.to_string())?;
        match targets.iter().find(|t| !hosts.contains(t)) {
            None => Ok(&self.api_key_env),
            Some(other) => Err(format!(
                "{} is the key of {} and is not sent to {other}: {fix}",
                self.api_key_env,
                hosts.join(", ")
            )),
        }
    }
}

/// Per-guest sandbox limits set in the config (`None`: the default for the guest's kind).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LimitsOverride {
    /// Linear memory cap per instance, in MiB (default: 64 for built-in guests, 512 for files).
    pub memory_mb: Option<u64>,
    /// CPU budget of one call into the guest, in ms (default: 10000).
    pub call_timeout_ms: Option<u64>,
    /// An adapter's: distinct tool calls in one completion (default 128).
    pub max_tool_calls: Option<u64>,
    /// An adapter's: MiB of text, reasoning and tool arguments in one completion (default 16).
    pub max_completion_mb: Option<u64>,
    /// A listener's: the longest wait one retry decision may ask for, in ms (default 3600000).
    pub max_delay_ms: Option<u64>,
}

/// Which kind of guest a `LimitsOverride` is for: some caps apply to one kind only.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GuestKind {
    Adapter,
    Listener,
}

impl LimitsOverride {
    fn check(&self, at: &str, kind: GuestKind) -> Result<()> {
        fn within(
            at: &str,
            name: &str,
            value: Option<u64>,
            range: std::ops::RangeInclusive<u64>,
            unit: &str,
        ) -> Result<()> {
            if let Some(v) = value
                && !range.contains(&v)
            {
                bail!(
                    "{at} {name} = {v}: give a number of {unit} between {} and {}",
                    range.start(),
                    range.end()
                );
            }
            Ok(())
        }
        within(at, "memory_mb", self.memory_mb, 1..=4096, "MiB")?;
        within(
            at,
            "call_timeout_ms",
            self.call_timeout_ms,
            1..=600_000,
            "milliseconds",
        )?;
        within(
            at,
            "max_tool_calls",
            self.max_tool_calls,
            1..=10_000,
            "tool calls",
        )?;
        within(
            at,
            "max_completion_mb",
            self.max_completion_mb,
            1..=1024,
            "MiB",
        )?;
        within(
            at,
            "max_delay_ms",
            self.max_delay_ms,
            1..=86_400_000,
            "milliseconds",
        )?;
        let misplaced = match kind {
            GuestKind::Adapter => self
                .max_delay_ms
                .is_some()
                .then_some(("max_delay_ms", "a listener's `limits`")),
            GuestKind::Listener => self
                .max_tool_calls
                .map(|_| "max_tool_calls")
                .or(self.max_completion_mb.map(|_| "max_completion_mb"))
                .map(|name| (name, "[providers.NAME.adapter_limits]")),
        };
        if let Some((name, place)) = misplaced {
            bail!("{at} {name} does not apply here: it belongs in {place}");
        }
        Ok(())
    }
}

/// The provider's retry policy, read by the llm-retry listener (docs/DESIGN.md, "Recovery").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RetryPolicy {
    pub mode: RetryMode,
    pub max_retries: u32,
    pub initial_delay_ms: u64,
    pub max_delay_ms: u64,
    pub jitter_ratio: f64,
    pub retryable_codes: Vec<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RetryMode {
    /// Finite `max_retries`, explicit `retryable_codes`.
    Normal,
    /// Unbounded retries with the same backoff: a deliberate choice for unattended deployments.
    Always,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        RetryPolicy {
            mode: RetryMode::Normal,
            max_retries: 5,
            initial_delay_ms: 1000,
            max_delay_ms: 120_000,
            jitter_ratio: 0.2,
            retryable_codes: crate::failure::RETRYABLE_BY_DEFAULT
                .iter()
                .map(|c| c.to_string())
                .collect(),
        }
    }
}

impl RetryPolicy {
    pub fn check(&self, provider: &str) -> Result<()> {
        let at = format!("[providers.{provider}.retry_policy]");
        if self.initial_delay_ms == 0 {
            bail!("{at} initial_delay_ms must be positive (e.g. 1000)");
        }
        if self.max_delay_ms > MAX_RETRY_DELAY_MS {
            bail!(
                "{at} max_delay_ms is {}, more than an hour ({MAX_RETRY_DELAY_MS}); a wait that long looks \
                 like a hang, and listeners may ask for at most an hour by default",
                self.max_delay_ms
            );
        }
        if self.max_delay_ms < self.initial_delay_ms {
            bail!(
                "{at} max_delay_ms ({}) is below initial_delay_ms ({})",
                self.max_delay_ms,
                self.initial_delay_ms
            );
        }
        if !(0.0..=1.0).contains(&self.jitter_ratio) {
            bail!(
                "{at} jitter_ratio is {}; it must be between 0 and 1 (e.g. 0.2)",
                self.jitter_ratio
            );
        }
        for code in &self.retryable_codes {
            if !crate::failure::is_canonical(code) {
                bail!(
                    "{at} retryable_codes has {code:?}, which is not a canonical code ({})",
                    crate::failure::CODES.join(", ")
                );
            }
            if !crate::failure::RETRYABLE_BY_DEFAULT.contains(&code.as_str()) {
                bail!(
                    "{at} retryable_codes has {code}, which the retry policy never retries (waiting cannot cure it{}); \
                     the retryable codes are {}",
                    if code == "CONTEXT_WINDOW_EXCEEDED" {
                        ": compaction-basic handles it"
                    } else {
                        ""
                    },
                    crate::failure::RETRYABLE_BY_DEFAULT.join(", ")
                );
            }
        }
        Ok(())
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a retry policy serializes")
    }
}

/// One recovery listener of the waterfall.
#[derive(Debug, Clone, PartialEq)]
pub struct ListenerConfig {
    pub guest: GuestRef,
    pub limits: LimitsOverride,
    /// The listener's own configuration, handed to its `configure` as JSON.
    pub config_json: String,
}

/// Everything the host reads from configuration.
#[derive(Debug, Clone, PartialEq)]
pub struct Config {
    pub providers: BTreeMap<String, ProviderConfig>,
    pub listeners: Vec<ListenerConfig>,
    /// `dsh-host serve`: the gateway's settings (`[gateway]`).
    pub gateway: GatewayConfig,
    /// `[sessions]`: what happens to session logs over time.
    pub sessions: SessionsConfig,
    /// Where the file was, for messages (`None`: built-in defaults).
    pub source: Option<PathBuf>,
}

/// `[gateway]`: the OpenAI-compatible endpoint of `dsh-host serve`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct GatewayConfig {
    /// Address to listen on (`--listen` overrides).
    pub listen: String,
    /// The provider of a `model` that neither names one (`provider/model`) nor matches a route.
    pub default_provider: Option<String>,
    /// An environment variable holding the gateway keys clients present (comma-separated).
    pub keys_env: Option<String>,
    /// A file of hashed gateway keys: one `sha256:HEX` per line, optionally followed by a name.
    pub keys_file: Option<PathBuf>,
    /// How long a streaming response's head is held back while the gateway retries invisibly.
    pub hold_head_ms: u64,
    /// The deadline of one request (a client may lower it with `x-dsh-timeout-ms`).
    pub request_timeout_ms: u64,
    /// Between SSE comment keepalives once the head is sent and no content flows.
    pub keepalive_ms: u64,
    /// The largest request body accepted.
    pub max_body_bytes: usize,
    /// Requests in flight at once, in all and per gateway key (beyond: 503 with retry-after).
    pub max_concurrent: usize,
    pub max_concurrent_per_key: usize,
    /// Client-side timeouts against slow clients: the request head, then the request body.
    pub header_read_timeout_ms: u64,
    pub body_read_timeout_ms: u64,
    /// On SIGTERM: how long in-flight requests may run before they are cut (logged ABORTED).
    pub drain_timeout_ms: u64,
    /// Keep whole conversations in the session log (default: message counts and digests).
    pub log_messages: bool,
    /// Origins (`https://app.example.com`) allowed to call the gateway from a browser.
    pub allowed_origins: Vec<String>,
    /// Allow gateway keys over plain HTTP on a non-loopback address (behind a TLS-terminating proxy
    /// on a private network only).
    pub allow_plain_http: bool,
    pub routes: Vec<GatewayRoute>,
}

impl Default for GatewayConfig {
    fn default() -> Self {
        GatewayConfig {
            listen: "127.0.0.1:8080".into(),
            default_provider: None,
            keys_env: None,
            keys_file: None,
            hold_head_ms: 10_000,
            request_timeout_ms: 600_000,
            keepalive_ms: 15_000,
            max_body_bytes: 16 << 20,
            max_concurrent: 1024,
            max_concurrent_per_key: 256,
            header_read_timeout_ms: 10_000,
            body_read_timeout_ms: 30_000,
            drain_timeout_ms: 30_000,
            log_messages: false,
            allowed_origins: Vec::new(),
            allow_plain_http: false,
            routes: Vec::new(),
        }
    }
}

/// `[sessions]` of the file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileSessions {
    retention: Option<String>,
    url: Option<String>,
    lease: Option<String>,
}

/// `[sessions]`: where session logs are kept, and for how long.
#[derive(Debug, Clone, PartialEq)]
pub struct SessionsConfig {
    /// Sessions whose log was last written longer ago than this are deleted when `dsh-host run` or
    /// `dsh-host serve` starts (and hourly while serving), and it is the default of `dsh-host
    /// sessions prune --older-than`. `None` (the default): sessions are kept until pruned by hand.
    pub retention: Option<Duration>,
    /// A PostgreSQL database to keep sessions in instead of files (`DSH_SESSIONS_URL` overrides it;
    /// see [`crate::store`]).
    pub url: Option<SessionsUrl>,
    /// How long a writer's hold on a PostgreSQL session lasts unless renewed (it renews it every
    /// third of this): how soon a session whose writer died can be taken over.
    pub lease: Duration,
}

/// The default of `[sessions] lease`.
pub const DEFAULT_SESSION_LEASE: Duration = Duration::from_secs(30);

impl Default for SessionsConfig {
    fn default() -> Self {
        SessionsConfig {
            retention: None,
            url: None,
            lease: DEFAULT_SESSION_LEASE,
        }
    }
}

/// A sessions database URL, which may hold a password: shown (Debug) without it.
#[derive(Clone, PartialEq)]
pub struct SessionsUrl(String);

impl SessionsUrl {
    pub fn new(url: String) -> Self {
        SessionsUrl(url)
    }

    /// The URL itself, password included: only for connecting.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Debug for SessionsUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{:?}", crate::pg_store::redact_url(&self.0))
    }
}

impl FileSessions {
    fn parse(self) -> Result<SessionsConfig> {
        let retention = match self.retention {
            None => None,
            Some(text) => Some(
                parse_retention(&text).map_err(|e| anyhow::anyhow!("[sessions] retention: {e}"))?,
            ),
        };
        let lease = match self.lease {
            None => DEFAULT_SESSION_LEASE,
            Some(text) => {
                parse_lease(&text).map_err(|e| anyhow::anyhow!("[sessions] lease: {e}"))?
            }
        };
        let url = self
            .url
            .filter(|u| !u.trim().is_empty())
            .map(SessionsUrl::new);
        Ok(SessionsConfig {
            retention,
            url,
            lease,
        })
    }
}

/// A session lease (`30s`, `2m`): at least a second, since the holder renews it every third of it.
fn parse_lease(text: &str) -> Result<Duration> {
    let lease = humantime::parse_duration(text.trim())
        .map_err(|e| anyhow::anyhow!("{text:?} is not a duration ({e}): write it as 30s or 2m"))?;
    if lease < Duration::from_secs(1) {
        bail!("{text:?} is shorter than a second: give a lease such as 30s");
    }
    Ok(lease)
}

/// A session age (`30d`, `12h`, `2w`): humantime's units, at least a minute (a smaller age would
/// delete the sessions of a moment ago, which is never what was meant).
pub fn parse_retention(text: &str) -> Result<Duration> {
    let age = humantime::parse_duration(text.trim()).map_err(|e| {
        anyhow::anyhow!("{text:?} is not a duration ({e}): write it as 30d, 12h or 2w")
    })?;
    if age < Duration::from_secs(60) {
        bail!("{text:?} is shorter than a minute: give an age such as 30d, 12h or 2w");
    }
    Ok(age)
}

/// `[[gateway.routes]]`: a client model name (or a glob: `*`, `?`) → a provider and its model, with
/// fallbacks tried in order when the waterfall gives up on a retryable failure.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GatewayRoute {
    pub model: String,
    pub provider: String,
    /// The provider's model (default: the client's model name).
    pub upstream_model: Option<String>,
    /// `provider/model` targets, in order.
    #[serde(default)]
    pub fallbacks: Vec<String>,
}

impl GatewayConfig {
    fn check(&self, providers: &BTreeMap<String, ProviderConfig>) -> Result<()> {
        let known = |name: &str| providers.contains_key(name);
        let list = || providers.keys().cloned().collect::<Vec<_>>().join(", ");
        if let Some(p) = &self.default_provider
            && !known(p)
        {
            bail!(
                "[gateway] default_provider = {p:?} is not a configured provider ({})",
                list()
            );
        }
        for (name, ms, range) in [
            ("hold_head_ms", self.hold_head_ms, 0..=600_000),
            (
                "request_timeout_ms",
                self.request_timeout_ms,
                1..=86_400_000,
            ),
            ("keepalive_ms", self.keepalive_ms, 100..=600_000),
            (
                "header_read_timeout_ms",
                self.header_read_timeout_ms,
                1..=600_000,
            ),
            (
                "body_read_timeout_ms",
                self.body_read_timeout_ms,
                1..=600_000,
            ),
            ("drain_timeout_ms", self.drain_timeout_ms, 0..=3_600_000),
        ] {
            if !range.contains(&ms) {
                bail!(
                    "[gateway] {name} = {ms}: give milliseconds between {} and {}",
                    range.start(),
                    range.end()
                );
            }
        }
        if self.max_body_bytes < 1024
            || self.max_concurrent == 0
            || self.max_concurrent_per_key == 0
        {
            bail!(
                "[gateway] max_body_bytes (at least 1024), max_concurrent and max_concurrent_per_key (at least 1) must be positive"
            );
        }
        for (i, r) in self.routes.iter().enumerate() {
            if r.model.trim().is_empty() {
                bail!("[[gateway.routes]] #{} has an empty model", i + 1);
            }
            if !known(&r.provider) {
                bail!(
                    "[[gateway.routes]] #{} (model {:?}): provider {:?} is not configured ({})",
                    i + 1,
                    r.model,
                    r.provider,
                    list()
                );
            }
            for f in &r.fallbacks {
                match f.split_once('/') {
                    Some((p, m)) if known(p) && !m.is_empty() => {}
                    _ => bail!(
                        "[[gateway.routes]] #{} (model {:?}): fallback {f:?} must be `provider/model` with a configured provider ({})",
                        i + 1,
                        r.model,
                        list()
                    ),
                }
            }
        }
        Ok(())
    }
}

// ---- the file format ------------------------------------------------------------------------

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileConfig {
    #[serde(default)]
    providers: BTreeMap<String, FileProvider>,
    listeners: Option<Vec<FileListener>>,
    gateway: Option<GatewayConfig>,
    sessions: Option<FileSessions>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileProvider {
    preset: Option<String>,
    adapter: Option<String>,
    base_url: Option<String>,
    allowed_hosts: Option<Vec<String>>,
    api_key_env: Option<String>,
    api_key_required: Option<bool>,
    credential_headers: Option<Vec<String>>,
    ca_file: Option<PathBuf>,
    model: Option<String>,
    stream_idle_timeout_ms: Option<f64>,
    retry_policy: Option<RetryPolicy>,
    adapter_limits: Option<LimitsOverride>,
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileListener {
    /// A built-in listener: compaction-basic, llm-retry.
    name: Option<String>,
    /// A listener component file (relative paths are relative to the config file).
    wasm: Option<PathBuf>,
    #[serde(default)]
    config: Option<toml::Table>,
    #[serde(default)]
    limits: LimitsOverride,
}

impl Config {
    /// The built-in defaults: every preset, the default waterfall.
    pub fn builtin() -> Config {
        Config {
            providers: PRESETS
                .iter()
                .map(|p| (p.to_string(), preset(p).expect("presets are valid")))
                .collect(),
            listeners: DEFAULT_LISTENERS
                .iter()
                .map(|l| ListenerConfig {
                    guest: GuestRef::Builtin(l.to_string()),
                    limits: LimitsOverride::default(),
                    config_json: "{}".into(),
                })
                .collect(),
            gateway: GatewayConfig::default(),
            sessions: SessionsConfig::default(),
            source: None,
        }
    }

    /// Parses a `dsh.toml`'s text; `path` names it in errors and anchors relative `.wasm` paths.
    pub fn parse(text: &str, path: &Path) -> Result<Config> {
        let file: FileConfig = toml::from_str(text)
            .map_err(|e| anyhow::anyhow!("{}: {}", path.display(), e.to_string().trim_end()))?;
        let base_dir = path.parent().unwrap_or(Path::new("."));
        let mut config = Config::builtin();
        config.source = Some(path.to_path_buf());
        for (name, fp) in file.providers {
            let provider = file_provider(&name, fp, base_dir)
                .with_context(|| format!("in {}", path.display()))?;
            config.providers.insert(name, provider);
        }
        if let Some(listeners) = file.listeners {
            config.listeners = listeners
                .into_iter()
                .enumerate()
                .map(|(i, l)| file_listener(i, l, base_dir))
                .collect::<Result<_>>()
                .with_context(|| format!("in {}", path.display()))?;
        }
        if let Some(gateway) = file.gateway {
            gateway
                .check(&config.providers)
                .with_context(|| format!("in {}", path.display()))?;
            config.gateway = gateway;
        }
        if let Some(sessions) = file.sessions {
            config.sessions = sessions
                .parse()
                .with_context(|| format!("in {}", path.display()))?;
        }
        Ok(config)
    }

    /// Reads the file at `path`, or gives the built-in defaults when there is none.
    pub fn load(path: Option<&Path>) -> Result<Config> {
        match path {
            None => Ok(Config::builtin()),
            Some(path) => {
                let text = std::fs::read_to_string(path)
                    .with_context(|| format!("reading the config file {}", path.display()))?;
                Config::parse(&text, path)
            }
        }
    }

    pub fn provider(&self, name: &str) -> Result<&ProviderConfig> {
        self.providers.get(name).with_context(|| {
            let known: Vec<&str> = self.providers.keys().map(String::as_str).collect();
            format!(
                "unknown provider '{name}': the configured providers are {}",
                known.join(", ")
            )
        })
    }
}

fn file_provider(name: &str, fp: FileProvider, base_dir: &Path) -> Result<ProviderConfig> {
    let preset_name = match (&fp.preset, PRESETS.contains(&name)) {
        (Some(p), _) => p.clone(),
        (None, true) => name.to_string(),
        (None, false) => bail!(
            "[providers.{name}] needs `preset = ...` (one of {}) since '{name}' is not a preset",
            PRESETS.join(", ")
        ),
    };
    let mut p = preset(&preset_name).with_context(|| format!("[providers.{name}] preset"))?;
    p.name = name.to_string();
    if let Some(adapter) = fp.adapter {
        p.adapter = guest_ref(&adapter, base_dir);
    }
    if let Some(url) = fp.base_url {
        p.base_url = url;
    }
    if let Some(hosts) = fp.allowed_hosts {
        p.allowed_hosts = hosts;
    }
    if let Some(env) = fp.api_key_env {
        p.api_key_env = env;
        p.api_key_scope = KeyScope::Explicit;
    }
    if let Some(headers) = fp.credential_headers {
        p.credential_headers = crate::plan::check_credential_headers(&headers)
            .map_err(|e| anyhow::anyhow!("[providers.{name}] {e}"))?;
    }
    if let Some(path) = fp.ca_file {
        p.ca_file = Some(base_dir.join(path));
    }
    if let Some(required) = fp.api_key_required {
        p.api_key_required = required;
    }
    if let Some(model) = fp.model {
        p.model = model;
    }
    if let Some(ms) = fp.stream_idle_timeout_ms {
        p.stream_idle_timeout = stream_idle_timeout(name, ms)?;
    }
    if let Some(limits) = fp.adapter_limits {
        limits.check(
            &format!("[providers.{name}.adapter_limits]"),
            GuestKind::Adapter,
        )?;
        p.adapter_limits = limits;
    }
    if let Some(policy) = fp.retry_policy {
        policy.check(name)?;
        p.retry_policy = policy;
    }
    if !p.base_url.is_empty() {
        p.base_url = normalize_base_url(name, &p.base_url)?;
    }
    Ok(p)
}

fn file_listener(index: usize, l: FileListener, base_dir: &Path) -> Result<ListenerConfig> {
    let at = format!("[[listeners]] #{}", index + 1);
    let guest = match (l.name, l.wasm) {
        (Some(name), None) => GuestRef::Builtin(name),
        (None, Some(path)) => GuestRef::File(base_dir.join(path)),
        (Some(_), Some(_)) => bail!(
            "{at} has both `name` and `wasm`: give `name` for a built-in listener or `wasm` for a file"
        ),
        (None, None) => bail!(
            "{at} needs `name = \"llm-retry\"` (a built-in listener) or `wasm = \"path.wasm\"`"
        ),
    };
    let config_json =
        serde_json::to_string(&l.config.unwrap_or_default()).expect("TOML tables are JSON");
    l.limits
        .check(&format!("{at} limits:"), GuestKind::Listener)?;
    Ok(ListenerConfig {
        guest,
        limits: l.limits,
        config_json,
    })
}

fn guest_ref(text: &str, base_dir: &Path) -> GuestRef {
    if text.ends_with(".wasm") || text.contains('/') {
        GuestRef::File(base_dir.join(text))
    } else {
        GuestRef::Builtin(text.to_string())
    }
}

pub fn preset(name: &str) -> Result<ProviderConfig> {
    let base = |adapter: &str, base_url: &str, key: &str, model: &str| ProviderConfig {
        name: name.to_string(),
        adapter: GuestRef::Builtin(adapter.into()),
        base_url: base_url.to_string(),
        allowed_hosts: Vec::new(),
        api_key_env: key.to_string(),
        // The preset's own host, and only it, receives the preset's key by default.
        api_key_scope: KeyScope::PresetHosts(
            reqwest::Url::parse(base_url)
                .ok()
                .and_then(|u| u.host_str().map(str::to_string))
                .into_iter()
                .collect(),
        ),
        api_key_required: true,
        credential_headers: vec!["authorization".into()],
        ca_file: None,
        model: model.to_string(),
        stream_idle_timeout: Duration::from_millis(DEFAULT_STREAM_IDLE_TIMEOUT_MS as u64),
        retry_policy: RetryPolicy::default(),
        adapter_limits: LimitsOverride::default(),
    };
    match name {
        "openai" => Ok(base(
            "openai",
            "https://api.openai.com/v1",
            "OPENAI_API_KEY",
            "gpt-4o-mini",
        )),
        "anthropic" => Ok(ProviderConfig {
            credential_headers: vec!["x-api-key".into()],
            ..base(
                "anthropic",
                "https://api.anthropic.com/v1",
                "ANTHROPIC_API_KEY",
                "claude-sonnet-4-5",
            )
        }),
        // Gemini's native API (generateContent): the key goes in `x-goog-api-key`, never in the URL.
        "gemini" => Ok(ProviderConfig {
            credential_headers: vec!["x-goog-api-key".into()],
            ..base(
                "gemini",
                "https://generativelanguage.googleapis.com/v1beta",
                "GEMINI_API_KEY",
                "gemini-2.5-flash",
            )
        }),
        // DeepSeek speaks OpenAI's chat-completions API; the openai adapter knows its wordings.
        "deepseek" => Ok(base(
            "openai",
            "https://api.deepseek.com/v1",
            "DEEPSEEK_API_KEY",
            "deepseek-chat",
        )),
        // Local and third-party servers speaking OpenAI's API (vLLM, llama.cpp, Ollama, OpenRouter,
        // Groq); --base-url and --model are required (no model name is right for every server), a key
        // only if the server wants one and only when configured explicitly (`api_key_env`):
        // OPENAI_API_KEY never follows an arbitrary --base-url.
        "openai-compatible" => Ok(ProviderConfig {
            api_key_required: false,
            ..base("openai", "", "OPENAI_API_KEY", "")
        }),
        other => bail!(
            "unknown provider '{other}': the built-in providers are {}",
            PRESETS.join(", ")
        ),
    }
}

/// Checks a base URL and returns it without trailing slash.
pub fn normalize_base_url(provider: &str, url: &str) -> Result<String> {
    if url.is_empty() {
        bail!(
            "provider '{provider}' has no base URL: pass --base-url (for example http://127.0.0.1:8080/v1)"
        );
    }
    let parsed = reqwest::Url::parse(url).map_err(|e| {
        anyhow::anyhow!("provider '{provider}': base URL {url:?} is not a URL ({e})")
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        bail!("provider '{provider}': base URL {url:?} must be http:// or https:// with a host");
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// `stream_idle_timeout_ms`: a positive, finite, sane number of milliseconds.
pub fn stream_idle_timeout(provider: &str, ms: f64) -> Result<Duration> {
    let fix = "set a positive number of milliseconds, e.g. 300000 for five minutes";
    if ms.is_nan() || ms.is_infinite() {
        bail!(
            "provider '{provider}': stream_idle_timeout_ms is {ms}, which is not a finite number; {fix}"
        );
    }
    if ms <= 0.0 {
        bail!(
            "provider '{provider}': stream_idle_timeout_ms is {ms}; the watchdog needs a positive timeout; {fix}"
        );
    }
    if ms < MIN_STREAM_IDLE_TIMEOUT_MS {
        bail!(
            "provider '{provider}': stream_idle_timeout_ms is {ms}, under a millisecond: no provider can answer \
             that fast, so every request would time out; {fix}"
        );
    }
    if ms > MAX_STREAM_IDLE_TIMEOUT_MS {
        bail!(
            "provider '{provider}': stream_idle_timeout_ms is {ms}, more than a day ({MAX_STREAM_IDLE_TIMEOUT_MS}); \
             a stalled stream would hang the session that long; {fix}"
        );
    }
    Ok(Duration::from_micros((ms * 1000.0) as u64))
}

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
