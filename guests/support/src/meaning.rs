//! What a provider's failure wording means, whatever the provider's exact words: the rules the
//! adapters' classifiers share, so that a server they were never shown still lands on the right
//! canonical code (docs/DESIGN.md, "The failure record").
//!
//! Every function takes text already [`normalize`](crate::text::normalize)d (lower case, whitespace
//! collapsed, backticks removed). Three meanings are decided here:
//! - **context overflow**: one request too long for the model, in whatever words (the input, the
//!   prompt or a token count is too long, exceeds a maximum length, sequence length, context size or
//!   window). A *throughput* budget worded in tokens ("tokens per minute", "too many tokens, please
//!   wait") is not an overflow, and neither is an output parameter over its own cap ("max_tokens
//!   must be less than or equal to 16384").
//! - **quota exhaustion**, which waiting a retry's worth will not cure: money (credits, balance,
//!   billing, a spending limit), a plan's usage limit, or a budget per day or longer, or any limit
//!   whose stated retry horizon is [`QUOTA_HORIZON_MS`] or more. A budget that refills within
//!   minutes is a rate limit, even when it is a daily one that the provider says frees up soon.
//! - **the silent overflow**: a completion that the provider ended at its length limit without any
//!   output at all (see [`is_silent_overflow`]).
//!
//! tests/fixtures/classification holds the real wordings these rules were written against, and the
//! held-back ones they were not (its README says which).

use crate::types::{FailureCode, codes};

/// A retry horizon this long or longer means the limit will not lift within a retry: the failure
/// is quota exhaustion, not a rate limit. An hour: the longest per-minute and per-hour limits
/// providers state lift sooner; daily budgets, "retry after 86400 seconds" and five-hour plan caps
/// do not.
pub const QUOTA_HORIZON_MS: u64 = 60 * 60 * 1000;

/// A `retry-after` read as seconds, corrected when the message states the same wait and the header
/// was in milliseconds: oai-reverse-proxy sends `Retry-After: 38214` beside "Please try again in
/// 39 seconds". Read as seconds that is ten hours, a quota's horizon and a wait no retry should
/// take; the words, a thousand times shorter, say what the header meant. Otherwise the header
/// stands, as it speaks for the route.
pub fn retry_after_in_its_own_unit(header_ms: u64, text: &str) -> u64 {
    let as_millis = header_ms / 1000;
    match retry_horizon_ms(text) {
        Some(said) if said > 0 && as_millis >= said / 2 && as_millis <= said.saturating_mul(2) => {
            as_millis
        }
        _ => header_ms,
    }
}

/// `code` made QUOTA_EXCEEDED when it is a rate limit whose horizon (the `retry-after` header, else
/// the message's own "retry after N seconds") is [`QUOTA_HORIZON_MS`] or more: waiting a retry's
/// worth will not cure it ("exceeded token rate limit ... Please retry after 86400 seconds").
pub fn outlasting_rate_limit(
    code: FailureCode,
    text: &str,
    retry_after_ms: Option<u64>,
) -> FailureCode {
    let horizon = retry_after_ms.or_else(|| retry_horizon_ms(text));
    if code == codes::RATE_LIMITED && horizon.is_some_and(|ms| ms >= QUOTA_HORIZON_MS) {
        codes::QUOTA_EXCEEDED
    } else {
        code
    }
}

/// A spend limit of a short window, under a 429 with a retry within [`QUOTA_HORIZON_MS`] (goxy's
/// "spend limit exceeded" with `retry-after: 1432`, its hourly budget): the window resets within
/// a retry's wait, a rate, though money named it. A balance, credit or bill named stays quota.
pub fn spend_window_resetting_soon(
    code: FailureCode,
    status: Option<u16>,
    text: &str,
    retry_after_ms: Option<u64>,
) -> FailureCode {
    let soon = retry_after_ms.is_some_and(|ms| ms < QUOTA_HORIZON_MS);
    if code == codes::QUOTA_EXCEEDED
        && status == Some(429)
        && soon
        && says_any(text, &["spend limit", "spending limit"])
        && !says_any(
            text,
            &[
                "balance", "credit", "billing", "payment", "recharge", "top up",
            ],
        )
    {
        codes::RATE_LIMITED
    } else {
        code
    }
}

/// Whether the wording says one request is too long for the model's context.
pub fn says_context_overflow(text: &str) -> bool {
    let text = &without_links_and_key_names(text);
    // The prompt leaves the model no tokens to answer with ("No output tokens available for the
    // given prompt and model.", TripSage's `token_budget_exceeded`): the context is full, though
    // the words name the output (which the output parameter's cap, below, would take them for).
    if says_generation_stopped_by_length(text)
        || says_any(
            text,
            &[
                "no output tokens available",
                "no output tokens left",
                "no tokens left for the output",
                "no tokens available for the output",
            ],
        )
    {
        return true;
    }
    if says_output_parameter_cap(text)
        || says_throughput_budget(text)
        || says_too_slow(text)
        || names_another_parameter_invalid(text)
    {
        return false;
    }
    let says = |patterns: &[&str]| says_any(text, patterns);
    // The caller's own budget of tokens ("You have exceeded your token limit for this model",
    // Bionic GPT's per-user limit): the account's, not the model's context (a rate, read
    // elsewhere).
    if says(&["your token limit", "your tokens limit"]) {
        return false;
    }
    // A validator's bound on the length of what the request carries, with the field named
    // ("prompt: String must contain at most 1000 character(s)", a renovation planner's Zod
    // details; "Review text must be less than 5000 characters", an AI review-reply writer's 400):
    // the input over its length. The same on a name is the request's own.
    // (With the figure given, "must have less than 32000 characters. Given: 0", the figure
    // decides, below.)
    let bounded_input = says(&[
        "at most",
        "less than",
        "fewer than",
        "no more than",
        "shorter than",
    ]) && !says(&["given"])
        && says(&["character", "chars"])
        && words(text).iter().any(|w| LONG_SUBJECTS.contains(w))
        && !words(text).iter().any(|w| {
            matches!(
                *w,
                "name" | "title" | "id" | "username" | "email" | "slug" | "label" | "tag" | "key"
            )
        });
    // A limit that only a request's length can break, named: enough on its own.
    // (Or "too long" and no more, as a code: Ronchon's `{"error": "TOO_LONG"}` for a message over
    // its cap; the code's words read beside it.)
    let only_too_long = words(text)
        .iter()
        .filter(|w| !w.contains('_'))
        .all(|w| matches!(*w, "too" | "long"))
        && text.contains("too long");
    only_too_long
        || bounded_input
        || says(CONTEXT_LIMITS)
        // A length limit of a general kind, and the request over it.
        || (says(LENGTH_LIMITS) && says(EXCESS))
        // The input itself too long, or the request to shorten it.
        || (says(&["too long", "too big", "too large"]) && says(LONG_SUBJECTS))
        // Italian, Spanish, French, German, Portuguese: the text too long ("Testo troppo lungo (max
        // 4096 caratteri)", an Italian sales assistant's speech route).
        || says_any(
            text,
            &[
                "testo troppo lungo",
                "messaggio troppo lungo",
                "texto demasiado largo",
                "mensaje demasiado largo",
                "texte trop long",
                "message trop long",
                "text zu lang",
                "texto muito longo",
            ],
        )
        // 413's reason phrase, named in the words ("413 Request Entity Too Large: The data value
        // transmitted exceeds the capacity limit.", a voicemail summariser's 500).
        || says_any(text, &["request entity too large", "payload too large", "content too large"])
        // "Content is too long for study tools." (Canvas LMS's 422): what was sent, too long.
        || says_any(text, &["content is too long", "content too long", "contents are too long"])
        // "Cannot run completion on text this long" (Wagtail AI): the input, this long.
        || says_any(text, &["text this long", "input this long", "prompt this long", "message this long"])
        // "The answer requires too many verses to fit in one response." (a Bible Q&A, when the
        // model stopped for length with nothing written).
        || says(&["to fit in one response", "to fit in a single response"])
        // A file's or an image's size capped in bytes ("Image must be under 5MB", "File size must
        // not exceed 50MB"): only a smaller request can succeed, as a 413 says.
        || says_size_capped(text)
        // Japanese: enter within N characters ("質問は200文字以内で入力してください", AI Tarot Chat).
        || (says(&["文字以内"]) && says(&["入力", "質問"]))
        || says_input_too_long_non_english(text)
        // "Your files have too much content for this model".
        || says(&["too much content", "too much text", "too much input"])
        // The prompt's tokens said to be limited ("The number of prompt tokens for free accounts
        // is limited to 4096"): the request over it is what was refused.
        || (says(&["prompt tokens", "input tokens"]) && says(&["limited to", "is limited"]))
        // An input's characters capped ("Custom questions are limited to 5000 characters",
        // NewsBlur's Ask AI): only a shorter one can succeed.
        || (says(&["limited to"]) && says(&[" characters", " chars"]) && says(LONG_SUBJECTS))
        // A schema validator's length constraint, broken by the input itself ("Malformed input
        // request: expected maxLength: 42000, actual: 46735"; "Value at 'body' failed to satisfy
        // constraint: Member must have length less than or equal to 25000000"). The same
        // constraint on a name or an id is a plain invalid request.
        || (says(SCHEMA_LENGTH_LIMITS) && says(LONG_SUBJECTS))
        || says(SHORTEN)
        || asks_for_a_shorter_input(text)
        || says_token_count_over_a_limit(text)
        || says_request_size_over_a_limit(text)
        || says_characters_over_a_cap(text)
        || says_limit_in_characters(text)
        // A dataset too wide or too long for the model ("The dataset you uploaded has too many
        // columns.", LIDA): the input over its size.
        || (says(&["too many columns", "too many rows"]) && says(&["dataset", "table", "file"]))
        || says_context_overflow_zh(text)
}

/// Whether the words name the model's context as a limit ("context window", "context length",
/// "n_ctx"): a limit no throughput budget is, so a request over it is an overflow even under a
/// 429 (see the wording step).
pub fn names_the_models_context(text: &str) -> bool {
    says_any(
        text,
        &[
            "context length",
            "context_length",
            "context window",
            "context_window",
            "context size",
            "maximum context",
            "max context",
            "n_ctx",
        ],
    )
}

/// The input said to exceed a count of characters ("message content exceeds 2500 characters",
/// Zep), or the cap it broke stated ("Messages can be up to 20,000 characters.", Inbox Zero's
/// 400): one of [`LONG_SUBJECTS`] or its content, then "exceeds" (or "can be up to", "at most")
/// a number of characters. A name's or an id's cap ("name exceeds 64 characters") is the
/// request's own, not its length.
fn says_characters_over_a_cap(text: &str) -> bool {
    let words = words(text);
    (1..words.len()).any(|i| {
        // ("text_input needs to be 2000 characters or less", AllTalk: the cap after its figure.)
        let capped = matches!(words[i], "exceeds" | "exceeded" | "exceeding" | "exceed")
            || (words[i] == "to" && words[i - 1] == "up")
            || (words[i] == "most" && words[i - 1] == "at")
            || (matches!(words[i], "needs" | "must") && {
                let after = &words[i + 1..(i + 7).min(words.len())];
                after
                    .windows(2)
                    .any(|w| w == ["or", "less"] || w == ["or", "fewer"])
            });
        // ("messages can be up to": the subject four words back.)
        let before = &words[i.saturating_sub(4)..i];
        // ("Text exceeds 10000 character limit", Aegis's 400: the unit before "limit".)
        let characters = |w: &&str| matches!(*w, "characters" | "chars" | "character");
        capped
            && before.iter().any(|w| {
                LONG_SUBJECTS.contains(w)
                    || *w == "content"
                    || *w == "text"
                    || w.starts_with("text_")
                    // ("source_text must not exceed 100000 characters", a 10xCards' validator.)
                    || w.ends_with("_text")
            })
            && !before
                .iter()
                .any(|w| matches!(*w, "name" | "id" | "title" | "key" | "tag"))
            // The count after the cap, or named before it ("The number of characters in your
            // message exceeds the system maximum of 1024", BotSharp).
            && (words[i + 1..(i + 7).min(words.len())].iter().any(characters)
                || before.iter().any(characters))
    })
}

/// A limit stated as a count of characters ("Free plan limit is 1400 characters.", ListGenie's
/// 400 for a description over it; "limit of 2000 characters"), or in Portuguese or Spanish the
/// cap the input may not exceed ("A mensagem não pode exceder 2000 caracteres", a crane-management
/// ERP's 400): what the request's length broke, whatever plan set the figure. A name's or an
/// id's cap stays the request's own.
fn says_limit_in_characters(text: &str) -> bool {
    let words = words(text);
    let named_part = words
        .iter()
        .any(|w| matches!(*w, "name" | "id" | "title" | "username" | "nome" | "nombre"));
    let stated = (2..words.len()).any(|i| {
        matches!(words[i], "characters" | "chars" | "caracteres")
            && words[i - 1].replace(',', "").parse::<u32>().is_ok()
            && (matches!(
                words[i - 2],
                "exceder" | "excede" | "exceda" | "ultrapassar" | "ultrapassa" | "superar"
            ) || (matches!(words[i - 2], "is" | "of")
                && i >= 3
                && matches!(words[i - 3], "limit" | "maximum" | "max")))
    });
    stated && !named_part
}

/// A parameter named invalid that is not what makes a request long ("Invalid 'stop': array too
/// long. Expected an array with maximum length 4"): its own constraint, not the context's.
/// "Invalid 'messages': ..." or "'input'" keeps its length meaning.
fn names_another_parameter_invalid(text: &str) -> bool {
    text.match_indices("invalid '").any(|(at, lead)| {
        let rest = &text[at + lead.len()..];
        rest.find('\'').is_some_and(|end| {
            let name = &rest[..end];
            !name.is_empty()
                && !name.contains(' ')
                && !LONG_SUBJECTS.iter().any(|s| name.starts_with(s))
                && !INPUT_WORDS.iter().any(|s| name.starts_with(s))
        })
    })
}

/// The size or length of the request, or of what it carries, over a limit: "total message size
/// 2100954 exceeds limit 2097152", "request size exceeds the maximum allowed". The subject is named
/// right before "size" or "length" (a file's or an image's size is not the conversation's).
fn says_request_size_over_a_limit(text: &str) -> bool {
    const OVER: &[&str] = &[
        "exceed",
        "over the limit",
        "more than",
        "greater than",
        "larger than",
    ];
    let words = words(text);
    words.iter().enumerate().any(|(i, w)| {
        (*w == "size" || *w == "length")
            && words[i.saturating_sub(2)..i]
                .iter()
                // What can be too long, or a total of it ("total message size").
                .any(|n| LONG_SUBJECTS.contains(n) || *n == "total")
    }) && says_any(text, OVER)
}

