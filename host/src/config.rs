//! Provider configuration: the built-in presets and the checks every value goes through. Pure code:
//! nothing here touches the network, the disk or a guest.

use anyhow::{Result, bail};
use std::path::PathBuf;
use std::time::Duration;

/// DESIGN.md: five minutes unless configured.
pub const DEFAULT_STREAM_IDLE_TIMEOUT_MS: f64 = 300_000.0;
/// Anything above a day is a typo (seconds given as milliseconds twice over), not a wish.
pub const MAX_STREAM_IDLE_TIMEOUT_MS: f64 = 86_400_000.0;

/// Which adapter a provider uses.
#[derive(Debug, Clone, PartialEq)]
pub enum AdapterRef {
    /// A first-party adapter compiled into the binary.
    Builtin(String),
    /// A third-party `.wasm` component.
    File(PathBuf),
}

#[derive(Debug, Clone, PartialEq)]
pub struct ProviderConfig {
    pub name: String,
    pub adapter: AdapterRef,
    /// Without trailing slash, e.g. `https://api.openai.com/v1`.
    pub base_url: String,
    /// The environment variable holding the API key.
    pub api_key_env: String,
    /// Whether a request without a key is refused before it is sent (local servers need none).
    pub api_key_required: bool,
    pub model: String,
    pub stream_idle_timeout: Duration,
}

/// The provider presets usable with no config file.
pub const PRESETS: &[&str] = &["openai", "openai-compatible"];

pub fn preset(name: &str) -> Result<ProviderConfig> {
    let base = |base_url: &str, key: &str, model: &str| ProviderConfig {
        name: name.to_string(),
        adapter: AdapterRef::Builtin("openai".into()),
        base_url: base_url.to_string(),
        api_key_env: key.to_string(),
        api_key_required: true,
        model: model.to_string(),
        stream_idle_timeout: Duration::from_millis(DEFAULT_STREAM_IDLE_TIMEOUT_MS as u64),
    };
    match name {
        "openai" => Ok(base("https://api.openai.com/v1", "OPENAI_API_KEY", "gpt-4o-mini")),
        // Local and third-party servers speaking OpenAI's API; --base-url is required.
        "openai-compatible" => Ok(ProviderConfig { api_key_required: false, ..base("", "OPENAI_API_KEY", "default") }),
        other => bail!("unknown provider '{other}': the built-in providers are {}", PRESETS.join(", ")),
    }
}

/// Checks a base URL and returns it without trailing slash.
pub fn normalize_base_url(provider: &str, url: &str) -> Result<String> {
    if url.is_empty() {
        bail!("provider '{provider}' has no base URL: pass --base-url (for example http://127.0.0.1:8080/v1)");
    }
    let parsed = reqwest::Url::parse(url)
        .map_err(|e| anyhow::anyhow!("provider '{provider}': base URL {url:?} is not a URL ({e})"))?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        bail!("provider '{provider}': base URL {url:?} must be http:// or https:// with a host");
    }
    Ok(url.trim_end_matches('/').to_string())
}

/// `stream_idle_timeout_ms`: a positive, finite, sane number of milliseconds.
pub fn stream_idle_timeout(provider: &str, ms: f64) -> Result<Duration> {
    let fix = "set a positive number of milliseconds, e.g. 300000 for five minutes";
    if ms.is_nan() || ms.is_infinite() {
        bail!("provider '{provider}': stream_idle_timeout_ms is {ms}, which is not a finite number; {fix}");
    }
    if ms <= 0.0 {
        bail!("provider '{provider}': stream_idle_timeout_ms is {ms}; the watchdog needs a positive timeout; {fix}");
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
mod tests {
    use super::*;

    #[test]
    fn openai_preset_needs_no_file() {
        let p = preset("openai").unwrap();
        assert_eq!(p.base_url, "https://api.openai.com/v1");
        assert_eq!(p.api_key_env, "OPENAI_API_KEY");
        assert_eq!(p.adapter, AdapterRef::Builtin("openai".into()));
        assert_eq!(p.stream_idle_timeout, Duration::from_secs(300));
    }

    #[test]
    fn unknown_preset_lists_the_known_ones() {
        let err = preset("opneai").unwrap_err().to_string();
        assert!(err.contains("unknown provider 'opneai'") && err.contains("openai-compatible"), "{err}");
    }

    #[test]
    fn base_url_is_checked_and_normalized() {
        assert_eq!(normalize_base_url("p", "http://127.0.0.1:9/v1/").unwrap(), "http://127.0.0.1:9/v1");
        assert!(normalize_base_url("p", "").unwrap_err().to_string().contains("--base-url"));
        assert!(normalize_base_url("p", "ftp://x/v1").unwrap_err().to_string().contains("http://"));
        assert!(normalize_base_url("p", "not a url").unwrap_err().to_string().contains("not a URL"));
    }

    #[test]
    fn idle_timeout_refuses_nonsense() {
        assert_eq!(stream_idle_timeout("p", 1500.0).unwrap(), Duration::from_millis(1500));
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY, 1e12] {
            let err = stream_idle_timeout("p", bad).unwrap_err().to_string();
            assert!(err.contains("stream_idle_timeout_ms") && err.contains("provider 'p'"), "{bad}: {err}");
        }
    }
}
