//! The steps of classification by meaning (see the parent module): the labels (step 1, and the
//! server-side words read with them), the wording (step 2) and Google's rpc status names (step 3).
//! Each returns a code only when its evidence names one.

use super::*;

/// Step 1: labels that name a meaning, read before any words (with the words that outrank a label
/// where a provider is known to put one label on two meanings, and, after the context and quota
/// labels, the server-side words of [`by_server_side_words`]).
pub(super) fn by_labels(said: &Said) -> Option<FailureCode> {
    let text = said.text;
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    let says = |patterns: &[&str]| said.says(patterns);
    // A context label, or one that names the input's limit (DuckDuckGo's `ERR_INPUT_LIMIT`, wrapped
    // by gpt4free).
    // (KoboldAI's `token_overflow`: "Your Max Tokens setting is too low for your current soft
    // prompt and tokenizer to handle".)
    if label(&|l| {
        CONTEXT_LABELS.contains(&l) || l.contains("input_limit") || l.contains("token_overflow")
    }) {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // A label that says a capacity was exceeded (LangBot's `task_capacity_exceeded`, under a
    // 429): the servers' when the words name no scope of the caller's ("The instance has too
    // many active user operations"), overload; the caller's own ("The Workspace has too many
    // ...") is a rate, read below. A capacity of tokens or a context is a length (read above).
    if label(&|l| l.contains("capacity_exceeded") && !l.contains("token") && !l.contains("context"))
        && !meaning::words(text).iter().any(|w| {
            matches!(
                *w,
                "workspace"
                    | "your"
                    | "you"
                    | "account"
                    | "key"
                    | "project"
                    | "organization"
                    | "org"
                    | "team"
                    | "tenant"
            )
        })
    {
        return Some(codes::OVERLOADED);
    }
    // A validator's string too long in the request's input (Pydantic's `string_too_long` on
    // `body.input`, "String should have at most 2048 characters"): the input over its length, an
    // overflow. The same on a name or an id is the request's own (read as invalid).
    // (Zod's `too_big` on a string: "String must contain at most 5000 character(s)".)
    if label(&|l| l == "string_too_long" || l == "too_big")
        && meaning::words(text).iter().any(|w| {
            matches!(
                *w,
                "input"
                    | "prompt"
                    | "messages"
                    | "message"
                    | "content"
                    | "query"
                    | "text"
                    | "question"
            )
        })
    {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // A quota label: a known one, or one that says a quota is insufficient ("insufficient_user_quota").
    // A quota merely "exceeded" can be per minute (Cerebras' `request_quota_exceeded`): the words decide.
    if label(&|l| {
        QUOTA_LABELS.contains(&l)
            // Money or a quota said to be short: "insufficient_user_quota", "group_balance_not_enough".
            // ... or spent: "quota_exhausted", "credits_depleted".
            // A budget of any unit spent (TrustGate's `dollar_budget_exceeded`), as LiteLLM's
            // `budget_exceeded` is.
            || l.ends_with("_budget_exceeded")
            || (["quota", "balance", "credit"].iter().any(|m| l.contains(m))
                && ["insufficient", "not_enough", "exhausted", "depleted", "used_up"]
                    .iter()
                    .any(|w| l.contains(w)))
    }) {
        // ... unless the words name the budget that was hit, and it is per minute or per second
        // ("inference exceeds tpm/rpm limit" under `insufficient_quota`): a vendor putting one
        // label on both, the words say which. Google's quota labels (`quota_limit_zero`,
        // `quota_per_day`) were read from the quota that was hit and already weighed it.
        if meaning::says_only_a_per_minute_budget(text) && !label(&|l| l.starts_with("quota_")) {
            return Some(codes::RATE_LIMITED);
        }
        return Some(codes::QUOTA_EXCEEDED);
    }
    // An error that says no more than "Invalid request", "Bad request" or "Not supported"
    // (Hyprnote's 500 as plain text; marimo's 501; many 400s): the request's fault, whatever the
    // status. A bare "Not Implemented" stays the server's.
    if matches!(
        text.trim().trim_end_matches(['.', '!']),
        "invalid request" | "bad request" | "not supported"
    ) {
        return Some(codes::INVALID_REQUEST);
    }
    // "Invalid" and a name of one or two words, and no more ("Invalid task prompt" under
    // OmniParse's 500): the request's, as "Invalid request" is. A credential or an account
    // named so is the credential's (read with the wording), an answer or a state the server's.
    // (Under a status only: in band, "invalid" and a word say too little to be an error.)
    if said.status.is_some()
        && let Some(named) = text
            .trim()
            .trim_end_matches(['.', '!'])
            .strip_prefix("invalid ")
        && (1..=2).contains(&named.split(' ').count())
        && !names_a_credential(named)
        && !meaning::words(named).iter().any(|w| {
            matches!(
                *w,
                "key"
                    | "password"
                    | "signature"
                    | "response"
                    | "reply"
                    | "answer"
                    | "output"
                    | "state"
                    | "upstream"
                    | "server"
                    | "configuration"
                    | "config"
                    // Who asks is the credential's ("Invalid user account", Julep's 403).
                    | "account"
                    | "user"
                    | "session"
                    | "login"
                    | "license"
                    | "subscription"
                    | "organization"
                    | "project"
            )
        })
    {
        return Some(codes::INVALID_REQUEST);
    }
    // HTTP 408's reason phrase and no more ("Request timeout" under VScan's 400): the request ran
    // out of time, whatever status it came under.
    if matches!(
        text.trim().trim_end_matches(['.', '!']),
        "request timeout" | "request timed out"
    ) {
        return Some(codes::TIMEOUT);
    }
    // A label that names the server's own store failing (whisperX's `DATABASE_OPERATION_ERROR`
    // beside "A temporary system error occurred. Please try again later." under a 503): the
    // server's failure, not its capacity.
    if label(&|l| l.contains("database")) {
        return Some(codes::SERVER_ERROR);
    }
    // Words that say the server's side (or one run's cap) whatever label came with them.
    if let Some(code) = by_server_side_words(said) {
        return Some(code);
    }
    // Gemini's finish reasons as an error's code, with no words (Google ADK's event `{"errorCode":
    // "SAFETY", ...}`): a refusal, or the output's budget spent before anything came.
    if label(&|l| {
        matches!(
            l,
            "safety" | "prohibited_content" | "blocklist" | "spii" | "recitation" | "image_safety"
        )
    }) && said.text.trim().is_empty()
    {
        return Some(codes::CONTENT_FILTER);
    }
    if label(&|l| l == "max_tokens") && said.text.trim().is_empty() {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    if label(&|l| {
        l.contains("content_filter")
            || l.contains("content_policy")
            || l == "responsibleaipolicyviolation"
            // A vendor's code for what it judged unsafe ("system_unsafe": the system prompt).
            || l.contains("unsafe")
            || l.contains("moderation")
            // Meme Factory's `CONTENT_FLAGGED`, `GENERATED_CONTENT_FLAGGED`; LucidChat's
            // `CONTENT_BLOCKED` for a character concept it refuses.
            || l.contains("content_flagged")
            || l.contains("content_blocked")
    }) {
        return Some(codes::CONTENT_FILTER);
    }
    if label(&|l| {
        l.contains("api_key")
            || l.contains("authentication")
            // mem0's `provider_auth_failed`: the provider refused the key it was given.
            || l.contains("auth_failed")
            // StudyLens's `AI_AUTH_ERROR` beside "There's a configuration issue with our AI
            // service.".
            || l.ends_with("auth_error")
            || l.contains("permission")
            || l == "unauthenticated"
            || l == "unauthorized"
    }) {
        // Refused because money or a quota ran out ("Access forbidden: api key quota exceeded,
        // daily_limit_amount=100", type `permission_error`): waiting will not help, paying will.
        if meaning::says_quota_exhausted(text) {
            return Some(codes::QUOTA_EXCEEDED);
        }
        return Some(codes::AUTH);
    }
    // (The caller's own identical request still in flight is the caller's rate, whatever label a
    // relay puts on it: Orchids-2api's `overloaded_error` beside "Automatic retry suppressed
    // because an identical request is still in progress." under a 429.)
    if label(&|l| l.contains("overloaded"))
        && !said.says(&[
            "identical request is still in progress",
            "identical request is in progress",
        ])
    {
        return Some(codes::OVERLOADED);
    }
    // (Dotted names count too: Apigee's `policies.ratelimit.QuotaViolation`.)
    if label(&|l| l.contains("rate_limit") || l.contains(".ratelimit.") || RATE_LABELS.contains(&l))
    {
        // A rate label is often a relay's or a compatible route's catch-all for its 429s (Z.ai's
        // Anthropic route, Kimi for Coding): words that name another meaning outrank it.
        if !label(&|l| l == "quota_per_minute") {
            // A plan's usage cap (MiniMax's `rate_limit_error`: "5-hour usage limit reached ...
            // resets at ..."), money run out ("Insufficient balance ... Please recharge."), a plan
            // without the model, a daily limit used up: waiting a retry's worth will not cure it. A stated wait under an
            // hour keeps it a rate.
            if meaning::says_usage_cap(text) || meaning::says_allowance_spent(text) {
                return Some(codes::QUOTA_EXCEEDED);
            }
            // The servers full, not the account over its rate ("The engine is currently
            // overloaded, please try again later", "Timed out waiting for the inference engine.").
            if (meaning::says_overloaded(text) || says(WAITED_OUT)) && !says(RATE_WORDING) {
                return Some(codes::OVERLOADED);
            }
            // A size in bytes over its limit under the label (Bling's `{"message": "Image too
            // large (>7.5MB).", "status": "RESOURCE_EXHAUSTED"}`, Gemini's status passed on): the
            // request too large, whatever the label. (Tokens over a limit per minute stay the
            // rate's.)
            if meaning::says_size_capped(text) && !says(RATE_WORDING) {
                return Some(codes::CONTEXT_WINDOW_EXCEEDED);
            }
            // A queue over its limit outranks the rate words beside it ("Too many requests:
            // waiting queue (257) exceeds max-num-seqs (256)." under `rate_limit_exceeded`): the
            // servers' state, stated with its figures.
            // (So does the service or the server said at capacity: "Too many requests. Service
            // is at capacity." under mlx-openai-server's `rate_limit_exceeded`, its one model
            // busy.)
            if meaning::says_queue_full(text)
                || meaning::says_threads_taken(text)
                || says(&[
                    "service is at capacity",
                    "server is at capacity",
                    "servers are at capacity",
                    "service at capacity",
                ])
            {
                return Some(codes::OVERLOADED);
            }
        }
        return Some(codes::RATE_LIMITED);
    }
    if label(&|l| l.contains("timeout") || l == "deadline_exceeded") {
        return Some(codes::TIMEOUT);
    }
    None
}

/// Step 1, continued: words that say the failure is on the server's side, or one run's cap, read
/// after the context and quota labels and before every other label, since a relay often puts one
/// generic label on them ("rate_limit_exceeded" on Envoy's reset, "invalid_request_error" on a
/// session it could not open).
pub(super) fn by_server_side_words(said: &Said) -> Option<FailureCode> {
    let text = said.text;
    let says = |patterns: &[&str]| said.says(patterns);
    // A model the caller must load first ("Model not loaded: Model '...' must be loaded before
    // inference", Foundry Local's 400): the request came before its step, not a server without a
    // model, which "no model loaded" alone says (below).
    if says(&["must be loaded before", "must be loaded first"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // An agent's run at its cap of loops, iterations or steps ("Max loops of 25 exceeded, shutting
    // down."): the run ends there whatever is retried, the allowance of one run; "shutting down"
    // is the run's, not the server's.
    if says_run_cap_reached(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // The server's own parts missing: broken, not busy (see `says_server_parts_missing`); or its
    // component not initialized, with its configuration named ("AI SDK not initialized. Check
    // plugin configuration." under a 400, as tuning's "Registry not initialized" is a server's).
    // With a key named, the key is why ("AI Content Generator is not initialized. Please
    // configure AI provider credentials (OPENAI_API_KEY, ANTHROPIC_API_KEY, etc.)",
    // TinDevelopers' 503), read with the wording.
    if says_server_parts_missing(text)
        || (says(&["not initialized", "not initialised"])
            && says(&["configuration", "config", "configured"])
            && !names_a_key(text))
    {
        return Some(codes::SERVER_ERROR);
    }
    // A guard's inspection that failed, under a 5xx and with no verdict ("Guardrails content
    // inspection failed." under a 502): the check did not run, the server's failure. Under a 4xx, or
    // with a verdict ("request failed content safety check: breached category [hate]"), the
    // content failed it (below).
    // So is a guard's service said to be unavailable ("content moderation is temporarily
    // unavailable", TrustGate's 502): no check ran.
    if said.server_status && (says_guard_check_broke(text) || says_guard_unavailable(text)) {
        return Some(codes::SERVER_ERROR);
    }
    // Envoy's answer when it got no response from the upstream ("upstream connect error or
    // disconnect/reset before headers. reset reason: connection termination"), under the 5xx it
    // puts on it: the connection to the backend failed, not the servers too busy that a bare 503
    // would say, unless the reason is its circuit breaker's `overflow` (too many requests
    // pending), which is capacity. A gateway's time-out (504) keeps its meaning, and under a 4xx
    // the status decides.
    if said.server_status
        && !matches!(said.status, Some(504 | 524))
        && says(&["upstream connect error", "reset before headers"])
    {
        return Some(if says(&["reset reason: overflow"]) {
            codes::OVERLOADED
        } else {
            codes::SERVER_ERROR
        });
    }
    // "Provider's service is unavailable" under a 400: the server's side, not the request's. Under
    // a 429 the same words say the server has no room, not that the caller went too fast ("Chat
    // completions service is unavailable" from Atoma's node). (Under a 503 the words restate the
    // status, which says overload.)
    if said.status.is_some_and(|s| (400..500).contains(&s))
        && says(&["service is unavailable", "service unavailable"])
    {
        return Some(if said.status == Some(429) {
            codes::OVERLOADED
        } else {
            codes::SERVER_ERROR
        });
    }
    // A proxy's failure to talk to the model API, under the 429 the API answered it with
    // ("Failed to communicate with the language model API." under a 429): the upstream's rate,
    // which the proxy passed on; the words say only that the call did not succeed.
    if said.status == Some(429) && says(&["failed to communicate"]) {
        return Some(codes::RATE_LIMITED);
    }
    // A remedy of fewer parallel requests ("failed to prefill, try again, increasing context size
    // or reducing requests": llama-box's KV cache, shared by the requests in flight, full): the
    // load is the cause, whatever the status and the larger context offered beside it.
    // (Beside a count over the context, "prefill 744 tokens exceed n_ctx_per_seq, try increasing
    // total context size, ... reducing parallel", the remedy is one of many for an overflow: only a
    // failure to be tried again says the load.)
    if says(&[
        "reducing parallel",
        "reduce parallel",
        "reducing requests",
        "reduce requests",
        "fewer parallel",
        "fewer concurrent",
    ]) && says(&["try again"])
        && !says(&["exceed"])
    {
        return Some(codes::OVERLOADED);
    }
    // A model the server failed to load ("Failed to load model 'qwen2.5-7b': Unexpected Error
    // loading the model into memory. Check ... (like Context Length allowed by the model) and
    // resources available"): the server's failure, whatever causes its words guess at. A model
    // the server does not have or cannot serve ("Failed to load model: Model type bert not
    // supported.") is the request's (read later).
    // (Or its loading errors named as the cause to look for: "Model not ready. Please check the
    // application logs for model loading errors.", an embedding server's 503: not a model still
    // loading, one that failed to.)
    if says(&[
        "failed to load model",
        "error loading the model",
        "error loading model",
        "model loading error",
    ]) && !says_model_not_offered(text)
        && !says(&[
            "not supported",
            "unsupported",
            "not found",
            "does not exist",
        ])
    {
        return Some(codes::SERVER_ERROR);
    }
    // A service behind the request failed ("Sensitive check error", "Web search error"), whatever the
    // status: before the content and wording rules, which would read its subject.
    // "Server error" (SageMaker's "Received server error (0) from model ..." under a 424) and HTTP
    // 500's reason phrase count only under another status: under a 5xx they say no more than the
    // status, and the words after them may name the request's fault ("500 Internal Server Error:
    // ... Reason: The messages in the chat request are empty.").
    // An upstream too slow or out of reach, said at once ("The API took too long to process your
    // request or could not be reached in a reasonable time", a cURL time-out): the time-out.
    if meaning::says_too_slow(text) && says(&["could not be reached", "cannot be reached"]) {
        return Some(codes::TIMEOUT);
    }
    // A connection to the backend that timed out ("Failed to connect to TEI service: error sending
    // request for url (...): operation timed out"): the upstream did not answer in time, which the
    // connection words below would call a failure.
    if says(&[
        "failed to connect",
        "error sending request",
        "could not connect",
    ]) && says(&["timed out", "connect timeout", "connection timeout"])
    {
        return Some(codes::TIMEOUT);
    }
    // A deadline that passed, under a 5xx, whatever internal error wraps it ("Service internal
    // error: 2 of 2 read operations failed: Timeout error: Deadline Exceeded ... timed out after
    // 60 seconds", Qdrant): the operation got no answer in time.
    if said.server_status
        && !matches!(said.status, Some(503 | 529))
        && says(&["deadline exceeded", "timed out after"])
    {
        return Some(codes::TIMEOUT);
    }
    // An upstream's answer said to be empty, however the proxy words its failure ("provider
    // request failed: invalid response: empty result and no error", Morpheus's 500): the empty
    // answer is the cause named.
    if says_upstream_answer_broken(text) && says_answer_empty(text) {
        return Some(codes::EMPTY_RESPONSE);
    }
    // The server's own configuration broken ("Configuration error: tts-1 voice 'alloy' is missing
    // 'model:' setting"): nothing the request did. With a key named ("OpenAI API key
    // configuration error", "AI service configuration error. Please contact an administrator to
    // set up the OpenAI API key.") it is the credential's: read with the wording, below.
    // (Or said incomplete: "Service configuration is incomplete: GROQ_API_KEY", ConciergeFlow's
    // 502, names the key that is missing.)
    // (Nor beside its AI said not configured: GCSEMate's `{"error": "Server configuration error",
    // "message": "AI service not configured. ..."}`, the credential's, read with the wording.)
    // (With a label that names a key, the key is why: VietExplore AI's `{"error": "Service
    // configuration error", "code": "MISSING_API_KEY"}`.)
    let configuration_broken = says(CONFIGURATION_BROKEN)
        && !names_a_key(text)
        && !says_ai_not_configured(text)
        && !said.label(&|l| names_a_credential(l));
    // A check of the server's own that failed, under its own 5xx ("Rate limit check failed",
    // tldraw's 503): the limiter broke, no limit was hit. (Under a 429 the check is the limit's:
    // Bifrost's "Rate limit check failed: policy violation (request_limited)".)
    let check_broken = said.server_status && says(&["limit check failed", "quota check failed"]);
    // A part of the server never set up ("RAG system not initialized. Please try again later."
    // under a 503; "Registry not initialized"): nothing loaded to serve, whatever the status.
    // (MCP's "Server not initialized" is the client's handshake not made: the request's.)
    // (With a key named, the key is why: "Mistral client not initialized - MISTRAL_API_KEY is
    // not set", read with the wording below.)
    let never_set_up = says(&["not initialized", "not initialised"])
        && !says(&["server not initialized"])
        && !names_a_key(text);
    // (A service not available with its AI named not set up as the cause, "Summary service is
    // not available (OpenRouter client not configured)" under Speakr's 503, is the credential's:
    // read with the wording.)
    // (Nor a provider's outage after "Service unavailable" leads, "Service unavailable. OpenAI is
    // experiencing issues." under ChatCommerce AI's 500: the unavailability is what the server
    // says, its cause beside it; "OpenAI is experiencing issues" alone stays the server's.)
    let unavailable_for_an_outage = text.trim_start().starts_with("service unavailable")
        && says(&["is experiencing issues", "experiencing an outage"]);
    // (Nor "upstream error" as the code beside words of capacity, AILOS's `{"error":
    // "UPSTREAM_ERROR", "message": "AI服务暂时不可用，请稍后重试"}` under a 502: the code names whose
    // error it is, the words what it was.)
    let upstream_code_beside_capacity = meaning::says_overloaded(text)
        && SERVICE_FAILURE_WORDING
            .iter()
            .filter(|p| text.contains(*p))
            .all(|p| *p == "upstream error");
    if (says(SERVICE_FAILURE_WORDING)
        && !says_ai_not_configured(text)
        && !unavailable_for_an_outage
        && !upstream_code_beside_capacity)
        || configuration_broken
        || check_broken
        || never_set_up
        || says_failed_after_attempts(text)
        // (With a key named, the key is why: PayslipMax's `{"details": "GEMINI_API_KEY
        // environment variable not set", "status": "INTERNAL"}`, read with the wording.)
        || (says_status_internal(text) && !names_a_key(text))
        || says_no_backends_found(text)
        || says_upstream_answer_broken(text)
        || (!said.server_status
            && says(&["server error", "server generate error"])
            // A relay's "Server error:" before the upstream's own words of an overflow ("Server
            // error: Failed to call Bedrock: ValidationException: ... prompt is too long: 227255
            // tokens > 200000 maximum", goose): the overflow is what happened.
            && !meaning::says_context_overflow(text))
    {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// Step 2: wording, in order of precedence: what the account, the content and the credential are said
/// to be, then the request, then the servers; the order is the rules' judgement where two
/// meanings are named at once.
pub(super) fn by_wording(said: &Said) -> Option<FailureCode> {
    let Said {
        text,
        status,
        server_status,
        ..
    } = *said;
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    let says = |patterns: &[&str]| said.says(patterns);
    // The assistant said offline, under a gateway's 504 ("Assistant is offline, try again soon!",
    // a Roblox NPC backend's answer for any failure of its call): the server not up to answer,
    // capacity, not a wait that ran out.
    // (So is a service said unavailable under a 504, with no words of time: ZetsuGuide's "AI
    // service unavailable" with "The AI service is temporarily unavailable. Please try again.")
    if status == Some(504)
        && (says(&["is offline", "are offline", "went offline"])
            || (says(&["unavailable"])
                && !says(&["timeout", "timed out", "time-out", "too long", "deadline"])))
    {
        return Some(codes::OVERLOADED);
    }
    // HTTP 429's reason phrase and nothing else, under a 503 or 529 ("Too Many Requests" from
    // Modular's MAX when its request queue is full): the words restate a status, and the server's
    // own status says whose limit it is, its own.
    if matches!(status, Some(503 | 529))
        && text.trim().trim_end_matches(['.', '!']) == "too many requests"
    {
        return Some(codes::OVERLOADED);
    }
    // Per-minute budgets are rate limits even when they mention tokens ("Request too large for
    // gpt-4o ... on tokens per min"): waiting helps, compaction is not needed.
    let rate_wording = says(RATE_WORDING);
    // An account shut off ("This billing account is suspended"): someone must restore it, whatever
    // its bill says; only a balance named as run out makes it the money's (below).
    if says_account_shut_off(text)
        && !says(&[
            "insufficient",
            "recharge",
            "balance",
            "top up",
            "arrear",
            "spending limit",
            "spend limit",
            "invoice",
            "credit",
            "余额",
            "欠费",
            // (Or a quota used up, the account disabled for it: "账号月度配额已用完，已自动禁用该账号",
            // AMQ2API's 429; read below as a quota.)
            "配额已用完",
            "额度已用完",
            "配额用完",
        ])
    {
        return Some(codes::AUTH);
    }
    // A key's (or an account's) own limit spent, refused with a 401, 402 or 403 rather than a 429
    // ("Unauthorized - Key limit-exceeded"): a spending or usage allowance, not the credential;
    // a rate would come as a 429.
    if matches!(status, Some(401..=403)) && says_key_limit_exceeded(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // An AI integration not configured by the server's operator ("AI provider is not
    // configured.", Zammad; "API client not configured. Please check plugin settings (API Key,
    // Model, API URL)", osTicket's plugin; "AI is not configured for this Formbricks instance."):
    // the server's own provider credentials are not set up, as DESIGN.md's AUTH says of a key not
    // configured. A model not configured ("embedding model not configured", SiYuan) or a part the
    // request names ("Custom provider 'my_llm' not configured", marimo) is a setting the request
    // needs, unless a key is named.
    if says_ai_not_configured(text) {
        return Some(
            if names_a_key(text) || !says_model_or_named_part_not_configured(text) {
                codes::AUTH
            } else {
                codes::INVALID_REQUEST
            },
        );
    }
    // A sign-in the feature needs ("You must be logged in to use the daily planner.", AI
    // Productivity Hub's 401): the caller's credential, whatever else the words name ("daily").
    if says(&[
        "must be logged in",
        "need to be logged in",
        "must log in",
        "please log in",
        "not logged in",
    ]) {
        return Some(codes::AUTH);
    }
    // No credential set at all ("No API key set for provider: openai. Please add a provider key
    // in your settings or add credits ..."): nothing was billed or refused for money, whatever
    // other remedy the message offers.
    if says_no_credential(text) {
        return Some(codes::AUTH);
    }
    // Money words that only condition a per-minute limit ("You have not yet added your payment
    // method in the billing page and will have reduced rate limits of 3 RPM and 10K TPM"): the
    // limit that was hit is the rate; no money is said to have run out.
    // A pool with none free, each member in one of several states ("没有可用的Token进行视频生成。所有
    // Token都处于禁用、冷却、配额耗尽或已过期状态。", Flow2API's 503): no cause is asserted, only that
    // none can serve now, capacity, as "no account available" is.
    if says(&["都处于"]) && says(&["状态"]) && says(&["没有可用", "无可用"]) {
        return Some(codes::OVERLOADED);
    }
    // A quota named only as one of two limits, beside a rate ("API quota or rate limit exceeded.
    // Please try again later.", go-generative-api-router's 429): the proxy does not know which;
    // the one a retry can cure is the rate, and the words ask for a retry.
    // (Or written with a slash: "API quota/rate limit exceeded. This can happen if: ... Wait 1-2
    // minutes and try again", AI Wiki Quiz Generator's 400.)
    if says(&[
        "quota or rate limit",
        "rate limit or quota",
        "quota/rate limit",
        "rate limit/quota",
    ]) {
        return Some(codes::RATE_LIMITED);
    }
    // A budget of tokens whose words say the prompt filled the model's context (TripSage's
    // `{"error": "token_budget_exceeded", "reason": "No output tokens available for the given
    // prompt and model."}`): one request's length, no account's budget.
    if says(&["token budget", "token_budget", "tokens budget"])
        && meaning::says_context_overflow(text)
    {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // One request over its own maximum, beside a quota's code ("Request exceeds maximum tokens
    // per request. Planned 17450 tokens, limit is 16000." under KimuntuPro's `quota_exceeded`):
    // only a smaller request succeeds, whatever the guard calls it.
    if says(&["per request"]) && meaning::says_context_overflow(&without_codes(text)) {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    if meaning::says_quota_exhausted(text) && !meaning::says_only_a_per_minute_budget(text) {
        return Some(codes::QUOTA_EXCEEDED);
    }
    // A feature the caller's account is not entitled to ("Guardrail entitlement is missing",
    // UiPath's 403): the account's rights, whatever the feature is, even a guardrail.
    if says(&[
        "entitlement is missing",
        "entitlements are missing",
        "entitlements missing",
        "entitlements_missing",
        "missing entitlement",
        "not entitled to",
    ]) {
        return Some(codes::AUTH);
    }
    // A credential refused for a guard's own service ("The provided Invariant API key is not
    // valid for guardrail checking", Invariant's gateway under a 401): the key was judged, not
    // the content, whatever service it was for.
    if says_credential_invalid(text)
        && !says(CONTENT_WORDING)
        && !says_sensitive(text)
        && !meaning::says_policy_refusal(text)
    {
        return Some(codes::AUTH);
    }
    // A guardrail (Portkey's, Bedrock's, NeMo's) is a policy check on what goes in or comes out;
    // so is a prompt guard that words its refusal by what it judged (`meaning::says_policy_refusal`).
    if says(CONTENT_WORDING)
        || says_sensitive(text)
        || meaning::words(text)
            .iter()
            .any(|w| *w == "guardrail" || *w == "guardrails")
        || meaning::says_policy_refusal(text)
    {
        return Some(codes::CONTENT_FILTER);
    }
    // An operation the model cannot do, refused as "not allowed" ("You are not allowed to do chat
    // operation from this model": llama-box serving an embedding model): the model's capability,
    // not the caller's access.
    if says_operation_not_for_model(text) {
        return Some(codes::INVALID_REQUEST);
    }
    // (A configuration error with a key named: "AI service configuration error. Please check API
    // key.", AyatBits under a 503; "Service configuration is incomplete: GROQ_API_KEY".)
    if says(AUTH_WORDING)
        || says_trouble_with_authentication(text)
        || (says(CONFIGURATION_BROKEN) && names_a_key(text))
        || says_not_enabled_for_caller(text)
        || says_credential_invalid(text)
        || says_credential_expired_zh(text)
        || says_credential_kind_refused(text)
        || says_client_refused(text)
        || (says(ACCESS_WORDING) && !says(MODEL_NAMED_WRONG))
        || says_bare_forbidden(text)
    {
        return Some(codes::AUTH);
    }
    // A model not ready yet (loading, scaling), refused with a 4xx ("Model my-model is not ready
    // yet." under a 400): the server's state, not the request's fault. Under a 503 it is capacity.
    if status.is_some_and(|s| (400..500).contains(&s)) && says_model_not_ready(text) {
        return Some(codes::SERVER_ERROR);
    }
    // The same in band or under a 200, with a wait asked for (BiliNote's "转写模型 ... 尚未下载就绪，
    // 正在下载中，请稍候": still downloading, please wait): a model on its way, capacity that waiting
    // brings, as a 503 says.
    if !status.is_some_and(|s| (400..600).contains(&s))
        && says_model_not_ready(text)
        && says(&["请稍候", "请稍后", "please wait", "try again"])
    {
        return Some(codes::OVERLOADED);
    }
    // A model the server does not offer ("Model gpt-4-turbo-preview is not supported"), whatever
    // the status (OpenCode Zen answers it with a 401).
    if says_model_not_offered(text)
        || says_model_disabled(text)
        || says_capability_not_enabled(text)
        || says_named_thing_not_found(text)
        || says_unknown_request_part(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // A parameter or feature the models here do not take ("'echo' is not supported by
    // encoder-decoder models" under a 500, "grammar-constrained decoding does not support beam
    // search"): the request asked for it, whatever the status.
    if says(&[
        "is not supported by",
        "are not supported by",
        "is not supported for this model",
        "is not supported with",
        "does not support",
        "do not support",
        // "Chat endpoint not implemented for this model" (a 501 from Hayhooks).
        "not implemented for this model",
        "not implemented for model",
        // "Non-streamed chat completions is not implemented": what the request asked for is not
        // done here. A bare "Not Implemented" restates a 501.
        "is not implemented",
        // "Function calling is not yet implemented for stream mode."; "Batch analysis not yet
        // implemented" (AI_SOC's 501).
        "not yet implemented",
        "are not implemented",
        // "WebSocket endpoint not implemented in basic Flask example" (Vanna's 501).
        "endpoint not implemented",
        // "This agent does not contain configuration for text-generation, so it cannot be used
        // for that." (baibot): what the request asked for is not what this serves.
        "cannot be used for",
        "can't be used for",
        "can not be used for",
    ]) {
        return Some(codes::INVALID_REQUEST);
    }
    // A choice the request must make ("user has access to multiple subscriptions, must specify
    // subscription using X-MaaS-Subscription header", under a 403): the request's fault.
    // (Or a name the request lacks said to be required: "Instruction ID is required for
    // "plugin-ai" to work", Payload's AI plugin under a 500.)
    // (Or said not given: "No message UID was provided.")
    if (says(&["must specify", "must be specified"])
        || says_request_invalid(text)
        || says_id_or_parameter_required(text)
        || says_nothing_given(text))
        && !says_no_credential(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // What the request must carry, missing or empty ("The messages in the chat request are
    // empty.", "Job input must contain one of: ..."): the request's fault, whatever the status.
    if says_request_part_empty(text)
        || meaning::says_output_parameter_over_cap(text)
        // (A bound on a length, "String must contain at most 1000 character(s)", is read as
        // one: below.)
        || (says(&["must contain", "must include one of"]) && !says(&["must contain at most"]))
        // "Last message must be from user" (create-llama's 500): the conversation in the wrong
        // order.
        || says(&["must be from user", "must be from the user"])
        // "Exactly one of image_url or image_base64 must be provided" (under OmniServe's 500).
        || (says(&["must be provided", "must be supplied", "has to be set", "must be set", "has to be provided"])
            && !says(&["api key", "api-key", "api_key", "token", "authorization", "credential"]))
        || says(&[
            "exactly one of",
            // "baseUrl must start with http:// or https://" (BibiGPT's 500): a value the request
            // set, of the wrong form.
            "must start with",
            "must begin with",
            "must end with",
            // "Song count must be between 1 and 50" (Listify's 500): a value out of its range.
            "must be between",
        ])
        || says_request_parameter_constrained(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // A parameter the request lacks ("Missing max tokens for rate limited request", "missing
    // required parameter 'messages'"): the request's fault under any status, whatever the rest
    // of the sentence names (here a rate limit the parameter was needed for).
    if says_parameter_missing(text) {
        return Some(codes::INVALID_REQUEST);
    }
    // A gateway with no route for the model (one-api and new-api: "no available channel for model
    // ... under group default", "无可用渠道"): the model is not offered there, whatever the status.
    if says(&["no available channel", "no channel available", "无可用渠道"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // The same said of a provider for the model named ("No copilot provider available:
    // MiniMax-M2.1", AFFiNE). No provider for a service, with no model named ("No provider found
    // for the requested service." under a 503), is capacity, read with the status.
    if text.contains("provider available")
        && (text.contains("provider available:") || text.contains("for model"))
    {
        return Some(codes::INVALID_REQUEST);
    }
    // Every credential of a proxy's pool out for a while ("All cookies are temporarily
    // unavailable."): the accounts behind it are at their limits, which refill; a rate, whatever
    // the proxy's status.
    if says_credential_pool_spent(text) {
        return Some(codes::RATE_LIMITED);
    }
    // An in-band error that says no more than "Empty message" (NocoBase's stream): the answer
    // that came was empty. Under a status it may be the request's own message, which is read
    // as one.
    if said.status.is_none() && text.trim().trim_end_matches('.') == "empty message" {
        return Some(codes::EMPTY_RESPONSE);
    }
    // The model's answer said to be empty ("The model did not return any message content, function
    // call arguments, or tool call arguments.", "Model stopped with error: No output provided"),
    // whatever the status: an empty response, as the host calls one it sees itself.
    if says_answer_empty(text) {
        return Some(codes::EMPTY_RESPONSE);
    }
    // The model's process died, whatever status the server put on it (LM Studio: 400 "The model
    // has crashed without additional information").
    if says(&["has crashed", "model crashed", "process crashed"]) {
        return Some(codes::SERVER_ERROR);
    }
    // A time-out waiting for the engine, answered with a 4xx ("Timed out waiting for the inference
    // engine." under a 429): the server had no room in time. In band or under a 5xx: TIMEOUT, below.
    if status.is_some_and(|s| (400..500).contains(&s)) && says(WAITED_OUT) {
        return Some(codes::OVERLOADED);
    }
    // A queue that stayed full until the wait ran out ("Request timeout - server overloaded. The
    // server queue was full for too long.", a scraper's 200): the wait in a queue ran out, which
    // the judgements read as TIMEOUT, before the full queue below.
    // (So is a time-out named first, with overload as its cause: "Request timeout - server
    // overloaded", "LLM request timed out. The service may be overloaded.")
    let first_clause = text
        .trim_start()
        .split(['-', '.', ':', ';'])
        .next()
        .unwrap_or("");
    let timed_out_first = ["timeout", "timed out", "time-out"]
        .iter()
        .any(|t| first_clause.contains(t));
    if (text.contains("queue") && text.contains("for too long") && says(&["timeout", "timed out"]))
        || (timed_out_first && says(&["overloaded"]))
    {
        return Some(codes::TIMEOUT);
    }
    // A queue full or over its limit is the servers without room, under any status; so are its
    // threads all taken.
    if meaning::says_queue_full(text) || meaning::says_threads_taken(text) {
        return Some(codes::OVERLOADED);
    }
    // Words of overload are overload under a 429, in band, and under a 500 or 502 with no label of
    // the server's own error ("Server is busy, please try again later" under chatgpt-api-server's
    // 500: its pool of accounts has none free). A label that says the server's error keeps the
    // status's meaning: Anthropic's 500 `api_error` "Overloaded" is a server error (the fixture
    // anthropic-500-api-error-overloaded). Other 5xx say more by their status (503, 504).
    // Out for now with a rate named as the cause ("The AI service is temporarily unavailable due
    // to rate limits. Please try again in a few minutes.", a Frappe MCP server's answer): the rate
    // is why; the words of overload only say that the service is out meanwhile.
    if says(&[
        "due to rate limit",
        "due to the rate limit",
        "due to rate-limit",
        "because of rate limit",
        "because of the rate limit",
    ]) {
        return Some(codes::RATE_LIMITED);
    }
    // (`api_error` is Anthropic's label for its 500s, and says the server's error only there:
    // under NutriNote+'s 502 `{"error": "AI service temporarily unavailable", "code":
    // "API_ERROR"}` it names no more than whose error it was.)
    let labelled_server_error = label(&|l| {
        (SERVER_LABELS.contains(&l) && status == Some(500))
            || l.contains("server_error")
            || l.contains("internal")
    });
    if (!server_status || (matches!(status, Some(500 | 502)) && !labelled_server_error))
        && meaning::says_overloaded(text)
    {
        return Some(codes::OVERLOADED);
    }
    // A limit a load balancer puts on the backends behind it ("Exceeded maximum request limit from
    // ai-load-balancer."): the servers have no room, not the account over its rate.
    if !server_status
        && text.contains("limit")
        && (text.contains("load balancer") || text.contains("load-balancer"))
    {
        return Some(codes::OVERLOADED);
    }
    // A limit on what one message may carry ("I can handle up to 10 images per message", "way too
    // large ... up to 20MB of images per message"), under any status, a 429 too: the request's
    // own, not a rate. Its size over the limit is an overflow, anything else an invalid request.
    // A 413 whose words say the body's size is over a limit ("Invalid request body because the
    // size exceeds the maximum size allowed.", ModelArts): the request too large, as the status
    // says, whatever "invalid" beside it.
    if status == Some(413) && says(&["size", "too large", "exceeds"]) && !rate_wording {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    if says_per_message_limit(text) && !rate_wording {
        return Some(
            if says(&["too large", "too big", "mb ", "mb of", "kb of"])
                || meaning::says_context_overflow(text)
            {
                codes::CONTEXT_WINDOW_EXCEEDED
            } else {
                codes::INVALID_REQUEST
            },
        );
    }
    // Every account of a proxy's pool at its concurrency cap ("上游账号当前均达到并发上限", grok2api's
    // 503): the pool has no room, capacity, as "All available ... accounts have reached their
    // concurrency limit" is. One account's or key's cap is a rate (below).
    if says_pool_at_concurrency_cap(text) {
        return Some(codes::OVERLOADED);
    }
    // Every upstream out, some of them for their rates ("All candidate models unavailable
    // (rate-limited or no capacity)", Logos's 503): nowhere to send the request, capacity.
    if meaning::says_every_upstream_unavailable(text) {
        return Some(codes::OVERLOADED);
    }
    if rate_wording || says_already_in_progress_zh(text) {
        return Some(codes::RATE_LIMITED);
    }
    // The server's failure to process, with a retry asked for ("Error processing request,
    // Please try again later." under Wagtail AI's 400): nothing said against the request, and the
    // same request is to be sent again.
    if says(&[
        "error processing",
        "error while processing",
        "failed to process",
    ]) && says(&["try again later", "please retry", "please try again"])
    {
        return Some(codes::SERVER_ERROR);
    }
    // A 429 is about throughput ("Too many tokens, please wait"), never one request's length,
    // unless the words name the model's context as the limit the request broke ("Requested
    // tokens (4608) exceed context window of 4096", llama.cpp's words relayed by CodeGate under
    // a 429): no throughput budget is a context window.
    if (status != Some(429) || meaning::names_the_models_context(text))
        && (meaning::says_context_overflow(text) || meaning::says_length_figures_over_max(text))
    {
        return Some(codes::CONTEXT_WINDOW_EXCEEDED);
    }
    // The remedy of a new conversation ("This conversation could not be sent to the model.
    // Please start a new chat."): the conversation as sent is at fault; one too long was read
    // above.
    if says(&["start a new chat", "start a new conversation"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // Under a bare 400 too, when the words say something ran out of time ("OpenAI API hits
    // APITimeoutError: Request timed out." and "Line 0 execution timeout for exceeding 600
    // seconds", PromptFlow's `UserError`s): a server that answers every failure with a 400 says
    // nothing by it. A timeout the request set wrong is a parameter's fault.
    // (Frappe answers every error it throws with a 417, as such a server does with a 400: "AI
    // request timed out after 30s" under Oly AI's 417.)
    let bare_400_timed_out = matches!(status, Some(400 | 417))
        && (meaning::says_too_slow(text)
            || says(&[
                "execution timeout",
                "apitimeouterror",
                "timeout for exceeding",
            ]))
        && !says(&[
            "invalid timeout",
            "timeout must",
            "timeout should",
            "timeout parameter",
        ]);
    if (status.is_none() || server_status || bare_400_timed_out)
        && (says(&[
            "timeout",
            // "网关超时 | Gateway Time-out".
            "time-out",
            "deadline exceeded",
            // gRPC's name: "status=StatusCode.DEADLINE_EXCEEDED".
            "deadline_exceeded",
            // JavaScript's fetch giving up on its abort signal, as a proxy's timer sets it
            // ("AbortError: This operation was aborted").
            "aborterror",
            "operation was aborted",
            // Chinese: "timed out" ("文件等待处理超时").
            "超时",
            // Portuguese and Spanish: it took too long, the time ran out ("A geração demorou
            // muito tempo.", a Brazilian stamp shop's 500).
            "demorou muito",
            "demorou demais",
            "tempo esgotado",
            "tardó demasiado",
            "tiempo de espera agotado",
            // A stream with no tokens for too long ("Generation stalled mid-stream (60s between
            // tokens)", LoLLMs), what the host's own watchdog calls a time-out.
            "stalled mid-stream",
            "generation stalled",
            "stream stalled",
        ]) || meaning::says_too_slow(text))
    {
        return Some(codes::TIMEOUT);
    }
    // The request itself could not be read or did not validate, whatever the status (FastChat's
    // 500 "1 validation error for Request", KoboldCpp's 500 "Error parsing input." typed `bad_input`).
    if label(&|l| l == "bad_input" || (l.contains("validation") && !names_a_credential(l)))
        || says(INPUT_REJECTED_WORDING)
        || says_parameter_wrong_zh(text)
    {
        return Some(codes::INVALID_REQUEST);
    }
    // An agent or a model that gave nothing, said so and no more ("[Error: agent failed to
    // respond]", an Obsidian agent's answer): the service behind the request failed. Last: beside
    // words of capacity ("temporarily unavailable. All 10 model(s) failed to respond") those
    // decide.
    if says(&["failed to respond"]) && !meaning::says_overloaded(text) {
        return Some(codes::SERVER_ERROR);
    }
    // Something that went wrong, a model that answered in the wrong form, or an inference that
    // failed, and nothing more named ("Something went wrong prompting the model" and "The model
    // didn't respond with the correct output. Please try again." under Baserow's 400s;
    // "Inference failed" under GitLab's AI Gateway's 503): the server's side failed, not its
    // capacity. Last, so that any meaning named beside it decides ("Inference failed: ...
    // request requires 128082 total tokens").
    // (A feature disabled under a 401 or a 403 is the caller's access: "Logs feature is disabled
    // for this user", PandasAI's 403.)
    // Too many of the caller's requests or generations in flight for now ("Too many AI chat
    // responses are being generated in this project right now. Please try again in a moment.",
    // OneUptime's 400): a rate on the caller's own concurrency, as "too many requests" is.
    if says_too_many_in_flight(text) {
        return Some(codes::RATE_LIMITED);
    }
    // An input said empty or incorrect ("empty or incorrect input query", Highlight's GraphQL
    // error): the request's, whatever the status.
    if says(&["empty or incorrect input", "incorrect input query"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // A model the request named, said invalid or unknown by name ("400: Invalid model: sora-3"
    // typed `server_error` under Sora2API's 500): the request's, whatever label the relay chose.
    if says(&["invalid model:", "unknown model:"]) {
        return Some(codes::INVALID_REQUEST);
    }
    if says(MODEL_RETIRED) || (says_feature_disabled(text) && !matches!(status, Some(401 | 403))) {
        return Some(codes::INVALID_REQUEST);
    }
    // A provider or a model the request chose, not offered here, with another to select
    // ("Ollama no está disponible en la versión online. Seleccioná Claude o Groq como provider.",
    // ChessMind's 503): the request's choice, as "use a different model" is.
    if says(&[
        "seleccioná",
        "selecciona otro",
        "seleccione otro",
        "elige otro",
        "escolha outro",
        "selecione outro",
        "select another provider",
        "choose another provider",
    ]) && says(&["provider", "proveedor", "provedor", "modelo", "model"])
    {
        return Some(codes::INVALID_REQUEST);
    }
    // Japanese: a usage cap reached, with a short wait and a retry as the remedy
    // ("API利用上限に達しました。しばらく待ってから再試行してください。", a landing-page builder's 500): a
    // rate; a day's or a month's cap is a quota (read above).
    if says(&["上限に達"]) && says(&["しばらく待", "少し待", "数分"]) {
        return Some(codes::RATE_LIMITED);
    }
    // "Invalid request" with the remedy of rephrasing ("Invalid request. Please try rephrasing your
    // message.", a live-chat backend's 500): the request's, as "The request format was invalid.
    // Please try rephrasing your question." is in a 200.
    if says(&["invalid request"]) && says(&["try rephrasing", "please rephrase"]) {
        return Some(codes::INVALID_REQUEST);
    }
    // (So is a chat persona's apology for the same, "Sorry, I'm having trouble thinking right
    // now. Please try again!" and "I couldn't come up with a response. Could you try
    // rephrasing?" under PawBuck's 400s: no answer came, which tuning's "I couldn't generate a
    // response" under a 502 or a 200 already says is the server's.)
    if says(&[
        "something went wrong",
        "inference failed",
        "didn't respond with the correct",
        "did not respond with the correct",
        "having trouble thinking",
        "having trouble generating",
        "having trouble processing",
        "having a little trouble",
        "couldn't generate a response",
        "could not generate a response",
        "couldn't come up with a response",
        "could not come up with a response",
        "couldn't come up with an answer",
        "could not come up with an answer",
    ]) {
        return Some(codes::SERVER_ERROR);
    }
    // (So is a short statement that only says a step failed, "Report generation failed" under a
    // Frigate event buffer's 503: every meaning a word could name was read above.)
    // Under the server's own 5xx or in band: under a 4xx the status says whose failure it was.
    let short_failure = text.trim().trim_end_matches(['.', '!']);
    if (server_status || status.is_none())
        && short_failure.ends_with(" failed")
        && short_failure.split_whitespace().count() <= 4
    {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// Step 3: Google's rpc status names (`"status": "UNAVAILABLE"`), which say more than the HTTP status a
/// proxy relaying the error may have put on it (a 500 carrying UNAVAILABLE). Labels that are only
/// a category (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...) were read above or fall to the status.
pub(super) fn by_rpc_status(said: &Said) -> Option<FailureCode> {
    let label = |pred: &dyn Fn(&str) -> bool| said.label(pred);
    if label(&|l| l == "unavailable") {
        return Some(codes::OVERLOADED);
    }
    // The same categories as a server's own type names, under a status that says only "bad
    // request" (PandaWiki answers every failure with a 400) or in band: "forbidden" (a bot not
    // enabled for the key), "internal_error" (a chat that failed). Words of another meaning were
    // read above; a status of its own (402, 503) says more than a generic type.
    if matches!(said.status, None | Some(400)) {
        if label(&|l| l == "forbidden" || l == "permission_denied") {
            return Some(codes::AUTH);
        }
        if label(&|l| {
            matches!(
                l,
                "internal_error" | "internal_server_error" | "server_error"
            )
        }) {
            return Some(codes::SERVER_ERROR);
        }
    }
    if label(&|l| {
        matches!(
            l,
            "internal" | "data_loss" | "unknown" | "cancelled" | "aborted"
        )
    }) {
        return Some(codes::SERVER_ERROR);
    }
    None
}

/// `text` without the codes in it (`quota_exceeded`) and without their words, which the reading
/// of an error adds ("quota exceeded"): what its message alone says.
fn without_codes(text: &str) -> String {
    text.split_whitespace()
        .filter(|w| w.contains('_'))
        .fold(text.to_string(), |alone, code| {
            alone.replace(code, "").replace(&code.replace('_', " "), "")
        })
}