/// The text without the causes it only guesses at in Chinese, from 可能是 ("it may be") or 可能由于
/// ("perhaps because of") to the end of the sentence: "模型无返回结果，可能是内容违规、输入过长、输入格式有误或负载较高"
/// keeps "模型无返回结果，", since a list of every possible cause asserts none. (English guesses are
/// kept: "suspended, possibly due to reaching the monthly spending limit" names the one cause
/// there is.)
pub fn without_guesses(text: &str) -> std::borrow::Cow<'_, str> {
    const GUESSES: &[&str] = &["可能是", "可能由于", "可能因为"];
    const ENDS: &[char] = &['.', '!', '?', ';', '\n', '。', '！', '？', '；'];
    let Some(first) = GUESSES.iter().filter_map(|g| text.find(g)).min() else {
        return without_english_guesses(text);
    };
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    let mut at = Some(first);
    while let Some(start) = at {
        out.push_str(&rest[..start]);
        let after = &rest[start..];
        let end = after.find(ENDS).map_or(after.len(), |e| {
            e + after[e..].chars().next().map_or(0, char::len_utf8)
        });
        rest = &after[end..];
        at = GUESSES.iter().filter_map(|g| rest.find(g)).min();
    }
    out.push_str(rest);
    std::borrow::Cow::Owned(out)
}

/// The English form: a later sentence's guess at the cause ("Generation timed out waiting for
/// first token (300s). The model may be overloaded or the context is too large.", LoLLMs),
/// dropped from its hedge to the sentence's end. A first sentence that hedges is all there is,
/// and is kept.
fn without_english_guesses(text: &str) -> std::borrow::Cow<'_, str> {
    const HEDGES: &[&str] = &[" may be ", " might be ", " could be "];
    let Some(at) = HEDGES.iter().filter_map(|h| text.find(h)).min() else {
        return std::borrow::Cow::Borrowed(text);
    };
    if !text[..at].contains(['.', '!', '?']) {
        return std::borrow::Cow::Borrowed(text);
    }
    let rest = &text[at..];
    let end = rest
        .find(['.', '!', '?', '\n'])
        .map_or(rest.len(), |e| e + 1);
    std::borrow::Cow::Owned(format!(
        "{}{}",
        &text[..at],
        without_english_guesses(&rest[end..])
    ))
}

/// Whether "too long" is said of time, not of length: "The request took too long to complete and was
/// timed-out", "taking too long to respond".
pub fn says_too_slow(text: &str) -> bool {
    // A request ended for its time in a queue ("terminated by the proxy because it has been in
    // the queue for more than 5 minutes", oai-reverse-proxy): it got no answer in time, as a
    // queue's time-to-live expiring does ("request timed out in queue").
    if says_any(
        text,
        &["in the queue for more than", "in queue for more than"],
    ) && says_any(
        text,
        &["terminated", "killed", "cancelled", "canceled", "dropped"],
    ) {
        return true;
    }
    says_any(
        text,
        &[
            "took too long",
            "taking too long",
            // "The AI assistant is taking longer than usual to respond." (GymBrAIn's answer when
            // its call to the model was cut off after five seconds).
            "taking longer than usual",
            // Korean: a time-out, the answer delayed ("모든 모델 타임아웃", every model timed out;
            // "AI 서비스 응답이 지연되고 있습니다.", the AI service's answer is delayed: EduAtalk).
            "타임아웃",
            "응답이 지연",
            // Japanese: timed out ("動画生成がタイムアウトしました。", a landing-page builder's 500).
            "タイムアウト",
            // Russian: the wait for the answer exceeded ("Превышено время ожидания ответа от
            // AI-сервиса.", a Russian platform's analysis in a 200).
            "превышено время ожидания",
            // ("Таймаут: Таймаут запроса к LLM (300.0s)", AI-Engineering's 200.)
            "таймаут",
            // Arabic: the answer took a long time, the wait ran out ("استغرق الرد وقتاً طويلاً.",
            // Banda Chao's 500).
            "وقتاً طويلاً",
            "وقتا طويلا",
            "انتهت مهلة",
            "время ожидания истекло",
            "taking longer than expected",
            "took longer than expected",
            // "I could not find an answer in time." (GOV.UK Chat), "did not respond in time".
            "an answer in time",
            "a response in time",
            "respond in time",
            "answer in time",
            "too long to respond",
            "too long to complete",
            "timed-out",
            "timed out",
        ],
    )
}

/// The provider asking for a shorter input in its own words: a shortening verb ("shorter",
/// "shorten", "reduce", "decrease", "trim", "truncate", "fewer") within four words of what is too
/// long ("Try using a shorter prompt", "enabling prompt truncating", "reduce the number of tokens"),
/// unless the output is named beside it. A per-minute budget's "please reduce your message size"
/// never gets here (see the caller).
fn asks_for_a_shorter_input(text: &str) -> bool {
    const VERBS: &[&str] = &[
        "shorter", "shorten", "reduc", "decreas", "trim", "truncat", "fewer",
    ];
    const SUBJECTS: &[&str] = &[
        "prompt",
        "prompts",
        // "Please try a shorter question." (BioAgents' 500): the user's input.
        "question",
        "query",
        "input",
        "inputs",
        "message",
        "messages",
        "conversation",
        "context",
        "history",
        "tokens",
        "length",
    ];
    const OUTPUT: &[&str] = &[
        "output",
        "completion",
        "generation",
        "max_tokens",
        "max_new_tokens",
    ];
    let words = words(text);
    words.iter().enumerate().any(|(i, w)| {
        let near = around(&words, i, 4);
        VERBS.iter().any(|v| w.starts_with(v))
            && near.iter().any(|n| SUBJECTS.contains(n))
            // "reduce the length of max output tokens": the output, not the input.
            && !near.iter().any(|n| OUTPUT.contains(n))
    })
}

/// A count of tokens that includes the input, over a limit, in whatever words: "total number of
/// tokens (prompt and prediction) cannot exceed 2048", "the number of input tokens is more than
/// the maximum". The input (or a total) must be named: an output parameter's own cap ("the
/// maximum allowed number of output tokens") is not an overflow, and neither is a wait for a
/// budget to refill ("Too many tokens, please wait before trying again").
fn says_token_count_over_a_limit(text: &str) -> bool {
    const OVER: &[&str] = &[
        "exceed",
        // "too many tokens in the prompt": the input named (a throughput budget's "Too many
        // tokens, please wait" is not, and says to wait).
        "too many",
        // A comparison written out: "the input prompt token len 9000 + max_new_tokens 1024 > 8192";
        // TGI's "`inputs` must have less than 1000 tokens. Given: 1413".
        " > ",
        "must have less than",
        "must be less than",
        "more than",
        "greater than",
        "larger than",
        "over the limit",
        "above the limit",
        "beyond the",
        "at most",
        "maximum",
        // "max tokens reached" (read as the request's above).
        "tokens reached",
    ];
    const NOT_A_LENGTH: &[&str] = &[
        "wait",
        "slow down",
        "try again later",
        "retry later",
        "quota",
        "budget",
    ];
    /// What names an output parameter or the output alone.
    const OUTPUT: &[&str] = &[
        "max_tokens",
        "max_new_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "output",
        "completion",
        "generation",
    ];
    let words = words(text);
    let named = |list: &[&str]| words.iter().any(|w| list.contains(w));
    // "The request exceeds the maximum of 8192 tokens" names the request; "the request's
    // max_tokens exceeds the maximum" names only its output parameter.
    // A token count over the model's maximum ("the token count: [9120] exceeds the model:
    // [gpt-4]'s maximum token count: [8192]") counts the request's tokens too; so does a bare
    // "exceed max tokens" (Casibase's), where "max tokens" is the model's and not the parameter.
    let input_named = named(INPUT_WORDS)
        || ((named(&["request"]) || says_any(text, &["token count", "number of tokens"]))
            && !named(OUTPUT))
        || (says_any(
            text,
            &[
                "exceed max tokens",
                "exceeds max tokens",
                "exceeded max tokens",
                // "Unable to use memory, max tokens reached" (Kernel Memory, as an error).
                "max tokens reached",
                // Tolgee's code `llm_provider_max_tokens_exceeded`, as words.
                "max tokens exceeded",
            ],
        ) && !named(OUTPUT));
    // A count named as one word ("length of prompt_tokens (139216) must be less than
    // max_seq_len (98304)"): the input's tokens by their field's name.
    let input_count = words.iter().any(|w| {
        [
            "prompt_tokens",
            "input_tokens",
            "n_prompt_tokens",
            "prompt_token_count",
            "input_token_count",
        ]
        .contains(w)
    });
    (input_count || (named(&["token", "tokens"]) && input_named))
        && !named(&["rate"])
        && says_any(text, OVER)
        && !says_any(text, NOT_A_LENGTH)
}

/// Whether the text contains any of the patterns (the rules' phrases, matched as written).
pub fn says_any(text: &str, patterns: &[&str]) -> bool {
    patterns.iter().any(|p| text.contains(p))
}

/// The words of normalized text: runs of letters, digits and `_` (so `max_tokens` stays one word,
/// unlike the "tokens" of a count).
pub fn words(text: &str) -> Vec<&str> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .collect()
}

