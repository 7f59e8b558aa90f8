//! The labels and wordings the steps look for, by meaning. A wording here is a phrase found in a
//! real provider's answer (the comments say whose); the tests in guests/openai/tests/classify.rs
//! hold each meaning.

/// A credential named with what is wrong with it ("Access token invalid or no longer valid",
/// "the api key has been revoked"), within two words either way.
pub(super) const CREDENTIALS: &[&str] = &[
    "token",
    "apikey",
    // "No API keys found" ("api keys" becomes "apikeys").
    "apikeys",
    "api_key",
    // "Missing Authentication header", "invalid authorization".
    "authentication",
    "authorization",
    "accesskey",
    "credential",
    "credentials",
    // A web session's cookies, the credential of proxies over a chat site ("empty cookies").
    "cookie",
    "cookies",
    // An app's own license key, the credential it checks before calling its AI ("licenseKey is
    // not validated!", BibiGPT's 500).
    "licensekey",
];

pub(super) const CONTEXT_LABELS: &[&str] = &[
    "context_length_exceeded",
    "context_window_exceeded",
    "exceed_context_size_error", // llama.cpp
    "model_context_window_exceeded",
    "request_too_large", // Anthropic: the request over the API's size limit
];
pub(super) const QUOTA_LABELS: &[&str] = &[
    "insufficient_quota",
    "exceeded_current_quota_error", // Moonshot
    "billing_hard_limit_reached",
    "billing_not_active",
    "budget_exceeded", // LiteLLM proxy: a key's or a team's budget
    "billing_error",   // Anthropic
    "insufficient_balance",
    "insufficient_credits",
    "payment_required",
    "arrearage", // Alibaba DashScope: an unpaid bill
    // Google's quota details (see `read_google_detail`).
    "quota_per_day",
    "quota_limit_zero",
];
/// Labels that name a failure of the provider's own, as a 5xx status does, from a provider with a
/// label of its own for overload: Anthropic's `api_error` beside its `overloaded_error`. Not
/// OpenAI's `server_error`, which is all OpenAI has for "That model is currently overloaded with
/// other requests" in a stream.
pub(super) const SERVER_LABELS: &[&str] = &["api_error"];
/// OpenAI's 429 `type` is the exhausted budget: `tokens` or `requests`.
pub(super) const RATE_LABELS: &[&str] = &[
    "tokens",
    "requests",
    "resource_exhausted",
    "too_many_requests",
    "quota_per_minute",
];

