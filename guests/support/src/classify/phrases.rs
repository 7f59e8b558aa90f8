//! The meanings the steps ask of a message's words that are not in [`crate::meaning`]: each
//! `says_*` reads one meaning in whatever words, and its comment names wordings it takes (and,
//! where the line is fine, ones it must not).

use super::*;

/// The message is HTTP 403's reason phrase and little else ("Forbidden", "Forbidden,Contact:
/// waf@...", "Forbidden: region not supported"), as a firewall or front end writes it under a
/// status of its own (456): access refused. "Forbidden" said of a thing ("forbidden content", a
/// forbidden parameter) is not this; content is read before it.
pub(super) fn says_bare_forbidden(text: &str) -> bool {
    let text = text.trim_start();
    let text = text.strip_prefix("403 ").unwrap_or(text);
    text.strip_prefix("forbidden").is_some_and(|rest| {
        !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == ' ')
    })
}

/// A key's, an account's or a user's own limit said to be exceeded or reached ("Key
/// limit-exceeded", "user limit reached", "API Key has exceeded the allowed limit"), with no
/// per-minute budget named.
pub(super) fn says_key_limit_exceeded(text: &str) -> bool {
    let words = meaning::words(text);
    let scope = |w: &str| {
        matches!(
            w,
            "key" | "account" | "user" | "workspace" | "organization" | "org" | "team" | "tenant"
        )
    };
    let named = (1..words.len()).any(|i| {
        words[i] == "limit"
            // ... or a scope's cap on what it stores or spends ("Workspace data limit exceeded",
            // Laminar's 403).
            && (scope(words[i - 1])
                || (i >= 2
                    && scope(words[i - 2])
                    && matches!(words[i - 1], "data" | "storage" | "usage" | "spend" | "credit")))
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "exceeded" | "reached"))
    });
    // The same said the other way round: "API Key has exceeded the allowed limit for
    // "api_requests" meter" (Zuplo's monetization).
    let has_exceeded = (0..words.len()).any(|i| {
        matches!(words[i], "key" | "account" | "user")
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .position(|w| matches!(*w, "exceeded" | "reached"))
                .is_some_and(|at| {
                    let from = i + 1 + at;
                    // ... or its cost cap ("API key has reached the max cost").
                    words[from..(from + 5).min(words.len())]
                        .iter()
                        .any(|w| matches!(*w, "limit" | "cost" | "budget"))
                })
    });
    (named || has_exceeded) && !meaning::says_per_minute_budget(text)
}

/// A model named as not ready ("Model my-model is not ready yet.", "model not ready").
pub(super) fn says_model_not_ready(text: &str) -> bool {
    // Chinese: the model not ready yet, still downloading or loading ("转写模型 fast-whisper / tiny
    // 尚未下载就绪，正在下载中，请稍候", BiliNote's transcription model).
    if text.contains("模型")
        && says_any(
            text,
            &["尚未就绪", "尚未下载就绪", "正在下载", "正在加载", "加载中"],
        )
    {
        return true;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "ready"
            && words[i.saturating_sub(2)..i].contains(&"not")
            && words[i.saturating_sub(6)..i].contains(&"model")
    })
}

/// Every account of a proxy's pool at its concurrency cap: "All available Claude Console accounts
/// have reached their concurrency limit" (claude-relay-service), and in Chinese the accounts (账号,
/// 账户) all (均, 全部) at their concurrency cap (并发上限).
pub(super) fn says_pool_at_concurrency_cap(text: &str) -> bool {
    let words = meaning::words(text);
    let english = (0..words.len()).any(|i| {
        matches!(words[i], "accounts" | "keys") && words[i.saturating_sub(4)..i].contains(&"all")
    }) && words.windows(2).any(|w| w == ["concurrency", "limit"]);
    let chinese = ["账号", "账户"].iter().any(|w| text.contains(w))
        && ["均", "全部", "所有"].iter().any(|w| text.contains(w))
        && text.contains("并发")
        && text.contains("上限");
    english || chinese
}

/// Every credential of a pool (cookies, keys, accounts, tokens) said to be unavailable for a while:
/// "All cookies are temporarily unavailable.", "all keys are temporarily unavailable". A pool with
/// no account at all, or one unavailable for good, is not this.
pub(super) fn says_credential_pool_spent(text: &str) -> bool {
    let words = meaning::words(text);
    let pool = (0..words.len()).any(|i| {
        words[i] == "all"
            && words[i + 1..(i + 3).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    // "credential" too: "All 3 credential(s) exhausted for gemini".
                    "cookies" | "keys" | "accounts" | "tokens" | "credentials" | "credential"
                )
            })
    });
    // A chain of providers each at its limit, said to be exhausted ("All providers exhausted in
    // chain \"fast\". Tried: groq/... (429_tokens_limit), cerebras/... (skipped (on cooldown))",
    // 429chain): the pool's limits, which refill, as a pool of keys is. Providers that "failed"
    // or are "unavailable" are not this.
    let providers_spent = (0..words.len()).any(|i| {
        words[i] == "all"
            && words.get(i + 1) == Some(&"providers")
            && words[i + 2..(i + 4).min(words.len())].contains(&"exhausted")
    });
    // (Each at its limit, as the reasons it tried say: a chain whose providers timed out is
    // read by its timeouts.)
    if providers_spent
        && ["429", "rate", "cooldown"].iter().any(|r| text.contains(r))
        && !text.contains("timeout")
    {
        return true;
    }
    // In Chinese: no key (密钥) or account available for now (暂时无可用, 暂无可用): "Google AI
    // 中转服务暂时无可用密钥，请稍后重试" (TradingAgents-CN, of a relay with every key at its limit),
    // "暂无可用凭证，请稍后重试" (xin2api's 503).
    let pool_zh = (text.contains("暂时无可用") || text.contains("暂无可用"))
        && ["密钥", "账号", "账户", "凭证", "key"]
            .iter()
            .any(|w| text.contains(w));
    pool_zh
        || pool
            && (text.contains("temporarily unavailable")
                || meaning::words(text).contains(&"exhausted")
                    && !meaning::says_quota_exhausted(text))
}

/// An agent's run said to be at its cap of loops, iterations or steps ("Max loops of 25 exceeded",
/// "Agent stopped due to max iterations"). A request's own steps parameter said to be invalid is
/// not this.
pub(super) fn says_run_cap_reached(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        // ("The assistant has reached the maximum number of steps.", Baserow's assistant.)
        (matches!(words[i], "loops" | "iterations" | "steps")
            && words[i.saturating_sub(3)..i]
                .iter()
                .any(|w| matches!(*w, "max" | "maximum"))
            && words
                .iter()
                .any(|w| matches!(*w, "exceeded" | "reached" | "stopped")))
            // A run ended at its count ("game ended after 3 turns — start a new game", Telnyx's
            // adventure game): the run's allowance, a new run is the remedy.
            || (matches!(words[i], "turns" | "rounds" | "steps" | "iterations")
                && i >= 3
                && words[i - 1].parse::<u32>().is_ok()
                && words[i - 2] == "after"
                && matches!(words[i - 3], "ended" | "stopped" | "finished" | "over"))
    })
}

/// A label that names a credential ("apikey_validation_failed", "invalid_api_key", "token_expired").
pub(super) fn names_a_credential(label: &str) -> bool {
    ["apikey", "api_key", "token", "credential", "auth"]
        .iter()
        .any(|c| label.contains(c))
}

/// A credential said in Chinese to have expired, lapsed, be wrong or be missing ("您的refresh_token已过期，请重新登录获取"):
/// Chinese runs the words together, so the word rules do not see the credential. A count of
/// tokens ("token数") is a length, not a credential.
pub(super) fn says_credential_expired_zh(text: &str) -> bool {
    // No credential to call with ("当前无可用凭证", none available now: gcli2api with none loaded
    // or every one disabled), or one without its token ("凭证中没有访问令牌"). None available for a
    // while (暂时无可用: every key at its limit) is a pool spent, which refills: a rate (see
    // `says_credential_pool_spent`).
    if !text.contains("暂时")
        && !text.contains("暂无")
        && meaning::says_any(
            text,
            &[
                "无可用凭证",
                "无可用的凭证",
                "没有可用凭证",
                "没有可用的凭证",
                "没有访问令牌",
                "缺少访问令牌",
                "没有令牌",
                "缺少令牌",
            ],
        )
    {
        return true;
    }
    // No valid token ("智谱清言无有效token": the relay holds none for that model), or one said
    // invalid.
    // (Or the key, or the API and its address, said incorrect: "API / API 地址不正确", BiliNote's
    // connection test when the key or the base URL it was given does not work, what the caller
    // set up to call with. A request body's form said incorrect, "请求体格式不正确", is the
    // request's.)
    if [
        "无有效token",
        "无有效的token",
        "token无效",
        "token 无效",
        "无有效令牌",
        "密钥不正确",
        "apikey不正确",
        "apikey 不正确",
        "api key 不正确",
        "api 地址不正确",
        "api地址不正确",
    ]
    .iter()
    .any(|w| text.contains(w))
    {
        return true;
    }
    [
        "token", "令牌", "密钥", "apikey", "api key", "凭证", "cookie",
    ]
    .iter()
    .any(|c| text.contains(c))
        && ["已过期", "过期", "已失效", "失效"]
            .iter()
            .any(|w| text.contains(w))
        && !text.contains("token数")
}

/// The caller's own stream already running, said in Chinese ("已有对话流正在输出": a conversation
/// is already being streamed): one at a time, a rate of the caller's, as "too many requests in
/// progress" is.
pub(super) fn says_already_in_progress_zh(text: &str) -> bool {
    text.contains("已有") && text.contains("正在")
}

/// A request's parameter (参数) said in Chinese to be missing, wrong, invalid or out of range
/// ("服务必填参数缺失", "服务请求参数dialog错误", "请求参数范围错误"): the request's fault.
pub(super) fn says_parameter_wrong_zh(text: &str) -> bool {
    // A part of the request said to be required or empty: "prompt不能为空" (the prompt may not be
    // empty), "消息不能为空".
    if [
        "prompt",
        "消息",
        "内容",
        "输入",
        "问题",
        "messages",
        "提示词",
    ]
    .iter()
    .any(|part| {
        text.contains(&format!("{part}不能为空")) || text.contains(&format!("{part} 不能为空"))
    }) {
        return true;
    }
    // A step the caller must take first, adding what the request needs ("请先为该供应商添加至少一个模型再测试
    // 连通性": add at least one model to this provider before testing the connection, BiliNote).
    // (Signing in or paying first is the credential's or the money's: not this.)
    if text.contains("请先")
        && text.contains("添加")
        && !says_any(text, &["登录", "充值", "密钥", "key", "付费", "订阅"])
    {
        return true;
    }
    // A part's data in the wrong format ("图片数据格式不正确", the image data's format incorrect,
    // DongTaiJF's 200), as a request body's form is.
    // (Or not passed in: "参考音频未传入。", a CosyVoice API's 500 for no reference audio.)
    if says_any(
        text,
        &[
            "数据格式不正确",
            "格式不正确",
            "数据格式错误",
            "未传入",
            "没有传入",
        ],
    ) {
        return true;
    }
    text.contains("参数")
        && says_any(
            text,
            &[
                "缺失",
                "缺少",
                "错误",
                "无效",
                "不合法",
                "非法",
                "范围",
                "不能为空",
                "必填",
                "格式",
            ],
        )
}

