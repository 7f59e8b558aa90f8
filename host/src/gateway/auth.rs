//! Who may call the gateway: gateway keys (from an environment variable, or a file of hashed keys),
//! and, for the loopback-only unauthenticated mode, the `Host` and `Origin` checks that keep a web
//! page from reaching it by DNS rebinding. Pure code apart from reading the key sources at start-up.

use anyhow::{Context, Result, bail};
use sha2::{Digest, Sha256};
use std::net::IpAddr;
use std::path::Path;

/// The keys clients may present. Only their SHA-256 digests are kept in memory.
#[derive(Debug, Clone, Default)]
pub struct GatewayKeys {
    keys: Vec<KeyEntry>,
}

#[derive(Debug, Clone)]
struct KeyEntry {
    digest: [u8; 32],
    name: String,
}

/// An authenticated client: its key's name (or the digest's prefix) scopes its idempotency keys and
/// its concurrency limit, and appears in the log instead of the key.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Client {
    pub id: String,
}

impl Client {
    /// The client of the unauthenticated (loopback-only) mode.
    pub fn anonymous() -> Self {
        Client {
            id: "anonymous".into(),
        }
    }
}

impl GatewayKeys {
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// Keys given in the clear (an environment variable's comma-separated list).
    pub fn from_list(list: &str, source: &str) -> Result<Self> {
        let mut keys = Vec::new();
        for (i, key) in list
            .split(',')
            .map(str::trim)
            .filter(|k| !k.is_empty())
            .enumerate()
        {
            if key.len() < 16 {
                bail!(
                    "gateway key #{} in {source} is shorter than 16 characters: use a long random key (e.g. `openssl rand -hex 24`)",
                    i + 1
                );
            }
            let digest: [u8; 32] = Sha256::digest(key.as_bytes()).into();
            keys.push(KeyEntry {
                name: format!("key-{}", &hex::encode(digest)[..12]),
                digest,
            });
        }
        Ok(GatewayKeys { keys })
    }

    /// A file of hashed keys: `sha256:HEX [name]` per line; blank lines and `#` comments ignored.
    /// A file that other users can read or write is refused (it lets them add or test keys).
    pub fn from_file(path: &Path) -> Result<Self> {
        check_private(path)?;
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("reading the gateway keys file {}", path.display()))?;
        let mut keys = Vec::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let mut parts = line.split_whitespace();
            let hash = parts.next().unwrap_or_default();
            let Some(hex_digest) = hash.strip_prefix("sha256:") else {
                bail!(
                    "{} line {}: expected `sha256:HEX [name]` (the SHA-256 of the key, e.g. `printf %s KEY | sha256sum`)",
                    path.display(),
                    n + 1
                );
            };
            let digest: [u8; 32] = hex::decode(hex_digest)
                .ok()
                .and_then(|d| d.try_into().ok())
                .with_context(|| {
                    format!(
                        "{} line {}: {hash:?} is not a SHA-256 digest (64 hex digits)",
                        path.display(),
                        n + 1
                    )
                })?;
            let name = parts
                .next()
                .map(str::to_string)
                .unwrap_or_else(|| format!("key-{}", &hex_digest[..12]));
            keys.push(KeyEntry { digest, name });
        }
        if keys.is_empty() {
            bail!("the gateway keys file {} holds no key", path.display());
        }
        Ok(GatewayKeys { keys })
    }

    pub fn merge(mut self, other: GatewayKeys) -> Self {
        self.keys.extend(other.keys);
        self
    }

    /// The client presenting `key` (the `Authorization: Bearer` token), if it is one of ours.
    pub fn authenticate(&self, key: &str) -> Option<Client> {
        let digest: [u8; 32] = Sha256::digest(key.as_bytes()).into();
        // Every entry is compared in full, in constant time per entry.
        let mut found = None;
        for entry in &self.keys {
            let same = entry
                .digest
                .iter()
                .zip(digest.iter())
                .fold(0u8, |acc, (a, b)| acc | (a ^ b))
                == 0;
            if same {
                found = Some(Client {
                    id: entry.name.clone(),
                });
            }
        }
        found
    }
}

/// Refuses a secrets file that is not the user's or that anyone but its owner may read or write.
pub fn check_private(path: &Path) -> Result<()> {
    crate::private_fs::check_secret_file(path, "the gateway keys file")
}

/// The `Authorization: Bearer KEY` token (or OpenAI-style `api-key` / Anthropic-style `x-api-key`).
pub fn presented_key<'a>(
    authorization: Option<&'a str>,
    api_key: Option<&'a str>,
) -> Option<&'a str> {
    authorization
        .and_then(|v| {
            v.strip_prefix("Bearer ")
                .or_else(|| v.strip_prefix("bearer "))
        })
        .map(str::trim)
        .or(api_key.map(str::trim))
        .filter(|k| !k.is_empty())
}