/// The words within `reach` of word `i`, either way, `i` included: where the rules look for what a
/// word is said of ("a shorter prompt", "quota is not enough", "token invalid").
pub fn around<'a>(words: &'a [&'a str], i: usize, reach: usize) -> &'a [&'a str] {
    &words[i.saturating_sub(reach)..(i + reach + 1).min(words.len())]
}

/// Whether the wording says a policy refused what was sent or made, in a prompt guard's words
/// rather than a content filter's name: the content judged ("Request contains prohibited
/// content", "harmful or illegal content"), a toxicity or jailbreak check, a guard's allow or deny
/// patterns ("Request doesn't match allow patterns"), or a guard that blocked it ("Request blocked
/// by Lakera Guard"). A judging word must come at most three words before what it judges: "403
/// Forbidden" or "a forbidden parameter" judge no content, and a request blocked by a rate limit
/// is no refusal.
pub fn says_policy_refusal(text: &str) -> bool {
    const JUDGED: &[&str] = &[
        "prohibited",
        "disallowed",
        "forbidden",
        "banned",
        "harmful",
        "unsafe",
        "inappropriate",
        "offensive",
        "objectionable",
    ];
    const CONTENT: &[&str] = &[
        "content", "contents", "words", "keywords", "topic", "topics", "material", "language",
        "prompt", "input", "output",
        // "Generated plan contains inappropriate medical claims." (NutriPlan Pro).
        "claims",
    ];
    const PATTERNS: &[&str] = &["pattern", "patterns"];
    const GUARDS: &[&str] = &[
        "guard",
        "guardrail",
        "guardrails",
        "moderation",
        "filter",
        "safety",
        // "Policy error: pii-filter - blocked by policy".
        "policy",
        "policies",
    ];
    // What a guard blocks, and why it says it did ("Prompt blocked due to security configurations",
    // "Response content blocked due to DLP policy violations").
    const BLOCKED_ITEMS: &[&str] = &[
        // "Generation blocked." (Genkit).
        "generation",
        "prompt",
        "response",
        "content",
        "input",
        "output",
        "message",
        "messages",
        "completion",
    ];
    const BLOCKED_FOR: &[&str] = &[
        "policy",
        "policies",
        "security",
        "dlp",
        "guardrail",
        "guardrails",
        "moderation",
        "safety",
        "configuration",
        "configurations",
    ];
    let words = words(text);
    let judged = |i: usize| {
        CONTENT.contains(&words[i])
            && words[i.saturating_sub(3)..i]
                .iter()
                .any(|w| JUDGED.contains(w))
    };
    let guard_pattern = |i: usize| {
        PATTERNS.contains(&words[i])
            && i > 0
            && ["allow", "allowed", "deny", "denied", "block", "blocked"].contains(&words[i - 1])
    };
    // ("Sorry, your message has been rejected by moderation.", AI Engine: rejected or flagged by
    // a guard too.)
    let blocked_by_guard = |i: usize| {
        matches!(words[i], "blocked" | "rejected" | "flagged" | "refused")
            && words.get(i + 1) == Some(&"by")
            && words[i + 2..(i + 6).min(words.len())]
                .iter()
                .any(|w| GUARDS.contains(w))
    };
    // ("Filtered" too: "Prompt filtered due to safety violations", SAP's filtering module.)
    let content_blocked_for_policy = |i: usize| {
        matches!(words[i], "blocked" | "filtered")
            && words[i.saturating_sub(2)..i]
                .iter()
                .any(|w| BLOCKED_ITEMS.contains(w))
            && words[i + 1..(i + 7).min(words.len())]
                .iter()
                .any(|w| BLOCKED_FOR.contains(w))
    };
    // What was sent or made blocked, and nothing more said ("Request blocked."): only a guard
    // blocks a request without a reason; a rate or an address blocked says so.
    // The words after "blocked" may plead ("request blocked - if you think this is a mistake,
    // please contact support"), but give no reason: one introduced ("by", "due", "because",
    // "for") is read by the rules above or below, and a rate, a limit, an address or a region is
    // not the content's.
    const REASONS: &[&str] = &[
        "by", "due", "because", "for", "rate", "limit", "limiting", "limited", "ip", "address",
        "region", "country", "quota", "firewall", "waf", "security",
    ];
    let blocked_bare = (1..words.len()).any(|i| {
        words[i] == "blocked"
            && (BLOCKED_ITEMS.contains(&words[i - 1])
                || words[i - 1] == "request"
                || (i >= 2 && words[i - 1] == "was" && words[i - 2] == "request"))
            && !words[i + 1..].iter().any(|w| REASONS.contains(w))
    });
    // A judged code as one word ("inappropriate_prompt_text", Ai2's OLMo playground).
    let judged_code = words.iter().any(|w| {
        JUDGED
            .iter()
            .any(|j| w.strip_prefix(j).is_some_and(|rest| rest.starts_with('_')))
    });
    // Whole words: "detectToxicContent() failed to connect" names a check that failed, not a refusal.
    words
        .iter()
        .any(|w| ["toxicity", "toxic", "nsfw", "jailbreak"].contains(w))
        || text.contains("prompt injection")
        || says_judging_check_failed(&words)
        || judged_code
        || says_personal_data_found(&words, text)
        || says_terms_violated(&words, text)
        || says_refused_in_a_models_voice(text)
        // What was sent or made said to be flagged ("Your prompt has been flagged as abusive."):
        // a guard's verdict. An account flagged is the account's.
        || (0..words.len()).any(|i| {
            words[i] == "flagged"
                && words[i.saturating_sub(4)..i]
                    .iter()
                    .any(|w| BLOCKED_ITEMS.contains(w) || *w == "request")
        })
        || says_not_valid_by_policy(text)
        || blocked_bare
        || says_blocked_for_safety_ko(text)
        || (0..words.len()).any(|i| {
            judged(i) || guard_pattern(i) || blocked_by_guard(i) || content_blocked_for_policy(i)
        })
}

/// Korean: what was sent or made blocked (차단), for safety or by a filter or a policy ("안전
/// 필터에 의해 응답이 차단되었습니다." and "응답이 차단되었습니다: SAFETY", a fortune-reading site's
/// 500s for Gemini's SAFETY finish and block reason), or content judged harmful or inappropriate.
/// An address or an account blocked (IP, 계정) is not the content's.
fn says_blocked_for_safety_ko(text: &str) -> bool {
    let blocked = says_any(text, &["차단되었", "차단됨", "차단된"])
        && says_any(text, &["안전", "safety", "필터", "정책", "유해", "부적절"])
        && !says_any(text, &["계정", "주소"])
        && !words(text).contains(&"ip");
    blocked
        || says_any(
            text,
            &[
                "유해한 콘텐츠",
                "부적절한 콘텐츠",
                "부적절한 내용",
                "유해한 내용",
            ],
        )
}

/// A server's queue full or over its limit ("The inference queue is full.", "exceeds maximum queue
/// size", "Flexlb queue length 1200 exceeds threshold 1000"): no room, whoever asks and whatever
/// the status. (A bare "Overloaded" under a 500 stays the 500's; a queue says more.)
pub fn says_queue_full(text: &str) -> bool {
    let words = words(text);
    text.contains("queue is full")
        || text.contains("queue full")
        // Chinese: "队列已满" (the queue is full).
        || text.contains("队列已满")
        // A buffer of waiting requests overflowing ("Buffered requests overflow", Paddler).
        || text.contains("requests overflow")
        || text.contains("queue overflow")
        || (0..words.len()).any(|i| {
            words[i] == "queue"
                && words[i + 1..(i + 5).min(words.len())]
                    .iter()
                    .any(|w| matches!(*w, "exceeds" | "exceeded" | "over" | "above"))
        })
        || (text.contains("queue size") && text.contains("exceed"))
}

/// The server's threads for a kind of request all taken ("Throttled because maximum thread count
/// (8) for request type 'search' has been exceeded", Marqo's 429): its capacity, whatever the
/// throttling word beside it says.
pub fn says_threads_taken(text: &str) -> bool {
    says_any(
        text,
        &[
            "thread count",
            "worker threads",
            "maximum threads",
            "max threads",
        ],
    ) && says_any(text, &["exceeded", "exceeds", "reached", "exhausted"])
}

/// The request's length stated beside the model's maximum as two figures, the first over the
/// second, with no word of excess: "model max tokens is 8192, request length is 9000".
pub fn says_length_figures_over_max(text: &str) -> bool {
    let figure_after = |leads: &[&str]| {
        leads.iter().find_map(|lead| {
            let at = text.find(lead)? + lead.len();
            let rest = text[at..].trim_start_matches(|c: char| !c.is_ascii_digit());
            let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
            // The figure must follow within a few characters ("is 9000", ": 9000", "(9000)").
            let gap = text[at..].len() - rest.len();
            (gap <= 6).then(|| digits.parse::<u64>().ok()).flatten()
        })
    };
    if says_length_range_broken(text) || says_input_over_a_stated_bound(text) {
        return true;
    }
    let request = figure_after(&[
        "request length",
        "input length",
        "prompt length",
        "prompt tokens",
    ]);
    let max = figure_after(&[
        "max tokens",
        "max length",
        "maximum length",
        "max_model_len",
        "max_seq_len",
    ]);
    matches!((request, max), (Some(r), Some(m)) if r > m)
}

/// The input said to need fewer characters or tokens than a bound, and the figure given over it
/// ("`inputs` must have less than 32000 characters. Given: 67337", text-embeddings-inference's 413).
fn says_input_over_a_stated_bound(text: &str) -> bool {
    let number_after = |lead: &str| -> Option<u64> {
        let at = text.find(lead)? + lead.len();
        text[at..]
            .trim_start()
            .chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    let bound = number_after("must have less than ")
        .or_else(|| number_after("must be less than "))
        .or_else(|| number_after("must have fewer than "));
    let given = number_after("given: ").or_else(|| number_after("given "));
    let of_the_input = says_any(text, &["input", "prompt", "text", "messages"])
        && says_any(text, &["characters", "tokens"]);
    of_the_input && matches!((bound, given), (Some(b), Some(g)) if g > b)
}

/// A length's allowed range stated, and the figure got over its top ("Messages token length must be
/// in (0, 1048576], but got 1100000."). A figure under the bottom, or inside the range, is not an
/// overflow.
fn says_length_range_broken(text: &str) -> bool {
    let number = |s: &str| -> Option<u64> {
        let s = s.trim_start_matches(|c: char| !c.is_ascii_digit());
        s.chars()
            .take_while(char::is_ascii_digit)
            .collect::<String>()
            .parse()
            .ok()
    };
    ["length must be in ", "length should be in "]
        .iter()
        .find_map(|lead| {
            let at = text.find(lead)? + lead.len();
            let range = &text[at..];
            let comma = range.find(',')?;
            let top = number(&range[comma + 1..])?;
            let got = range.find("got ")? + "got ".len();
            Some(number(&range[got..])? > top)
        })
        .unwrap_or(false)
}

/// Personal data found in what was sent or made ("PII detected in request", "the response contains
/// personally identifiable information"): a privacy guard's refusal. PII named as a feature ("PII
/// redaction is not enabled") is not this.
fn says_personal_data_found(words: &[&str], text: &str) -> bool {
    let named = words.contains(&"pii")
        || says_any(
            text,
            &[
                "personally identifiable",
                "personal information",
                "personal data",
            ],
        );
    named
        && words.iter().any(|w| {
            matches!(
                *w,
                "detected" | "found" | "contains" | "containing" | "identified"
            )
        })
}

/// A refusal in a model's voice, sent by a guard as the error itself ("I'm sorry, I cannot assist you
/// with your prompt." under OPEA's guardrail status): the first person declining to help. An
/// apology for the service ("Sorry, you've exceeded your rate limits", "Sorry, the upstream model
/// provider is currently experiencing high demand") is not this.
fn says_refused_in_a_models_voice(text: &str) -> bool {
    const DECLINES: &[&str] = &[
        "i cannot assist",
        "i can't assist",
        "i can not assist",
        "i am unable to assist",
        "i'm unable to assist",
        "i cannot help",
        "i can't help",
        "i am unable to help",
        "i'm unable to help",
        "i cannot comply",
        "i can't comply",
        "i cannot fulfill",
        "i can't fulfill",
        "i cannot provide",
        "i can't provide",
    ];
    let text = &text.replace('\u{2019}', "'");
    says_any(text, DECLINES)
}

/// What was sent or made judged not valid, or not allowed, by the provider's policies ("the model
/// output is not valid according to the policies", "this request is against our usage
/// policies"): a policy's refusal.
fn says_not_valid_by_policy(text: &str) -> bool {
    const BY_POLICY: &[&str] = &[
        "according to the polic",
        "according to our polic",
        "according to the usage polic",
        "according to our usage polic",
    ];
    const AGAINST: &[&str] = &[
        "against our polic",
        "against the polic",
        "against our usage polic",
        "against our content polic",
    ];
    says_any(text, AGAINST)
        || (says_any(text, BY_POLICY)
            && says_any(
                text,
                &[
                    "not valid",
                    "not allowed",
                    "not permitted",
                    "invalid",
                    "violat",
                ],
            ))
}

/// What was sent said to violate the provider's terms ("This prompt appears to violate our terms
/// of service and will be reported."): a refusal of the content. An account suspended or disabled
/// for violating them is the account's (AUTH), read before this.
fn says_terms_violated(words: &[&str], text: &str) -> bool {
    const TERMS: &[&str] = &[
        "terms of service",
        "terms of use",
        "usage policy",
        "usage policies",
        "acceptable use",
    ];
    says_any(text, TERMS)
        && words.iter().any(|w| w.starts_with("violat"))
        && !words.iter().any(|w| {
            matches!(
                *w,
                "account"
                    | "organization"
                    | "organisation"
                    | "suspended"
                    | "deactivated"
                    | "terminated"
                    | "disabled"
            )
        })
}

/// A check named by what it judges (moral, ethics, compliance, content, safety, moderation) that
/// the request did not pass or failed: "Content did not pass the moral check, please modify and
/// try again". A check that failed to run says "check error" and is the server's (classify's
/// failed-service wording, read first).
fn says_judging_check_failed(words: &[&str]) -> bool {
    const JUDGES: &[&str] = &[
        "moral",
        "morality",
        "ethics",
        "ethical",
        "compliance",
        "content",
        "safety",
        "moderation",
    ];
    const CHECKS: &[&str] = &["check", "review", "audit", "inspection", "screening"];
    let check_named =
        (1..words.len()).any(|i| CHECKS.contains(&words[i]) && JUDGES.contains(&words[i - 1]));
    let not_passed = (1..words.len()).any(|i| {
        matches!(words[i], "pass" | "passed")
            && words[i.saturating_sub(2)..i]
                .iter()
                .any(|w| matches!(*w, "not" | "didn" | "t"))
    }) || words
        .iter()
        .any(|w| matches!(*w, "failed" | "fail" | "fails"));
    check_named && not_passed
}

/// Whether the wording says the provider's servers are full, whatever the status: overloaded,
/// busy, at or out of capacity, under high demand. Capacity named with tokens or a context ("the
/// model's capacity of 4096 tokens") is a length, not servers; "your capacity" is the account's
/// allowance ("You have exhausted your capacity on this model. Your quota will reset after ...").
pub fn says_overloaded(text: &str) -> bool {
    says_any(text, OVERLOAD_WORDING)
        || says_queue_full(text)
        // "Model busy, retry later", "system busy": servers, whoever is busy.
        || words(text).contains(&"busy")
        // (A body over the capacity limit, "413 Request Entity Too Large: The data value
        // transmitted exceeds the capacity limit.", is the request's size.)
        || (text.contains("capacity")
            && !text.contains("your capacity")
            && !says_any(text, &["token", "context", "length", "too large"]))
        // The AI said unavailable, a word or two after it ("AI support unavailable", GrantPipe's
        // 502): no AI to answer now.
        || {
            let words = words(text);
            (1..words.len()).any(|i| {
                words[i] == "unavailable" && words[i.saturating_sub(3)..i].contains(&"ai")
            })
        }
        // A service at its token capacity ("LLM service is at token capacity"): the servers' budget
        // of tokens in flight, not one request's length.
        || says_any(text, &["at token capacity", "at full capacity", "at maximum capacity", "at max capacity"])
        || says_none_free(text)
        || says_too_many_in_progress(text)
        || says_too_many_jobs(text)
        || says_pool_exhausted(text)
        || says_every_upstream_unavailable(text)
}

/// Every upstream said unavailable ("All LLM services unavailable", Taxentia's 500 when its
/// primary and fallback models are both out): nowhere to send the request now, capacity. Every
/// one said to have failed ("All providers failed") is the server's failure, read elsewhere.
pub fn says_every_upstream_unavailable(text: &str) -> bool {
    let words = words(text);
    (0..words.len()).any(|i| {
        words[i] == "all"
            && words[i + 1..(i + 4).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    "services" | "providers" | "models" | "backends" | "upstreams" | "endpoints"
                )
            })
            && words[i + 1..(i + 6).min(words.len())].contains(&"unavailable")
    })
}

/// The server's own pool said to be exhausted ("pool_exhausted", erllama-server's pool of model
/// workers, under a 429): no worker free, capacity. A pool of credentials spent (keys, cookies,
/// accounts, tokens) is read apart: they refill, a rate.
fn says_pool_exhausted(text: &str) -> bool {
    let words = words(text);
    let named =
        words.windows(2).any(|w| w == ["pool", "exhausted"]) || words.contains(&"pool_exhausted");
    named
        && !words.iter().any(|w| {
            matches!(
                *w,
                "key"
                    | "keys"
                    | "cookie"
                    | "cookies"
                    | "account"
                    | "accounts"
                    | "token"
                    | "tokens"
                    | "credential"
                    | "credentials"
                    | "quota"
            )
        })
}

/// Too many of the server's jobs of a kind ("Too many project map jobs, please try again later",
/// Plandex's queue of map jobs, under a 429): its work queue is full, capacity. The caller's own
/// jobs ("you have too many jobs running") are a rate.
/// (Or the jobs' limit reached: "Maximum job limit (500) reached", the queue of a subtitle
/// translator's jobs full.)
fn says_too_many_jobs(text: &str) -> bool {
    let words = words(text);
    let named = (1..words.len()).any(|i| {
        words[i - 1] == "too"
            && words[i] == "many"
            && words[i + 1..(i + 4).min(words.len())].contains(&"jobs")
    }) || (1..words.len()).any(|i| {
        matches!(words[i - 1], "job" | "jobs")
            && words[i] == "limit"
            && words[i + 1..(i + 4).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "reached" | "exceeded"))
    });
    named
        && !words.iter().any(|w| {
            matches!(
                *w,
                "you" | "your" | "account" | "key" | "user" | "concurrent"
            )
        })
}

/// Too many of the server's own jobs in progress ("Too many image generations in progress; try
/// again shortly."): its admission limit, capacity. The caller's own requests in progress ("You
/// have too many requests in progress", "concurrent requests for this key") are a rate.
fn says_too_many_in_progress(text: &str) -> bool {
    text.contains("in progress")
        && text.contains("too many")
        && !words(text).iter().any(|w| {
            matches!(
                *w,
                "you" | "your" | "account" | "key" | "user" | "concurrent"
            )
        })
}

