// The provider's retry hint, in milliseconds.
//
// Gemini puts it in the error body: `details: [{"@type": "type.googleapis.com/google.rpc.RetryInfo",
// "retryDelay": "37s"}]` (a google.protobuf.Duration in its JSON form: decimal seconds and an `s`).
// Without it, the standard headers: `retry-after-ms` (milliseconds), `retry-after` (seconds or an HTTP
// date, read against the host's clock `receivedAtMs`). Prose ("Please retry in 20.04s.") is not read:
// the structured field says the same thing, and wording is a guess about someone else's text.
// Values are reported as sent (even 0 or very large): capping is the retry policy's job.

import { header } from './text.js';

const MAX_MS = 2 ** 64;

/** `"37s"`, `"1.5s"`, `"20.04466179s"` (or a `{seconds, nanos}` object some clients print). */
export function parseDuration(value) {
  if (typeof value === 'string') {
    const m = /^\s*(\d+(?:\.\d+)?)s\s*$/.exec(value);
    return m ? wholeMs(Number(m[1]) * 1000) : undefined;
  }
  if (value && typeof value === 'object') {
    const seconds = Number(value.seconds ?? 0);
    const nanos = Number(value.nanos ?? 0);
    if (!Number.isFinite(seconds) || !Number.isFinite(nanos)) return undefined;
    return wholeMs(seconds * 1000 + nanos / 1e6);
  }
  return undefined;
}

/** The RetryInfo delay among an error's `details`, if any. */
export function retryInfoMs(details) {
  if (!Array.isArray(details)) return undefined;
  for (const d of details) {
    if (d && typeof d === 'object' && String(d['@type'] || '').endsWith('google.rpc.RetryInfo')) {
      const ms = parseDuration(d.retryDelay);
      if (ms !== undefined) return ms;
    }
  }
  return undefined;
}

/** `retry-after-ms` first, else `retry-after` (seconds, or an HTTP date against `receivedAtMs`). */
export function headerRetryAfterMs(head) {
  const ms = header(head, 'retry-after-ms');
  if (ms !== undefined && isPlainNumber(ms)) {
    const v = wholeMs(Number(ms));
    if (v !== undefined) return v;
  }
  const after = header(head, 'retry-after');
  if (after === undefined) return undefined;
  if (isPlainNumber(after)) return wholeMs(Number(after) * 1000);
  const date = Date.parse(after);
  if (!Number.isFinite(date) || !/[a-z]/i.test(after)) return undefined;
  const now = Number(head.receivedAtMs ?? 0);
  if (date >= now) return date - now;
  // An HTTP date has one-second resolution: a date within the current second means "now"; one
  // well in the past is a broken hint, not an instruction to retry at once.
  return now - date < 1000 ? 0 : undefined;
}

function isPlainNumber(text) {
  return /^\s*[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?\s*$/.test(text);
}

function wholeMs(ms) {
  if (!Number.isFinite(ms) || ms < 0) return undefined;
  const r = Math.round(ms);
  return r < MAX_MS ? r : undefined;
}
