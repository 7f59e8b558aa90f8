//! The network policy of one provider, as pure code: which URLs a plan may target, which resolved
//! addresses a connection may reach, which redirects may be followed. Enforced by `transport`;
//! nothing here opens a socket.

use std::net::IpAddr;

/// Where a provider's requests may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NetworkPolicy {
    /// The provider's name, for messages.
    pub provider: String,
    /// Host names (lower-case) or IP literals the provider's requests may target.
    pub allowed_hosts: Vec<String>,
    /// The base URL itself points at this machine or a private network (the mock, llama.cpp,
    /// Ollama): then private and loopback addresses are expected, not an attack.
    pub local_provider: bool,
}

/// Why a destination was refused: always says what and how to allow it, if it should be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct Refusal(pub String);

impl NetworkPolicy {
    /// The default policy of a provider: its base URL's host, and nothing else unless configured.
    pub fn for_provider(
        provider: &str,
        base_url: &str,
        extra_hosts: &[String],
    ) -> Result<Self, Refusal> {
        let url = reqwest::Url::parse(base_url).map_err(|e| {
            Refusal(format!(
                "provider '{provider}': base URL {base_url:?} is not a URL ({e})"
            ))
        })?;
        let host = url.host_str().ok_or_else(|| {
            Refusal(format!(
                "provider '{provider}': base URL {base_url:?} has no host"
            ))
        })?;
        let host = normalize_host(host);
        let local_provider = match host.parse::<IpAddr>() {
            Ok(ip) => is_internal(ip),
            Err(_) => host == "localhost" || host.ends_with(".localhost"),
        };
        let mut allowed_hosts = if extra_hosts.is_empty() {
            vec![host]
        } else {
            vec![]
        };
        allowed_hosts.extend(extra_hosts.iter().map(|h| normalize_host(h)));
        Ok(NetworkPolicy {
            provider: provider.to_string(),
            allowed_hosts,
            local_provider,
        })
    }

    /// Checks a URL an adapter planned (or a redirect points to), before any connection.
    pub fn check_url(&self, url: &reqwest::Url) -> Result<(), Refusal> {
        let Some(host) = url.host_str().map(normalize_host) else {
            return Err(Refusal(format!("the request URL {url} has no host")));
        };
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Refusal(format!("the request URL {url} is not http(s)")));
        }
        if !self.allowed_hosts.contains(&host) {
            return Err(Refusal(format!(
                "host '{host}' is not an allowed host of provider '{}' (allowed: {}); add it to \
                 allowed_hosts under [providers.{}] if it should be",
                self.provider,
                self.allowed_hosts.join(", "),
                self.provider
            )));
        }
        if url.scheme() == "http" && !self.is_loopback_name(&host) {
            return Err(Refusal(format!(
                "plain http:// to '{host}' would send the key and the conversation unencrypted; use https:// \
                 (plain http is allowed only to loopback addresses)"
            )));
        }
        if let Ok(ip) = host.parse::<IpAddr>() {
            self.check_ip(&host, ip)?;
        }
        Ok(())
    }

    /// Checks an address a host name resolved to: an allowed public name must not lead into this
    /// machine or its private network (DNS rebinding), unless the provider itself is local.
    pub fn check_ip(&self, host: &str, ip: IpAddr) -> Result<(), Refusal> {
        if is_internal(ip) && !self.local_provider {
            return Err(Refusal(format!(
                "'{host}' resolved to {ip}, a loopback, private or link-local address, but provider '{}' \
                 is not a local provider; refusing to connect (set its base_url to a local address to use \
                 a local server)",
                self.provider
            )));
        }
        Ok(())
    }

    fn is_loopback_name(&self, host: &str) -> bool {
        match host.parse::<IpAddr>() {
            Ok(ip) => ip.is_loopback(),
            Err(_) => host == "localhost" || host.ends_with(".localhost"),
        }
    }
}

fn normalize_host(host: &str) -> String {
    host.trim_start_matches('[')
        .trim_end_matches(']')
        .trim_end_matches('.')
        .to_ascii_lowercase()
}

