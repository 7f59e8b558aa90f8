// {{name}}: a dsh-host recovery listener, the logic (plain JavaScript, unit-tested with node --test).
//
// As generated: "two strikes". A transient failure (RATE_LIMITED, OVERLOADED, SERVER_ERROR) is
// retried at most `max_retries` times (default 2) per step, after the provider's retry-after when
// it gave one, else after `delay_ms` (default 1000); then it gives up. Every other failure is
// delegated to the next listener of the waterfall. Change `decide` to your policy. component.js is
// the component export: it converts between jco's WIT types (dsh:llm@0.2.0) and the plain values
// used here.
//
// A listener only decides: the host waits, logs and calls the provider. The host creates a fresh
// instance and calls `configure` before every decision, so module-level configuration is safe.

export const NAME = '{{name}}';
export const VERSION = '0.1.0';
/** The key of this listener's retries in the session log. */
export const POLICY_KEY = '{{name}}';
/** The longest wait the host accepts from a listener (an hour). */
export const MAX_DELAY_MS = 3_600_000;
const TRANSIENT = ['RATE_LIMITED', 'OVERLOADED', 'SERVER_ERROR'];

/** `{}` (or nothing) for the defaults; unknown keys are refused by name. Throws a message. */
export function parseConfig(configJson) {
  const config = { maxRetries: 2, delayMs: 1000 };
  if (!configJson.trim()) return config;
  let value;
  try {
    value = JSON.parse(configJson);
  } catch (e) {
    throw `${NAME}: the config is not valid JSON (${e.message})`;
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw `${NAME}: the config must be a table, e.g. { max_retries = 2 }`;
  }
  for (const [key, v] of Object.entries(value)) {
    if (key === 'max_retries') {
      if (!Number.isInteger(v) || v < 0) throw `${NAME}: max_retries must be a whole number, got ${JSON.stringify(v)}`;
      config.maxRetries = v;
    } else if (key === 'delay_ms') {
      if (!Number.isInteger(v) || v < 0 || v > MAX_DELAY_MS) {
        throw `${NAME}: delay_ms must be 0 to ${MAX_DELAY_MS}, got ${JSON.stringify(v)}`;
      }
      config.delayMs = v;
    } else {
      throw `${NAME}: unknown config key \`${key}\` (it takes max_retries and delay_ms)`;
    }
  }
  return config;
}

/**
 * The policy. `context`: `{failure: {code, message, status, providerRetryAfterMs, requestId},
 * earlierRetries: [{policyKey, retry, delayMs, code}]}`, codes written `RATE_LIMITED`, numbers as
 * numbers. Returns `{tag: 'delegate'}`, `{tag: 'retry', delayMs}` or `{tag: 'give-up', reason}`.
 */
export function decide(config, context) {
  const f = context.failure;
  if (!TRANSIENT.includes(f.code)) return { tag: 'delegate' };
  // The count lives in the session log, so a resumed process continues it.
  const spent = context.earlierRetries.filter((r) => r.policyKey === POLICY_KEY).length;
  if (spent >= config.maxRetries) return { tag: 'give-up', reason: `${NAME}: ${f.code} after ${spent} retries (${f.message})` };
  const delayMs = f.providerRetryAfterMs ?? config.delayMs;
  if (delayMs > MAX_DELAY_MS) {
    return { tag: 'give-up', reason: `${NAME}: the provider asks to wait ${Math.floor(delayMs / 1000)} s, longer than an hour` };
  }
  return { tag: 'retry', delayMs };
}
