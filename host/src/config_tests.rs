use super::*;

fn parse(text: &str) -> Result<Config> {
    Config::parse(text, Path::new("/etc/dsh/dsh.toml"))
}

fn err(text: &str) -> String {
    format!("{:#}", parse(text).unwrap_err())
}

#[test]
fn builtin_defaults_need_no_file() {
    let c = Config::load(None).unwrap();
    let p = c.provider("openai").unwrap();
    assert_eq!(p.base_url, "https://api.openai.com/v1");
    assert_eq!(p.api_key_env, "OPENAI_API_KEY");
    assert_eq!(p.adapter, GuestRef::Builtin("openai".into()));
    assert_eq!(p.stream_idle_timeout, Duration::from_secs(300));
    assert_eq!(p.retry_policy, RetryPolicy::default());
    let names: Vec<_> = c.listeners.iter().map(|l| l.guest.clone()).collect();
    assert_eq!(
        names,
        [
            GuestRef::Builtin("compaction-basic".into()),
            GuestRef::Builtin("llm-retry".into())
        ]
    );
}

#[test]
fn retry_policy_defaults_are_the_designs() {
    let p = RetryPolicy::default();
    assert_eq!(
        (p.mode, p.max_retries, p.initial_delay_ms, p.max_delay_ms),
        (RetryMode::Normal, 5, 1000, 120_000)
    );
    assert_eq!(p.jitter_ratio, 0.2);
    assert_eq!(p.retryable_codes.len(), 7);
}

#[test]
fn a_file_overrides_a_preset_and_adds_providers_and_listeners() {
    let c = parse(
        r#"
        [providers.openai]
        model = "gpt-4o"
        stream_idle_timeout_ms = 1500
        [providers.openai.retry_policy]
        mode = "always"
        initial_delay_ms = 10
        [providers.local]
        preset = "openai-compatible"
        base_url = "http://127.0.0.1:8080/v1/"
        [[listeners]]
        name = "llm-retry"
        [[listeners]]
        wasm = "guests/budget.wasm"
        config = { budget_ms = 60000 }
        "#,
    )
    .unwrap();
    let openai = c.provider("openai").unwrap();
    assert_eq!(openai.model, "gpt-4o");
    assert_eq!(openai.stream_idle_timeout, Duration::from_millis(1500));
    assert_eq!(openai.retry_policy.mode, RetryMode::Always);
    assert_eq!(openai.retry_policy.initial_delay_ms, 10);
    assert_eq!(
        openai.retry_policy.max_retries, 5,
        "unset fields keep their defaults"
    );
    let local = c.provider("local").unwrap();
    assert_eq!(local.base_url, "http://127.0.0.1:8080/v1");
    assert!(!local.api_key_required);
    assert_eq!(c.listeners.len(), 2);
    assert_eq!(
        c.listeners[1].guest,
        GuestRef::File(PathBuf::from("/etc/dsh/guests/budget.wasm"))
    );
    assert_eq!(c.listeners[1].config_json, r#"{"budget_ms":60000}"#);
}

#[test]
fn unknown_keys_are_refused_not_ignored() {
    assert!(err("[providers.openai]\nmodle = \"x\"").contains("modle"));
    assert!(err("[provider.openai]\nmodel = \"x\"").contains("provider"));
    assert!(err("[providers.openai.retry_policy]\nmax_retry = 3").contains("max_retry"));
    assert!(err("[[listeners]]\nname = \"llm-retry\"\nconfg = {}").contains("confg"));
}

#[test]
fn errors_name_the_file() {
    assert!(err("[providers.openai]\nmodle = \"x\"").contains("/etc/dsh/dsh.toml"));
    assert!(err("[providers.openai]\nstream_idle_timeout_ms = 0").contains("/etc/dsh/dsh.toml"));
}

#[test]
fn a_custom_provider_needs_a_preset() {
    let e = err("[providers.mine]\nbase_url = \"http://x/v1\"");
    assert!(e.contains("[providers.mine] needs `preset = ...`"), "{e}");
    assert!(err("[providers.mine]\npreset = \"nope\"").contains("unknown provider 'nope'"));
}

#[test]
fn bad_retry_policies_are_refused_naming_the_field() {
    assert!(err("[providers.openai.retry_policy]\njitter_ratio = 1.5").contains("jitter_ratio"));
    assert!(
        err("[providers.openai.retry_policy]\ninitial_delay_ms = 0").contains("initial_delay_ms")
    );
    assert!(
        err("[providers.openai.retry_policy]\nmax_delay_ms = 10\ninitial_delay_ms = 100")
            .contains("max_delay_ms")
    );
    assert!(
        err("[providers.openai.retry_policy]\nretryable_codes = [\"429\"]")
            .contains("not a canonical code")
    );
    assert!(err("[providers.openai.retry_policy]\nmode = \"sometimes\"").contains("sometimes"));
    let e = err("[providers.openai.retry_policy]\nretryable_codes = [\"CONTEXT_WINDOW_EXCEEDED\"]");
    assert!(
        e.contains("never retries") && e.contains("compaction-basic"),
        "{e}"
    );
    assert!(err("[providers.openai.retry_policy]\nmax_retries = -1").contains("max_retries"));
}

#[test]
fn listeners_need_exactly_one_of_name_and_wasm() {
    assert!(err("[[listeners]]\nconfig = {}").contains("needs `name"));
    assert!(
        err("[[listeners]]\nname = \"a\"\nwasm = \"b.wasm\"").contains("both `name` and `wasm`")
    );
}

#[test]
fn an_empty_listener_list_is_allowed() {
    assert!(parse("listeners = []").unwrap().listeners.is_empty());
}

#[test]
fn unknown_provider_lists_the_configured_ones() {
    let e = Config::builtin()
        .provider("opneai")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("unknown provider 'opneai'") && e.contains("openai-compatible"),
        "{e}"
    );
}

