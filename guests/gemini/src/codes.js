// Canonical failure codes (docs/DESIGN.md, "The failure record"). A provider string is never a code.
export const CONTEXT_WINDOW_EXCEEDED = 'CONTEXT_WINDOW_EXCEEDED';
export const EMPTY_RESPONSE = 'EMPTY_RESPONSE';
export const TIMEOUT = 'TIMEOUT';
export const ABORTED = 'ABORTED';
export const RATE_LIMITED = 'RATE_LIMITED';
export const QUOTA_EXCEEDED = 'QUOTA_EXCEEDED';
export const OVERLOADED = 'OVERLOADED';
export const SERVER_ERROR = 'SERVER_ERROR';
export const NETWORK = 'NETWORK';
export const STREAM_TRUNCATED = 'STREAM_TRUNCATED';
export const AUTH = 'AUTH';
export const INVALID_REQUEST = 'INVALID_REQUEST';
export const CONTENT_FILTER = 'CONTENT_FILTER';
export const ADAPTER_FAULT = 'ADAPTER_FAULT';

export const ALL = [
  CONTEXT_WINDOW_EXCEEDED, EMPTY_RESPONSE, TIMEOUT, ABORTED, RATE_LIMITED, QUOTA_EXCEEDED,
  OVERLOADED, SERVER_ERROR, NETWORK, STREAM_TRUNCATED, AUTH, INVALID_REQUEST, CONTENT_FILTER,
  ADAPTER_FAULT,
];

/**
 * One `llm-failure` in the plain shape this guest's logic uses: numbers (not BigInt) for the u64
 * `providerRetryAfterMs`, `undefined` for an absent option. `component.js` converts at the boundary.
 */
export function failure(code, message, extra = {}) {
  return {
    message,
    code,
    status: extra.status,
    providerRetryAfterMs: extra.providerRetryAfterMs,
    requestId: extra.requestId,
  };
}