/// The servers' own resources, workers or endpoints said to be all taken ("No available resources
/// to schedule request", "not enough free GPU resources", "out of resources", "No active worker
/// found to fulfill this request", "no endpoints available for the given request"): capacity,
/// not the request's fault. A resource the request named
/// ("resource not found"), one the key may not use ("insufficient permissions for this resource")
/// or a quota's `RESOURCE_EXHAUSTED` is not this: they name one resource, not the servers' in the
/// plural. A worker that failed ("worker crashed") is not one that is busy.
fn says_none_free(text: &str) -> bool {
    // Chinese: no instance free ("无可用的账号实例": midjourney-proxy's Discord instances, its
    // workers, all taken).
    if ["无可用的账号实例", "无可用实例", "无可用的实例"]
        .iter()
        .any(|w| text.contains(w))
    {
        return true;
    }
    const KIND: &[&str] = &[
        "available",
        "free",
        "idle",
        "spare",
        "active",
        "online",
        "gpu",
        "compute",
    ];
    let words = words(text);
    (0..words.len()).any(|i| {
        // The words before the noun, past up to two that say which ("free GPU resources").
        let mut before = &words[i.saturating_sub(5)..i];
        let mut said_which = false;
        for _ in 0..2 {
            if let [rest @ .., last] = before
                && KIND.contains(last)
            {
                before = rest;
                said_which = true;
            }
        }
        let none_before = matches!(
            before,
            [.., "no" | "enough" | "insufficient"] | [.., "out", "of"]
        );
        match words[i] {
            // (Moshi's "no free channels", Apex's "No available miners": its workers; "no free
            // slots".)
            "resources" | "worker" | "workers" | "channels" | "slots" | "miners" => none_before,
            // Endpoints only when said to be free ("no endpoints available for the given
            // request", "no available endpoints"): one endpoint not found is a wrong path.
            "endpoint" | "endpoints" => {
                none_before && (said_which || words.get(i + 1) == Some(&"available"))
            }
            _ => false,
        }
    })
}

/// The input too long or too large, in Japanese, Korean, Turkish or Russian: the text (テキスト, 文章,
/// 入力, 質問, 텍스트, 입력, 질문, metin, mesaj, текст) said too long (長すぎ, 너무 길/깁, çok uzun,
/// слишком длинн), or an image or a file too large (大きすぎ, 너무 큽, çok büyük, слишком большой): "テキストが長すぎます。10,000文字以内にしてください。" and
/// "画像が大きすぎます。" (Potenote's 400s), "Dosya çok büyük. Maksimum 100MB olmalıdır" (FrameOS's
/// 400). Too many of something (多すぎ: requests) is not this.
fn says_input_too_long_non_english(text: &str) -> bool {
    let says = |patterns: &[&str]| says_any(text, patterns);
    (says(&["長すぎ"])
        && says(&[
            "テキスト",
            "文章",
            "入力",
            "質問",
            "プロンプト",
            "メッセージ",
            "内容",
            "文字",
        ]))
        || (says(&["大きすぎ"]) && says(&["画像", "ファイル", "データ", "音声", "サイズ"]))
        || (says(&["너무 길", "너무 깁"])
            && says(&["텍스트", "입력", "질문", "메시지", "내용", "프롬프트", "글"]))
        || (says(&["너무 큽", "너무 크"]) && says(&["이미지", "파일", "용량"]))
        || (says(&["çok uzun"]) && says(&["metin", "mesaj", "soru", "istem", "girdi", "içerik"]))
        || (says(&["çok büyük"])
            && says(&[
                "dosya",
                "resim",
                "görsel",
                "görüntü",
                "ses",
                "video",
                "metin",
                "mesaj",
            ]))
        // (Thai: "ไฟล์ใหญ่เกินไป กรุณาใช้ไฟล์ไม่เกิน 4MB", a job-matching app's 400.)
        || (says(&["ใหญ่เกินไป", "ยาวเกินไป"]) && says(&["ไฟล์", "รูป", "ข้อความ", "เอกสาร"]))
        // ("Файл слишком большой. Максимум 10 МБ.", an AI-lawyer app's 400.)
        || (says(&["слишком длинн", "слишком больш"])
            && says(&["файл", "изображени", "текст", "сообщени", "запрос", "документ"]))
}

/// The same meanings in Chinese, as Chinese providers and gateways word them: a context length
/// or window named, or the input (prompt, request, message) over a maximum length or too long.
fn says_context_overflow_zh(text: &str) -> bool {
    let says = |patterns: &[&str]| says_any(text, patterns);
    says(&["上下文长度", "上下文窗口", "最大上下文", "上下文限制"])
        || (says(&[
            "最大长度",
            "长度限制",
            "长度上限",
            "token 数",
            "token数",
            "令牌数",
        ]) && says(&["超过", "超出", "大于"]))
        // A length or a size that may not exceed its cap ("待润色文本长度不能超过10000个字符", a web-novel
        // platform's 200; "文件大小不能超过 20MB", an English learning assistant's 400).
        || says(&[
            "长度不能超过",
            "长度不得超过",
            "字数不能超过",
            "字数不得超过",
            "大小不能超过",
            "大小不得超过",
        ])
        // (Or the question, the text: "问题过长超出模型内存", chatserver-api's 400.)
        || (says(&["过长", "太长"])
            && says(&["输入", "提示", "请求", "消息", "内容", "问题", "文本"]))
        // The prompt over its limit, to be sent in parts ("prompt已超过限制,请分段发送 [16384]",
        // coze-discord-proxy), or a size over its limit (图片大小超过限制: an image), as a size limit
        // exceeded in English is.
        || (says(&["prompt", "提示词"]) && says(&["超过限制", "超出限制"]))
        || says(&["请分段发送", "大小超过限制", "大小超出限制"])
        // Too long, shorten it (太长了，缩短一点吧, ChatGPT-Vercel's plain-text answer).
        || (says(&["太长", "过长"]) && says(&["缩短", "精简"]))
        // A file, an image or a recording too large ("文件太大", AIdea's 400 for an audio file over
        // its cap), as a file's size over its cap is in English.
        || (says(&["太大", "过大"]) && says(&["文件", "图片", "图像", "音频", "视频"]))
}

/// Whether the wording says money or a plan's allowance ran out (see the module comment): what
/// [`says_allowance_spent`] reads, and also the bare word "billing", a usage limit, or a quota
/// named as run out, which a rate-limit label outranks.
pub fn says_quota_exhausted(text: &str) -> bool {
    // A plan's limit on one input's length ("Free plan limit is 1400 characters."): a shorter
    // input succeeds on the same plan, so it is the request's length, not an allowance spent.
    if says_limit_in_characters(text) {
        return false;
    }
    if says_allowance_spent(text) {
        return true;
    }
    let text = &without_links_and_key_names(text);
    // The provider saying the limit lifts within the horizon overrules every other word: Replicate
    // throttles accounts with little credit ("... while you have less than $5.0 in credit. Your rate
    // limit resets in ~5s"), and waiting those seconds is what helps.
    let lifts_soon = retry_horizon_ms(text).is_some_and(|ms| ms < QUOTA_HORIZON_MS);
    !lifts_soon
        && (text.contains("billing") || names_a_usage_limit(text) || says_quota_ran_out(text))
}

/// Whether the wording says money ran out, the plan lacks what was asked, an allowance is used
/// up, or a budget of a day or longer was hit ("exceeded your daily rate limit"), with no stated
/// wait under [`QUOTA_HORIZON_MS`] and no per-minute budget: the part of [`says_quota_exhausted`]
/// that a rate-limit label does not overrule. A quota merely "exceeded" or "reached" under a rate
/// label can be per minute, as Vertex AI's `RESOURCE_EXHAUSTED` quotas are; one "used up" or
/// "exhausted" is spent.
pub fn says_allowance_spent(text: &str) -> bool {
    let text = &without_links_and_key_names(text);
    let says = |patterns: &[&str]| says_any(text, patterns);
    // A limit of zero, whatever wait is stated beside it: no wait refills it.
    says_zero_limit(text)
        || retry_horizon_ms(text).is_none_or(|ms| ms >= QUOTA_HORIZON_MS)
        // Not the bare word "billing": Gemini's per-minute 429 says "please check your plan and
        // billing details" too, and only its quota details tell which limit it was.
        && (MONEY
            .iter()
            .any(|p| *p != "billing" && without_money_asides(text).contains(p))
            || says(OFFER_ENDED)
            || says_trial_over(text)
            || says_subscription_lapsed(text)
            // Japanese: today's count at its cap ("本日のパーソナル占いの回数上限に達しました", AI Tarot
            // Chat's 429).
            || (says(&["本日", "今日", "1日の", "一日の"]) && says(&["上限に達しました", "上限に達し"]))
            // (Or a day's count said as "up to N a day": "AI診断は1日に3回までだよ", Cartopia's
            // 429.)
            || (says(&["1日に", "一日に", "1日", "一日"]) && says(&["回まで"]))
            // Korean: a day's or a free allowance all used ("오늘의 무료 체험 질문 수(3개)를 모두
            // 사용하셨습니다": today's free trial questions all used, Buddha Korea's 429).
            || (says(&["모두 사용", "모두 소진", "한도를 초과", "한도 초과"])
                && says(&["오늘", "하루", "일일", "이번 달", "월간", "무료"]))
            || says_plan_lacks(text)
            || says_used_up(text)
            // A count of requests that has run out ("Convex OPENAI_API_TOKEN has no requests
            // remaining. Go sign up for an OpenAI API key").
            || says(&["no requests remaining", "no requests left", "0 requests remaining"])
            || (says(LONG_BUDGETS) && !says(SHORT_BUDGETS))
            || says_wait_until_a_date(text)
            || says_daily_rule_or_total_quota(text))
}

/// The text without the money that names no money run out: the server's own operations on money
/// that failed ("Failed to update credits.", Swarms' 500) and credits offered ("Grab a fresh one
/// (plus $5 in free LLM credits for new users)", WorkflowAI's 401 for a key not valid).
fn without_money_asides(text: &str) -> std::borrow::Cow<'_, str> {
    const FAILED: &[&str] = &[
        "free llm credits",
        "in free credits",
        "free credits for new users",
        "failed to update credit",
        "failed to fetch credit",
        "failed to get credit",
        "failed to load credit",
        "failed to check credit",
        "failed to update balance",
        "failed to fetch balance",
        "failed to get balance",
        "error updating credit",
        "error fetching credit",
        // A persona's rest ("Please give me a minute to recharge! ⚡", TrueCompanion's 429 when it
        // is overwhelmed): no money.
        "minute to recharge",
        "moment to recharge",
        "bit to recharge",
    ];
    if !FAILED.iter().any(|f| text.contains(f)) {
        return std::borrow::Cow::Borrowed(text);
    }
    let mut out = text.to_string();
    for f in FAILED {
        out = out.replace(f, "");
    }
    std::borrow::Cow::Owned(out)
}

/// A trial said to have expired or ended, whoever's it is ("The audit trial for this user has
/// expired.", Open edX's learning assistant under a 403): only paying brings it back.
fn says_trial_over(text: &str) -> bool {
    let words = words(text);
    (0..words.len()).any(|i| {
        words[i] == "trial"
            && words[i + 1..(i + 7).min(words.len())]
                .iter()
                .any(|w| matches!(*w, "expired" | "ended" | "exhausted" | "over"))
    })
}

/// See [`names_a_usage_limit`]: "<count> limit reached" with no wait offered.
fn says_a_count_limit_reached(text: &str) -> bool {
    const NOT_A_COUNT: &[&str] = &[
        "rate",
        "rpm",
        "tpm",
        "rps",
        "qps",
        "concurrent",
        "concurrency",
        "parallel",
        "request",
        "requests",
        "call",
        "calls",
        "upload",
        "token",
        "tokens",
        "context",
        "length",
        "size",
        "character",
        "characters",
        "input",
        "output",
        "time",
        "timeout",
        "recursion",
        "retry",
        "step",
        "steps",
        "iteration",
        "iterations",
        // The server's own jobs ("Maximum job limit (500) reached", a subtitle translator's queue
        // under a 429): its capacity, `says_too_many_jobs`.
        "job",
        "jobs",
    ];
    let words = words(text);
    let reached = (1..words.len()).any(|i| {
        // (The limit's number may come between: "Trial AI generation limit (10) reached.")
        let after = match words.get(i + 1) {
            Some(n) if n.parse::<u64>().is_ok() => &words[i + 2..],
            _ => &words[i + 1..],
        };
        words[i] == "limit"
            && (after.first() == Some(&"reached") || after.starts_with(&["has", "been", "reached"]))
            && !NOT_A_COUNT.contains(&words[i - 1])
    });
    reached
        && !says_any(
            text,
            &[
                "try again",
                "retry",
                "later",
                "wait",
                "per minute",
                "per second",
            ],
        )
}

/// A subscription said to be inactive, expired, cancelled or past due ("Subscription is
/// inactive", Aomail's 403; "Stripe subscription past due"): only paying brings it back.
fn says_subscription_lapsed(text: &str) -> bool {
    let words = words(text);
    (0..words.len()).any(|i| {
        matches!(words[i], "subscription" | "subscriptions")
            && words[i + 1..(i + 5).min(words.len())].iter().any(|w| {
                matches!(
                    *w,
                    "inactive" | "expired" | "cancelled" | "canceled" | "lapsed" | "past"
                )
            })
    })
}

/// See [`says_context_overflow`]: a size in bytes ("5MB", "50 mb", "10485760 bytes") named as the
/// cap of a file, an image, an upload, code or a document ("must be under", "must not exceed",
/// "exceeds").
pub fn says_size_capped(text: &str) -> bool {
    let subject = says_any(
        text,
        &[
            "file",
            "image",
            "upload",
            "attachment",
            "audio",
            "video",
            "pdf",
            "photo",
            // "Code exceeds maximum size of 100KB" (a code beautifier's 400).
            "code",
            "document",
            "payload",
            // Czech: the file ("Soubor je příliš velký. Limit je 25 MB.", ZEdu's import).
            "soubor",
        ],
    );
    let capped = says_any(
        text,
        &[
            "must be under",
            "must not exceed",
            "must be smaller than",
            "must be less than",
            "exceeds",
            // ("IMAGE_INPUT_EXCEEDED_MAXIMUM_5_MB", Antigv-plugin's 400, read as its words.)
            "exceeded maximum",
            "exceeded the maximum",
            "too large",
            "a smaller",
            "or less",
            "or smaller",
            // Czech: too large.
            "příliš velk",
        ],
    );
    let words = words(text);
    let sized = words.iter().enumerate().any(|(i, w)| {
        let unit = |u: &str| matches!(u, "mb" | "kb" | "gb" | "bytes");
        w.strip_suffix("mb")
            .or_else(|| w.strip_suffix("kb"))
            .or_else(|| w.strip_suffix("gb"))
            .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            || (w.chars().all(|c| c.is_ascii_digit()) && words.get(i + 1).is_some_and(|u| unit(u)))
    });
    subject && capped && sized
}