/// A request parameter named with its constraint ("max_output_tokens must be >= 1",
/// "temperature must be between 0 and 2"): the request's fault under any status, a 500 too.
pub(super) fn says_request_parameter_constrained(text: &str) -> bool {
    const PARAMETERS: &[&str] = &[
        "max_tokens",
        "max_output_tokens",
        "max_new_tokens",
        "max_completion_tokens",
        "temperature",
        "top_p",
        "top_k",
        "presence_penalty",
        "frequency_penalty",
        "repetition_penalty",
        "n",
        "seed",
        "stop",
        "logprobs",
        "top_logprobs",
    ];
    // (A sum of the input and the output over the model's limit, "`inputs` tokens +
    // `max_new_tokens` must be <= 4096", is an overflow, read later.)
    let words = meaning::words(text);
    // A parameter allowed one value only ("only n == 1 is supported", Hailo-Ollama).
    let only_value = (0..words.len().saturating_sub(1)).any(|i| {
        words[i] == "only"
            && PARAMETERS.contains(&words[i + 1])
            && meaning::says_any(text, &["supported", "allowed"])
    });
    ((1..words.len()).any(|i| {
        matches!(words[i], "must" | "should")
            && PARAMETERS.contains(&words[i - 1])
            && words.get(i + 1) == Some(&"be")
    }) || only_value)
        && !meaning::says_context_overflow(text)
}

/// A limit said to be per message or per request, with how much one may carry ("I can handle up
/// to 10 images per message", "at most 5 files per request"): the request's own limit.
pub(super) fn says_per_message_limit(text: &str) -> bool {
    says_any(
        text,
        &[
            "per message",
            "per request",
            "in a single message",
            "in one message",
        ],
    ) && says_any(
        text,
        &[
            "up to",
            "at most",
            "too many",
            "too large",
            "maximum",
            "max ",
        ],
    )
}

/// A guard's check named as failed with no verdict beside it ("Guardrails content inspection
/// failed."): what [`meaning::says_policy_refusal`] would read as the content failing it, said
/// without anything the content was found to be (flagged, violating, breached, blocked, unsafe).
pub(super) fn says_guard_check_broke(text: &str) -> bool {
    let words = meaning::words(text);
    let check = (1..words.len()).any(|i| {
        matches!(words[i], "check" | "inspection" | "scan" | "screening")
            && words[i.saturating_sub(3)..i].iter().any(|w| {
                matches!(
                    *w,
                    "guard" | "guardrail" | "guardrails" | "content" | "safety" | "moderation"
                )
            })
    });
    // (What was checked, said to have failed it, is a verdict: "Generation failed safety check."
    // (Inquiro's 500), "... failed the content check".)
    let failed_it = words.windows(3).any(|w| {
        w[0] == "failed"
            && (matches!(w[1], "safety" | "content" | "moderation" | "guardrail")
                || (matches!(w[1], "the" | "a")
                    && matches!(w[2], "safety" | "content" | "moderation" | "guardrail")))
    });
    check
        && !failed_it
        && words.iter().any(|w| matches!(*w, "failed" | "error"))
        && !words.iter().any(|w| GUARD_VERDICTS.contains(w))
}

/// Words that say what a guard found the content to be: with any of them, the content failed
/// the check, whatever else is said of the check.
const GUARD_VERDICTS: &[&str] = &[
    "flagged",
    "violation",
    "violates",
    "violated",
    "breached",
    "breach",
    "blocked",
    "unsafe",
    "harmful",
    "detected",
    "categories",
    "category",
    "pass",
    "passed",
];

/// A guard's service said to be unavailable ("content moderation is temporarily unavailable",
/// "guardrail service not available"): the check could not run, as [`says_guard_check_broke`]
/// says of one that failed, with no verdict beside it.
pub(super) fn says_guard_unavailable(text: &str) -> bool {
    let words = meaning::words(text);
    (1..words.len()).any(|i| {
        let unavailable =
            words[i] == "unavailable" || (words[i] == "available" && words[i - 1] == "not");
        unavailable
            && words[i.saturating_sub(5)..i].iter().any(|w| {
                matches!(
                    *w,
                    "guard" | "guardrail" | "guardrails" | "moderation" | "safety" | "filter"
                )
            })
    }) && !words.iter().any(|w| GUARD_VERDICTS.contains(w))
}

/// The server's own parts said to be missing or not installed ("Chat processing service is
/// currently unavailable (core components missing).", AI Power for WordPress under a 503): the
/// server is broken, not busy, whatever the status says.
pub(super) fn says_server_parts_missing(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        matches!(
            words[i],
            "components" | "component" | "dependencies" | "dependency" | "modules" | "libraries"
        ) && meaning::around(&words, i, 2)
            .iter()
            .any(|w| matches!(*w, "missing" | "installed"))
            && !words[i.saturating_sub(3)..i]
                .iter()
                .any(|w| matches!(*w, "request" | "body" | "message" | "your"))
    })
}

/// The upstream's answer said to be broken: a response, or its stream or content type, invalid,
/// malformed or unexpected ("Stream response Content-Type invalid: text/html; charset=utf-8",
/// "invalid response from upstream"). The request's `response_format` is one word and not this.
pub(super) fn says_upstream_answer_broken(text: &str) -> bool {
    const BROKEN: &[&str] = &["invalid", "malformed", "unexpected", "unparseable"];
    let words = meaning::words(text);
    // Or the answer could not be read ("Failed to parse AI assessment response" beside "Mint AI
    // could not complete the assessment. Please try again in a moment." under Mintenance's 503):
    // the answer came and was broken, not the servers too busy. Parsing the request ("Failed to
    // parse request body") is the request's.
    // (A cause named beside it decides: "Could not parse response content as the request was
    // rejected by the content filter".)
    let cause_named = meaning::says_any(text, &["because", "as the request", "due to"]);
    let answer_unreadable = !cause_named
        && (1..words.len()).any(|i| {
            words[i] == "parse"
                && matches!(words[i - 1], "to" | "not" | "cannot")
                && words[i + 1..(i + 5).min(words.len())]
                    .iter()
                    .any(|w| matches!(*w, "response" | "answer" | "reply" | "output"))
        });
    answer_unreadable
        || (0..words.len()).any(|i| {
            // ("Invalid API response format", osTicket's AI plugin: one word between.)
            words[i] == "response"
                && (words[i.saturating_sub(2)..i]
                    .iter()
                    .any(|w| BROKEN.contains(w))
                    || words[i + 1..(i + 4).min(words.len())]
                        .iter()
                        .any(|w| BROKEN.contains(w)))
        })
}

/// A pool of backends found empty by discovery ("PREFILL_SERVICE_UNAVAILABLE: No prefill
/// endpoints discovered"): nothing there to serve, a server-side failure, as "no healthy
/// upstream". One endpoint not found ("No endpoint found for path /v1/foo") is a wrong path.
pub(super) fn says_no_backends_found(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        matches!(words[i], "endpoints" | "backends" | "upstreams")
            && words[i.saturating_sub(3)..i].contains(&"no")
            && words
                .get(i + 1)
                .is_some_and(|w| matches!(*w, "discovered" | "registered" | "alive" | "configured"))
    })
}

