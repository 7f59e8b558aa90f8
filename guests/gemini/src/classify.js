// `classify-failure`: a Gemini error answer (status, headers, body) as one `llm-failure`.
//
// Gemini's errors are Google API errors: `{"error": {"code": 429, "message": "...", "status":
// "RESOURCE_EXHAUSTED", "details": [...]}}` (some front ends wrap it in a one-element array). The code
// is decided by meaning, strongest evidence first:
//
// 1. context overflow wording, whatever the status ("The input token count (1200293) exceeds the
//    maximum number of tokens allowed (1048576).", Vertex's "input token count is N but model only
//    supports up to M") → CONTEXT_WINDOW_EXCEEDED;
// 2. credentials: `ErrorInfo.reason` API_KEY_INVALID & co. (Gemini answers a bad key with 400
//    INVALID_ARGUMENT), UNAUTHENTICATED, PERMISSION_DENIED, their wording, 401/403 → AUTH;
// 3. RESOURCE_EXHAUSTED / 429: QUOTA_EXCEEDED when waiting minutes cannot cure it, RATE_LIMITED
//    otherwise (see `isLastingQuota`); billing wording on another status (FAILED_PRECONDITION "enable
//    billing", 402) → QUOTA_EXCEEDED;
// 4. the google.rpc status string: UNAVAILABLE → OVERLOADED, INTERNAL/UNKNOWN/DATA_LOSS/ABORTED →
//    SERVER_ERROR, DEADLINE_EXCEEDED → TIMEOUT, INVALID_ARGUMENT/NOT_FOUND/FAILED_PRECONDITION/
//    OUT_OF_RANGE/UNIMPLEMENTED/ALREADY_EXISTS → INVALID_REQUEST, CANCELLED → SERVER_ERROR (the
//    provider cancelled on its side: ABORTED is reserved for the caller's own abort);
// 5. the HTTP status (a proxy's HTML page, an empty body): 503 → OVERLOADED, 504/408 → TIMEOUT,
//    other 5xx → SERVER_ERROR, 429 → RATE_LIMITED, 401/403 → AUTH, 402 → QUOTA_EXCEEDED, 499 →
//    SERVER_ERROR, other 4xx → INVALID_REQUEST.
//
// `provider-retry-after-ms`: RetryInfo.retryDelay, else the retry-after headers (retry.js).
// `request-id`: the `x-request-id` (else `request-id`) header.

import * as codes from './codes.js';
import { retryInfoMs, headerRetryAfterMs } from './retry.js';
import {
  MESSAGE_CHARS, clip, excerpt, header, htmlTitle, looksLikeHtml, statusLine, utf8,
} from './text.js';

/** A non-2xx answer. Never throws: a body that is not a Google error is classified by its status. */
export function classifyFailure(head, body) {
  const status = head.status;
  const text = typeof body === 'string' ? body : utf8(body);
  const info = errorInfo(parseJson(text));
  const requestId = headerRequestId(head);
  const providerRetryAfterMs = info?.retryDelayMs ?? headerRetryAfterMs(head);
  if (info) {
    return codes.failure(codeFor(info, status), info.message ?? `${statusLine(status)} from Gemini${
      info.status ? ` (${info.status})` : ''}, without an error message`,
    { status, providerRetryAfterMs, requestId });
  }
  return codes.failure(codeFor({ wording: '' }, status), describeUnstructured(status, text),
    { status, providerRetryAfterMs, requestId });
}

/**
 * An error carried inside a 2xx stream (`data: {"error": {...}}`): classified like a non-2xx body,
 * with the status the error carries itself (`code`), and the request id of the 200's head. The 200's
 * retry-after headers do not describe this error and are not read.
 */
export function classifyInBand(value, head) {
  const info = errorInfo(value) ?? { wording: '' };
  const status = info.code;
  return codes.failure(
    codeFor(info, status),
    info.message ?? `Gemini reported an error in the stream${info.status ? ` (${info.status})` : ''}, without a message`,
    { status, providerRetryAfterMs: info.retryDelayMs, requestId: headerRequestId(head) },
  );
}

export function headerRequestId(head) {
  return header(head, 'x-request-id') ?? header(head, 'request-id');
}