/// A wait for the engine (a slot, a worker) that ran out: the server had no room in time.
pub(super) const WAITED_OUT: &[&str] = &["timed out waiting for", "timeout waiting for"];
/// The request could not be read or did not validate.
pub(super) const INPUT_REJECTED_WORDING: &[&str] = &[
    // Russian: an input the AI cannot read, a scanned PDF with no text layer ("PDF-файл содержит
    // только изображение ... AI не может прочитать сканированный PDF.", an AI-lawyer app's 200):
    // only another input can succeed.
    "не может прочитать",
    // The request's query or input judged invalid ("query is invalid", Karpor's catch-all 500).
    "query is invalid",
    "input is invalid",
    "prompt is invalid",
    // A backend that lacks what the request asks ("current backend lacks eval primitives",
    // Robot Buddy's 501).
    "backend lacks",
    "lacks support for",
    // Swedish: only image files are supported, not supported ("Endast bildfiler stöds för
    // kvittoanalys.", Kvitty's 200).
    "endast bildfiler",
    "stöds inte",
    "validation error",
    // German: the request invalid ("Anfrage ungueltig", FreeScout's AI Assist).
    "anfrage ungültig",
    "anfrage ungueltig",
    "ungültige anfrage",
    "ungueltige anfrage",
    // A value outside the ones allowed, listed ("Language sv not supported. Must be one of ('en',
    // ...)", Auralis's 500), or the request's parameters said to be wrong ("Invalid request
    // parameters", coze-discord-proxy's 500).
    "must be one of",
    "invalid request parameters",
    "invalid request parameter",
    // JSON Schema's bounds on a parameter ("0 is less than the minimum of 1 - 'max_tokens'",
    // api-for-open-llm's 500).
    "is less than the minimum of",
    "is greater than the maximum of",
    // A JSON Schema validator's words for the request's document ("[] is too short - 'messages'",
    // "'model' is a required property", "123 is not of type 'string'").
    "is too short",
    "is a required property",
    // The request's body not read ("request.body is undefined", "invalid OpenAI request body"),
    // and Easegress's "failed to create AI context: ..." (its reading of the client's request).
    "body is undefined",
    "invalid request body",
    "invalid openai request body",
    "unsupported request path",
    "failed to create ai context",
    // Pydantic's "Field required" ("status 500: err model field required").
    "field required",
    // BLOOM's inference server: "max supported batch size = 4 for now".
    "max supported batch size",
    "is not of type",
    "additional properties are not allowed",
    "is not valid under any of the given schemas",
    "parsing input",
    "parse input",
    "parsing the input",
    "parsing request",
    "parsing the request",
    "parse the request",
];
/// A service the provider runs behind the request failed: a server-side failure under any status.
/// A server down for maintenance or without a model loaded is one too.
pub(super) const SERVICE_FAILURE_WORDING: &[&str] = &[
    "under maintenance",
    "for maintenance",
    // The engine failing mid-generation ("Inference error: Could not decode next token").
    "decode next token",
    // A part of the server's setup missing ("Vector search index not configured" under
    // Fairward's 503): the server's, not its capacity.
    "index not configured",
    "vector store not configured",
    "database not configured",
    // Generation failed every try ("Failed to generate trivia question after 3 attempts" under a
    // 503; "Failed to generate schema after all attempts"): the server's own failure, not
    // capacity.
    "after all attempts",
    "attempts failed",
    // The server's model did not load ("LLM Compliance Advisor is not available. LLM model failed
    // to load.", a PDPL checker's 503): broken, not busy. (A model the request names that cannot
    // be loaded, "Failed to load model 'x': Model directory 'x' not found", is read by its cause.)
    "model failed to load",
    // The model the server is configured with, not installed ("Het geconfigureerde Qwen3.5-model
    // is nog niet geïnstalleerd op Ollama.", a Dutch recipe assistant's 503): its setup, not its
    // load. (A model the request names, not pulled, is the request's.)
    "is nog niet geïnstalleerd",
    "models failed to load",
    // Every upstream failed ("All LLM providers failed" under a 429, "All providers failed"): the
    // server's, as tuning judges it.
    "all providers failed",
    "all llm providers failed",
    "all configured llm providers failed",
    // The call to the model not even started ("Error: Failed to create AI stream", Apache
    // Answer's whole answer when its client could not open the upstream's stream).
    "failed to create ai stream",
    "failed to create stream",
    "failed to create chat completion",
    "failed to create completion",
    // A server not provisioned for the service asked ("service not provisioned" under a 503).
    "not provisioned",
    // A server not set up to serve ("Service is not available" from llama-cpp-python when no model
    // is set up), not one too busy, which says "unavailable" or "overloaded".
    "service is not available",
    // "AI backend is currently not available. Contact your system administrator." (Nextcloud
    // Assistant under a 400): the server's backend not there, for its administrator to fix.
    "backend is not available",
    "backend is currently not available",
    "backend not available",
    // The same said as not ready ("Service Not Ready" under a 503): a service not up yet or not
    // set up, not one with too much to do.
    "service not ready",
    "service is not ready",
    "server not ready",
    "server is not ready",
    "no model loaded",
    "no models are",
    "no model is loaded",
    "model not loaded",
    "model is not loaded",
    "was unloaded",
    "network error",
    "check error",
    "search error",
    "internal error",
    "upstream error",
    // Japanese: an error at the (upstream's) server ("OpenAI APIサーバーでエラーが発生しました。",
    // bigma.jp's 503): the server's failure, as "upstream error" is.
    "サーバーでエラーが発生",
    "サーバーエラーが発生",
    "backend error",
    // A server going away ("The inference scheduler is shutting down."): not one too busy.
    "shutting down",
    // "All model workers has been shutdown: llama" (DJL Serving).
    "been shutdown",
    "been shut down",
    // "Engine thread has shut down" (crane): the engine gone, not busy.
    "has shut down",
    // The provider's own connection to its backend failed ("finishConnect(..) failed: Connection
    // refused: 10.137.1.77:80" under a 400): nothing the request did.
    "connection refused",
    "failed to connect",
    // "Error connecting to translation service: ..." (DeepLXToV1API's 400): its upstream out of
    // reach, nothing the request did.
    "error connecting to",
    // "Failed to communicate with upstream: [Errno 8] nodename nor servname provided, or not known".
    "failed to communicate",
    "nodename nor servname",
    "name or service not known",
    "name resolution",
    // HAProxy's 503 page: every backend down (failing its health checks); Envoy's and
    // agentgateway's words for the same.
    "no server is available to handle this request",
    "no healthy upstream",
    // Apache ShenYu: "Can not find healthy upstream url after failover!".
    "find healthy upstream",
    "no healthy backend",
    // "No reachable backends found." (ollama_proxy_server's 503).
    "no reachable backend",
    // A provider's outage or a failure it could not name ("OpenAI is experiencing issues", "There
    // was an unexpected issue getting a response from the AI model").
    "is experiencing issues",
    "experiencing an outage",
    "unexpected issue",
    "getting a response",
    // The server's own store unreadable ("Access key storage is unreadable. Fix access-keys.json
    // first.", CodeBuddy2API's 503): broken, not busy.
    "storage is unreadable",
    "store is unreadable",
    "file is unreadable",
    // Japanese: the AI service cannot be connected to ("AIサービスに接続できません。", VN Offshore's
    // 200), as "failed to connect" is.
    "接続できません",
    // Russian: could not connect ("Ошибка подключения: Не удалось подключиться к ollama-service",
    // AI-Engineering's 200).
    "не удалось подключиться",
    "ошибка подключения",
    "接続に失敗",
    // A proxy's failover that failed too ("status 429: err fallback request failed"): the
    // proxy's own failure, whatever status the first attempt got.
    "fallback request failed",
    "fallback failed",
    // Chinese: every attempt failed, and no fallback model ("当前模型重试3次均失败，且无可用降级模型",
    // ruoyi-ai's retry helper).
    "次均失败",
    "无可用降级",
    // A proxy over a chat site that could not open a session there ("Error getting a new session,
    // please try again later").
    "getting a new session",
    "get a new session",
    "create a new session",
    // The gateway got nothing back from the upstream ("Failed to get response from provider").
    "failed to get response",
    "failed to get a response",
    // The gateway's own rate limiter failed ("rate limit failed"), not the account over its rate.
    "rate limit failed",
    "rate limiter failed",
    "could not connect",
    "couldn't connect",
    // "The endpoint cannot be reached" (Lunar's 503): the upstream unreachable, not busy.
    "cannot be reached",
    "could not be reached",
    "connection reset",
    "no route to host",
    // A balancer whose every upstream failed ("All providers failed" under llm-lb's 503): the
    // backends failed; nothing says they were too busy.
    "all providers failed",
    "all upstreams failed",
    "all backends failed",
];
/// The server's own configuration said broken or incomplete: the server's failure, or, with a key
/// named, the credential's (read in `by_server_side_words` and `by_wording`).
pub(super) const CONFIGURATION_BROKEN: &[&str] = &[
    "configuration error",
    // Arabic: an error in the service's configuration ("خطأ في تكوين الخدمة. يرجى التواصل مع الدعم.",
    // Tadabbur's 503).
    "خطأ في تكوين",
    "خطأ في إعداد",
    // Indonesian: the AI's configuration has a problem ("🔑 Konfigurasi AI bermasalah. Hubungi
    // admin.", a portfolio chat's 200).
    "konfigurasi ai bermasalah",
    "configuration is incomplete",
    "configuration incomplete",
    "incomplete configuration",
    // "IMMCAD backend configuration is missing for this deployment. Set IMMCAD_API_BASE_URL ...
    // and IMMCAD_API_BEARER_TOKEN" (IMMCAD's 503): the token it names.
    "configuration is missing",
    "configuration missing",
    "missing configuration",
    // Spanish and Portuguese ("Configuración incompleta", a Spanish math tutor's 503).
    "configuración incompleta",
    "configuración de openai inválida",
    "configuração incompleta",
];
/// An in-band error that says what is wrong with the request.
pub(super) const VALIDATION_WORDING: &[&str] = &[
    // Chinese: cannot be empty (不能为空), not supported (不支持的文件格式: a file format), not
    // valid (链接不合法: a link), not existing (任务不存在: a task).
    "不能为空",
    "不支持",
    "不合法",
    "不存在",
    // "The parameter name is not allowed to be empty", "No valid messages provided.".
    "not allowed to be empty",
    "no valid messages",
    "no valid input",
    // What the request named is not there ("Assistant does not exist").
    "does not exist",
    // What the request lacks, asked for ("Please provide a message.", pgAdmin's
    // `{"success": 0, "errormsg": ...}` in a 200).
    "please provide",
    "must be",
    "must not",
    "must start with",
    "should be",
    "should not",
    // QAnything (sic): "fail, top_k should less than or equal to 100".
    "should less than",
    "should greater than",
    // "Flow must have a ChatInput component to be compatible with OpenAI Responses API".
    "must have",
    "can't be blank",
    "cannot be blank",
    "can't be empty",
    "cannot be empty",
    "is required",
    "unsupported",
    "not supported",
    "invalid",
    "malformed",
    // What the request asked for unknown to the server, or its body unreadable ("Request type
    // '...' was not recognized", "Request did not contain properly formatted json!": Mantella).
    "not recognized",
    "not recognised",
    "unrecognized",
    "unrecognised",
    "properly formatted",
];
pub(super) const CONTENT_WORDING: &[&str] = &[
    // Content judged unfit for children ("We detected content that may not be appropriate for
    // children.", "Theme \"war heroes\" is not suitable for children"; "We were unable to create
    // an appropriate story with the provided details. Please try using different character names
    // or themes.": AI Stories, a children's story writer, under 400s).
    // A message held back by a moderation check ("Your message was moderated, please send a new
    // one.", a Roblox NPC backend's answer).
    "message was moderated",
    "request was moderated",
    "prompt was moderated",
    "appropriate for children",
    "suitable for children",
    "appropriate for kids",
    "suitable for kids",
    "unable to create an appropriate",
    "unable to generate an appropriate",
    // An answer held back by a service's own rules ("... it does not meet the GOV.UK Chat content
    // guidelines."), a question refused for the personal data in it ("Personal data has been
    // detected in your question."), a refusal that asks for another question ("I cannot answer
    // that. Please try asking something else.", its jailbreak guard).
    "content guidelines",
    "personal data has been detected",
    "personal data detected",
    "personal information has been detected",
    "personal information detected",
    "try asking something else",
    // A topic refused ("Let's keep this safe for everyone. Please try a different topic!", Meme
    // Factory; "That topic can't be handled. Please ask about another area.", Saju Astro Chat).
    "try a different topic",
    // "Submission blocked due to policy violations" (an academic-journal reviewer's guardrail).
    "due to policy violation",
    "blocked due to policy",
    "ask about another area",
    "topic can't be handled",
    "topic cannot be handled",
    "couldn't generate safe content",
    "could not generate safe content",
    // A guard plugin's verdict (IBM's MCP Context Forge: "Plugin Violation: Detected categories:
    // self_harm", its code `HARMFUL_CONTENT`).
    "plugin violation",
    "self_harm",
    "self-harm",
    "harmful_content",
    "harmful content",
    // Gemini's harm categories named in a relay's words ("completion blocked due to
    // HarmCategoryDangerousContent with probability HarmProbabilityHigh", k8sgpt).
    "harmcategory",
    "harm_category",
    // Italian: a question "not relevant or not safe" (Tiledesk's input guard: "Domanda non
    // pertinente o non sicura."), content not allowed or inappropriate.
    "non sicura",
    "non sicuro",
    "contenuto non consentito",
    "contenuto inappropriato",
    // "Message was filtered" (chatgpt-on-wechat): its filter stopped the message.
    "was filtered",
    "been filtered",
    "content management policy",
    "content policy",
    "content_policy",
    "content filter",
    "content_filter",
    // Gateways' prompt guards: "Request was filtered by Lakera Guard", "request failed content
    // safety check", "Content moderation failed in the following categories".
    "was filtered by",
    // WSO2's guardrails: "action": "GUARDRAIL_INTERVENED", "... semantic prompt guard constraints".
    "prompt guard",
    "guardrail_intervened",
    // Guardrails AI's validators refusing the output: "Validation failed for field with errors:
    // must be exactly two words" (a field of the guarded output, not of the request).
    "validation failed for field with errors",
    "content safety",
    "content moderation",
    "moderation failed",
    "moderation violation",
    "failed moderation",
    "safety system",
    "input was flagged",
    "was flagged by",
    // MiniMax: "input new_sensitive (1026)"; Chinese providers: "sensitive content" (敏感).
    "new_sensitive",
    "sensitive content",
    "sensitive words",
    "敏感",
    // Chinese: blocked for compliance ("内容由于合规问题已被阻止生成"), content in violation.
    "合规问题",
    "内容违规",
    // German: "Die Anfrage wurde wegen unangemessener Inhalte automatisch blockiert." (telli);
    // "Es wurde ein Richtlinienverstoß festgestellt und der Chat wird hier beendet" (a policy
    // violation found: the City of Munich's MUCGPT, for an upstream `content_filter`).
    "unangemessene",
    // What was generated or asked failed a safety check ("Generation failed safety check.",
    // Inquiro's 500), or breaks its safety policy ("I cannot answer this query as it violates our
    // safety policies."): a verdict on the content, not a check that broke.
    "failed safety check",
    "failed the safety check",
    "failed a safety check",
    "violates our safety polic",
    "violates our content polic",
    "violates our usage polic",
    "richtlinienverstoß",
    "verstoß gegen die richtlinien",
    "inhaltsfilter",
    // "Detected undesirable content with potential risk: Violence (4)" (Chat Copilot).
    "undesirable content",
    // "不要提问违禁内容" (do not ask about prohibited content: a keyword guard's refusal).
    "违禁内容",
    "违规内容",
    "阻止生成",
    // A prompt with stop words, the banned words of a keyword guard ("Prompt contains stop
    // words", a Chinese tarot site's 403).
    "contains stop words",
    "stop words detected",
    // Russian: forbidden content ("Запрещённый контент", CGm's 400).
    "запрещённый контент",
    "запрещенный контент",
    "недопустимый контент",
    // An input blocked by a security guard ("Security: blocked input" beside "보안 정책에 의해 차단된
    // 요청입니다", OpenManager Vibe's 400).
    "blocked input",
    "input was blocked",
    "input blocked",
    // Chinese: the input or the output contains violating information ("灵感内容包含违规信息，
    // 无法生成", "生成的内容包含违规信息，已退款", SFire AI's 200s).
    "包含违规",
    "含有违规",
    "违规信息",
    // The same as a code ("ILLEGAL_PROMPT", Antigv-plugin's 500 for Antigravity's refusal): an
    // illegal prompt is one a policy refused, not a malformed one ("illegal value" is that).
    "illegal prompt",
    "prompt is illegal",
    // Portuguese and Spanish: blocked by safety filters ("A mensagem foi bloqueada por filtros de
    // segurança.", a crane-management ERP's 400).
    "filtro de segurança",
    "filtros de segurança",
    // (Or its safety systems: "O conteúdo foi filtrado pelos sistemas de segurança.", a
    // Brazilian stamp shop's 500.)
    "sistemas de segurança",
    "sistema de segurança",
    "sistemas de seguridad",
    // Content restrictions ("This image cannot be processed due to content restrictions.",
    // Accessibility.Build's 400): the content refused, not malformed.
    "content restrictions",
    "content restriction",
    "filtro de seguridad",
    "filtros de seguridad",
];
pub(super) const AUTH_WORDING: &[&str] = &[
    // French: the API key invalid, expired, not configured or missing ("Clé API invalide ou
    // expirée.", "Clé API non configurée.", Story2Book's 500s; Zeii's 400).
    "clé api invalide",
    "clé api non configurée",
    "clé api expirée",
    "clé api manquante",
    // Korean: the key not set ("OpenAI API 키가 설정되지 않았습니다.", an auction shop's 500;
    // "GOOGLE_API_KEY가 서버에 설정되어 있지 않습니다.", EduAtalk's 503).
    "키가 설정되지",
    "키가 설정되어 있지",
    "_key가 서버에 설정되어 있지",
    // Thai: the AI's API key not set up yet ("ระบบ AI ยังไม่ได้ตั้งค่า API key", FarmMe).
    "ไม่ได้ตั้งค่า api key",
    // Polish: no API configuration, add the API key ("Brak konfiguracji API. ... dodaj klucz
    // API.", a councillors' assistant's 400).
    "dodaj klucz api",
    "brak klucza api",
    "brak konfiguracji api",
    // Arabic: make sure you added your API_KEY and that it is valid ("يرجى التأكد من إضافتك ال
    // API_KEY الخاص بك ومن صلاحيته!", an Arabic learning app's 500).
    "إضافتك ال api_key",
    // Vietnamese: no access permission ("Lỗi: Không có quyền truy cập.", THITHI-AI's answer for
    // Gemini's 403).
    "không có quyền truy cập",
    // Japanese: the API key not set ("OpenAI APIキーが設定されていません。", bigma.jp's 500);
    // Portuguese and Spanish: the API key not found or not set ("Erro de Configuração: API Key não
    // encontrada.", a Brazilian finance site's 500).
    "apiキーが設定されていません",
    "apiキーが未設定",
    "apiキーが無効",
    "api key não encontrada",
    "api key não configurada",
    "chave de api não",
    "chave da api não",
    "api key no encontrada",
    "api key no configurada",
    "clave de api no",
    // Portuguese and Spanish: an authentication error with the AI service ("Erro de autenticação
    // com o serviço de IA. Verifique o token REPLICATE_API_TOKEN ...", a Brazilian stamp shop's
    // 500).
    "erro de autenticação",
    "falha de autenticação",
    "error de autenticación",
    // Portuguese and Spanish: the API key invalid ("Chave de API inválida. Verifique se a chave
    // está correta ...", a crane-management ERP's 500).
    "chave de api inválida",
    "chave da api inválida",
    "chave api inválida",
    "api key inválida",
    "clave de api inválida",
    "clave api inválida",
    // A key's configuration to check, or the provider's credentials to configure ("No LLM
    // providers available. Check API key configuration.", Lock-in's 503; "AI Content Generator is
    // not initialized. Please configure AI provider credentials (OPENAI_API_KEY, ...)",
    // TinDevelopers' 503): nothing set up to call with.
    "check api key configuration",
    "check your api key configuration",
    "check the api key configuration",
    "configure ai provider credentials",
    "configure provider credentials",
    "configure the provider credentials",
    "configure your provider credentials",
    // A key's variable missing or empty ("OPENAI_API_KEY environment variable is missing or
    // empty", a review reply generator's 500).
    "_key environment variable is missing",
    "_key environment variable is empty",
    "_key is missing or empty",
    // A key's variable that must be set ("[config_invalid] DIFY_API_KEY must be set in the
    // environment", EssayCoach's 500), or required in Turkish ("ROBOFLOW_API_KEY veya
    // GEMINI_API_KEY gerekli. En az birini tanımlayın.", NapiFit's 503).
    "_key must be set",
    "api key must be set",
    "_key gerekli",
    "api key gerekli",
    "anahtarı gerekli",
    // Japanese: the key not set, written apart ("Gemini API キーが設定されていません", ai-chat-v3).
    "api キーが設定されていません",
    // Thai: the API key not found ("⚠️ ไม่พบ API KEY ครับ", a Thai chatbot's 200).
    "ไม่พบ api key",
    // Indonesian: the API key invalid or not found, access refused ("Kunci API tidak valid atau
    // akses ditolak.", a prompt generator's 502; "API Key tidak ditemukan", a portfolio chat's
    // 500).
    "kunci api tidak valid",
    "api key tidak valid",
    "kunci api tidak ditemukan",
    "api key tidak ditemukan",
    "akses ditolak",
    // Russian: a key's variable not set ("HUGGINGFACE_API_KEY не установлен", a Q&A assistant's
    // 500); Polish: the OpenAI key's configuration required ("Chatbot wymaga konfiguracji klucza
    // OpenAI.", a bus-carrier portal's 500).
    "_key не установлен",
    "_key не задан",
    "api-ключ не",
    "ключ api не",
    "konfiguracji klucza",
    // A key not provided or invalid ("Either OpenAI key was not provided or was invalid",
    // Parseable's plain-text 500).
    "key was not provided",
    "key was invalid",
    // French and German: a key's variable not defined or missing ("OPENROUTER_API_KEY n'est pas
    // définie dans les variables d'environnement", Horizon AI's 500; "ANYTHINGLLM_API_KEY fehlt",
    // a physiotherapy assistant's 500).
    "_key n'est pas défini",
    "clé api n'est pas défini",
    "_key fehlt",
    "api-key fehlt",
    "api key fehlt",
    "api-schlüssel fehlt",
    // Turkish: the API key invalid or not found ("🔑 API key geçersiz!", FrameOS's 500; "API key
    // bulunamadı (Environment Variables kontrol edin)", Neurocore's 500).
    "api key geçersiz",
    "api anahtarı geçersiz",
    "api key bulunamadı",
    "api anahtarı bulunamadı",
    // Chinese: add an account or a key ("没有可用的账号，请添加账号", Antigv-plugin's 500 with none
    // added): nothing set up to call with, unlike none free for now ("没有可用的CLI账户，请稍后重试",
    // capacity), where waiting is the remedy.
    "请添加账号",
    // ("没有可用的账号，请在管理页面添加账号或配置 .env 文件", AMQ2API's 503: add one in the admin page.)
    "添加账号",
    // The credential's token could not be refreshed ("Token 刷新失败", AMQ2API's 502).
    "token 刷新失败",
    // ("Token AT无效或刷新失败", Flow2API's 503: the access token invalid or its refresh failed.)
    "无效或刷新失败",
    // A key missing, as a code's words ("NO_API_KEY", NextCRM's 402).
    "no api key",
    "token刷新失败",
    "刷新token失败",
    "token refresh failed",
    "failed to refresh token",
    "failed to refresh the token",
    // Hebrew: the key not set on the server ("המפתח לא הוגדר בשרת.", Solaya Vault's 500); Persian:
    // a key's variable not set ("GEMINI_API_KEY تنظیم نشده", CapWise's 500).
    "המפתח לא הוגדר",
    "מפתח api לא הוגדר",
    "_key تنظیم نشده",
    "کلید api تنظیم نشده",
    "请先添加账号",
    "请添加账户",
    "请添加密钥",
    "请添加凭证",
    // A key asked to be set up, as the remedy ("AI features are currently unavailable. Please
    // ensure the Gemini API key is configured.", a leasing chatbot's 200).
    "api key is configured",
    "api key is properly configured",
    "api key is correctly configured",
    // Spanish: the OpenAI key to configure, missing or to check ("... contacta al administrador
    // para configurar la clave API de OpenAI.", "... porque falta la clave de API de OpenAI.", a
    // Spanish math tutor's 503s; "Por favor, verifica tu API key.", a study assistant's 500).
    "configurar la clave",
    "falta la clave",
    "verifica tu api key",
    "verifica tu clave",
    // Indonesian: the API keys not configured yet ("API Keys belum dikonfigurasi di Vercel.",
    // MPT Warrior's 503).
    "api key belum",
    "api keys belum",
    "kunci api belum",
    // Credentials that could not be set up or found ("Error setting up AWS credentials",
    // marimo's 400; botocore's "Unable to locate credentials").
    "setting up aws credentials",
    "setting up credentials",
    "unable to locate credentials",
    "failed to load credentials",
    "could not load credentials",
    // A site's password ("Password Incorrect", RisuAI's node server).
    "password incorrect",
    "incorrect password",
    "wrong password",
    "invalid password",
    // Chinese: a wrong password (密码错误, ChatGPT-Vercel's site password).
    "密码错误",
    "密码不正确",
    // "Ensure your API key is valid and you have an account." (Swarms, under a 500).
    "ensure your api key",
    "make sure your api key",
    "verify your api key",
    // "Error authenticating with the LLM provider. Please check your API key" (OpenHands).
    "error authenticating",
    "failed authenticating",
    "error while authenticating",
    "check your api key",
    // A caller's address or identity not on the list ("Container not allowed for address",
    // Ritual's Infernet node).
    "not allowed for address",
    "address not allowed",
    "not whitelisted",
    "not on the allowlist",
    "not in the allowlist",
    // The server's own key for its upstream not set ("OPENAI_API_KEY environment variable not
    // found", Farfalle): no credential to call with.
    "api_key environment variable not found",
    "api_key environment variable is not set",
    "api_key not set",
    "api key not set",
    // "API key not configured for LLM provider 'openai'" (Opik's playground): no key to call with.
    "api key not configured",
    "api key is not configured",
    // "DAILY_API_KEY not configured on server" (Pipecat's runner): a key by its variable.
    "api_key not configured",
    "api_key is not configured",
    // A key's configuration broken ("API key configuration issue"): the server's own credential.
    // (A "configuration error" with a key named is read beside these, in `by_wording`.)
    "key configuration issue",
    // A key blocked ("API key blocked or invalid", LeafScan AI's reason for a stand-in answer;
    // Google's `API_KEY_SERVICE_BLOCKED`): refused as a credential.
    "api key blocked",
    "api key is blocked",
    "api_key_service_blocked",
    // A key of the wrong form ("API key must be a string", Diagrammaton's 400): the credential
    // given is no credential.
    "api key must be",
    // "OpenAI requires an API key (llm.apiKey)" (WebPeel); "OpenAI credentials not found for the
    // authenticated user." (an agentic scraper's job).
    "requires an api key",
    "requires api key",
    "credentials not found",
    "credential not found",
    // Dutch: the API key missing ("AI Bio Generator is tijdelijk niet beschikbaar
    // (API-sleutel ontbreekt)", DatingAssistent under a 503).
    "api-sleutel ontbreekt",
    "sleutel ontbreekt",
    // "OpenRouter API key not available" (dave.io under a 503): no key to call with.
    "api key not available",
    "api key is not available",
    "api_key not available",
    // "OpenAI API key is not set. Check your environment variables." (Chartbrew).
    "api key is not set",
    "api key not set",
    "api_key is not set",
    "api_key not set",
    // A session cookie to renew ("Failed to get session id, you may need to update the
    // SUNO_COOKIE"): the credential behind a relay.
    "update the cookie",
    "update your cookie",
    "_cookie",
    "failed to get session id",
    // "Bad request: API key is required" (Windmill's AI proxy, under a 400).
    "api key is required",
    "api key required",
    "api_key is required",
    // A credential the server does not hold ("OAuth token is not available": Cherry Studio's
    // Anthropic provider signed out).
    "token is not available",
    "token not available",
    // Access refused where the caller is ("access to Anthropic models is not available in your
    // region (CN)" under Zed's 451).
    "not available in your region",
    "not available in your country",
    "unsupported region",
    "unsupported country",
    "region not supported",
    "country not supported",
    // A relay that could not turn its token into an authorization ("Failed to get authorization
    // from token", copilot-gpt4-service's 500).
    "failed to get authorization",
    "failed to obtain authorization",
    // A relay over a chat site whose session has no login ("Not logged in. Visit /auth to scan QR
    // code." under doubao2api's 503): the credential behind it is missing.
    "not logged in",
    "login required",
    "incorrect api key",
    "invalid api key",
    // "OpenAI API key rejected" (DataLine's error event).
    "api key rejected",
    "key was rejected",
    "invalid_api_key",
    "api key not valid",
    "no api key provided",
    "didn't provide an api key",
    "missing api key",
    "invalid authentication",
    "authentication failed",
    "authentication error",
    // A gateway whose own key the upstream refused ("the gateway could not authenticate with the
    // upstream provider" under a 502): a credential to fix, not a server to retry.
    "could not authenticate",
    "failed to authenticate",
    "unable to authenticate",
    // APIPark: "key not found" (the API key the request carried is not known).
    "key not found",
    // "Ensure a valid API key is being used", "please provide a valid API key".
    "a valid api key",
    "authentication required",
    "unauthorized",
    "unauthenticated",
    "invalid credentials",
    "invalid token",
    "invalid access token",
    "token expired",
    "token has expired",
    "api key is invalid",
    "api key not found",
    "permission denied",
    "access denied",
    "not authorized",
    // iFlytek's error names run together: "AppIdNoAuthError".
    "noauth",
    // Chinese: "authentication failed", "the API key is invalid".
    // An account the provider will not serve ("Account cannot be used, please contact the
    // administrator"), and a session to log in to again ("please re-login").
    "account cannot be used",
    "account can't be used",
    "please re-login",
    "please log in again",
    // A connected account to sign in to ("GitHub Copilot is not connected. Sign in via Mito AI
    // settings").
    "please sign in",
    "sign in via",
    "not signed in",
    "please login again",
    "鉴权失败",
    "认证失败",
    // Not authenticated or approved ("该群组未被认证通过，无法使用机器人对话功能", the group not
    // approved), and the remedy of access rights to apply for (申请访问权限).
    "未被认证",
    "未通过认证",
    "认证未通过",
    "访问权限",
    "身份验证失败",
    "api key 无效",
    // A key refused by the upstream, said so ("The AI endpoint rejected the API key.").
    "rejected the api key",
    "rejected your api key",
    "rejected the key",
    "api key was rejected",
    "key was rejected",
    // A feature not turned on for this caller ("Sorry, the AI chat has not been enabled for
    // you.", DokuWiki's AI chat).
    "not been enabled for you",
    "not enabled for you",
    "apikey 无效",
];
/// An account or project without the right to what it asked for: "Project ... is not allowed to
/// use Publisher Model ...", "you do not have access to this model". A parameter that "is not
/// allowed" is an invalid request, so the use or access is named; and "does not exist or you do
/// not have access to it" is a wrong model name first (see `code_for`).
/// The model asked for named as not there or wrong: beside permission words ("The model `x` does
/// not exist or you do not have access to it", "Incorrect model ID ... or you do not have
/// permission to use this model") the request is what to fix, not the key.
pub(super) const MODEL_NAMED_WRONG: &[&str] = &[
    "not found",
    "does not exist",
    "not exist",
    "incorrect model",
    "invalid model",
    "unknown model",
    // A remedy that names the model ("Your API key does not have access to your current model.
    // Please use a different model."): the request is to change, not the key.
    "use a different model",
    "choose a different model",
];
/// A model the request names that its provider has retired ("The Groq model has been
/// decommissioned. Please check available models at ...", Plan My Study AI's 500): the request
/// must name another, whatever the status.
pub(super) const MODEL_RETIRED: &[&str] = &[
    "model has been decommissioned",
    "model was decommissioned",
    "model_decommissioned",
    "model has been retired",
];
pub(super) const ACCESS_WORDING: &[&str] = &[
    "no permission",
    "not allowed to use",
    "not allowed to access",
    "not permitted to use",
    "not permitted to access",
    "do not have access",
    "does not have access",
    "don't have access",
    "doesn't have access",
    "not have permission",
];
pub(super) const RATE_WORDING: &[&str] = &[
    // Chinese: too many requests (请求太多, chatgpt-mirai-qq-bot's "当前 ChatGPT 接入点收到的请求太多了").
    "请求太多",
    // Chinese: operations or requests too frequent ("操作过于频繁，请稍后再试", a web-novel platform's
    // 200), as "请求过于频繁" is.
    "过于频繁",
    "太频繁",
    // Portuguese and Spanish: the request limit reached, too many requests ("Limite de
    // requisições atingido. Aguarde alguns segundos ...", a Brazilian stamp shop's 500).
    // The caller's identical request still in flight ("Automatic retry suppressed because an
    // identical request is still in progress. Retry again shortly.", Orchids-2api's 429): its
    // own concurrency, a rate.
    "identical request is still in progress",
    "identical request is in progress",
    "duplicate request is in progress",
    // Indonesian: too many requests ("AI sedang istirahat sebentar karena terlalu banyak
    // permintaan.", a portfolio chat's 200).
    "terlalu banyak permintaan",
    "terlalu banyak request",
    "limite de requisições",
    "limite de solicitações",
    "muitas requisições",
    "límite de solicitudes",
    "límite de peticiones",
    "demasiadas solicitudes",
    "demasiadas peticiones",
    "rate limit",
    "rate_limit",
    "ratelimit",
    // ("Rate-Limit erreicht", FreeScout's AI Assist in German: reached. "rate-limited" beside
    // "no capacity" is every upstream out, read as overload.)
    "rate-limit erreicht",
    // "AI is rate-limited right now. Please wait a moment and try again." (EcoTrack AI's answer
    // under a 200.)
    "rate-limited",
    "rate limited",
    // "You have reached the maximum number of requests for this service. Try again later."
    // (Odoo): a count of requests at its cap, a rate unless a day or a plan is named (read first).
    "maximum number of requests",
    // A cooldown ("Please wait a few seconds between requests.", Roundcube GenIA's per-session
    // limit under a 200).
    "between requests",
    "too many requests",
    // Requests per minute written short ("Quota Groq dépassé (30 req/min). Attendez quelques
    // secondes.", Story2Book); French too many requests or a processing limit to wait out
    // ("Limite de traitement atteinte. Veuillez réessayer dans quelques instants.", Zeii).
    "req/min",
    "requêtes par minute",
    "trop de requêtes",
    "limite de traitement",
    // "I'm getting a lot of requests right now. Please wait a moment and try again." (Uplift AI's
    // words for Gemini's 429, under a 200).
    "a lot of requests",
    "tokens per min",
    "requests per min",
    "per minute",
    // "The request exceeds the maximum tokens per second" (llama-box's cap, under a 410).
    "per second",
    "tokens per sec",
    "requests per sec",
    // ChatGPT's message cap per model ("You have sent too many messages to the model. Please try
    // again later.", `model_cap_exceeded`), which clears within minutes.
    "sent too many messages",
    "throttl",
    "slow down",
    // Queries per second, also inside iFlytek's "AppIdQpsOverFlowError".
    "qps",
    "too many concurrent",
    // "Many concurrent requests, ... Please retry." (Atoma), "maximum concurrent requests".
    "concurrent requests",
    // "Maximum concurrent jobs (3) exceeded. Try again later." (Supacrawl).
    "concurrent jobs",
    "concurrent tasks",
    "concurrency limit",
    // Requests or messages sent too often ("Your message sending frequency exceeds the frequency
    // specified by the system. Please try again later.", BotSharp; "requests too frequent").
    "too frequent",
    "sending frequency",
    "request frequency",
    "requests frequency",
    "message frequency",
    "call frequency",
    // Chinese: "requests too frequent", "rate limit", "throttled".
    "请求过于频繁",
    "请求频率",
    "速率限制",
    "限流",
    // The caller's own conversations still running ("There are conversations in progress.
    // Please try again later.", NocoBase): one at a time, a rate of the caller's.
    "conversations in progress",
    "conversation in progress",
    // The caller's own token budget ("You have exceeded your token limit for this model").
    "your token limit",
    // Chinese: asking too fast ("提问太快啦，请休息一下再问我吧", chatgpt-on-wechat).
    "提问太快",
    // Chinese per-minute caps: "已超出类别 C 每分钟上限（10 次/分）".
    "每分钟",
    "次/分",
    // Chinese concurrency limits: "部门同时在线会话数已达上限" (simultaneous sessions at the cap).
    "并发数",
    "并发限制",
    "并发上限",
    "同时在线",
];