/// The model's answer said to be empty: no output, or nothing returned ("did not return any
/// message content", "returned no content", "empty completion", "EMPTY RESPONSE", "No response
/// from model."). A request's part said to be empty is [`says_request_part_empty`]; "no output
/// file" or "no output format" names a setting.
pub(super) fn says_answer_empty(text: &str) -> bool {
    // The model's answer quoted as nothing ("Error parsing AI results. Response Text:" and no
    // more, Tandoor's 400): what came back was empty.
    if ["response text:", "response:", "model output:", "ai output:"]
        .iter()
        .any(|end| text.trim_end().ends_with(end))
    {
        return true;
    }
    // An answer of a provider named as empty ("Empty OpenAI response", IMMCAD's 502; "empty
    // Gemini response"): "empty" and, at most two words on, the answer. ("Empty response body"
    // is read the same; an empty request is [`says_request_part_empty`].)
    let words = meaning::words(text);
    if (0..words.len()).any(|i| {
        words[i] == "empty"
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "response" | "completion" | "answer" | "reply"))
            && !words[i.saturating_sub(2)..i]
                .iter()
                .any(|w| matches!(*w, "request" | "prompt" | "input" | "message"))
    }) {
        return true;
    }
    // What was asked for not found in the upstream's answer ("Could not extract alt text from
    // Gemini API response", an alt-text generator's 500): the answer lacked it.
    if meaning::says_any(
        text,
        &[
            "could not extract",
            "unable to extract",
            "failed to extract",
        ],
    ) && meaning::says_any(
        text,
        &[
            "from gemini api response",
            "api response",
            "from the response",
            "from response",
            "from ai response",
            "from model response",
            "from llm response",
        ],
    ) && !meaning::says_any(text, &["json", "parse", "format"])
    {
        return true;
    }
    // Nothing made of what was asked ("Query 'total revenue by month' didn't produce any SQL.",
    // Metabot's 400), a blank reply ("Blank assistant reply", Weblate's OpenAI backend), no
    // results found in the upstream's answer ("No results found from Anthropic API response.").
    if meaning::says_any(
        text,
        &[
            "didn't produce any",
            "did not produce any",
            "didn't generate any",
            "did not generate any",
            // "AI service returned an empty analysis." (an AI resume analyzer's 502).
            "returned an empty",
            // "No choices in OpenRouter response" (10xCards).
            "no choices in",
            // Nothing found to answer with ("I couldn't find relevant information in the
            // building codes to answer your question.", a building-code copilot's answer when its
            // retrieval found no documents and no model was asked): no result, as Kernel Memory's
            // `noResult` is.
            "couldn't find relevant information",
            "could not find relevant information",
            "couldn't find any relevant",
            "could not find any relevant",
            "no relevant information found",
            "no relevant documents found",
            // "No results found for query" (Sentry's AI query translation when its model gave no
            // query back, under a 404).
            "no results found for query",
            "no results found for the query",
            "no results found for your query",
            // "Empty content in Ollama response" (Robot Buddy).
            "empty content in",
            // "... JSON parsing failed and manual extraction found no content." (WordPress Magic
            // SEO's 200 for Claude's answer): the answer held nothing to use.
            "extraction found no content",
            "found no content in the response",
            // French, Portuguese, Spanish: no answer generated ("Désolé, pas de réponse générée.",
            // Ronchon's 200); Turkish: no answer could be got ("Yanıt alınamadı.", Neurocore's
            // 500; "OpenAI'den geçerli bir cevap alınamadı.", a guide site's 200).
            // Italian, French, Spanish, Portuguese: no answer from the model's provider
            // ("Nessuna risposta da OpenAI", GetBusinessPlan's 500), as "No response from
            // OpenAI" is.
            "nessuna risposta da",
            "nessuna risposta dal",
            "aucune réponse de",
            "aucune réponse d'",
            "ninguna respuesta de",
            "sin respuesta de",
            "nenhuma resposta do",
            "nenhuma resposta da",
            "pas de réponse générée",
            "aucune réponse générée",
            "aucune réponse n'a été générée",
            "nenhuma resposta gerada",
            "nenhuma resposta foi gerada",
            "no se generó ninguna respuesta",
            "no se generó respuesta",
            "yanıt alınamadı",
            "cevap alınamadı",
            // "No response content from OpenAI" (NPC Forge's 500); the summary asked for came
            // back empty ("The summary cannot be empty", a conversational bot's cause under
            // "Failed to end the conversation").
            "no response content",
            "summary cannot be empty",
            "summary is empty",
            "summary was empty",
            // Hebrew: no (valid) answer received, no answer ("לא התקבלה תשובה תקינה מ־OpenAI.",
            // "אין תשובה.", Solaya Vault); Persian: no answer received ("پاسخی دریافت نشد",
            // CapWise's 200).
            "לא התקבלה תשובה",
            "אין תשובה",
            "پاسخی دریافت نشد",
            "پاسخ دریافت نشد",
            // Indonesian: the AI returned no result, did not respond ("AI tidak mengembalikan
            // hasil.", a prompt generator's 502; "Maaf, AI tidak merespons.", a portfolio chat's
            // 200).
            "tidak mengembalikan hasil",
            "tidak mengembalikan jawaban",
            "ai tidak merespons",
            "respons kosong",
            // Russian: an empty answer from the LLM, no text generated ("Ошибка: пустой ответ от
            // LLM", AI-Engineering's 200; "Текст не сгенерирован", CGm's 500).
            "пустой ответ",
            "не сгенерирован",
            // Korean: no AI answer, no choices in the LLM's answer ("AI 응답이 없습니다.", VESTRA's
            // 500; "LLM 응답에 choices가 없습니다.", LucidChat's 502).
            "ai 응답이 없",
            "llm 응답이 없",
            "모델 응답이 없",
            "choices가 없",
            // Chinese: the result empty, no audio or content generated ("生成结果为空", Flow2API's
            // 502; "模型未能生成任何音频数据。", a CosyVoice API's 500), as "did not generate any" is.
            "结果为空",
            "未能生成任何",
            "没有生成任何",
            "未生成任何",
            // English: a workflow that returned no draft ("Workflow did not return a draft", an
            // email assistant's 502).
            "did not return a draft",
            "didn't return a draft",
            "did not return any",
            // Chinese: the API returned empty content ("DeepSeek API 返回空内容", an English learning
            // assistant's 500).
            "返回空内容",
            "返回内容为空",
            "返回的内容为空",
            // Portuguese and Spanish: the model returned no image or content ("O modelo não
            // retornou nenhuma imagem.", a Brazilian stamp shop's 500).
            "não retornou nenhum",
            "não retornou nenhuma",
            "no devolvió ningún",
            "no devolvió ninguna",
            // Turkish: an empty answer came ("AI'dan boş yanıt alındı", NapiFit's 500);
            // Vietnamese: the system answered empty ("Hệ thống phản hồi rỗng.", AURA's 200); Thai:
            // the AI did not answer ("⚠️ AI ไม่ตอบกลับ", a Thai chatbot's 200).
            "boş yanıt",
            "boş cevap",
            "phản hồi rỗng",
            "câu trả lời rỗng",
            "ai ไม่ตอบกลับ",
            // "Invalid OpenAI API response: missing content" (ScamBuster).
            "response: missing content",
            "response missing content",
            // "No analysis result received" (DocMagic).
            "result received",
            // "No response from model" (FEBChat's assistant message, OpenLLM's 400), "No response
            // from Ollama" (AIDJ): the model's answer did not come. From a server it is the
            // server's.
            "no response from model",
            "no response from the model",
            "no response from llm",
            "no response from the llm",
            "no response from ai",
            "no response from the ai",
            "no response from ollama",
            "no response from openai",
            "no response from gemini",
            // ("No response from Mistral", TechPulse RSS AI.)
            "no response from mistral",
            "no response from claude",
            "no response from anthropic",
            "no response from groq",
            "no response from deepseek",
            // ("No content from AI", Intime HR's performance-review writer.)
            "no content from ai",
            "no content from the ai",
            "no content from model",
            "no content from the model",
            "no content from llm",
            "no content from the llm",
            "blank assistant reply",
            "blank reply",
            "blank response",
            "blank answer",
            "blank completion",
        ],
    ) || (text.contains("no results found from") && text.contains("response"))
    {
        return true;
    }
    // A transcription that came back empty (`empty_transcript` beside "Nem sikerült szöveget
    // felismerni": no text recognised, a Hungarian webshop's voice search): the speech model's
    // output, none of it. (A transcript the request provided empty is the request's: "Empty
    // transcript text provided", Meetily.)
    if meaning::says_any(
        text,
        &[
            "empty transcript",
            "transcript is empty",
            "transcription is empty",
            "empty transcription",
        ],
    ) && !meaning::says_any(text, &["provided", "given", "sent", "supplied"])
    {
        return true;
    }
    // Nothing came in time ("API returned no response. Timeout while reading headers"): a
    // time-out, which the words say beside it.
    if meaning::words(text)
        .iter()
        .any(|w| matches!(*w, "timeout" | "timed"))
    {
        return false;
    }
    // ("Re-OCR returned no result", paperless-gpt: the vision model's answer.)
    const ANSWER: &[&str] = &[
        "content",
        "result",
        "output",
        "text",
        "message",
        "tokens",
        "choices",
        "completion",
        "response",
        // "The AI model did not return an image for ..." (Hairfit): what it was asked to make.
        "image",
        "images",
        // "No tool call returned from OpenAI" (a reminder parser that asked for one).
        "tool",
        // "Translator doesn't return translation" (Lingo.dev), "no feedback was generated"
        // (Echo): what the model was asked for.
        "translation",
        "feedback",
    ];
    // Chinese: the response (or what came back) empty ("上游流式响应为空", grok2api).
    // (响应内容为空, "the response's content empty": TradingAgents-CN's test of an LLM; 未生成任何结果,
    // "no result generated at all": pyVideoTrans.)
    if [
        "未生成任何",
        "没有生成任何",
        "响应为空",
        // German: no draft or answer delivered, an empty answer ("Der KI-Anbieter hat keinen
        // Entwurf geliefert", FreeScout's AI Assist).
        "keinen entwurf",
        // Dutch: delivered no usable variants, no answer ("De AI leverde geen bruikbare
        // varianten.", DatingAssistent).
        "leverde geen",
        "geen antwoord",
        // Swedish: the AI returned no result ("AI returnerade inget resultat", an event-rental
        // planner's 500); Czech: an empty answer from the AI ("Prázdná odpověď z AI", ZEdu);
        // Japanese: the AI's response was empty ("AIからの応答が空でした。", HumanCompiler).
        "returnerade inget",
        // French: the AI returned no valid content ("L'IA n'a pas retourné de contenu valide.",
        // Story2Book's 500).
        "pas retourné de contenu",
        "réponse vide",
        "inget svar",
        "prázdná odpověď",
        "応答が空",
        "返答が空",
        "leeg antwoord",
        "keine antwort",
        "leere antwort",
        "kein ergebnis",
        "返回为空",
        "回复为空",
        "响应内容为空",
        "返回内容为空",
        "回复内容为空",
        "生成内容为空",
        // Chinese: an empty reply, no valid content returned ("服务返回空回复", gcli2api when every
        // retry came back empty; "模型未返回有效内容", InnerMap's 502).
        "空回复",
        "空响应",
        "未返回有效内容",
        "没有返回有效内容",
        "未返回任何内容",
        "没有返回任何内容",
        // Korean: no answer could be extracted, an empty answer ("답변을 추출할 수 없습니다.", a
        // fortune-reading site's 500 when Gemini's candidate had no parts).
        "답변을 추출할 수 없",
        "응답을 추출할 수 없",
        "빈 응답",
        "응답이 비어",
        "답변이 비어",
    ]
    .iter()
    .any(|w| text.contains(w))
    {
        return true;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        let next = words.get(i + 1).copied();
        (words[i] == "output"
            && i >= 1
            && words[i - 1] == "no"
            && !next.is_some_and(|w| {
                matches!(
                    w,
                    "file" | "format" | "schema" | "type" | "parser" | "path" | "directory"
                )
            }))
            || (matches!(words[i], "return" | "generate" | "produce")
                && i >= 2
                && matches!(words[i - 2..i], ["did", "not"] | ["doesn", "t"] | ["didn", "t"])
                && words[i + 1..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            // "No content received", "no text was extracted" (an OCR server's model read
            // nothing), "No response messages choices were returned": nothing came back. Nothing
            // received in time ("No response received from server: timeout of 30000ms exceeded")
            // is a time-out.
            // (A time-out named was read above; "within" a time is one too.)
            || (words[i] == "no"
                && !words.contains(&"within")
                && next.is_some_and(|w| ANSWER.contains(&w))
                && words[i + 2..(i + 6).min(words.len())].iter().any(|w| {
                    matches!(
                        *w,
                        "received" | "extracted" | "returned" | "generated" | "produced"
                    )
                }))
            // "returned an empty final response" (AI Power): one word between. ("Empty AI
            // response", Lot Rocket and AI Productivity Hub.)
            || (words[i] == "empty"
                && words.get(i + 2).is_some_and(|w| {
                    matches!(*w, "response" | "answer" | "completion" | "output" | "result")
                })
                && next.is_some_and(|w| {
                    matches!(w, "final" | "model" | "whole" | "streamed" | "ai" | "llm")
                }))
            // "No text content in AI response" (dave.io): nothing of the answer in the answer.
            || (words[i] == "no"
                && next.is_some_and(|w| ANSWER.contains(&w))
                && (i + 2..(i + 5).min(words.len())).any(|j| {
                    words[j] == "in"
                        && words[j + 1..(j + 4).min(words.len())]
                            .iter()
                            .any(|w| matches!(*w, "response" | "answer" | "completion" | "output"))
                }))
            // "Task marked completed but has no result." (Ai2 ScholarQA): the answer that came.
            || (matches!(words[i], "has" | "have")
                && next == Some("no")
                && words.get(i + 2).is_some_and(|w| {
                    matches!(*w, "result" | "response" | "answer" | "completion")
                }))
            // "returned no content", "produced no assistant message" (gptme), "generated no text".
            // (Not a file's: "'policy.pdf' produced no readable text. The file may be scanned" is
            // the upload's, the request's.)
            || (matches!(words[i], "returned" | "produced" | "generated")
                && next == Some("no")
                && !words[i.saturating_sub(4)..i]
                    .iter()
                    .any(|w| matches!(*w, "pdf" | "file" | "document" | "upload" | "docx"))
                && words[i + 2..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            // ("Error: returned empty choices", MoneyPrinterTurbo's script when the model's
            // `choices` were empty.)
            || (words[i] == "empty"
                && next.is_some_and(|w| {
                    matches!(
                        w,
                        "completion"
                            | "output"
                            | "answer"
                            | "response"
                            | "result"
                            | "choices"
                            | "candidates"
                    )
                }))
            // "Google AI Studio Candidate text empty": the answer's text, not a request's part.
            || (words[i] == "empty"
                && i >= 1
                && matches!(words[i - 1], "text" | "output" | "response" | "completion" | "answer")
                && !words[i.saturating_sub(4)..i].iter().any(|w| {
                    matches!(*w, "messages" | "message" | "prompt" | "input" | "query" | "body")
                }))
            // "The response is empty", "the completion was empty".
            || (words[i] == "empty"
                && i >= 2
                && matches!(words[i - 1], "is" | "was")
                && matches!(words[i - 2], "response" | "completion" | "answer" | "output"))
            // "No data was sent by the server." (big-AGI, of Gemini's empty stream).
            // ("No audio was received.", openai-edge-tts: the speech that should have come.)
            || (matches!(words[i], "data" | "audio")
                && i >= 1
                && words[i - 1] == "no"
                && words[i + 1..(i + 3).min(words.len())]
                    .iter()
                    .any(|w| matches!(*w, "sent" | "received" | "returned")))
            // "The model completed without producing text or a tool call." (Budibase).
            || (words[i] == "without"
                && next.is_some_and(|w| matches!(w, "producing" | "generating" | "returning"))
                && words[i + 2..(i + 4).min(words.len())]
                    .iter()
                    .any(|w| ANSWER.contains(w)))
            // "Chat complete failed, LLM response is None" (MemOS): a Python None where the
            // answer should be.
            || (words[i] == "none"
                && i >= 2
                && matches!(words[i - 1], "is" | "was")
                && matches!(
                    words[i - 2],
                    "response" | "completion" | "answer" | "output" | "content"
                ))
            // "Notion returned empty content.": what came back had nothing in it. (Or "an empty
            // summary": "Gemini returned an empty summary.", a compliance assistant's 500.)
            || (words[i] == "empty"
                && matches!(next, Some("content" | "summary" | "response" | "answer" | "result"))
                && i >= 1
                && (matches!(words[i - 1], "returned" | "produced" | "generated" | "sent")
                    || (i >= 2
                        && matches!(words[i - 1], "an" | "a")
                        && matches!(words[i - 2], "returned" | "produced" | "generated"))))
            // "No choices in OpenAI response" (claude-code-proxy, of an upstream's completion
            // without any): the answer had nothing in it.
            // (Gemini's word for them too: "No candidates in Gemini response", llm-gateway-rs.)
            || (words[i] == "no" && matches!(next, Some("choices" | "candidates")))
            // "No response produced by agent", "No completion returned": nothing came back.
            || (words[i] == "no"
                && words
                    .get(i + 1)
                    .is_some_and(|w| matches!(*w, "response" | "completion" | "output" | "answer"))
                && words
                    .get(i + 2)
                    .is_some_and(|w| matches!(*w, "produced" | "returned" | "generated")))
            // "Generated content is empty or too short (0 chars)" (TinDevelopers' 500): what was
            // generated, nothing.
            || (words[i] == "generated"
                && matches!(next, Some("content" | "text" | "response" | "answer" | "output"))
                && words.get(i + 2).is_some_and(|w| matches!(*w, "is" | "was"))
                && words.get(i + 3) == Some(&"empty"))
            // "No study summary content returned from model" (Lock-in's 500): no content of the
            // model's, whatever it is called, two words at most before "content".
            || (words[i] == "returned"
                && i >= 2
                && matches!(words[i - 1], "content" | "text" | "output")
                && words[i.saturating_sub(4)..i - 1].contains(&"no")
                && !words[i.saturating_sub(4)..i]
                    .iter()
                    .any(|w| matches!(*w, "request" | "prompt" | "input")))
            // "No images generated", "no content generated": nothing came of the generation.
            || (words[i] == "generated"
                && i >= 2
                && words[i - 2] == "no"
                && matches!(
                    words[i - 1],
                    "images"
                        | "image"
                        | "audio"
                        | "speech"
                        | "content"
                        | "output"
                        | "text"
                        | "tokens"
                        | "response"
                        // "No questions generated" (EduSync's quiz generator), "no results
                        // generated": what was asked for, none of it made.
                        | "questions"
                        // "No summary generated by Gemini AI" (Bitcoin Sovereign's details
                        // under "Failed to generate Gemini AI summary").
                        | "summary"
                        | "summaries"
                        | "results"
                        | "answers"
                        | "replies"
                        // "No reply generated" (a review reply generator's 500).
                        | "reply"
                ))
            // "no response" and nothing else (chatnio's 503): the answer that did not come.
            // (Or "No reply.", Timora's stand-in when the model's content was empty.)
            || (words.len() == 2 && matches!(words[..], ["no", "response" | "reply" | "answer"]))
            // "No response from model.": the model said nothing. No response from an upstream or a
            // server is a connection's failure, not an empty answer.
            || (words[i] == "response"
                && i >= 1
                && words[i - 1] == "no"
                && words.get(i + 1) == Some(&"from")
                && words[i + 2..(i + 4).min(words.len())].contains(&"model"))
    })
}

/// A feature of the server's said to be off ("RAG is not enabled. Set ENABLE_RAG=true in
/// environment", a web summariser's 503; "Translation disabled", Aegis's 503): the request asks
/// for what this server does not do (under a 401 or a 403, the caller's access instead). The AI
/// as a whole not enabled is the
/// server's set-up ([`says_ai_not_configured`]); a model or an API not enabled for the caller is
/// the caller's access.
pub(super) fn says_feature_disabled(text: &str) -> bool {
    const FEATURES: &[&str] = &[
        "rag",
        "retrieval",
        "translation",
        "translations",
        "embeddings",
        "embedding",
        "transcription",
        "tts",
        "stt",
        "vision",
        "summarization",
        "summarisation",
        "reranking",
        "rerank",
        "feature",
    ];
    let words = meaning::words(text);
    (1..words.len()).any(|i| {
        let subject = FEATURES.contains(&words[i - 1])
            || (i >= 2 && words[i - 1] == "is" && FEATURES.contains(&words[i - 2]))
            || (i >= 3
                && words[i - 1] == "not"
                && words[i - 2] == "is"
                && FEATURES.contains(&words[i - 3]));
        subject
            && matches!(words[i], "disabled" | "enabled")
            && (words[i] == "disabled" || words[i - 1] == "not")
    })
}

/// Too many of the caller's requests, responses or generations in flight for now: "too many",
/// at most four words, one of those, and "right now" or "at the moment" ("Too many AI chat
/// responses are being generated in this project right now.").
pub(super) fn says_too_many_in_flight(text: &str) -> bool {
    let words = meaning::words(text);
    let now = meaning::says_any(text, &["right now", "at the moment", "currently"]);
    now && (1..words.len()).any(|i| {
        words[i - 1] == "too"
            && words[i] == "many"
            && words[i + 1..(i + 6).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    "requests" | "responses" | "generations" | "completions" | "calls"
                )
            })
    })
}