/// Whether the words name a budget of an hour or longer ("monthly", "per day", "this week"):
/// the period that says a limit is a quota.
pub fn names_a_long_budget(text: &str) -> bool {
    says_any(text, LONG_BUDGETS) && !says_any(text, SHORT_BUDGETS)
}

/// A rate limiter's rule named by its period of a day ("ruleName": "rpd", "tpd"), or a quota of
/// the total kind over its limit (Arks: `{"Key": "type", "Value": "total"}` beside `"overLimit":
/// true`): no wait of minutes refills either.
fn says_daily_rule_or_total_quota(text: &str) -> bool {
    let words = words(text);
    let has = |w: &str| words.contains(&w);
    has("rpd")
        || has("tpd")
        || (has("quota") && has("total") && (has("overlimit") || has("exceeded")))
}

/// A wait until a period's boundary: a calendar date at midnight, or with no time ("Retry after
/// 2024-03-15 00:00:00 +0000 UTC", or as an HTTP date, "resets at Tue, 30 Dec 2025 00:00:00
/// GMT"), the reset of a day's or a month's budget. A date at any other
/// time ("Retry after 2024-03-14 09:12:40 +0000 UTC" for a concurrency limit) is usually now plus a
/// few seconds, and says nothing of the horizon without the response's clock.
fn says_wait_until_a_date(text: &str) -> bool {
    const LEADS: &[&str] = &[
        "retry after ",
        "try again after ",
        "reset at ",
        "resets at ",
        "available again at ",
    ];
    LEADS.iter().any(|lead| {
        text.match_indices(lead).any(|(at, _)| {
            let rest = &text.as_bytes()[at + lead.len()..];
            // YYYY-MM-DD
            let dated = rest.len() >= 10
                && rest[..4].iter().all(u8::is_ascii_digit)
                && rest[4] == b'-'
                && rest[5..7].iter().all(u8::is_ascii_digit)
                && rest[7] == b'-'
                && rest[8..10].iter().all(u8::is_ascii_digit);
            // Then midnight, or no time of day at all.
            let time = &rest[10.min(rest.len())..];
            // Or an HTTP date (IMF-fixdate, lower-cased) at midnight: "tue, 30 dec 2025
            // 00:00:00 gmt".
            let http_date_at_midnight = rest.len() >= 29
                && rest[3] == b','
                && rest[12..16].iter().all(u8::is_ascii_digit)
                && &rest[16..29] == b" 00:00:00 gmt";
            http_date_at_midnight
                || dated
                    && (time.starts_with(b" 00:00:00")
                        || time.starts_with(b"t00:00:00")
                        || !time
                            .get(1..3)
                            .is_some_and(|t| t.iter().all(u8::is_ascii_digit)))
        })
    })
}

/// An allowance, a limit or a quota named as used up: "daily allowance used up", "quota exhausted",
/// "api key 日限额已用完" (the key's daily limit is used up). One per minute or second is a rate.
fn says_used_up(text: &str) -> bool {
    // "You have exhausted your capacity on this model": the account's capacity is its allowance.
    let text = &text.replace("your capacity", "your allowance");
    // A plan's "entitlement" is its allowance ("token plan entitlement exhausted").
    const WHAT: &[&str] = &[
        "allowance",
        "entitlement",
        "entitlements",
        "limit",
        "quota",
        "credits",
        "tokens",
    ];
    const SPENT: &[&str] = &[
        "used up",
        "exhausted",
        "depleted",
        "spent",
        "run out",
        "ran out",
    ];
    let english = SPENT.iter().any(|spent| {
        text.match_indices(spent).any(|(at, _)| {
            // A whole word: Google's status `RESOURCE_EXHAUSTED` quoted in a relay's text is a
            // label (a per-minute throttle), not an allowance said to be used up.
            if text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_') {
                return false;
            }
            let before = words(&text[..at]);
            let after = words(&text[at + spent.len()..]);
            before
                .iter()
                .rev()
                .take(3)
                .chain(after.iter().take(2))
                .any(|w| WHAT.contains(w))
        })
    });
    let chinese =
        says_any(text, &["额度", "限额", "配额"]) && says_any(text, &["用完", "用尽", "耗尽"]);
    // Italian and Vietnamese: the quota or credit spent or exceeded (`QUOTA_ESAURITA`, an Italian
    // sales assistant's code; "Đã vượt quá quota của Gemini API.", THITHI-AI's answer).
    let other = says_any(
        text,
        &[
            "quota esaurita",
            "credito esaurito",
            "crediti esauriti",
            "vượt quá quota",
            // Romanian: all the free questions used ("Ai folosit toate cele 10 întrebări
            // gratuite din Demo.", YANA's 429); Czech: a test account's AI limit, full access by
            // registering ("Testovací účet má limit AI generování. Pro plný přístup se
            // zaregistrujte.", ZEdu's 429).
            "ai folosit toate",
            // French: the quota exceeded ("Quota API dépassé. Attendez 24h ...", Story2Book; one
            // per minute, "30 req/min", is a rate).
            "quota api dépassé",
            "quota dépassé",
            // ("... car le quota OpenAI a été dépassé.", Lokario's assistant message.)
            "quota openai a été dépassé",
            "quota a été dépassé",
            "quota est dépassé",
            "testovací účet má limit",
            // ("API key không có quota free tier (limit: 0).": the key has no quota at all.)
            "không có quota",
        ],
    );
    (english || chinese || other) && !says_any(text, SHORT_BUDGETS)
}

/// A quota or a budget named as run out, in whatever words: "user quota is not enough", "quota
/// exhausted", "insufficient ... quota", "Budget has been exceeded", "用户额度不足". One per
/// minute or second is a rate limit.
fn says_quota_ran_out(text: &str) -> bool {
    const RAN_OUT: &[&str] = &[
        "insufficient",
        "enough",
        "exhausted",
        "exceeded",
        "depleted",
        "used",
        "run",
        "ran",
        "reached",
        "remaining",
    ];
    let words = words(text);
    let named = words.iter().enumerate().any(|(i, w)| {
        // Three words back ("insufficient ... quota"), seven on: a name can come between the quota
        // and what happened to it ("Your quota for Dify Hosted OpenAI has been exhausted").
        let near = &words[i.saturating_sub(3)..(i + 8).min(words.len())];
        // A budget too ("Budget has been exceeded! ... Max budget: 2.5"), but not a parameter such
        // as `budget_tokens`.
        (*w == "quota"
            || w.ends_with("_quota")
            || w.starts_with("quota_")
            || *w == "budget"
            || *w == "budget_exceeded")
            && near.iter().any(|n| RAN_OUT.contains(n))
    });
    // Refused by a quota ("Not allowed by AI quota", the Gramps Web API's 405; "Request denied
    // by ai quota check"): the quota is what stands in the way, whatever the status.
    let refused_by_quota = (1..words.len()).any(|i| {
        words[i] == "by"
            && matches!(
                words[i - 1],
                "allowed" | "denied" | "blocked" | "refused" | "rejected" | "prevented"
            )
            && words[i + 1..(i + 3).min(words.len())].contains(&"quota")
    });
    ((named || refused_by_quota) && !says_any(text, SHORT_BUDGETS))
        // (达到额度限制: the quota's limit reached, chatgpt-mirai-qq-bot.)
        || says_any(
            text,
            &["额度不足", "配额不足", "配额已用完", "额度已耗尽", "达到额度限制"],
        )
        // Nothing left of it: "Request denied by ai quota check, No quota left".
        || says_any(text, &["no quota left", "no quota remaining", "quota left: 0"])
        // Every free token used ("You've used all your free tokens. Create an account for 5M
        // more!", SurfSense's anonymous quota): more comes only with an account.
        || says_any(text, &["used all your free", "used all of your free", "used up all your"])
        // A free trial's cap reached ("You have exceeded the chat limit for the Free Trial.",
        // Continue's hub): only paying lifts it.
        || says_any(text, &["for the free trial", "free trial limit", "free trial's limit"])
        // "No allowance left today. Wait tomorrow or upgrade ..." (Lunary's playground).
        || says_any(text, &["no allowance left", "no allowance remaining", "wait tomorrow"])
        || says_used_up(text)
}

/// A plan or a tier that does not include what was asked ("Your current subscription plan does not
/// yet include access to GLM-5", "not included in your plan", "upgrade your plan"): paying more,
/// not waiting, is what cures it.
fn says_plan_lacks(text: &str) -> bool {
    const PLAN: &[&str] = &["plan", "subscription", "tier", "package", "trial"];
    // Negated: "upgrade to our Plus plan" on its own is an offer, not a refusal. "Support" as
    // written ("trial currently not support the GPT-4 model").
    const LACKS: &[&str] = &[
        "include", "includes", "included", "cover", "covers", "covered", "support", "supports",
    ];
    const NOT: &[&str] = &["not", "no", "doesn", "don", "isn", "aren", "without"];
    let words = words(text);
    // An upgrade named as what it takes to get the feature ("Upgrade your plan to enable Captain
    // AI", Chatwoot's 422): the plan lacks it. An upgrade offered beside another failure
    // ("High traffic detected. ... upgrade to our Plus plan") names no feature so.
    if words.windows(5).any(|w| {
        w[0] == "upgrade"
            && matches!(w[1], "your" | "the")
            && PLAN.contains(&w[2])
            && w[3] == "to"
            && matches!(w[4], "enable" | "use" | "access" | "unlock" | "get")
    }) {
        return true;
    }
    // A feature that needs a higher plan ("Feature 'workspace_chat' requires an upgraded plan.",
    // Tracecat's 403), or one not in the plan the caller has ("Ask Sourcebot is not available in
    // your current plan"; "model is not available in the current token plan"): paying more cures
    // it.
    // (Or a plan named as required: "Pro plan required for batch processing", ListGenie's 403;
    // or one or higher, "AI reply generation requires a Starter plan or higher.", or the feature
    // not available on the caller's: "AI replies not available on Basic plan".)
    if words
        .windows(3)
        .any(|w| PLAN.contains(&w[0]) && w[1] == "or" && matches!(w[2], "higher" | "above"))
        || words.windows(5).any(|w| {
            w[0] == "not"
                && w[1] == "available"
                && matches!(w[2], "on" | "in" | "with" | "for")
                && w[3..].iter().any(|n| PLAN.contains(n))
        })
    {
        return true;
    }
    if words.windows(3).any(|w| {
        matches!(w[0], "requires" | "require" | "needs")
            && matches!(w[1], "an" | "a" | "the")
            && matches!(w[2], "upgraded" | "higher" | "paid" | "premium")
    }) || words
        .windows(2)
        .any(|w| matches!(w[0], "plan" | "subscription" | "tier") && w[1] == "required")
        || words.windows(3).any(|w| {
            matches!(w[0], "plan" | "subscription" | "tier") && w[1] == "is" && w[2] == "required"
        })
        || words.windows(5).any(|w| {
            matches!(w[0], "available" | "included")
                && w[1] == "in"
                && matches!(w[2], "your" | "the")
                && matches!(w[3], "current" | "present")
                && w[4..].iter().any(|n| PLAN.contains(n) || *n == "token")
        })
    {
        return true;
    }
    // A model kept from trial accounts ("unavailable for the current account due to restriction
    // (e.g. trial_not_allowed)", notion2api).
    if says_any(
        text,
        &[
            "trial_not_allowed",
            "not allowed on trial",
            "not allowed for trial",
        ],
    ) {
        return true;
    }
    // A tier said to fall short ("Subscription tier insufficient", "insufficient plan").
    if words.windows(2).any(|w| {
        (PLAN.contains(&w[0]) && w[1] == "insufficient")
            || (w[0] == "insufficient" && PLAN.contains(&w[1]))
    }) {
        return true;
    }
    // A paid tier's users only ("model is only supported for premium users", Brave's 403).
    if says_any(
        text,
        &[
            "only supported for",
            "only available for",
            "only available to",
            "only for",
        ],
    ) && words.windows(2).any(|w| {
        ["premium", "pro", "plus", "paid", "subscribed", "vip"].contains(&w[0])
            && matches!(
                w[1],
                "user" | "users" | "members" | "subscribers" | "accounts" | "plans"
            )
    }) {
        return true;
    }
    // A paid tier's users only ("plus user only" from a ChatGPT relay, asked for a GPT-4 model):
    // the plan lacks what was asked for.
    const PAID_TIERS: &[&str] = &["plus", "pro", "premium", "paid", "vip", "subscriber"];
    if words.windows(3).any(|w| {
        PAID_TIERS.contains(&w[0])
            && matches!(w[1], "user" | "users" | "member" | "members")
            && w[2] == "only"
    }) {
        return true;
    }
    words.iter().enumerate().any(|(i, w)| {
        let near = around(&words, i, 5);
        PLAN.contains(w)
            && near.iter().any(|n| LACKS.contains(n))
            && near.iter().any(|n| NOT.contains(n))
            // A plan named by a request parameter ("service_tier") is not the account's.
            && !near.iter().any(|n| n.contains('_'))
    })
}