#[test]
fn base_url_is_checked_and_normalized() {
    assert_eq!(
        normalize_base_url("p", "http://127.0.0.1:9/v1/").unwrap(),
        "http://127.0.0.1:9/v1"
    );
    assert!(
        normalize_base_url("p", "")
            .unwrap_err()
            .to_string()
            .contains("--base-url")
    );
    assert!(
        normalize_base_url("p", "ftp://x/v1")
            .unwrap_err()
            .to_string()
            .contains("http://")
    );
    assert!(
        normalize_base_url("p", "not a url")
            .unwrap_err()
            .to_string()
            .contains("not a URL")
    );
    assert!(err("[providers.openai]\nbase_url = \"nope\"").contains("not a URL"));
}

#[test]
fn idle_timeout_refuses_nonsense() {
    assert_eq!(
        stream_idle_timeout("p", 1500.0).unwrap(),
        Duration::from_millis(1500)
    );
    assert_eq!(
        stream_idle_timeout("p", 1.0).unwrap(),
        Duration::from_millis(1)
    );
    for bad in [
        0.0,
        -1.0,
        f64::NAN,
        f64::INFINITY,
        f64::NEG_INFINITY,
        1e12,
        0.0001,
        0.999,
    ] {
        let e = stream_idle_timeout("p", bad).unwrap_err().to_string();
        assert!(
            e.contains("stream_idle_timeout_ms") && e.contains("provider 'p'"),
            "{bad}: {e}"
        );
    }
    assert!(err("[providers.openai]\nstream_idle_timeout_ms = -5").contains("positive"));
    let e = err("[providers.openai]\nstream_idle_timeout_ms = 0.0001");
    assert!(
        e.contains("under a millisecond") && e.contains("stream_idle_timeout_ms"),
        "{e}"
    );
}

#[test]
fn retry_delays_above_an_hour_are_refused() {
    let e = err("[providers.openai.retry_policy]\nmax_delay_ms = 86400000");
    assert!(
        e.contains("max_delay_ms") && e.contains("more than an hour"),
        "{e}"
    );
    parse("[providers.openai.retry_policy]\nmax_delay_ms = 3600000").unwrap();
}

#[test]
fn return_caps_are_configurable_where_they_apply() {
    let c = parse(
        "[providers.openai.adapter_limits]\nmax_tool_calls = 8\nmax_completion_mb = 2\n[[listeners]]\nname = \"llm-retry\"\nlimits = { max_delay_ms = 60000 }\n",
    )
    .unwrap();
    let p = c.provider("openai").unwrap();
    assert_eq!(
        (
            p.adapter_limits.max_tool_calls,
            p.adapter_limits.max_completion_mb
        ),
        (Some(8), Some(2))
    );
    assert_eq!(c.listeners[0].limits.max_delay_ms, Some(60000));
    let e = err("[providers.openai.adapter_limits]\nmax_delay_ms = 5");
    assert!(
        e.contains("max_delay_ms does not apply here") && e.contains("listener"),
        "{e}"
    );
    let e = err("[[listeners]]\nname = \"llm-retry\"\nlimits = { max_tool_calls = 3 }\n");
    assert!(
        e.contains("max_tool_calls does not apply here") && e.contains("adapter_limits"),
        "{e}"
    );
    assert!(
        err("[providers.openai.adapter_limits]\nmax_tool_calls = 0").contains("max_tool_calls = 0")
    );
    assert!(
        err("[providers.openai.adapter_limits]\nmax_completion_mb = 5000")
            .contains("max_completion_mb")
    );
}