/// A part of the request (its messages, prompt, input, query or body) said to be empty.
pub(super) fn says_request_part_empty(text: &str) -> bool {
    // Japanese: enter the question or the message ("質問内容を入力してください。", Shimesukun 2's
    // 500); "within N characters" is a length (read as an overflow).
    if text.contains("を入力してください")
        && meaning::says_any(
            text,
            &["質問", "メッセージ", "内容", "テキスト", "プロンプト"],
        )
        && !meaning::says_any(text, &["以内", "文字"])
    {
        return true;
    }
    // Thai: no message was sent ("❌ ไม่มีข้อความส่งมา", a Thai chatbot's 200).
    if text.contains("ไม่มีข้อความ") {
        return true;
    }
    // No messages, prompt or input to work on ("No messages to process", gptme; "no prompt
    // provided").
    if let [first, part, then, ..] = meaning::words(text)[..]
        && first == "no"
        && matches!(
            part,
            "messages" | "message" | "prompt" | "prompts" | "input" | "query"
        )
        && matches!(
            then,
            "to" | "provided" | "given" | "supplied" | "found" | "were" | "was"
        )
    {
        return true;
    }
    // A part the request must carry not in it ("No user message found in the request").
    if (text.starts_with("no ") || text.contains(" not found in") || text.contains(": no "))
        && meaning::says_any(text, &["found in the request", "found in request"])
    {
        return true;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "empty"
            && i >= 1
            && matches!(words[i - 1], "is" | "are" | "be" | "was" | "were")
            && words[i.saturating_sub(7)..i].iter().any(|w| {
                matches!(
                    *w,
                    "messages" | "message" | "prompt" | "input" | "query" | "body"
                )
            })
    })
}