/// Whether `address` (the listen address) is loopback only.
pub fn is_loopback(address: &std::net::SocketAddr) -> bool {
    address.ip().is_loopback()
}

/// In the unauthenticated mode, the `Host` header must name this machine's loopback: a page on
/// `evil.example` whose name an attacker re-points at 127.0.0.1 still sends `Host: evil.example`.
pub fn host_is_loopback(host: Option<&str>) -> bool {
    let Some(host) = host else { return false };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or_default()
    } else {
        host.rsplit_once(':').map_or(host, |(h, port)| {
            if port.chars().all(|c| c.is_ascii_digit()) {
                h
            } else {
                host
            }
        })
    };
    let name = name.trim_end_matches('.').to_ascii_lowercase();
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// A browser's `Origin`: allowed when configured, or (unauthenticated mode) when it is a loopback
/// page itself. No `Origin` (every SDK, curl): allowed.
pub fn origin_allowed(origin: Option<&str>, allowed: &[String], loopback_pages: bool) -> bool {
    let Some(origin) = origin else { return true };
    if allowed.iter().any(|a| {
        a.trim_end_matches('/')
            .eq_ignore_ascii_case(origin.trim_end_matches('/'))
    }) {
        return true;
    }
    loopback_pages
        && ["http://", "https://"].iter().any(|scheme| {
            origin
                .strip_prefix(scheme)
                .is_some_and(|rest| host_is_loopback(Some(rest)))
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_from_a_list_authenticate_by_digest() {
        let keys = GatewayKeys::from_list(
            "dsh-gw-0123456789abcdef, dsh-gw-fedcba9876543210",
            "DSH_GATEWAY_KEYS",
        )
        .unwrap();
        let a = keys.authenticate("dsh-gw-0123456789abcdef").unwrap();
        let b = keys.authenticate("dsh-gw-fedcba9876543210").unwrap();
        assert_ne!(a, b);
        assert!(!a.id.contains("0123456789abcdef"), "the id is not the key");
        assert!(keys.authenticate("dsh-gw-0123456789abcdeX").is_none());
        assert!(keys.authenticate("").is_none());
        let e = GatewayKeys::from_list("short", "DSH_GATEWAY_KEYS")
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("DSH_GATEWAY_KEYS") && e.contains("16 characters"),
            "{e}"
        );
    }

    #[test]
    fn a_keys_file_holds_digests_and_must_be_private() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("keys");
        let digest = hex::encode(Sha256::digest(b"dsh-gw-0123456789abcdef"));
        std::fs::write(&path, format!("# team keys\nsha256:{digest} ci-runner\n")).unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let e = GatewayKeys::from_file(&path).unwrap_err().to_string();
        assert!(e.contains("chmod 600") && e.contains("keys"), "{e}");
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o600)).unwrap();
        let keys = GatewayKeys::from_file(&path).unwrap();
        assert_eq!(
            keys.authenticate("dsh-gw-0123456789abcdef").unwrap().id,
            "ci-runner"
        );
        std::fs::write(&path, "dsh-gw-plain-key\n").unwrap();
        assert!(
            GatewayKeys::from_file(&path)
                .unwrap_err()
                .to_string()
                .contains("sha256:HEX")
        );
    }

    #[test]
    fn bearer_tokens_and_api_key_headers() {
        assert_eq!(presented_key(Some("Bearer abc"), None), Some("abc"));
        assert_eq!(presented_key(None, Some("abc")), Some("abc"));
        assert_eq!(presented_key(Some("Basic abc"), None), None);
        assert_eq!(presented_key(Some("Bearer "), None), None);
    }

    #[test]
    fn host_must_be_loopback_against_dns_rebinding() {
        for ok in [
            "localhost",
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "api.localhost:1",
            "127.0.0.2",
        ] {
            assert!(host_is_loopback(Some(ok)), "{ok}");
        }
        for bad in [
            "evil.example",
            "evil.example:8080",
            "localhost.evil.example",
            "10.0.0.1:8080",
            "0.0.0.0:8080",
        ] {
            assert!(!host_is_loopback(Some(bad)), "{bad}");
        }
        assert!(!host_is_loopback(None));
    }

    #[test]
    fn origins() {
        assert!(origin_allowed(None, &[], false));
        assert!(!origin_allowed(Some("https://evil.example"), &[], true));
        assert!(origin_allowed(Some("http://localhost:3000"), &[], true));
        assert!(!origin_allowed(Some("http://localhost:3000"), &[], false));
        assert!(origin_allowed(
            Some("https://app.example.com"),
            &["https://app.example.com/".into()],
            false
        ));
    }
}