#[test]
fn guest_limits_are_configurable_and_checked() {
    let c = parse(
        "[providers.openai.adapter_limits]\nmemory_mb = 32\ncall_timeout_ms = 500\n[[listeners]]\nname = \"llm-retry\"\nlimits = { memory_mb = 16 }\n",
    )
    .unwrap();
    let p = c.provider("openai").unwrap();
    assert_eq!(
        p.adapter_limits,
        LimitsOverride {
            memory_mb: Some(32),
            call_timeout_ms: Some(500),
            ..Default::default()
        }
    );
    assert_eq!(c.listeners[0].limits.memory_mb, Some(16));
    assert!(err("[providers.openai.adapter_limits]\nmemory_mb = 0").contains("memory_mb = 0"));
    assert!(
        err("[providers.openai.adapter_limits]\ncall_timeout_ms = 9999999")
            .contains("call_timeout_ms")
    );
    assert!(err("[providers.openai.adapter_limits]\nmemroy_mb = 1").contains("memroy_mb"));
}

#[test]
fn every_preset_is_usable_without_a_file() {
    let c = Config::builtin();
    let anthropic = c.provider("anthropic").unwrap();
    assert_eq!(anthropic.adapter, GuestRef::Builtin("anthropic".into()));
    assert_eq!(anthropic.api_key_env, "ANTHROPIC_API_KEY");
    assert_eq!(anthropic.base_url, "https://api.anthropic.com/v1");
    let deepseek = c.provider("deepseek").unwrap();
    assert_eq!(deepseek.adapter, GuestRef::Builtin("openai".into()));
    assert_eq!(deepseek.api_key_env, "DEEPSEEK_API_KEY");
    assert!(
        c.provider("openai-compatible").unwrap().base_url.is_empty(),
        "needs --base-url"
    );
}

#[test]
fn a_presets_key_goes_only_to_the_presets_own_hosts() {
    let c = Config::builtin();
    let openai = c.provider("openai").unwrap();
    assert_eq!(openai.key_env(), Ok("OPENAI_API_KEY"));
    assert_eq!(
        c.provider("anthropic").unwrap().key_env(),
        Ok("ANTHROPIC_API_KEY")
    );
    assert_eq!(
        c.provider("deepseek").unwrap().key_env(),
        Ok("DEEPSEEK_API_KEY")
    );

    // Pointed elsewhere, by base_url or allowed_hosts, the preset's key stays home.
    let moved =
        parse("[providers.openai]\nbase_url = \"https://llm.internal.example/v1\"").unwrap();
    let e = moved.provider("openai").unwrap().key_env().unwrap_err();
    assert!(
        e.contains(
            "OPENAI_API_KEY is the key of api.openai.com and is not sent to llm.internal.example"
        ) && e.contains("api_key_env under [providers.openai]")
            && e.contains("--api-key-env"),
        "{e}"
    );
    let widened =
        parse("[providers.openai]\nallowed_hosts = [\"api.openai.com\", \"evil.example\"]")
            .unwrap();
    assert!(
        widened
            .provider("openai")
            .unwrap()
            .key_env()
            .unwrap_err()
            .contains("not sent to evil.example")
    );
    let same = parse("[providers.openai]\nbase_url = \"https://API.OpenAI.com./v1/\"").unwrap();
    assert_eq!(
        same.provider("openai").unwrap().key_env(),
        Ok("OPENAI_API_KEY")
    );

    // Named explicitly, the variable goes where the provider's requests go.
    let explicit = parse(
        "[providers.openai]\nbase_url = \"https://llm.internal.example/v1\"\napi_key_env = \"OPENAI_API_KEY\"",
    )
    .unwrap();
    assert_eq!(
        explicit.provider("openai").unwrap().key_env(),
        Ok("OPENAI_API_KEY")
    );
}

#[test]
fn openai_compatible_sends_a_key_only_when_configured_for_it() {
    let c = parse(
        "[providers.local]\npreset = \"openai-compatible\"\nbase_url = \"http://127.0.0.1:8080/v1\"\n\
         [providers.groq]\npreset = \"openai-compatible\"\nbase_url = \"https://api.groq.com/openai/v1\"\napi_key_env = \"GROQ_API_KEY\"",
    )
    .unwrap();
    let e = c.provider("local").unwrap().key_env().unwrap_err();
    assert!(
        e.contains("provider 'local' sends a key only when one is configured for it"),
        "{e}"
    );
    assert_eq!(c.provider("groq").unwrap().key_env(), Ok("GROQ_API_KEY"));
    assert_eq!(
        c.provider("groq").unwrap().api_key_scope,
        KeyScope::Explicit
    );
}