/// "missing" said of a request's parameter: a parameter, field or argument named as such, or
/// required, or a generation setting by its name ("missing max tokens", "missing `model` field").
/// A missing credential is AUTH, decided before this is asked.
pub(super) fn says_parameter_missing(text: &str) -> bool {
    const PARAMETER: &[&str] = &[
        "parameter",
        "parameters",
        "param",
        "field",
        "fields",
        "argument",
        "arguments",
        "property",
        "required",
        "max",
        "max_tokens",
        "model",
        "messages",
        "prompt",
        // "Missing objection/input" (Lot Rocket's 200).
        "input",
    ];
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        *w == "missing"
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|n| PARAMETER.contains(n))
    })
}

/// An id, a parameter or a field said to be required ("Instruction ID is required for
/// "plugin-ai" to work", "parameter 'model' is required"): the request lacks it. A credential
/// required is the credential's (asked first).
pub(super) fn says_id_or_parameter_required(text: &str) -> bool {
    let words = meaning::words(text);
    (1..words.len()).any(|i| {
        words[i] == "required"
            && matches!(words[i - 1], "is" | "are")
            && words[i.saturating_sub(4)..i - 1].iter().any(|w| {
                matches!(
                    *w,
                    "id" | "ids"
                        | "parameter"
                        | "parameters"
                        | "param"
                        | "field"
                        | "fields"
                        | "argument"
                        // What the request carries ("YAML content is required", Karpor's
                        // catch-all 500).
                        | "content"
                        | "query"
                        | "prompt"
                        | "input"
                )
            })
    })
}

/// An AI integration said not to be configured: a provider, a client, a model, "AI" itself or
/// its key, then "not configured" (or Blinko's "not configure!"), within four words ("AI provider
/// is not configured.", "embedding model not configured", "model provider or apikey not
/// configure!").
pub(super) fn says_ai_not_configured(text: &str) -> bool {
    // ("AI service is not properly configured. Please contact support.", DocMagic's 503.)
    let text = &text
        // Dutch ("De ChatGPT-fallback is niet geconfigureerd. Voeg OPENAI_API_KEY toe ...", a
        // Dutch recipe assistant's 503).
        .replace("niet geconfigureerd", "not configured")
        // French ("Service d'extraction de tâches non configuré.", Zeii's 400): the service
        // named first, its qualifiers between it and "not configured" (hence six words back,
        // below).
        .replace("non configuré", "not configured")
        // Portuguese and Spanish ("Serviço de IA não configurado. Entre em contato com o
        // administrador.", a crane-management ERP's 500): the AI service not configured.
        .replace("serviço de ia", "ai service")
        .replace("servicio de ia", "ai service")
        .replace("não configurado", "not configured")
        .replace("não configurada", "not configured")
        .replace("no configurado", "not configured")
        .replace("no configurada", "not configured")
        .replace("not properly configured", "not configured")
        // ("Model gpt-4o has not been configured for use", BERTA's 500.)
        .replace("has not been configured", "not configured")
        .replace("have not been configured", "not configured")
        .replace("not correctly configured", "not configured");
    // A feature of the server's not configured, with its administrator as the remedy ("BookDate
    // is not configured or has been disabled. Please contact your administrator.",
    // ReadMeABook's AI recommender under a 400): the server's setup, which no other request
    // cures, as a service not configured is.
    if text.contains("not configured")
        && meaning::says_any(
            text,
            &[
                "contact your administrator",
                "contact the administrator",
                "contact an administrator",
                "contact your admin",
                "ask your administrator",
            ],
        )
    {
        return true;
    }
    // (Or its configuration not set or not found: "AI configuration is not set" (Teable), "No
    // AI configuration found" (Recommendarr).)
    // Chinese: "AI 服务未配置" (the AI service not configured, a NodeBB plugin's 503).
    // (Or needing to be configured, or the administrator asked to configure it: "没有可用的 OpenAI
    // 端点，请联系管理员配置", no OpenAI endpoint available, ask the administrator to configure one,
    // xin2api's 503.)
    // Arabic: the AI service not set up (right) ("خدمة الذكاء الاصطناعي غير مُعدة بشكل صحيح.", Banda
    // Chao's 500).
    if meaning::says_any(text, &["غير مُعدة", "غير معدة", "غير مهيأة", "غير مكونة"])
        && text.contains("الذكاء الاصطناعي")
    {
        return true;
    }
    // A key's variable to configure as the remedy ("Chatbot service is not available. Please
    // configure OPENAI_API_KEY.", Lokario's 503).
    if meaning::says_any(
        text,
        &["please configure", "configure your", "configure the"],
    ) && text.contains("_api_key")
    {
        return true;
    }
    // Japanese: the LLM provider not set up (right) ("LLM プロバイダが正しく設定されていません。", an LLM
    // utility API's 503).
    if meaning::says_any(text, &["設定されていません", "未設定"])
        && (meaning::words(text)
            .iter()
            .any(|w| matches!(*w, "ai" | "llm"))
            || meaning::says_any(text, &["プロバイダ", "サービス"]))
    {
        return true;
    }
    if meaning::says_any(
        text,
        &["未配置", "需要配置", "管理员配置", "管理员在后台添加"],
    ) && (meaning::words(text).contains(&"ai")
        || meaning::says_any(text, &["服务", "模型", "密钥", "接口", "端点", "key"]))
    {
        return true;
    }
    if meaning::says_any(
        text,
        &[
            // "GenAI must be configured to use this feature." (Frigate); "No AI providers
            // configured. Please add an API key" (ArgusAI); "AI not enabled" (a Frigate event
            // buffer's 503): the AI as a whole, not set up.
            "genai must be configured",
            "ai must be configured",
            "ai provider must be configured",
            "no ai providers configured",
            "no ai provider configured",
            "no llm providers configured",
            "no llm provider configured",
            "ai not enabled",
            "ai is not enabled",
            // ("AI feature is not enabled.", La Suite Docs' 400 when its AI is not set up.)
            // (Beside credits run out, "... or AI features are not enabled for your space",
            // Tandoor's 400, the money is named: not this.)
            "ai feature is not enabled",
            "ai feature not enabled",
            // ("AI disabled", Coroot's status when its AI is off; a part of the AI disabled
            // for some content, "Cloud AI is disabled for email body content", is the request's.)
            "ai disabled",
            // "AI provider not enabled or key not set" (GrowthBook's SQL generator).
            "ai provider not enabled",
            "ai provider is not enabled",
            "genai is not enabled",
            // Asked as a requirement: "AI execution mode requires AI configuration (provider,
            // model, and API key)" (PhishLogic).
            "requires ai configuration",
            "requires an ai configuration",
            "requires llm configuration",
            // Asked as a remedy: "Please configure an AI provider in settings first." (Leantime).
            "configure an ai provider",
            "configure ai provider",
            "configure an llm provider",
            "set up an ai provider",
            "ai configuration is not set",
            "ai configuration not set",
            "no ai configuration",
            "llm configuration is not set",
            "no llm configuration",
        ],
    ) {
        return true;
    }
    let words = meaning::words(text);
    // None of its AI set up ("No artificial-intelligence plugin enabled.", "No AI plugin is
    // configured for this project.": Netflix Dispatch; "No language models are configured.",
    // Sourcebot; "No default model set", Tracecat): nothing to call, whatever part is named.
    // (The request's own lack of a model is the request's: "No model specified and no default
    // model set", gptme's 400.)
    let request_named_none = meaning::says_any(
        text,
        &[
            "no model specified",
            "model not specified",
            "no model provided",
            "specify a model",
        ],
    );
    let none_set_up = !request_named_none
        && (0..words.len()).any(|i| {
            words[i] == "no"
                && words[i + 1..(i + 4).min(words.len())].iter().any(|w| {
                    matches!(
                        *w,
                        "ai" | "artificial" | "llm" | "llms" | "genai" | "language" | "default"
                    )
                })
                && words[i + 1..(i + 7).min(words.len())].iter().any(|w| {
                    matches!(
                        *w,
                        "plugin"
                            | "plugins"
                            | "provider"
                            | "providers"
                            | "model"
                            | "models"
                            | "integration"
                    )
                })
                && words[i + 2..(i + 8).min(words.len())]
                    .iter()
                    .any(|w| matches!(*w, "configured" | "enabled" | "set" | "installed"))
        });
    // The client the server calls its AI through, said not there ("OpenAI client not available",
    // AcuMate's 400 when OPENAI_API_KEY is unset): the server made none, nothing set up to call.
    let client_missing = (0..words.len()).any(|i| {
        words[i] == "client"
            && i > 0
            && matches!(
                &words[i + 1..(i + 4).min(words.len())],
                ["not", "available", ..] | ["is", "not", "available"]
            )
    });
    // The AI feature itself, just before ("Chat not configured", DentraFlow's 503 when its
    // OpenAI key is unset; "Assistant is not configured").
    let feature_not_set_up = (2..words.len()).any(|i| {
        matches!(words[i], "configured" | "configure")
            && words[i - 1] == "not"
            && (matches!(words[i - 2], "chat" | "chatbot" | "assistant" | "copilot")
                || (words[i - 2] == "is"
                    && i >= 3
                    && matches!(words[i - 3], "chat" | "chatbot" | "assistant" | "copilot")))
            && i <= 4
    });
    none_set_up
        || client_missing
        || feature_not_set_up
        || (1..words.len()).any(|i| {
            matches!(words[i], "configured" | "configure")
                && words[i - 1] == "not"
                && words[i.saturating_sub(6)..i - 1].iter().any(|w| {
                    // (A provider's key by its variable too: "GEMINI_KEY is not configured.")
                    is_a_credential_word(w)
                        || matches!(
                            *w,
                            "ai" | "genai"
                        | "llm"
                        | "provider"
                        | "client"
                        | "model"
                        | "apikey"
                        | "key"
                        | "openai"
                        // An AI provider or product by its name ("Seer is not properly
                        // configured.", Sentry's AI under a 500).
                        | "anthropic"
                        | "claude"
                        | "gemini"
                        | "mistral"
                        | "groq"
                        | "openrouter"
                        | "ollama"
                        | "deepseek"
                        | "cohere"
                        | "seer"
                        | "chatgpt"
                        // A service the server calls, by its name ("Retell service not
                        // configured", an AI-managed restaurant's 503): its provider not set
                        // up. (A part of its own setup, an index or a database, is read first as
                        // the server's: `SERVICE_FAILURE_WORDING`.)
                        | "service"
                        )
                })
        })
}