/// A usage limit named ([`USAGE_LIMITS`]), or in Chinese a usage or allowance (使用量, 用量, 额度)
/// beside its cap or its end (上限, 用完, 用尽), whatever words run between them
/// ("探索版使用量已达到上限").
fn names_a_usage_limit(text: &str) -> bool {
    says_any(text, USAGE_LIMITS)
        // The caller at "the limit", of no kind and with no wait offered ("You have reached the
        // limit (check the Insights Tab > Limits > Users).", AI Engine's per-user cap): a usage
        // cap. With a retry offered ("... please try again later!") it is a rate.
        || (says_any(
            text,
            &[
                "you have reached the limit",
                "you have reached your limit",
                "you've reached the limit",
                "you've reached your limit",
            ],
        ) && !says_any(text, &["try again", "retry", "later", "wait"]))
        // A limit and the remedy of a bigger plan ("Your assistant limit has been reached. Please
        // upgrade your plan to increase your limit.", Grist), with no retry offered: paying, not
        // waiting, lifts it.
        // A limit reached whose remedy is asking the vendor for more ("Reached requests limit. If
        // you need more requests let us know on hi@pythagora.ai", Pythagora's 400): a person
        // lifts it, not a wait.
        || (text.contains("limit")
            && says_any(text, &["if you need more"])
            && says_any(text, &["let us know", "contact us", "reach out"]))
        // A free plan's cap and the remedy of a paid one ("Free plan is limited to 3 tasks.
        // Upgrade to Pro.", FocusForageAI's 403).
        || (says_any(text, &["plan is limited to", "tier is limited to"])
            && says_any(text, &["upgrade"]))
        || (says_any(text, &["upgrade your plan", "upgrade your subscription"])
            && text.contains("limit")
            && !says_any(text, &["try again", "retry", "later", "wait"]))
        // A count's limit reached, of no rate and with no wait offered ("AI generated form limit
        // reached", ConvoForm's plan cap on AI-made forms; "Free plan limit reached"): only a
        // bigger plan lifts it. A rate's, a concurrency's or a size's is not this.
        || says_a_count_limit_reached(text)
        // A cap on what the account may keep ("You have reached the maximum number of
        // conversations. Delete some to continue."): only deleting, never waiting, frees it.
        || says_any(text, &["delete some to continue", "delete some of them"])
        // (Or the number said to exceed its maximum: "The number of conversations you have
        // exceeds the system maximum of 100", BotSharp's cap on a day's conversations. Sessions
        // at once are a concurrency, not a count kept.)
        || ((says_any(text, &["maximum number of", "max number of"])
            || (says_any(text, &["number of"]) && says_any(text, &["maximum", "the limit"])))
            && says_any(
                text,
                &[" conversations", " chats", " sessions", " projects", " assistants", " files", " agents"],
            )
            && says_any(text, &["reached", "exceeded", "exceeds"])
            && !says_any(text, &["concurrent", "at once", "simultaneous"]))
        // Chinese: a paid membership offered as the remedy ("电量不足，开通会员享受更多权益": not
        // enough "power", subscribe for more).
        || says_any(text, &["开通会员", "升级会员", "购买会员"])
        // Portuguese and Spanish: no attempts left, a purchase asked ("Você não tem mais
        // tentativas. Faça uma compra para ganhar mais tentativas!", a Brazilian stamp shop's 403).
        || says_any(
            text,
            &[
                "não tem mais tentativas",
                "sem tentativas",
                "faça uma compra",
                "no tienes más intentos",
                "sin intentos",
            ],
        )
        // A membership or a package expired, renewal asked ("您的会员已过期，无法使用算力。请续费会员后
        // 再试。", SFire AI's 200): only paying brings it back, as a lapsed subscription.
        || says_any(
            text,
            &["会员已过期", "会员已到期", "会员过期", "续费会员", "套餐已过期", "套餐已到期", "订阅已过期"],
        )
        // A day's count at its cap ("您今日请求次数已达上限，请明天再来": today's requests at the cap,
        // come back tomorrow).
        || (says_any(text, &["今日", "今天", "当日", "每日", "每天"])
            && says_any(text, &["上限", "已达", "用完", "用尽", "超过", "超出"]))
        // Turkish: the quota's limit reached ("AI servisi kota limitine ulaştı.", NapiFit's 500);
        // Persian: your usage limit with the provider has come to an end ("محدودیت استفاده شما از
        // سرویس‌دهنده به پایان رسیده است", a Django CMS's 429); Thai: today's quota used up, try
        // tomorrow ("วันนี้ AI ใช้ครบโควต้าแล้ว ลองใหม่พรุ่งนี้นะครับ", a Thai chatbot's 200).
        || says_any(text, &["kota limitine ulaştı", "kota doldu", "kotası doldu", "kota aşıldı"])
        // A total for one thing the caller works on ("Rate limit: Maximum number of Feedbot
        // responses (10) for this assignment has been reached.", Pawtograder's 429): no wait
        // refills it, as a plan's limit per photo does not.
        || (says_any(text, &["maximum number of", "max number of"])
            && says_any(
                text,
                &[
                    "for this assignment",
                    "for this course",
                    "for this project",
                    "for this document",
                    "per assignment",
                ],
            ))
        // Russian: no questions left, the limit spent ("Нет доступных вопросов", an AI-lawyer
        // app's 403 when the paid questions are used).
        || says_any(
            text,
            &["нет доступных вопросов", "вопросы закончились", "лимит исчерпан", "лимит запросов исчерпан"],
        )
        || (says_any(text, &["محدودیت استفاده", "سهمیه"])
            && says_any(text, &["به پایان رسیده", "تمام شده"]))
        || (says_any(text, &["โควต้า"]) && says_any(text, &["ครบ", "หมด", "เต็ม"]))
        // An hour's count too high ("1 小时内对话次数过多，请切换模型或稍后再试！", 99AI's 200 for its
        // per-model hourly cap): an hourly limit, a quota.
        // (A minute's cap beside a ban for the day, "已超出类别 C 每分钟上限（10 次/分）……（24 小时内第 1 次
        // 超限……）", Dify2API's 403, is a rate.)
        || (says_any(text, &["小时内", "每小时"])
            && says_any(text, &["次数过多", "过多", "上限", "超过", "超出"])
            && !says_any(text, &["每分钟", "每秒", "次/分", "次/秒"]))
        || says_any(text, &["明天再来", "明日再来"])
        // (使用次数: the count of uses, "该功能使用次数已达上限".)
        // (Or the quota, 配额: "账号月度配额已用完", AMQ2API's 429.)
        || (says_any(text, &["使用量", "用量", "额度", "配额", "使用次数"])
            && says_any(text, &["上限", "用完", "用尽"]))
}

/// Whether the wording says a plan's usage cap was reached ("5-hour usage limit reached", "you've
/// reached your hourly usage limit"), and names neither a per-minute budget nor a wait shorter than
/// [`QUOTA_HORIZON_MS`]. A rate-limit label does not overrule it.
pub fn says_usage_cap(text: &str) -> bool {
    let text = &without_links_and_key_names(text);
    names_a_usage_limit(text)
        && !says_any(text, SHORT_BUDGETS)
        && retry_horizon_ms(text).is_none_or(|ms| ms >= QUOTA_HORIZON_MS)
}

/// The wait a message states before a retry can succeed: "Please try again in 8m45.312s",
/// "Please retry after 86400 seconds", "try again after 1 seconds", "resets in 3 hours".
pub fn retry_horizon_ms(text: &str) -> Option<u64> {
    const LEADS: &[&str] = &[
        "try again in ",
        "try again after ",
        "retry after ",
        "retry in ",
        "resets in ",
        "reset after ",
        "wait ",
        // Chinese: "请等待约 24 小时后再试" (wait about 24 hours, then try again).
        "等待",
    ];
    LEADS.iter().find_map(|lead| {
        let start = text.find(lead)? + lead.len();
        duration_ms(&text[start..]).or_else(|| vague_duration_ms(&text[start..]))
    })
}

/// A wait said without a number ("wait a few minutes", "try again in a moment"): minutes at most,
/// well under [`QUOTA_HORIZON_MS`].
fn vague_duration_ms(rest: &str) -> Option<u64> {
    [
        ("a few seconds", 5_000),
        ("a few minutes", 180_000),
        ("a couple of minutes", 120_000),
        ("a minute", 60_000),
        ("a moment", 30_000),
    ]
    .iter()
    .find(|(said, _)| rest.starts_with(said))
    .map(|(_, ms)| *ms)
}

/// Whether a completion is the silent overflow: the provider ended it at its length limit (finish
/// `length`) before producing anything, no text, no tool call, no reasoning. Servers that do not
/// refuse an over-long prompt answer this way (vLLM once logged "Input prompt (2664 tokens) is too
/// long" and returned `text='', finish_reason=length`). A length finish after reasoning is the
/// output budget spent on thinking, not an overflow.
pub fn is_silent_overflow(finished_by_length: bool, has_output: bool) -> bool {
    finished_by_length && !has_output
}

/// A generation stopped by its length, reported as the failure ("Model returned MAX_TOKENS stop
/// reason, the max tokens limit was exceeded.", WorkflowAI's 413): no answer came, the silent
/// overflow said in words, though the output's cap is named; no output parameter over its cap.
fn says_generation_stopped_by_length(text: &str) -> bool {
    says_any(
        text,
        &[
            "max_tokens stop reason",
            "stop reason max_tokens",
            "stopped due to max_tokens",
        ],
    )
}

/// An output parameter over its cap, which says nothing about the prompt: "max_tokens must be less
/// than or equal to 16384", "max_tokens (10000) cannot exceed 8192. Please reduce the length of max
/// output tokens generated". The output parameter is named and the input is not: a sum of the input
/// and the output over a limit (TGI's "`inputs` tokens + `max_new_tokens` must be <= 2048", "input
/// length and max_tokens exceed context limit") is an overflow.
/// An output parameter said to go over its cap ("Combined tokens (budget_tokens 32768 +
/// max_tokens 40000 = 72768) exceeds the maximum limit of 64000", "max_tokens (10000) cannot
/// exceed 8192"): the request's parameters are wrong, not its length.
pub fn says_output_parameter_over_cap(text: &str) -> bool {
    !says_generation_stopped_by_length(text)
        && says_output_parameter_cap(text)
        && says_any(
            text,
            &[
                "exceed",
                "greater than",
                "more than",
                "larger than",
                "over the",
            ],
        )
}

fn says_output_parameter_cap(text: &str) -> bool {
    const OUTPUT_PARAMETERS: &[&str] = &[
        "max_tokens",
        // Anthropic's thinking budget, summed with max_tokens.
        "budget_tokens",
        "max_new_tokens",
        "max_completion_tokens",
        "max_output_tokens",
        "maxtokens",
    ];
    let words = words(text);
    let names_output = words.iter().any(|w| OUTPUT_PARAMETERS.contains(w))
        || says_any(text, &["output tokens", "completion tokens"]);
    names_output && !words.iter().any(|w| INPUT_WORDS.contains(w))
}

/// What names the input, or a total that includes it.
const INPUT_WORDS: &[&str] = &[
    "prompt",
    "prompts",
    "input",
    "inputs",
    "total",
    "context",
    "message",
    "messages",
    "conversation",
    "sequence",
    "history",
];

/// Whether the words name a budget per minute or per second as the one hit: "per minute", "per
/// second", or a rate by its abbreviation ("exceeds tpm/rpm limit", "RPS limit").
pub fn says_per_minute_budget(text: &str) -> bool {
    says_any(
        text,
        &["per minute", "per min", "per second", "/min", "/sec"],
    ) || words(text)
        .iter()
        .any(|w| ["tpm", "rpm", "rps", "tps", "qpm", "qps"].contains(w))
}

/// A per-minute budget named as the one hit, and no money or allowance said to have run out: what
/// outranks a vendor's quota label or its money words ("inference exceeds tpm/rpm limit" under
/// `insufficient_quota`; "... not yet added your payment method ... reduced rate limits of 3 RPM").
pub fn says_only_a_per_minute_budget(text: &str) -> bool {
    says_per_minute_budget(text) && !says_allowance_spent(text)
}

/// A throughput budget worded in tokens: per minute, per day, and so on.
fn says_throughput_budget(text: &str) -> bool {
    SHORT_BUDGETS
        .iter()
        .chain(LONG_BUDGETS)
        .any(|p| text.contains(p))
}

/// The text with every `http://` or `https://` word removed, and every key's variable name
/// (`DAILY_API_KEY`, `openai_api_key`): an upsell link ("settings/billing",
/// "aka.ms/oai/quotaincrease") is not what the error says, nor is a budget named in a variable
/// ("DAILY_API_KEY not configured on server" names no daily budget).
fn without_links_and_key_names(text: &str) -> String {
    let key_name = |w: &str| {
        let w = w
            .trim_matches(|c: char| !c.is_alphanumeric() && c != '_')
            .to_ascii_lowercase();
        w.contains('_')
            && ["_key", "_token", "_secret"]
                .iter()
                .any(|end| w.ends_with(end))
    };
    if !text.contains("http") && !text.contains('_') {
        return text.to_string();
    }
    text.split(' ')
        .filter(|w| !w.contains("http://") && !w.contains("https://") && !key_name(w))
        .collect::<Vec<_>>()
        .join(" ")
}

/// A duration at the start of `text`: compound ("8m45.312s", "1h2m") or a number and a unit word
/// ("86400 seconds", "3 hours").
fn duration_ms(text: &str) -> Option<u64> {
    let mut total = 0f64;
    // "resets in ~5s", "try again in about 20 seconds".
    let text = text.trim_start();
    let text = ["~", "about ", "approximately ", "around ", "约"]
        .iter()
        .find_map(|p| text.strip_prefix(p))
        .unwrap_or(text);
    let mut rest = text.trim_start();
    let mut any = false;
    loop {
        let digits = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        if digits == 0 {
            break;
        }
        let Ok(n) = rest[..digits].parse::<f64>() else {
            break;
        };
        let after = rest[digits..].trim_start();
        let unit_len = after
            .find(|c: char| !c.is_ascii_alphabetic())
            .unwrap_or(after.len());
        let zh_unit_len = ["毫秒", "秒", "分钟", "小时", "天"]
            .iter()
            .find(|u| unit_len == 0 && after.starts_with(**u))
            .map_or(0, |u| u.len());
        let scale = match &after[..unit_len] {
            "ms" | "millisecond" | "milliseconds" => 1.0,
            "s" | "sec" | "secs" | "second" | "seconds" => 1_000.0,
            "m" | "min" | "mins" | "minute" | "minutes" => 60_000.0,
            "h" | "hr" | "hrs" | "hour" | "hours" => 3_600_000.0,
            "d" | "day" | "days" => 86_400_000.0,
            // Chinese units ("请等待约 24 小时后再试": wait about 24 hours).
            "" => match ["毫秒", "秒", "分钟", "小时", "天"]
                .iter()
                .position(|u| after.starts_with(u))
            {
                Some(0) => 1.0,
                Some(1) => 1_000.0,
                Some(2) => 60_000.0,
                Some(3) => 3_600_000.0,
                Some(4) => 86_400_000.0,
                _ => break,
            },
            _ => break,
        };
        total += n * scale;
        any = true;
        rest = &after[unit_len.max(zh_unit_len)..];
    }
    (any && total.is_finite()).then_some(total as u64)
}