#[test]
fn credential_headers_default_per_preset_and_are_checked() {
    let c = Config::builtin();
    assert_eq!(
        c.provider("openai").unwrap().credential_headers,
        ["authorization"]
    );
    assert_eq!(
        c.provider("deepseek").unwrap().credential_headers,
        ["authorization"]
    );
    assert_eq!(
        c.provider("openai-compatible").unwrap().credential_headers,
        ["authorization"]
    );
    assert_eq!(
        c.provider("anthropic").unwrap().credential_headers,
        ["x-api-key"]
    );
    let gemini = parse(
        "[providers.gemini]\npreset = \"openai-compatible\"\ncredential_headers = [\"X-Goog-Api-Key\"]",
    )
    .unwrap();
    assert_eq!(
        gemini.provider("gemini").unwrap().credential_headers,
        ["x-goog-api-key"]
    );
    let e = err("[providers.openai]\ncredential_headers = [\"host\"]");
    assert!(
        e.contains("[providers.openai] credential_headers has \"host\""),
        "{e}"
    );
    assert!(
        err("[providers.openai]\ncredential_headers = []").contains("credential_headers is empty")
    );
    assert!(
        err("[providers.openai]\ncredential_headers = [\"x key\"]")
            .contains("not a valid HTTP header name")
    );
}

#[test]
fn ca_file_is_relative_to_the_config_file() {
    let c = parse("[providers.openai]\nca_file = \"certs/internal-ca.pem\"").unwrap();
    assert_eq!(
        c.provider("openai").unwrap().ca_file.as_deref(),
        Some(Path::new("/etc/dsh/certs/internal-ca.pem"))
    );
    assert_eq!(Config::builtin().provider("openai").unwrap().ca_file, None);
}

#[test]
fn session_retention_is_off_unless_set_and_checked() {
    assert_eq!(Config::builtin().sessions.retention, None);
    assert_eq!(parse("").unwrap().sessions.retention, None);
    let c = parse("[sessions]\nretention = \"30d\"").unwrap();
    assert_eq!(c.sessions.retention, Some(Duration::from_secs(30 * 86_400)));
    let e = err("[sessions]\nretention = \"thirty days\"");
    assert!(
        e.contains("[sessions] retention") && e.contains("30d") && e.contains("dsh.toml"),
        "{e}"
    );
    let e = err("[sessions]\nretention = \"10s\"");
    assert!(e.contains("shorter than a minute"), "{e}");
    assert!(err("[sessions]\nkeep = \"30d\"").contains("unknown field"));
}

#[test]
fn a_sessions_database_is_off_unless_set_and_its_password_never_shows_in_debug() {
    let c = Config::builtin();
    assert_eq!(
        (c.sessions.url.clone(), c.sessions.lease),
        (None, Duration::from_secs(30))
    );
    let c = parse("[sessions]\nurl = \"postgres://dsh:s3cret@db.internal/dsh\"\nlease = \"5s\"")
        .unwrap();
    assert_eq!(
        c.sessions.url.as_ref().unwrap().expose(),
        "postgres://dsh:s3cret@db.internal/dsh"
    );
    assert_eq!(c.sessions.lease, Duration::from_secs(5));
    let shown = format!("{c:?}");
    assert!(
        !shown.contains("s3cret") && shown.contains("db.internal"),
        "{shown}"
    );
    let e = err("[sessions]\nlease = \"200ms\"");
    assert!(
        e.contains("[sessions] lease") && e.contains("shorter than a second"),
        "{e}"
    );
}

#[test]
fn the_gemini_preset_is_the_builtin_adapter_with_its_key_in_x_goog_api_key_for_google_only() {
    let c = Config::builtin();
    let gemini = c.provider("gemini").unwrap();
    assert_eq!(gemini.adapter, GuestRef::Builtin("gemini".into()));
    assert_eq!(
        gemini.base_url,
        "https://generativelanguage.googleapis.com/v1beta"
    );
    assert_eq!(gemini.model, "gemini-2.5-flash");
    assert_eq!(gemini.credential_headers, ["x-goog-api-key"]);
    assert_eq!(gemini.key_env(), Ok("GEMINI_API_KEY"));
    let moved = parse("[providers.gemini]\nbase_url = \"https://proxy.example/v1beta\"").unwrap();
    let e = moved.provider("gemini").unwrap().key_env().unwrap_err();
    assert!(
        e.contains("GEMINI_API_KEY is the key of generativelanguage.googleapis.com and is not sent to proxy.example"),
        "{e}"
    );
}