/// What is not configured ([`says_ai_not_configured`]) is a model ("Embedding model is not
/// configured.") or a name quoted before it ("Custom provider 'my_llm' not configured"): a part
/// of the setup the request asks for, not the AI as a whole.
pub(super) fn says_model_or_named_part_not_configured(text: &str) -> bool {
    // (Chinese: 模型未配置, the model not configured; a model named as needing its setup, "模型
    // gpt-4o 需要配置 OpenAI 端点", xin2api's 503 for a model no endpoint serves.)
    if text.contains("模型未配置")
        || text
            .find("模型")
            .zip(text.find("需要配置"))
            .is_some_and(|(model, needs)| model < needs && needs - model <= 60)
    {
        return true;
    }
    // ("Model gpt-4o has not been configured for use", BERTA's 500.)
    let text = &text.replace("not been configured", "not configured");
    let Some(at) = text.find("not configure") else {
        return false;
    };
    let before = meaning::words(&text[..at]);
    let subject = &before[before.len().saturating_sub(4)..];
    subject
        .iter()
        .any(|w| matches!(*w, "model" | "models" | "embedding" | "embeddings"))
        || text[..at].matches(['\'', '"', '`']).count() >= 2
}

/// A failure after every try, and nothing said of why ("Failed to generate trivia question after
/// 3 attempts", a Bible Q&A's 503): the server's own failure, retried already, not its capacity.
/// With the last error's words beside it ("... Last error: You exceeded your current quota",
/// "upstream error 429") those say what failed.
pub(super) fn says_failed_after_attempts(text: &str) -> bool {
    let words = meaning::words(text);
    // ("API request failed after 1 attempts: Empty response received from API", TrueCompanion's
    // details: the empty answer is what failed.)
    !says_answer_empty(text)
        && !words
            .iter()
            .any(|w| matches!(*w, "error" | "upstream") || w.parse::<u16>().is_ok_and(|n| n >= 400))
        && words
            .iter()
            .any(|w| matches!(*w, "failed" | "fail" | "failure"))
        && (2..words.len()).any(|i| {
            matches!(words[i], "attempts" | "tries" | "retries")
                && words[i - 1].parse::<u32>().is_ok()
                && words[i - 2] == "after"
        })
}

/// Whether the words name a key or another credential ("API Key", "apikey", "token"), or a key
/// by its variable ("Please add GEMINI_API_KEY to environment variables").
pub(super) fn names_a_key(text: &str) -> bool {
    meaning::words(text)
        .iter()
        .any(|w| is_a_credential_word(w) || matches!(*w, "key" | "keys"))
}

/// A credential's word ([`CREDENTIALS`]) or a key's or a token's variable (`OPENAI_API_KEY`,
/// `HF_API_TOKEN`, `IMMCAD_API_BEARER_TOKEN`, `GITHUB_ACCESS_TOKEN`).
fn is_a_credential_word(w: &str) -> bool {
    CREDENTIALS.contains(&w)
        || [
            "_api_key",
            "_api_token",
            "_bearer_token",
            "_access_token",
            "_auth_token",
            "_secret_key",
        ]
        .iter()
        .any(|end| w.ends_with(end))
        // An AI provider's key by its own variable ("GEMINI_KEY is not configured.", Bling's 400).
        || w.strip_suffix("_key").is_some_and(|provider| {
            matches!(
                provider,
                "openai"
                    | "gemini"
                    | "google"
                    | "anthropic"
                    | "claude"
                    | "groq"
                    | "mistral"
                    | "deepseek"
                    | "openrouter"
                    | "cohere"
                    | "together"
                    | "xai"
            )
        })
}

/// A status named INTERNAL (gRPC's and absl's name for a server-side failure, as servers built on
/// them report it: "MP status - INTERNAL: CalculatorGraph::Run() failed", "StatusCode.INTERNAL").
pub(super) fn says_status_internal(text: &str) -> bool {
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "status" | "statuscode" | "status_code")
            && words[i + 1..].iter().take(2).any(|n| *n == "internal")
    })
}

/// "Sensitive" said of the request ("Sensitive chat messages"), not of letter case.
pub(super) fn says_sensitive(text: &str) -> bool {
    let text = text
        .replace("case sensitive", "")
        .replace("case-sensitive", "");
    meaning::words(&text).contains(&"sensitive")
}

/// Credential words as one word each ("api key" → "apikey"), for [`says_credential_invalid`] and
/// [`says_no_credential`].
pub(super) fn credential_words(text: &str) -> String {
    // "No matching provider key found" (Laminar): a provider's API key.
    text.replace("api key", "apikey")
        .replace("provider key", "apikey")
        .replace("api-key", "apikey")
        .replace("access key", "accesskey")
        .replace("license key", "licensekey")
}

/// No credential there at all: "no" within four words before it, and found, valid, set,
/// configured or provided beside it ("No valid model provider credentials found", "No API key set
/// for provider: openai").
pub(super) fn says_no_credential(text: &str) -> bool {
    // (German too: "Kein API-Key gesetzt", no API key set.)
    const THERE: &[&str] = &[
        "valid",
        "found",
        "set",
        "configured",
        "provided",
        // "No OpenAI API key registered" (Diagrammaton).
        "registered",
        // "no Gemini key available" (Debugging Saga's detail under its 503).
        "available",
        "gesetzt",
        "gefunden",
    ];
    let text = credential_words(text);
    let words = meaning::words(&text);
    // (A key named by its variable counts: "No OPENAI_API_KEY set", Supabase. So does one asked
    // to be set: "Please set ASSISTANT_CHAT_COMPLETION_ENDPOINT OPENAI_API_KEY", Grist.)
    let credential = is_a_credential_word;
    // (A bare key too, said to be absent: "No key found for openai", Tiledesk.)
    words.iter().enumerate().any(|(i, w)| {
        (credential(w) || matches!(*w, "key" | "keys"))
            && words[i.saturating_sub(4)..i]
                .iter()
                .any(|n| matches!(*n, "no" | "kein" | "keine"))
            && meaning::around(&words, i, 4)
                .iter()
                .any(|n| THERE.contains(n))
    })
    // A key said to be required ("LLM provider API key and model are required", Plane's 400),
    // or asked to be configured ("Please configure at least one AI provider API key", Twenty;
    // a bare key too: "Please configure the api and key information of the OpenAI ChatGPT
    // channel first", pyVideoTrans).
    // (Not a "token" on its own: "128000 token capacity required" is a length. A bearer or an
    // access token is the credential: "Authorization header with Bearer token is required".)
    || words.iter().enumerate().any(|(i, w)| {
        credential(w)
            && (*w != "token"
                || i.checked_sub(1).is_some_and(|p| matches!(words[p], "bearer" | "access" | "auth")))
            && (words[i + 1..(i + 5).min(words.len())].contains(&"required")
                || words[i.saturating_sub(6)..i].contains(&"configure")
                // ("Please contact an administrator to set up the OpenAI API key.", ProsumeAI.)
                || words[i.saturating_sub(6)..i].windows(2).any(|p| p == ["set", "up"])
                || (w.ends_with("_api_key") && words[i.saturating_sub(4)..i].contains(&"set"))
                // ("GOOGLE_API_KEY (from database settings or environment) is required",
                // Banana Slides: the variable's words may come between.)
                || (w.ends_with("_api_key") && words[i + 1..].contains(&"required")))
    })
    || words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "key" | "keys") && words[i.saturating_sub(6)..i].contains(&"configure")
    })
    // In Chinese: fill in or set the API key (请在菜单-DeepSeek中填写api key, pyVideoTrans).
    || (["apikey", "密钥"].iter().any(|k| text.contains(k))
        && ["填写", "配置", "设置"].iter().any(|v| text.contains(v)))
}

pub(super) fn says_credential_invalid(text: &str) -> bool {
    // ("API key value cannot be empty.", Jupyter AI: a key said to be empty a few words on.)
    if meaning::says_any(
        &credential_words(text),
        &[
            "key value cannot be empty",
            "key cannot be empty",
            "key must not be empty",
        ],
    ) {
        return true;
    }
    const WRONG: &[&str] = &[
        "invalid",
        // German ("API-Key ungueltig").
        "ungültig",
        // Dutch: refused, invalid ("OpenAI heeft de API-key geweigerd.").
        "geweigerd",
        "ongeldig",
        "ungueltig",
        "expired",
        "revoked",
        "incorrect",
        "wrong",
        "missing",
        "disabled",
        "empty",
    ];
    // (No credential at all is `says_no_credential`, asked before this.)
    let text = credential_words(text);
    let words = meaning::words(&text);
    // A bare key counts when nothing says it is a JSON key or a parameter ("The key provided
    // for openai is not valid or undefined", "You have invalid keys in your model
    // configuration": Tiledesk, Dograh).
    let names_a_field = words.iter().any(|w| {
        matches!(
            *w,
            "json"
                | "body"
                | "payload"
                | "object"
                | "field"
                | "fields"
                | "parameter"
                | "property"
                | "argument"
                | "dict"
                | "schema"
        )
    });
    // (A key by its variable too: "Missing OPENAI_API_KEY - make sure to add it to your .env
    // file", novel.)
    words.iter().enumerate().any(|(i, w)| {
        (CREDENTIALS.contains(w)
            || w.ends_with("_api_key")
            || (matches!(*w, "key" | "keys") && !names_a_field))
            && (meaning::around(&words, i, 2)
                .iter()
                .any(|n| WRONG.contains(n))
                // "API Key is not valid" (paperless-ai); "licenseKey is not validated!"
                // (BibiGPT).
                || words[i + 1..(i + 8).min(words.len())]
                    .windows(2)
                    .any(|w| w == ["not", "valid"] || w == ["not", "validated"])
                // A key's variable said not set a few words on ("GEMINI_API_KEY environment
                // variable not set", PayslipMax's details).
                || (w.contains('_')
                    && words[i + 1..(i + 5).min(words.len())]
                        .windows(2)
                        .any(|w| w == ["not", "set"]))
                // A header named for it, missing ("Missing x-pezzo-api-key header"): the name's
                // own words stand between.
                || (words.get(i + 1) == Some(&"header")
                    && words[i.saturating_sub(4)..i].contains(&"missing")))
    })
}

/// An account suspended, deactivated, disabled or banned, named as such within three words, or in
/// Chinese ("账号已被自动封禁 24 小时": the account banned, 账号/账户 with 封禁, 禁用, 冻结 or 停用).
pub(super) fn says_account_shut_off(text: &str) -> bool {
    // (A login locked too: "登录被锁定，请稍后重试", Yuxi-Know's 423.)
    if ["账号", "账户", "登录"].iter().any(|a| text.contains(a))
        && ["封禁", "禁用", "冻结", "停用", "锁定"]
            .iter()
            .any(|w| text.contains(w))
    {
        return true;
    }
    const SHUT: &[&str] = &[
        "suspended",
        "deactivated",
        "disabled",
        "banned",
        "terminated",
        "blocked",
    ];
    let words = meaning::words(text);
    words.iter().enumerate().any(|(i, w)| {
        matches!(*w, "account" | "organization" | "organisation")
            && meaning::around(&words, i, 3)
                .iter()
                .any(|n| SHUT.contains(n))
    })
}