function parseJson(text) {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * What a Google error body says: message, rpc status string, numeric code, ErrorInfo reasons,
 * QuotaFailure quota ids and metrics, the RetryInfo delay. `undefined` if it is not such a body.
 */
export function errorInfo(value) {
  if (Array.isArray(value)) return value.length ? errorInfo(value[0]) : undefined;
  if (!value || typeof value !== 'object') return undefined;
  let e = value.error;
  if (typeof e === 'string') return e.trim() ? { message: clip(e.trim(), MESSAGE_CHARS), wording: e.toLowerCase(), reasons: [], quotas: [] } : undefined;
  if (!e || typeof e !== 'object') return undefined;
  // A relay that quotes the upstream error as JSON text inside its own message.
  if (typeof e.message === 'string' && e.message.trim().startsWith('{')) {
    const inner = errorInfo(parseJson(e.message.trim()));
    if (inner) return inner;
  }
  const info = {
    message: typeof e.message === 'string' && e.message.trim() ? clip(e.message.trim(), MESSAGE_CHARS) : undefined,
    status: typeof e.status === 'string' && e.status.trim() ? e.status.trim().toUpperCase() : undefined,
    code: Number.isInteger(e.code) && e.code >= 100 && e.code <= 599 ? e.code : undefined,
    reasons: [],
    quotas: [],
    retryDelayMs: retryInfoMs(e.details),
  };
  const wording = [info.message ?? ''];
  for (const d of Array.isArray(e.details) ? e.details : []) {
    if (!d || typeof d !== 'object') continue;
    const type = String(d['@type'] || '');
    if (type.endsWith('google.rpc.ErrorInfo') && typeof d.reason === 'string') {
      info.reasons.push(d.reason.toUpperCase());
    }
    if (type.endsWith('google.rpc.QuotaFailure') && Array.isArray(d.violations)) {
      for (const v of d.violations) {
        if (!v || typeof v !== 'object') continue;
        info.quotas.push([v.quotaId, v.quotaMetric, v.subject, v.description]
          .filter((s) => typeof s === 'string').join(' '));
      }
    }
    if (type.endsWith('google.rpc.LocalizedMessage') && typeof d.message === 'string') {
      wording.push(d.message);
    }
  }
  // `errors: [{reason: "badRequest"}]` (the older envelope) carries nothing `message` does not.
  info.wording = wording.join(' ').toLowerCase();
  if (!info.message && !info.status && info.code === undefined && !info.reasons.length) return undefined;
  return info;
}

const AUTH_REASONS = new Set([
  'API_KEY_INVALID', 'API_KEY_EXPIRED', 'API_KEY_SERVICE_BLOCKED', 'API_KEY_HTTP_REFERRER_BLOCKED',
  'API_KEY_IP_ADDRESS_BLOCKED', 'API_KEY_ANDROID_APP_BLOCKED', 'API_KEY_IOS_APP_BLOCKED',
  'ACCESS_TOKEN_EXPIRED', 'ACCESS_TOKEN_SCOPE_INSUFFICIENT', 'ACCESS_TOKEN_TYPE_UNSUPPORTED',
  'CREDENTIALS_MISSING', 'ACCOUNT_STATE_INVALID', 'SERVICE_DISABLED', 'CONSUMER_INVALID',
  'CONSUMER_SUSPENDED', 'USER_PROJECT_DENIED', 'IAM_PERMISSION_DENIED',
]);

const AUTH_WORDING = [
  'api key not valid', 'api key not found', 'api key expired', 'invalid api key',
  'reported as leaked', 'unregistered callers', 'missing required authentication',
  'request had invalid authentication credentials', 'permission denied', 'does not have permission',
  'api has not been used in project',
];

const OVERFLOW_PATTERNS = [
  /input token count\b[^.]*\bexceeds\b/,
  /exceeds the maximum number of tokens allowed/,
  /input token count is \d+ but (the )?model only supports up to/,
  /input (is )?too long|prompt is too long/,
  /(exceeds?|exceeding|beyond|over) (the |its |your )?(model'?s? )?(context window|context length|maximum context)/,
];

/** Billing wording: waiting will not cure it, the account needs attention. */
const BILLING_WORDING = [
  'prepayment credits', 'credits are depleted', 'enable billing', 'billing account',
  'billing is not enabled', 'spending cap', 'spend cap', 'monthly spending limit',
];

/**
 * A 429 RESOURCE_EXHAUSTED that waiting will not cure (QUOTA_EXCEEDED) rather than a rate limit.
 *
 * Gemini words every quota 429 the same ("You exceeded your current quota, please check your plan
 * and billing details"), per-minute ones included, so the wording alone decides nothing. What does:
 * - a violated QuotaFailure whose quota id or metric is per day ("GenerateRequestsPerDayPerProject
 *   PerModel-FreeTier", "generate_requests_per_model_per_day"): the next chance is tomorrow;
 * - a limit of 0 ("Quota exceeded for metric: ..., limit: 0"): the plan has no quota for this model
 *   at all (the free tier of a paid-only model), and no wait ever helps;
 * - billing wording (prepayment credits depleted, spending cap reached).
 * Everything else (per-minute ids, no details at all: "Resource has been exhausted (e.g. check
 * quota).", Vertex's shared-capacity "Resource exhausted. Please try again later.") is RATE_LIMITED.
 */
export function isLastingQuota(info) {
  const perDay = info.quotas?.some((q) => /per ?day|per_day|daily/i.test(q));
  return Boolean(
    perDay
    || /\blimit: ?0\b/.test(info.wording)
    || BILLING_WORDING.some((w) => info.wording.includes(w)),
  );
}

const STATUS_CODES = {
  UNAVAILABLE: codes.OVERLOADED,
  INTERNAL: codes.SERVER_ERROR,
  UNKNOWN: codes.SERVER_ERROR,
  DATA_LOSS: codes.SERVER_ERROR,
  ABORTED: codes.SERVER_ERROR, // google.rpc ABORTED: a concurrency conflict on the server; retryable
  DEADLINE_EXCEEDED: codes.TIMEOUT,
  INVALID_ARGUMENT: codes.INVALID_REQUEST,
  NOT_FOUND: codes.INVALID_REQUEST,
  FAILED_PRECONDITION: codes.INVALID_REQUEST,
  OUT_OF_RANGE: codes.INVALID_REQUEST,
  UNIMPLEMENTED: codes.INVALID_REQUEST,
  ALREADY_EXISTS: codes.INVALID_REQUEST,
  CANCELLED: codes.SERVER_ERROR,
  UNAUTHENTICATED: codes.AUTH,
  PERMISSION_DENIED: codes.AUTH,
};

/** The canonical code for what an error says (`info`) and the HTTP status, if any. */
export function codeFor(info, status) {
  const wording = info.wording ?? '';
  const says = (list) => list.some((w) => wording.includes(w));
  const rpc = info.status;

  // 1. An overflow, whatever status carried it (a 500 that is really an overflow is still one).
  if (OVERFLOW_PATTERNS.some((p) => p.test(wording)) && !/max_?output_?tokens/.test(wording)) {
    return codes.CONTEXT_WINDOW_EXCEEDED;
  }
  // 2. Credentials.
  if (info.reasons?.some((r) => AUTH_REASONS.has(r)) || rpc === 'UNAUTHENTICATED'
      || rpc === 'PERMISSION_DENIED' || says(AUTH_WORDING)) {
    return codes.AUTH;
  }
  // 3. Quotas and rate limits.
  if (rpc === 'RESOURCE_EXHAUSTED' || status === 429 || info.code === 429) {
    return isLastingQuota(info) ? codes.QUOTA_EXCEEDED : codes.RATE_LIMITED;
  }
  if (says(BILLING_WORDING) || status === 402) return codes.QUOTA_EXCEEDED;
  // 4. The rpc status names the meaning.
  if (rpc && STATUS_CODES[rpc]) return STATUS_CODES[rpc];
  // 5. The HTTP status (the error's own `code` in a stream).
  const s = status ?? info.code;
  if (s === undefined) return codes.SERVER_ERROR;
  if (s === 401 || s === 403) return codes.AUTH;
  if (s === 408 || s === 504 || s === 524) return codes.TIMEOUT;
  if (s === 499) return codes.SERVER_ERROR;
  if (s === 503 || s === 529) return codes.OVERLOADED;
  if (s >= 500) return codes.SERVER_ERROR;
  if (s >= 300) return codes.INVALID_REQUEST;
  return codes.SERVER_ERROR;
}

function describeUnstructured(status, text) {
  const line = statusLine(status);
  if (!text.trim()) return `${line} from Gemini, with an empty body`;
  if (looksLikeHtml(text)) {
    return `${line} from Gemini, with an HTML page: ${htmlTitle(text) ?? excerpt(text)}`;
  }
  return `${line} from Gemini, with a body that is not a Google API error: ${excerpt(text)}`;
}