/// Loopback, private, link-local, unspecified, CGNAT, unique-local: anything that is not the public
/// internet.
pub fn is_internal(ip: IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => {
            let o = v4.octets();
            v4.is_loopback()
                || v4.is_private()
                || v4.is_link_local()
                || v4.is_unspecified()
                || v4.is_broadcast()
                || (o[0] == 100 && (64..128).contains(&o[1]))
                || o[0] == 0
        }
        IpAddr::V6(v6) => {
            if let Some(v4) = v6.to_ipv4_mapped() {
                return is_internal(IpAddr::V4(v4));
            }
            let seg = v6.segments();
            v6.is_loopback()
                || v6.is_unspecified()
                || (seg[0] & 0xfe00) == 0xfc00
                || (seg[0] & 0xffc0) == 0xfe80
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(s: &str) -> reqwest::Url {
        reqwest::Url::parse(s).unwrap()
    }

    fn openai() -> NetworkPolicy {
        NetworkPolicy::for_provider("openai", "https://api.openai.com/v1", &[]).unwrap()
    }

    #[test]
    fn the_default_allows_the_base_urls_host_only() {
        let p = openai();
        assert_eq!(p.allowed_hosts, ["api.openai.com"]);
        assert!(!p.local_provider);
        p.check_url(&url("https://api.openai.com/v1/chat/completions"))
            .unwrap();
        p.check_url(&url("https://API.OpenAI.com./v1/x")).unwrap();
        let e = p
            .check_url(&url("https://evil.example.com/collect"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("'evil.example.com' is not an allowed host of provider 'openai'"),
            "{e}"
        );
        assert!(e.contains("allowed_hosts"), "{e}");
    }

    #[test]
    fn configured_hosts_replace_the_default() {
        let p = NetworkPolicy::for_provider(
            "azure",
            "https://a.example.com/v1",
            &["b.example.com".into()],
        )
        .unwrap();
        assert_eq!(p.allowed_hosts, ["b.example.com"]);
    }

    #[test]
    fn plain_http_is_refused_except_to_loopback() {
        let p = NetworkPolicy::for_provider("x", "http://api.example.com/v1", &[]).unwrap();
        let e = p
            .check_url(&url("http://api.example.com/v1/x"))
            .unwrap_err()
            .to_string();
        assert!(e.contains("unencrypted"), "{e}");
        let local = NetworkPolicy::for_provider("mock", "http://127.0.0.1:8080/v1", &[]).unwrap();
        local
            .check_url(&url("http://127.0.0.1:8080/v1/chat/completions"))
            .unwrap();
        let named = NetworkPolicy::for_provider("mock", "http://localhost:8080/v1", &[]).unwrap();
        named
            .check_url(&url("http://localhost:8080/v1/chat/completions"))
            .unwrap();
    }

    #[test]
    fn internal_addresses_are_refused_for_public_providers_only() {
        let p = openai();
        for ip in [
            "127.0.0.1",
            "10.1.2.3",
            "172.16.0.1",
            "192.168.1.1",
            "169.254.169.254",
            "100.64.0.1",
            "0.0.0.0",
            "::1",
            "fd00::1",
            "fe80::1",
            "::ffff:10.0.0.1",
        ] {
            let e = p
                .check_ip("api.openai.com", ip.parse().unwrap())
                .unwrap_err()
                .to_string();
            assert!(e.contains("resolved to"), "{ip}: {e}");
        }
        p.check_ip("api.openai.com", "104.18.6.192".parse().unwrap())
            .unwrap();
        p.check_ip("api.openai.com", "2606:4700::6812:6c0".parse().unwrap())
            .unwrap();
        let local =
            NetworkPolicy::for_provider("ollama", "http://192.168.1.20:11434/v1", &[]).unwrap();
        assert!(local.local_provider);
        local
            .check_ip("192.168.1.20", "192.168.1.20".parse().unwrap())
            .unwrap();
    }

    #[test]
    fn an_ip_literal_in_a_plan_is_checked_like_a_resolved_address() {
        let p = NetworkPolicy::for_provider("x", "https://203.0.113.7/v1", &[]).unwrap();
        p.check_url(&url("https://203.0.113.7/v1/x")).unwrap();
        let q =
            NetworkPolicy::for_provider("x", "https://api.example.com/v1", &["10.0.0.5".into()])
                .unwrap();
        assert!(q.check_url(&url("https://10.0.0.5/v1/x")).is_err());
    }

    #[test]
    fn a_url_without_http_is_refused() {
        assert!(openai().check_url(&url("file:///etc/passwd")).is_err());
    }
}
