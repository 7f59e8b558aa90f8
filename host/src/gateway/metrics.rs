//! `GET /metrics`: the gateway's Prometheus text (prometheus-client): requests by route and status,
//! attempts, retries and failures by provider and code, tokens, and latency histograms.

use prometheus_client::encoding::EncodeLabelSet;
use prometheus_client::metrics::counter::Counter;
use prometheus_client::metrics::family::Family;
use prometheus_client::metrics::gauge::Gauge;
use prometheus_client::metrics::histogram::{Histogram, exponential_buckets};
use prometheus_client::registry::Registry;

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct RequestLabels {
    pub provider: String,
    pub status: String,
    pub stream: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct ProviderLabels {
    pub provider: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct CodeLabels {
    pub provider: String,
    pub code: String,
}

#[derive(Clone, Debug, Hash, PartialEq, Eq, EncodeLabelSet)]
pub struct TokenLabels {
    pub provider: String,
    pub kind: String,
}

pub struct Metrics {
    registry: Registry,
    pub requests: Family<RequestLabels, Counter>,
    pub attempts: Family<ProviderLabels, Counter>,
    pub retries: Family<CodeLabels, Counter>,
    pub failures: Family<CodeLabels, Counter>,
    pub fallbacks: Family<CodeLabels, Counter>,
    pub tokens: Family<TokenLabels, Counter>,
    pub in_flight: Gauge,
    pub shed: Counter,
    /// Client retries that waited for a dead gateway process's session lease to lapse.
    pub lease_waits: Counter,
    /// Attempts held by a cool-down another session recorded, by provider and code.
    pub cooldown_holds: Family<CodeLabels, Counter>,
    pub latency: Family<ProviderLabels, Histogram>,
    pub first_content: Family<ProviderLabels, Histogram>,
    /// The log committer's batches and failed syncs, copied from its own counts when the page is
    /// rendered (the lock keeps two renders from adding the same difference twice).
    log_sync_batches: Counter,
    log_sync_failures: Counter,
    log_sync_copy: std::sync::Mutex<()>,
}

impl Default for Metrics {
    fn default() -> Self {
        let mut registry = Registry::with_prefix("dsh_gateway");
        let requests = Family::<RequestLabels, Counter>::default();
        registry.register(
            "requests",
            "Chat completion requests answered, by provider, status and streaming",
            requests.clone(),
        );
        let attempts = Family::<ProviderLabels, Counter>::default();
        registry.register(
            "attempts",
            "Provider attempts (the first and every retry)",
            attempts.clone(),
        );
        let retries = Family::<CodeLabels, Counter>::default();
        registry.register(
            "retries",
            "Retries decided by the waterfall, by the failure's canonical code",
            retries.clone(),
        );
        let failures = Family::<CodeLabels, Counter>::default();
        registry.register(
            "failures",
            "Requests that ended in a failure, by canonical code",
            failures.clone(),
        );
        let fallbacks = Family::<CodeLabels, Counter>::default();
        registry.register(
            "fallbacks",
            "Route fallbacks taken, by the provider given up on and the code",
            fallbacks.clone(),
        );
        let tokens = Family::<TokenLabels, Counter>::default();
        registry.register(
            "tokens",
            "Tokens reported by providers (input, output)",
            tokens.clone(),
        );
        let in_flight = Gauge::default();
        registry.register(
            "in_flight",
            "Requests being answered now",
            in_flight.clone(),
        );
        let shed = Counter::default();
        registry.register(
            "shed",
            "Requests refused by the gateway's concurrency limits (503)",
            shed.clone(),
        );
        let lease_waits = Counter::default();
        registry.register(
            "lease_waits",
            "Client retries that waited for another gateway process's session lease to lapse (a process that died mid-request)",
            lease_waits.clone(),
        );
        let cooldown_holds = Family::<CodeLabels, Counter>::default();
        registry.register(
            "cooldown_holds",
            "Attempts held by a provider's cool-down (a rate limit with a retry-after another session met), by provider and code",
            cooldown_holds.clone(),
        );
        let latency = Family::<ProviderLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.005, 2.0, 16))
        });
        registry.register(
            "request_duration_seconds",
            "Time from request to the end of the response",
            latency.clone(),
        );
        let first_content = Family::<ProviderLabels, Histogram>::new_with_constructor(|| {
            Histogram::new(exponential_buckets(0.005, 2.0, 16))
        });
        registry.register(
            "first_content_seconds",
            "Time from request to the first content sent (streaming)",
            first_content.clone(),
        );
        let log_sync_batches = Counter::default();
        registry.register(
            "log_sync_batches",
            "Batches of finished requests' session logs made durable by the log committer",
            log_sync_batches.clone(),
        );
        let log_sync_failures = Counter::default();
        registry.register(
            "log_sync_failures",
            "Log committer syncs that failed: answered requests whose end may not survive a crash (check the disk)",
            log_sync_failures.clone(),
        );
        Metrics {
            registry,
            requests,
            attempts,
            retries,
            failures,
            fallbacks,
            tokens,
            in_flight,
            shed,
            lease_waits,
            cooldown_holds,
            latency,
            first_content,
            log_sync_batches,
            log_sync_failures,
            log_sync_copy: std::sync::Mutex::new(()),
        }
    }
}

impl Metrics {
    /// Brings the log committer's counts (batches, failures) into the page.
    pub fn observe_log_commit(&self, batches: u64, failures: u64) {
        let _one_at_a_time = self.log_sync_copy.lock().unwrap_or_else(|e| e.into_inner());
        for (counter, now) in [
            (&self.log_sync_batches, batches),
            (&self.log_sync_failures, failures),
        ] {
            let shown = counter.get();
            if now > shown {
                counter.inc_by(now - shown);
            }
        }
    }

    pub fn render(&self) -> String {
        let mut out = String::new();
        prometheus_client::encoding::text::encode(&mut out, &self.registry)
            .expect("writing to a String cannot fail");
        out
    }
}

pub fn provider(p: &str) -> ProviderLabels {
    ProviderLabels {
        provider: p.to_string(),
    }
}

pub fn code(p: &str, c: &str) -> CodeLabels {
    CodeLabels {
        provider: p.to_string(),
        code: c.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn renders_prometheus_text() {
        let m = Metrics::default();
        m.requests
            .get_or_create(&RequestLabels {
                provider: "openai".into(),
                status: "200".into(),
                stream: "true".into(),
            })
            .inc();
        m.retries
            .get_or_create(&code("openai", "RATE_LIMITED"))
            .inc();
        m.latency.get_or_create(&provider("openai")).observe(0.2);
        let text = m.render();
        assert!(
            text.contains(
                "dsh_gateway_requests_total{provider=\"openai\",status=\"200\",stream=\"true\"} 1"
            ),
            "{text}"
        );
        assert!(
            text.contains("dsh_gateway_retries_total{provider=\"openai\",code=\"RATE_LIMITED\"} 1"),
            "{text}"
        );
        assert!(
            text.contains("dsh_gateway_request_duration_seconds_bucket"),
            "{text}"
        );
        m.observe_log_commit(3, 0);
        m.observe_log_commit(5, 1);
        m.observe_log_commit(4, 1); // an older reading never takes a counter back
        let text = m.render();
        assert!(
            text.contains("dsh_gateway_log_sync_batches_total 5"),
            "{text}"
        );
        assert!(
            text.contains("dsh_gateway_log_sync_failures_total 1"),
            "{text}"
        );
    }
}