/// A kind of credential the endpoint does not take ("Personal Access Tokens are not supported for
/// this endpoint", "API keys are not accepted here"): the credential is wrong, not the request.
pub(super) fn says_credential_kind_refused(text: &str) -> bool {
    const KINDS: &[&str] = &[
        "access token",
        "api key",
        "apikey",
        "user token",
        "oauth token",
        "bearer token",
        "session token",
    ];
    const REFUSED: &[&str] = &[
        "not supported",
        "unsupported",
        "not accepted",
        "not allowed",
        "not valid for",
    ];
    KINDS.iter().any(|kind| {
        text.match_indices(kind).any(|(at, _)| {
            let after: String = text[at + kind.len()..].chars().take(40).collect();
            REFUSED.iter().any(|r| after.contains(r))
        })
    })
}

/// A model the server does not offer: "model" and its name (up to 64 characters: names such as
/// `gpt-4-turbo-preview` are many words) before "is not supported", "not found" or "does not
/// exist", or "unknown model" / "no such model". An access refusal worded beside it ("does not
/// exist or you do not have access to it") is read earlier.
pub(super) fn says_model_not_offered(text: &str) -> bool {
    if [
        "unknown model",
        "no such model",
        // "no such LLM with ID 6789" (RapidPro's mailroom: the request named one).
        "no such llm",
        // "No provider found for model: example/unknown-model" (DJForge's router).
        "no provider found for model",
        "model not found",
        "model_not_found",
        // "Unsupported model: [gpt-4o], support [ERNIE-4.5-21B-A3B-Paddle] or default".
        "unsupported model",
        "model not supported",
        "model_not_support",
    ]
    .iter()
    .any(|p| text.contains(p))
    {
        return true;
    }
    // A server that says it serves no API for the model ("We do not provide public API for
    // meta-llama/... due to license restrictions").
    if text.contains("do not provide") && (text.contains(" api for") || text.contains("access to"))
    {
        return true;
    }
    // A Python server's model table without the model: a `KeyError` raised on the line that looks
    // it up (`models[model_name]`), as its traceback shows.
    if text.contains("keyerror:") && (text.contains("models[") || text.contains("[model_name]")) {
        return true;
    }
    // No model found for a name ("No ChatModel found for Foo", DokuWiki's AI chat; "no model
    // found for 'gpt-5'").
    let words = meaning::words(text);
    if (0..words.len()).any(|i| {
        words[i] == "no"
            && words[i + 1..(i + 3).min(words.len())]
                .iter()
                .any(|w| w.ends_with("model"))
            && words[i + 2..(i + 4).min(words.len())]
                .windows(2)
                .any(|w| w == ["found", "for"])
    }) {
        return true;
    }
    // A model not among those the server lists ("model not in available list", SiYuan; "Model
    // ... is not in the allowed model list: [...]", Mito AI), or none associated with the name
    // ("No language model is associated with 'mistralai:mistral-large-latest'.", Jupyter AI).
    if text.contains("model")
        && meaning::says_any(
            text,
            &[
                "not in available list",
                "not in the available",
                "not in the list of available",
                "not in the allowed model",
                "no language model is associated",
                "no model is associated",
            ],
        )
    {
        return true;
    }
    // In Chinese: the model does not exist ("模型已经不存在啦，请切换模型进行回复": switch models).
    if text.contains("模型") && (text.contains("不存在") || text.contains("请切换模型")) {
        return true;
    }
    const NOT_OFFERED: &[&str] = &[
        "is not supported",
        // "Chatbot not installed or supported" (Willow).
        "not installed",
        // "model 'gpt-4o' is not not yet supported" (sic).
        "not yet supported",
        "not found",
        "does not exist",
        // "The model 'gpt-4.5-preview' is not available." (AI Engine's 500, and many 400s in
        // tuning). Not for now ("temporarily", "currently"): that is capacity; nor to the caller
        // ("... for your role", "... in the current token plan"): that is the account's rights.
        "is not available",
    ];
    let for_now = meaning::says_any(
        text,
        &[
            "temporarily",
            "currently",
            "right now",
            "at the moment",
            "at this time",
        ],
    );
    let to_the_caller = meaning::says_any(
        text,
        &[
            "for your",
            "in your",
            "plan",
            "subscription",
            "tier",
            "account",
        ],
    );
    NOT_OFFERED.iter().any(|phrase| {
        text.match_indices(phrase).any(|(at, _)| {
            if *phrase == "is not available" && (for_now || to_the_caller) {
                return false;
            }
            let before = &text[..at];
            let from = before.char_indices().rev().nth(63).map_or(0, |(i, _)| i);
            // (A deployment is the model's name where Azure-style servers serve it: "deployment
            // config for gpt-4o not found".)
            // (An agent, an assistant or a bot is the model where agent platforms serve them:
            // LocalAGI's "Agent not found" for the `model` asked.)
            // (A provider or an engine named in quotes is one the request chose: "OCR provider
            // 'claude' is not available", PALA's 500; one not named is the server's own.)
            let named_in_quotes = ["provider", "engine"].iter().any(|part| {
                ["'", "\"", "`"]
                    .iter()
                    .any(|q| before[from..].contains(&format!("{part} {q}")))
            });
            named_in_quotes
                || meaning::words(&before[from..]).iter().any(|w| {
                    matches!(
                        *w,
                        "model"
                            | "deployment"
                            | "agent"
                            | "assistant"
                            | "bot"
                            | "chatbot"
                            | "workflow"
                    )
                })
        })
    })
}

/// A status line as a string `error` beside the message ("HTTP 503", "Error 500", "500"): the
/// status restated, which says no more than the status does. `lower` is the error lower-cased.
pub(super) fn names_a_status_line(lower: &str) -> bool {
    let code = lower.trim();
    let code = code
        .strip_prefix("http ")
        .or_else(|| code.strip_prefix("error "))
        .unwrap_or(code);
    code.len() == 3 && code.starts_with(['4', '5']) && code.bytes().all(|b| b.is_ascii_digit())
}

/// HTTP's reason phrase of a status that means nothing by itself, as a string `error` beside the
/// message (NestJS, Express helpers): "Bad Request", "Internal Server Error". A phrase with a
/// meaning of its own ("Too Many Requests", "Unauthorized", "Gateway Timeout") says what the error
/// is, as round 36 judged for words beside a message. `lower` is the error lower-cased.
pub(super) fn names_a_reason_phrase(lower: &str) -> bool {
    [400, 404, 409, 422, 500, 502]
        .iter()
        .any(|s| crate::text::reason_phrase(*s).eq_ignore_ascii_case(lower.trim()))
}

/// A model, an API or access not enabled for whoever asked ("Copilot model not enabled", Crush
/// relaying GitHub Copilot; "Mirror API is not enabled"; "Cody Gateway access not enabled"): the
/// account's settings or rights, as tuning judges these under a 403. A capability of the server
/// ("Embedding support is not enabled") is the request's: not this.
pub(super) fn says_not_enabled_for_caller(text: &str) -> bool {
    let words = meaning::words(text);
    said_not_enabled(&words).any(|(subject, _)| {
        // ("OpenAI is not enabled", Mealie, as "OpenAI API service is not enabled by the
        // administrator" is.)
        subject.iter().any(|w| {
            matches!(
                *w,
                "model" | "api" | "access" | "service" | "bot" | "openai"
            )
        }) && !subject.iter().any(|w| matches!(*w, "support" | "services"))
    })
}

/// Each "not enabled" in `words`: the three words before it (what is not enabled) and all the
/// words after it (for whom).
fn said_not_enabled<'a>(
    words: &'a [&'a str],
) -> impl Iterator<Item = (&'a [&'a str], &'a [&'a str])> + 'a {
    (1..words.len())
        .filter(|&i| words[i] == "enabled" && words[i - 1] == "not")
        .map(|i| (&words[i.saturating_sub(4)..i - 1], &words[i + 1..]))
}

/// A capability of the server's not enabled, said of no caller ("Embeding support is not
/// enabled", LLamaWorker; "Image was provided, but OpenAI image services are not enabled",
/// Mealie; "Chat is not enabled", EmailEngine's 403 with its chat feature off): the request
/// asked for what this server does not do. Said for the caller ("... not enabled for this user")
/// it is the caller's rights (see [`says_not_enabled_for_caller`]).
/// (Or disabled for what the request carries: "Cloud AI is disabled for email body content.",
/// the Roundcube AI assistant's privacy setting, as Mealie's image services are for an image.)
pub(super) fn says_capability_not_enabled(text: &str) -> bool {
    let words = meaning::words(text);
    let for_a_caller = |after: &[&str]| {
        after.iter().any(|w| {
            matches!(
                *w,
                "user" | "you" | "your" | "account" | "organization" | "team" | "workspace"
            )
        })
    };
    let capability = said_not_enabled(&words).any(|(subject, after)| {
        subject.iter().any(|w| {
            matches!(
                *w,
                "support"
                    | "services"
                    | "capability"
                    | "feature"
                    | "chat"
                    | "embedding"
                    | "embeddings"
                    | "streaming"
                    | "vision"
                    | "tools"
            )
        }) && !for_a_caller(after)
    });
    let disabled_for_content = (1..words.len()).any(|i| {
        words[i] == "disabled"
            && matches!(words[i - 1], "is" | "are")
            && words.get(i + 1) == Some(&"for")
            && words[i + 2..(i + 6).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    "content" | "body" | "bodies" | "image" | "images" | "attachments" | "files"
                )
            })
            && !for_a_caller(&words[i + 2..(i + 6).min(words.len())])
    });
    // (Or disabled where it runs: "TTP extraction is disabled on this deployment", ScamBuster's
    // 503.)
    let disabled_here = meaning::says_any(
        text,
        &[
            "is disabled on this deployment",
            "is disabled on this server",
            "is disabled on this instance",
            "are disabled on this deployment",
        ],
    );
    capability || disabled_for_content || disabled_here
}