/// The provider's servers full, in English and Chinese: "upstream load saturated", "busy", "this
/// model has too much traffic now" ("该模型当前访问量过大"), "load too high", "overloaded".
const OVERLOAD_WORDING: &[&str] = &[
    "overloaded",
    // Portuguese and Spanish ("A IA está indisponível ou sobrecarregada no momento.", a
    // Brazilian finance site's 502).
    "sobrecarregad",
    // Romanian: temporarily overloaded ("Serviciul AI este temporar supraîncărcat.", YANA's 429);
    // Hebrew: not available right now ("שירות ה-AI אינו זמין כרגע. נסה שוב בעוד כמה דקות.",
    // AdPilot's 500).
    "supraîncărcat",
    // French: temporarily overloaded or unavailable ("Le service Google Gemini est
    // temporairement surchargé.", Story2Book; "Service temporairement indisponible.", Zeii).
    "surchargé",
    "temporairement indisponible",
    // Thai: the AI cannot be used at the moment ("ระบบ AI ไม่สามารถใช้งานได้ในขณะนี้", FarmMe).
    "ไม่สามารถใช้งานได้ในขณะนี้",
    "אינו זמין כרגע",
    "לא זמין כרגע",
    "sobrecargad",
    // A one-at-a-time server busy with another call ("some Method is already being executed.",
    // manga-image-translator's 429).
    "already being executed",
    // Too many users at once ("There are too many users now. Please try again a bit later.",
    // coze-discord-proxy): the servers', not one caller's rate.
    "too many users now",
    "too many users right now",
    "too many users at the moment",
    // The server's workers all taken ("workers limit", the TEN framework's agent server under a
    // 429, when every worker it may start is running): its capacity, not the caller's rate.
    "workers limit",
    "worker limit reached",
    "no free workers",
    "no idle workers",
    "all workers are busy",
    // A server still starting, not yet taking work ("System initializing", an NPC server's first
    // event): the servers not ready, retried shortly, as a model still loading under a 503 is. A
    // start that failed ("Failed to initialize", "not initialized") is a broken server instead.
    "system initializing",
    "system initialising",
    "server initializing",
    "service initializing",
    "is initializing",
    "is initialising",
    "still initializing",
    "is starting up",
    "still starting up",
    "is warming up",
    "still warming up",
    // "Rejecting execution due to overload: 2 requests already enqueued" (Vespa's 429).
    "due to overload",
    "server overload",
    "system overload",
    // An engine or a model said to be unavailable, with no more said ("engine is unavailable"
    // under LLMariner's 500): 503's meaning.
    "engine is unavailable",
    "engines are unavailable",
    "model is unavailable",
    "model is currently unavailable",
    // "AI service is unavailable." (Keep's 500), as "AI service unavailable" already was; a 4xx
    // reads it first as the server's side (see `by_server_side_words`).
    "service is unavailable",
    "service is currently unavailable",
    // "The AI provider is temporarily unavailable. Please try again in a few minutes.": 503's
    // meaning in words (a model "temporarily unavailable" while it scales up, too).
    "temporarily unavailable",
    // "Sorry, the assistant is unavailable right now. Try again in a few minutes." (Grist's 500).
    "unavailable right now",
    // Chinese: "busy" ("GLM 长时间忙碌，请稍后重试。": busy for a long time), temporarily unavailable
    // ("服务暂时不可用，请稍后再试", InnerMap's 500), as "temporarily unavailable" is.
    // Turkish: busy; every service at its limit or out of reach ("Tüm servislerde limit dolmuş
    // veya erişilemedi.", a guide site's 500 after its fallbacks), as "all providers unavailable".
    "meşgul",
    // Arabic: the AI service not available now ("خدمة الذكاء الاصطناعي غير متاحة حالياً. يرجى
    // المحاولة لاحقاً.", Banda Chao's 500).
    "غير متاحة حالياً",
    "غير متاحة حاليا",
    "غير متاح حالياً",
    "غير متاح حاليا",
    "tüm servislerde limit",
    "tüm servisler dolu",
    "忙碌",
    // Chinese: many tasks at the moment ("当前生图任务较多，请稍后再试", a web-novel platform's image
    // generator), as "当前用户较多" is.
    "任务较多",
    "任务过多",
    "任务繁忙",
    "暂时不可用",
    "暂不可用",
    // German: heavy load, overloaded ("Momentan liegt eine starke Auslastung vor. Bitte in einigen
    // Sekunden erneut versuchen.", MUCGPT's words for an upstream 429 under its 500).
    "starke auslastung",
    "hohe auslastung",
    "überlastet",
    "ausgelastet",
    // A one-worker server busy ("Already running a prediction" under Cog's 409, "LLM is running"
    // from ax-llm while its one generation runs).
    "llm is running",
    "already running a prediction",
    // ("Thread is already running a task. Wait for it to finish ...", the LangGraph.js server's
    // 422 for a second run on a busy thread.)
    "already running a task",
    "already running a request",
    "already processing a request",
    // A server that takes one request at a time, busy with another ("Server is currently
    // processing another request" under openedai-vision's 429): its capacity, not the caller's rate.
    "processing another request",
    "busy with another request",
    "handling another request",
    // A server, or a chat persona for it, overwhelmed or handling many requests ("I'm a bit
    // overwhelmed right now. Please try again in a moment!", PawBuck's Milo under a 400; "I'm
    // currently handling many requests. Please try again in a few seconds.", a leasing chatbot's
    // 200): its load, not the caller's rate.
    "overwhelmed",
    "handling many requests",
    "handling a lot of requests",
    "handling lots of requests",
    "handling a high number of requests",
    // The servers' memory budget spent ("Memory limit exceeded" under a 429).
    "memory limit exceeded",
    "memory limit reached",
    // "bedrock is experiencing high connection volume and cannot process your request right now".
    "high volume",
    "high connection volume",
    "high request volume",
    "over capacity",
    "at capacity",
    "high demand",
    "heavy load",
    "high load",
    "high traffic",
    "heavy traffic",
    "too much traffic",
    // A system past its load, dropping what it can ("system saturated, sheddable request dropped").
    "saturated",
    "load shedding",
    "shedding load",
    "sheddable",
    "负载已饱和",
    "繁忙",
    // A bot persona's words for its upstream too busy ("我现在有点累了，等会再来吧", I am a bit tired
    // now, come back later: chatgpt-on-wechat).
    "有点累了",
    // "当前用户较多，排队中，请稍后再试！" (many users now, queueing: JeecgBoot's AI module).
    "用户较多",
    "排队中",
    "访问量过大",
    "负载过高",
    // "机器人负载过多，请稍后再试" (the robot's load too much, try later: a chat bot).
    "负载过多",
    "过载",
    // DeepSeek's "insufficient system resource" (its finish reason
    // `insufficient_system_resource`), as an app relays it: the inference system out of room.
    "insufficient system resource",
    "insufficient_system_resource",
];

