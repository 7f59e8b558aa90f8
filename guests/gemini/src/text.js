// Text helpers: UTF-8 decoding (lossy), clipping and quoting provider wording.

const decoder = new TextDecoder('utf-8');
const encoder = new TextEncoder();

/** Bytes (Uint8Array) to a string; invalid sequences become U+FFFD, never an exception. */
export function utf8(bytes) {
  return decoder.decode(bytes);
}

export function toBytes(text) {
  return encoder.encode(text);
}

/** How much of a provider's message is kept in a failure. */
export const MESSAGE_CHARS = 2000;
/** How much of an unexpected body is quoted. */
export const QUOTE_CHARS = 200;

/** At most `max` characters (code points), with an ellipsis when cut. */
export function clip(text, max) {
  const chars = Array.from(text);
  return chars.length <= max ? text : chars.slice(0, max - 1).join('') + '…';
}

/** The start of a body, whitespace collapsed, for a message. */
export function excerpt(text, max = QUOTE_CHARS) {
  return clip(text.replace(/\s+/g, ' ').trim(), max);
}

export function looksLikeHtml(text) {
  const start = text.trimStart().slice(0, 200).toLowerCase();
  return start.startsWith('<!doctype html') || start.startsWith('<html') || start.includes('<body');
}

export function htmlTitle(text) {
  const m = /<title[^>]*>([\s\S]*?)<\/title>/i.exec(text);
  const title = m && m[1].replace(/\s+/g, ' ').trim();
  return title || undefined;
}

const REASONS = {
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden',
  404: 'Not Found', 408: 'Request Timeout', 413: 'Payload Too Large', 429: 'Too Many Requests',
  499: 'Client Closed Request', 500: 'Internal Server Error', 502: 'Bad Gateway',
  503: 'Service Unavailable', 504: 'Gateway Timeout',
};

export function statusLine(status) {
  return REASONS[status] ? `HTTP ${status} ${REASONS[status]}` : `HTTP ${status}`;
}

/** A header's value (names are lower-case in a response head), trimmed, or undefined. */
export function header(head, name) {
  for (const [k, v] of head.headers || []) {
    if (k === name && v.trim() !== '') return v.trim();
  }
  return undefined;
}