/// Something the request should carry said not to have been given ("No message UID was
/// provided. Open or select a message, then run the AI action again.", the Roundcube AI
/// assistant's 200): the request lacks it. Not the answer's output ("no response was
/// provided"), and a credential missing is the credential's (asked first).
pub(super) fn says_nothing_given(text: &str) -> bool {
    let words = meaning::words(text);
    // "No videoId in the request", "No subtitle in the video" (BibiGPT): what the request or the
    // input it names should carry, not there. (Nothing in an answer, "No text content in AI
    // response", is an empty answer, read before.)
    let lacking_in_input = words.first() == Some(&"no")
        && (2..words.len().min(5)).any(|j| {
            words[j] == "in"
                && matches!(words.get(j + 1), Some(&"the" | &"this" | &"your"))
                && words.get(j + 2).is_some_and(|w| {
                    matches!(
                        *w,
                        "request"
                            | "video"
                            | "audio"
                            | "file"
                            | "document"
                            | "input"
                            | "url"
                            | "body"
                    )
                })
                && j + 3 == words.len()
        });
    if lacking_in_input {
        return true;
    }
    // (The participle said of the thing, not an article's adjective: "no endpoints available for
    // the given request" is the server's.)
    words.iter().enumerate().any(|(i, w)| {
        *w == "no"
            && (i + 2..(i + 6).min(words.len())).any(|j| {
                (matches!(words[j], "provided" | "given" | "specified" | "supplied")
                    && !matches!(words[j - 1], "the" | "a" | "an" | "for"))
                    // ("No attribute data was received. Please ensure the configured attributes
                    // have values in the product form.", Mage AI: from the request; received from
                    // a server it is the server's.)
                    || (words[j] == "received"
                        && matches!(words[j - 1], "was" | "were")
                        && words.get(j + 1) != Some(&"from"))
            })
            && !words[i + 1..(i + 4).min(words.len())].iter().any(|n| {
                matches!(
                    *n,
                    "response" | "answer" | "output" | "content" | "completion" | "result"
                )
            })
            // (Nor what the server should have sent back: "No audio was received.")
            && !words.get(i + 1).is_some_and(|n| {
                matches!(*n, "audio" | "data" | "speech" | "image" | "images" | "text" | "tokens")
            })
    })
}

/// Trouble named with the authentication ("There's an issue with the AI service authentication.
/// Please check the API configuration.", KrishiBondhu's answer for a key refused): the credential.
pub(super) fn says_trouble_with_authentication(text: &str) -> bool {
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        matches!(words[i], "issue" | "problem" | "trouble")
            && words[i + 1..(i + 7).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "authentication" | "authenticating" | "credentials"))
    })
}

/// The request said invalid as a whole ("The request format was invalid. Please try rephrasing
/// your question.", KrishiBondhu's answer for a 400): the request's fault.
/// ("The request was invalid" counts only as a sentence of its own: "The bearer token included in
/// the request is invalid" is the token's.)
pub(super) fn says_request_invalid(text: &str) -> bool {
    let sentence_start = |at: usize| {
        text[..at]
            .trim_end()
            .chars()
            .last()
            .is_none_or(|c| matches!(c, '.' | ':' | ';' | '!'))
    };
    meaning::says_any(
        text,
        &[
            "request format was invalid",
            "request format is invalid",
            "invalid request format",
            "malformed request",
            // What the request gave, not valid ("Ingredient informed is not valid.", a recipe
            // API's whole 200 answer). (A credential not valid is read first, as the
            // credential's.)
            "informed is not valid",
            "provided is not valid",
            "given is not valid",
        ],
    ) || ["the request was invalid", "the request is invalid"]
        .iter()
        .any(|p| text.match_indices(p).any(|(at, _)| sentence_start(at)))
        || says_message_to_rephrase(text)
}

/// The caller's message not processed, with a request to word it again ("I couldn't process your
/// message. Could you try rephrasing it?", Uplift AI's answer for Gemini's 400): only other words
/// can succeed, the request's. Both are needed: "unable to process your request" alone is any
/// server's failure, and a rephrasing offered after another cause ("flagged by our safety
/// filters. Please try rephrasing", "I couldn't find relevant information ... try rephrasing")
/// is that cause's.
fn says_message_to_rephrase(text: &str) -> bool {
    let words = meaning::words(text);
    let not_processed = (0..words.len()).any(|i| {
        matches!(words[i], "process" | "understand" | "parse")
            && i >= 1
            && matches!(words[i - 1], "t" | "not" | "to" | "cannot")
            && matches!(
                words.get(i + 1..i + 3),
                Some([
                    "your",
                    "message" | "question" | "input" | "request" | "prompt"
                ])
            )
    });
    not_processed
        && words
            .iter()
            .any(|w| w.starts_with("rephras") || *w == "reword")
}

/// Parts of a server's own setup: one of them not found is the server's failure, not the request's.
const SERVER_SETUP_PARTS: &[&str] = &[
    "provider", "backend", "service", "server", "endpoint", "route", "key",
];

/// A thing the request named, not found ("Error: Speaker Dave not found.", xtts-api-server's
/// 500; "Agent not found"): the request's, whatever the status. A thing of the server's own
/// setup ("provider openai not found", "backend service not found") is not this.
pub(super) fn says_named_thing_not_found(text: &str) -> bool {
    not_found_subjects(text).any(|subject| {
        subject.iter().any(|w| {
            matches!(
                *w,
                "speaker"
                    | "voice"
                    | "agent"
                    | "assistant"
                    | "character"
                    | "persona"
                    | "session"
                    | "conversation"
                    | "thread"
                    | "workflow"
                    | "dataset"
                    | "collection"
                    // A log stream the query named ("Stream not found: app-logs", Parseable's
                    // plain-text 500).
                    | "stream"
            )
        })
    })
}

/// Something not found, in band, that is not a part of the server's own setup ("Restaurant not
/// found", an AI-managed restaurant's answer marked `"intent": "error"`): what the request asked
/// for is not there, as "does not exist" says. ("provider not found", SiYuan's, is the server's.)
pub(super) fn says_something_not_found(text: &str) -> bool {
    not_found_subjects(text).next().is_some()
}

/// The up to three words before each "not found" of `text`, where none of them is a part of the
/// server's own setup ([`SERVER_SETUP_PARTS`]).
fn not_found_subjects(text: &str) -> impl Iterator<Item = Vec<&str>> {
    let words = meaning::words(text);
    (1..words.len())
        .filter(|&i| words[i] == "found" && words[i - 1] == "not")
        .map(|i| words[i.saturating_sub(4)..i - 1].to_vec())
        .filter(|subject| !subject.iter().any(|w| SERVER_SETUP_PARTS.contains(w)))
        .collect::<Vec<_>>()
        .into_iter()
}

/// A part of the request named and not known ("Unknown role: tool", LlamaSharpApiServer's 500;
/// "Unknown provider: claude", code-tutor-ai's 500; "Unknown parameter 'seed'"): what the request
/// sent, whatever the status, as "Unknown model: ..." is. The name must follow ("unknown role:
/// ...", "unknown parameter 'seed'") or end the words: an "unknown tool error" is an error of
/// unknown kind. A provider named and not found in the server's setup ("provider openai not
/// found") is the server's (see [`says_named_thing_not_found`]).
pub(super) fn says_unknown_request_part(text: &str) -> bool {
    // (Or unsupported, a provider named: "[CentralModelFactory] Unsupported provider type:
    // \"mistral\"", NodeBB's AI engine under a 500.)
    if meaning::says_any(
        text,
        &["unsupported provider type:", "unsupported provider:"],
    ) {
        return true;
    }
    const PARTS: &[&str] = &[
        "role",
        "provider",
        "parameter",
        "param",
        "field",
        "argument",
        "option",
        "tool",
        "function",
        "format",
        "mode",
        "voice",
        "language",
        "style",
        "preset",
        "template",
    ];
    // (Or the part the last word, a few words after "unknown": "Unknown Ask AI question",
    // NewsBlur.)
    let words = meaning::words(text);
    if let Some(last) = words.last()
        && matches!(*last, "question" | "command" | "action" | "task")
        && words[words.len().saturating_sub(4)..words.len() - 1].contains(&"unknown")
    {
        return true;
    }
    text.match_indices("unknown ").any(|(at, lead)| {
        let rest = &text[at + lead.len()..];
        PARTS.iter().any(|part| {
            rest.strip_prefix(part).is_some_and(|after| {
                // (Plural too: "unknown parameters: seed, foo".)
                let after = after.strip_prefix('s').unwrap_or(after);
                after.is_empty()
                    || after.starts_with(':')
                    || after.starts_with(" '")
                    || after.starts_with(" \"")
                    || after.starts_with(" name")
            })
        })
    })
}

/// An operation refused for the model, not for the caller: "You are not allowed to do chat
/// operation from this model". Words that name the caller ("your key", "your account") make it an
/// access refusal, read with the credential's words.
pub(super) fn says_operation_not_for_model(text: &str) -> bool {
    meaning::says_any(text, &["not allowed", "not permitted"])
        && meaning::says_any(
            text,
            &[
                " operation from this model",
                " operation on this model",
                " operation for this model",
                " operations from this model",
                " operations on this model",
                " operations for this model",
            ],
        )
        && !meaning::says_any(
            text,
            &["your key", "your api key", "your account", "this key"],
        )
}

/// A model the server has switched off ("The model gpt-4 is disabled.", xyhelper's
/// `model_disabled`, "模型 gpt-4 已被禁用"): not offered there, so another model must be asked for.
/// The model named as the subject, at most two words before "is disabled" or "has been
/// disabled"; access to a model disabled for a key or an account is not this.
pub(super) fn says_model_disabled(text: &str) -> bool {
    if text.contains("access") || text.contains("your ") {
        return false;
    }
    let words = meaning::words(text);
    (0..words.len()).any(|i| {
        words[i] == "model"
            && words
                .iter()
                .skip(i + 1)
                .take(4)
                .collect::<Vec<_>>()
                .windows(2)
                .any(|w| {
                    matches!(*w[0], "is" | "been" | "was")
                        && matches!(*w[1], "disabled" | "invalid")
                })
    }) || (text.contains("模型") && text.contains("已被禁用"))
}

/// The caller refused for who it is, not for what it asked: "this group only allows Claude Code
/// clients", "only available to enterprise accounts". The one allowed is named within three words
/// as a client, user, account, key or app; a value that "only allows" a range is a parameter.
pub(super) fn says_client_refused(text: &str) -> bool {
    const ONLY: &[&str] = &[
        "only allows",
        "only allowed",
        "only available to",
        "only accessible to",
        "only open to",
    ];
    const WHO: &[&str] = &[
        "client",
        "clients",
        "user",
        "users",
        "account",
        "accounts",
        "key",
        "keys",
        "app",
        "apps",
        "customer",
        "customers",
    ];
    ONLY.iter().any(|only| {
        text.match_indices(only).any(|(at, _)| {
            let after = &text[at + only.len()..];
            meaning::words(after)
                .iter()
                .take(4)
                .any(|w| WHO.contains(w))
        })
    })
}