/// Limits only a request's length can break.
const CONTEXT_LIMITS: &[&str] = &[
    // transformers' generate(): "Input length of input_ids is 1530, but `max_length` is set to
    // 1024".
    "input length of input_ids",
    // The input and the output summed over the model's limit ("the sum of input and output
    // seqence lengths shoud be less than 8192", sic, Yuan's Megatron server).
    "sum of input and output",
    // llama.cpp's `NoKvSlot` ("llama_decode failed: 'NoKvSlot'", "could not find a KV slot for the
    // batch"): the prompt has no room in the context's cache. When the words say the parallel
    // requests took the room, that was read before as overload.
    "nokvslot",
    "no kv slot",
    "find a kv slot",
    // MLX servers' cap on a request's cache of keys and values, the context they can hold ("Request
    // needs 9 context tokens (5 prompt + 4 max generation), but MAX_KV_SIZE is 8.").
    "max_kv_size",
    "max kv size",
    // BLOOM's inference server: "max supported input length = 2048 for now".
    "max supported input length",
    // OpenVINO GenAI's prompt cap on an NPU ("Check 'data->input_ids.get_size() <=
    // m_max_prompt_len' failed").
    "max_prompt_len",
    "context length",
    "context_length",
    "context window",
    "context_window",
    "context size",
    "context limit",
    "maximum context",
    "max context",
    "sequence length",
    "maximum model length",
    "max_model_len",
    "maximum prompt length",
    "maximum number of tokens",
    // A limit on the input alone, named: "input token limit is 97280", "max_input_tokens".
    "input token limit",
    "input tokens limit",
    "prompt token limit",
    "max input tokens",
    "maximum input tokens",
    "max_input_tokens",
    // llama.cpp's context size by its name: "Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)".
    "n_ctx",
    // The context ran out, in words or as one label-like word (llamafile's whole body:
    // "out_of_context_due_to_long_message").
    "out of context",
    "out_of_context",
];
/// Length limits of a general kind: they need [`EXCESS`] beside them.
const LENGTH_LIMITS: &[&str] = &[
    "max length",
    "maximum length",
    "input length",
    "prompt length",
    "length limit",
    "token limit",
    // "media exceeds size limit: max 10485760 bytes": a request too large is an overflow too.
    "size limit",
    "must be <=",
    "must be less than or equal",
];
/// The request over a limit.
const EXCESS: &[&str] = &[
    "exceed",
    "too long",
    "too large",
    "longer than",
    "greater than",
    "larger than",
    "you requested",
    "resulted in",
    "given:",
    // A constraint the input broke: "Range of input length should be [1, 204800]".
    "should be",
];
/// What can be too long.
const LONG_SUBJECTS: &[&str] = &[
    "prompt",
    // "Question too long, max 4096 tokens" (AIDeepin): the user's input.
    "question",
    "input",
    "inputs",
    "request",
    "message",
    "messages",
    "conversation",
    "context",
    // "Value at 'body' failed to satisfy constraint": the request's body.
    "body",
    // "Payload is too big. Max payload size is 32MB."
    "payload",
    // The input's text ("Action text too long", flask-roleplay).
    "text",
    // A recording given as the input ("Video duration is too long", EasyVideoTrans).
    "video",
    "audio",
    // A document given as the input ("Resume is too long. Found 53817 characters, maximum
    // allowed: 50000 characters.", JobSync).
    "document",
    "documents",
    "resume",
    "transcript",
    // A story or an article pasted as the input ("story too long (6001 chars, max 6000)",
    // Debugging Saga's 400).
    "story",
    "article",
    "essay",
    // Files given as the input ("The attached files are too large to work with", Redbox: their
    // tokens over the model's context).
    "attached files",
];
/// A schema validator's upper bound on a length (Bedrock's, AWS's): it needs one of
/// [`LONG_SUBJECTS`]. A lower bound ("must have length greater than or equal to 1") is an empty
/// field, not an overflow.
const SCHEMA_LENGTH_LIMITS: &[&str] = &["maxlength", "must have length less than"];
/// The provider asking for a shorter input.
const SHORTEN: &[&str] = &[
    "reduce the length of the messages",
    "reduce the length of either",
    "reduce your prompt",
    "decrease input length",
];
const MONEY: &[&str] = &[
    "credit",
    // Dutch: the available credit ("OpenAI heeft de limiet of het beschikbare tegoed bereikt.", a
    // Dutch recipe assistant's 429).
    "tegoed",
    // Russian: not enough funds on the balance ("Недостаточно средств на балансе", a Russian
    // platform's 403).
    "недостаточно средств",
    // "You have reached the price limit" (telli): a spending cap.
    "price limit",
    "cost limit",
    // Phrases, not the bare word: a "load balancer" is not money.
    "insufficient balance",
    "balance is insufficient",
    "balance is too low",
    // "group `default` balance not enough".
    "balance not enough",
    "balance is not enough",
    "not enough balance",
    "account balance",
    "billing",
    "recharge",
    "top up",
    "payment required",
    // Zuplo: "Payment is overdue. Please update your payment method."
    "payment is overdue",
    "payment overdue",
    "update your payment method",
    "spending limit",
    "spend limit",
    // (A quota named as run out is `says_quota_ran_out`: per minute, it is a rate.)
    "insufficient funds",
    // AI Horde's currency: "This shared key does not have enough remaining kudos (0)".
    "kudos",
    // Points as a platform's currency (FastGPT: "team_error.ai_points_not_enough"; 积分不足).
    "points_not_enough",
    "points not enough",
    "not enough points",
    "insufficient points",
    "积分不足",
    // iFlytek's "AppIdNoAuthError ... tokens.total": the app's token allowance is spent.
    "tokens.total",
    // Chinese: "insufficient balance", "in arrears", "please recharge" ("余额不足或无可用资源包,请充值").
    "余额不足",
    // "User has been owed, please check the account status and balance." (Huawei Cloud's
    // ModelArts: the account in arrears, 欠费, as its English words it).
    "has been owed",
    "account is owed",
    // "您的算力不足，请购买算力。" (GeekAI: the user's compute credit is spent; buy more).
    "算力不足",
    "欠费",
    "请充值",
];
/// A limit of zero, which no wait refills ("Quota exceeded for metric: ..., limit: 0, model:
/// gemini-2.5-pro": the plan has no quota for the model); "limit: 05" or "limit: 0.5" is not zero,
/// and neither is a setting such as LiteLLM's `tpm_limit: 0` (no limit set).
fn says_zero_limit(text: &str) -> bool {
    text.match_indices("limit: 0").any(|(at, m)| {
        !text[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_')
            && !text[at + m.len()..].starts_with(|c: char| c.is_ascii_digit() || c == '.')
    })
}

/// A free offer over, or a subscription asked for to go on: paying, not waiting, is what helps.
const OFFER_ENDED: &[&str] = &[
    "promotion has ended",
    "promotion ended",
    "free tier has ended",
    "trial has ended",
    "trial ended",
    "trial has expired",
    "trial expired",
    "by subscribing",
    "subscribe to continue",
    // "Trial AI generation limit (10) reached. Upgrade to continue." (Zyra AI's 403).
    "upgrade to continue",
    "subscription is required",
    "subscription required",
    // A plan's cap on a model, with the default model still open ("Request limit exceeded. You can
    // continue with the default model now, or try again after ...", chat2api for ChatGPT).
    "continue with the default model",
    // A feature's uses spent ("Your Idea has run out of uses, please use the new invite code").
    "run out of uses",
    "ran out of uses",
    "out of uses",
    // APIPark's counter: "out of calls".
    "out of calls",
];
const USAGE_LIMITS: &[&str] = &[
    "usage limit",
    // A cap on what an account keeps ("This workspace has reached its attachment storage
    // limit.", ToolJet).
    "storage limit",
    "usage cap",
    // "Feature limit exceeded: 3/3 used" (FitAI under a 403): the plan's count of a feature.
    "feature limit",
    // A plan's own cap ("Free plan limit reached, please upgrade to continue.", contentport; a
    // free tier's: "Execution count exceeded the free tier limit", Julep).
    "plan limit",
    "free tier limit",
    // A subscription's window of use spent ("You've hit your session limit · resets 10:10pm",
    // "You've hit your limit · resets 3am": Claude's plans, whose windows last hours).
    "hit your limit",
    "hit your session limit",
    "hit your weekly limit",
    "hit your daily limit",
    "hit your monthly limit",
    "session limit reached",
    // Use past the plan that must be bought ("Extra usage is required for 1M context · enable
    // extra usage at claude.ai/settings/usage").
    "extra usage is required",
    "enable extra usage",
    // A plan's count of predictions (Flowise Cloud: "Predictions limit exceeded").
    "predictions limit",
    "prediction limit",
    // AWS's account quota ("Service quota exceeded"; its throttling per minute is a
    // ThrottlingException, a rate).
    "service quota exceeded",
    // A count an instance or a plan may hold ("objects count limit of 100 reached for this
    // instance").
    "count limit",
    // Chinese: "usage cap" ("已达到 5 小时的使用上限"), "the allowance is used up".
    "使用上限",
    "用量上限",
    "额度已用完",
    "额度已用尽",
];
/// Budgets that refill within minutes.
const SHORT_BUDGETS: &[&str] = &[
    "per second",
    "per min",
    "per minute",
    "(tpm)",
    "(rpm)",
    // "rate limited to 4 prompts per minute" (oai-reverse-proxy's own limit).
    "prompts per minute",
    // "limited to 10 API calls / minute".
    "/ second",
    "/second",
    "/ sec",
    "/sec",
    "/ min",
    "/min",
];
/// Budgets of an hour or longer: whoever hits one waits up to its whole period, past
/// [`QUOTA_HORIZON_MS`] (the design's "a retry horizon of an hour or more" is quota).
const LONG_BUDGETS: &[&str] = &[
    // A retry a day away ("Maybe try again tomorrow.", Grist's 503 for long-term capacity
    // issues): waiting a retry's worth will not cure it.
    "try again tomorrow",
    "come back tomorrow",
    // A retry hours away ("please try again in a few hours", Capsera's 503 with every key at
    // its limit): no retry's wait.
    "in a few hours",
    "in several hours",
    // Vietnamese: in 24 hours, a day ("Bạn đã sử dụng 10/10 lượt chat trong 24 giờ.",
    // VietExplore AI's 429).
    "trong 24 giờ",
    "mỗi ngày",
    "per hour",
    "/ hour",
    "/hour",
    "hourly",
    // "Too many request from this IP in 1 hour" (chatgpt-web's window).
    "in 1 hour",
    "in one hour",
    "in an hour",
    // A window of days ("Usage $0.1023 / $0.1 in 7 days", aipipe's weekly budget).
    "in 7 days",
    "in 30 days",
    "per day",
    "per-day",
    // "only allowed to send 50 requests in a period of 1 day" (a Moodle AI manager).
    "period of 1 day",
    "period of one day",
    // A budget's name as one word ("Maximum tokens_per_day reached", Zed's LLM service).
    "_per_day",
    "daily",
    "(tpd)",
    "(rpd)",
    "per week",
    "weekly",
    "per month",
    "monthly",
    // "Yearly limit of 50 LLM calls reached. Limit resets on January 1st." (PayslipMax).
    "yearly",
    "per year",
    "annual",
    // Italian: a day's limit, try again tomorrow ("Hai raggiunto il limite giornaliero di domande.
    // Riprova domani ...", an Italian sales assistant's 429).
    "giornalier",
    // Hungarian: a day's limit, try tomorrow ("Elérted a napi 50 kérés limitet. Próbáld meg
    // holnap!", a Hungarian webshop's 429).
    " napi ",
    "holnap",
    "riprova domani",
    "al giorno",
    "/giorno",
    // "limited to 1000 API calls / month".
    "/ day",
    "/day",
    "/ week",
    "/week",
    "/ month",
    "/month",
    "a day",
    "a month",
    "each month",
    // "Token limit exceeded. Remaining: 120 tokens this month." (GameCuaTui's 429).
    "this month",
    "this week",
    "per calendar month",
    // "The number of visits exceeds today's visits".
    "today's",
    "for today",
    // "You have exceeded your maximum number of messages for the day" (Vercel's ai-chatbot).
    "for the day",
    // APIPark: "API rate limit of day exceeded", "... of hour exceeded".
    "limit of day",
    "limit of hour",
    "limit of week",
    "limit of month",
    "per 24 hours",
    // Portuguese and Spanish: daily, monthly ("Limite diário de extrações atingido", HoraMed's 429).
    "diário",
    "diária",
    "diario",
    "diaria",
    "mensal",
    "mensual",
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::text::normalize;

    fn overflow(s: &str) -> bool {
        says_context_overflow(&normalize(s))
    }
    fn quota(s: &str) -> bool {
        says_quota_exhausted(&normalize(s))
    }

    #[test]
    fn overflow_in_whatever_words() {
        for s in [
            "This model's maximum context length is 16384 tokens. However, you requested 19591 tokens",
            "the request exceeds the available context size. try increasing the context size",
            "The input (61709 tokens) is longer than the model's context length (40960 tokens).",
            "prompt is too long: 219898 tokens > 200000 maximum",
            "Please reduce the length of the messages or completion.",
            "Input validation error: `inputs` tokens + `max_new_tokens` must be <= 2048. Given: 2019 `inputs` tokens",
            "input length and `max_tokens` exceed context limit: 174167 + 64000 > 200000",
            "The decoder prompt (length 21535) is longer than the maximum model length of 16384",
            "Malformed input request: expected maxLength: 42000, actual: 46735, please reformat your input and try again.",
            "1 validation error detected: Value at 'body' failed to satisfy constraint: Member must have length less than or equal to 25000000",
            "输入长度超过模型的最大上下文长度",
            "请求的 token 数超过了模型的最大长度",
            "输入内容过长，请缩短后重试",
            "too many tokens: total number of tokens (prompt and prediction) cannot exceed 2048 - received 6354.",
            "Try using a shorter prompt",
            "consider enabling prompt truncation",
            "Please reduce the number of tokens in your messages",
            "total message size 2100954 exceeds limit 2097152",
            "request size exceeds the maximum allowed",
        ] {
            assert!(overflow(s), "{s}");
        }
    }

    #[test]
    fn overloaded_is_servers_full_and_capacity_without_tokens() {
        let overloaded = |s: &str| says_overloaded(&normalize(s));
        for s in [
            "Capacity temporarily exceeded, please try again.",
            "Service tier capacity exceeded for this model.",
            "The model is overloaded",
            "We are experiencing high demand",
            "该模型当前访问量过大",
        ] {
            assert!(overloaded(s), "{s}");
        }
        for s in [
            "the prompt exceeds the model's capacity of 4096 tokens",
            "rate limit reached",
            "invalid model",
        ] {
            assert!(!overloaded(s), "{s}");
        }
    }

    #[test]
    fn a_schema_length_bound_is_an_overflow_only_when_the_input_breaks_it_from_above() {
        for s in [
            "Value at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must have length less than or equal to 64",
            "Value at 'messages.1.member.content' failed to satisfy constraint: Member must have length greater than or equal to 1",
            "模型不存在，请检查模型名称",
        ] {
            assert!(!overflow(s), "{s}");
        }
    }

    #[test]
    fn not_overflow_when_tokens_mean_throughput_or_a_parameter() {
        for s in [
            "Request too large for model `llama-3.3-70b` on tokens per minute (TPM): Limit 6000, Requested 10338, please reduce your message size",
            "max_tokens must be less than or equal to 16384, the maximum value for max_tokens is less than the context_window for this model",
            "Input validation error: `max_new_tokens` must be <= 192",
            "max_tokens: 100000 > 64000, which is the maximum allowed number of output tokens",
            "Too many tokens, please wait before trying again.",
            "Please reduce the request rate",
            "Rate limit reached for requests",
            "Invalid API key provided",
            // A size that names no file, image or upload the request carries.
            "model weights exceed 20 GB of GPU memory",
        ] {
            assert!(!overflow(s), "{s}");
        }
    }

    #[test]
    fn a_file_or_an_image_over_a_size_in_bytes_is_an_overflow() {
        for s in [
            "image file size exceeds the limit of 20 MB",
            "Image must be under 5MB",
            "File size must not exceed 50MB",
            "Image too large. Please upload a smaller image (max 4MB).",
        ] {
            assert!(overflow(s), "{s}");
        }
    }

    #[test]
    fn quota_is_money_a_usage_limit_or_a_long_budget() {
        for s in [
            "Insufficient credits. Add more using https://openrouter.ai/settings/credits",
            "Insufficient Balance",
            "you've reached your hourly usage limit, please wait or upgrade to continue",
            "Rate limit exceeded: free-models-per-day. Add 10 credits to unlock 1000 free model requests per day",
            "Number of request tokens has exceeded your daily rate limit",
            "is suspended due to insufficient balance, please recharge your account",
            "The selected model requires paid balance. Your paid balance is insufficient.",
            "余额不足或无可用资源包,请充值。",
            "已达到 5 小时的使用上限。您的限额将在 2026-08-25 07:41:44 重置。",
            "您的账户已欠费",
            "You are using a Trial key, which is limited to 1000 API calls / month.",
            "Quota exceeded for metric: generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro. Please retry in 20s.",
            "Your current subscription plan does not yet include access to GLM-5",
            "This model is not included in your plan",
            "api key 日限额已用完",
            "your daily allowance is used up",
        ] {
            assert!(quota(s), "{s}");
        }
        for s in [
            // Upsell links are not the error.
            "on tokens per minute (TPM): Limit 6000. Need more tokens? Upgrade at https://console.groq.com/settings/billing",
            // A daily budget that frees up in minutes is a rate limit.
            "on tokens per day (TPD): Limit 100000. Please try again in 8m45.312s.",
            "exceeded token rate limit of your current OpenAI S0 pricing tier. Please retry after 60 seconds. Please go here: https://aka.ms/oai/quotaincrease",
            "no healthy upstream behind the load balancer",
            // An offer, not a refusal; a plan that includes a rate.
            "High traffic detected. For a more stable experience, upgrade to our Plus plan",
            "your plan includes 60 requests per minute",
            "quota per minute exhausted",
            "Hit limit for key. Current limits: tpm_limit: 0, rpm_limit: 0",
        ] {
            assert!(!quota(s), "{s}");
        }
    }

    #[test]
    fn an_allowance_spent_outranks_a_rate_label_a_quota_merely_exceeded_does_not() {
        let spent = |s: &str| says_allowance_spent(&normalize(s));
        for s in [
            "Insufficient balance or no resource package. Please recharge.",
            "Your current subscription plan does not yet include access to GLM-5",
            "api key 日限额已用完",
            "token allowance exhausted for today",
            "Number of request tokens has exceeded your daily rate limit",
        ] {
            assert!(spent(s), "{s}");
        }
        for s in [
            "Quota exceeded for aiplatform.googleapis.com/generate_content_requests_per_minute",
            "Rate limit reached for requests per day (RPD): Limit 200, Used 200. Please try again in 7m12s.",
            "Insufficient balance for this rate tier. Please try again in 20s",
            "quota per minute exhausted",
            // A limit that is not zero, and the bare word "billing" (Gemini's per-minute 429).
            "Quota exceeded for metric: x, limit: 10, model: m",
            "You exceeded your current quota, please check your plan and billing details.",
        ] {
            assert!(!spent(s), "{s}");
        }
    }

    #[test]
    fn retry_horizons_in_words() {
        let h = |s: &str| retry_horizon_ms(&normalize(s));
        assert_eq!(h("Please try again in 8m45.312s. Need more"), Some(525_312));
        assert_eq!(h("Please try again in 17.359s."), Some(17_359));
        assert_eq!(h("Please retry after 86400 seconds."), Some(86_400_000));
        assert_eq!(h("please try again after 1 seconds"), Some(1_000));
        assert_eq!(h("Your quota resets in 3 hours"), Some(10_800_000));
        assert_eq!(h("please wait before trying again"), None);
        assert_eq!(h("no horizon here"), None);
        // In Chinese: "请等待约 24 小时后再试".
        assert_eq!(
            h("当前账号的该功能使用次数已达上限，请等待约 24 小时后再试"),
            Some(86_400_000)
        );
    }

    #[test]
    fn a_retry_after_in_milliseconds_is_read_as_the_words_say() {
        let words = normalize(
            "This model type is rate limited to 4 prompts per minute. Please try again in 39 seconds.",
        );
        // `Retry-After: 38214` (milliseconds) beside "39 seconds": 38.2 s, not 10.6 hours.
        assert_eq!(retry_after_in_its_own_unit(38_214_000, &words), 38_214);
        // A header that agrees with the words, or words that state no wait: the header stands.
        assert_eq!(retry_after_in_its_own_unit(39_000, &words), 39_000);
        assert_eq!(
            retry_after_in_its_own_unit(38_214_000, "rate limited"),
            38_214_000
        );
    }

    #[test]
    fn a_rate_limit_outlasting_a_retry_is_quota() {
        let azure = normalize(
            "exceeded token rate limit of your current S0 pricing tier. Please retry after 86400 seconds.",
        );
        assert_eq!(
            outlasting_rate_limit(codes::RATE_LIMITED, &azure, None),
            codes::QUOTA_EXCEEDED
        );
        assert_eq!(
            outlasting_rate_limit(codes::RATE_LIMITED, "slow down", Some(3_600_000)),
            codes::QUOTA_EXCEEDED
        );
        assert_eq!(
            outlasting_rate_limit(codes::RATE_LIMITED, "please retry after 60 seconds", None),
            codes::RATE_LIMITED
        );
        assert_eq!(
            outlasting_rate_limit(codes::RATE_LIMITED, "slow down", Some(59_000)),
            codes::RATE_LIMITED
        );
        // Only rate limits: a long retry-after on an overload stays an overload.
        assert_eq!(
            outlasting_rate_limit(codes::OVERLOADED, "busy", Some(7_200_000)),
            codes::OVERLOADED
        );
    }

    #[test]
    fn a_policy_refusal_by_what_was_judged() {
        let refusal = |s: &str| says_policy_refusal(&normalize(s));
        for s in [
            "Request contains prohibited content",
            "harmful or illegal content detected",
            "Request doesn't match allow patterns",
            "request matched blocked patterns",
            "Request blocked by Lakera Guard",
            "blocked by the moderation service",
            "request body exceeds toxicity threshold",
            "Possible prompt injection detected",
        ] {
            assert!(refusal(s), "{s}");
        }
        for s in [
            "403 Forbidden",
            "the parameter 'seed' is forbidden for this model",
            "Request blocked by rate limiting",
            "Comprehend:detectToxicContent() failed to connect",
            "Your IP is not in the allowlist",
            "the content field is required",
            "prohibited characters in the model name",
        ] {
            assert!(!refusal(s), "{s}");
        }
    }

    #[test]
    fn silent_overflow_is_a_length_finish_with_nothing() {
        assert!(is_silent_overflow(true, false));
        assert!(!is_silent_overflow(true, true));
        assert!(!is_silent_overflow(false, false));
    }
}
