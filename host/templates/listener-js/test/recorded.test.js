// {{name}} against recorded failures (test/recorded.json): each gets its decision, and a wrong
// configuration is refused by name.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { decide, parseConfig } from '../src/listener.js';

const recorded = JSON.parse(readFileSync(new URL('./recorded.json', import.meta.url), 'utf8'));

function context(c) {
  const f = c.failure;
  return {
    failure: { code: f.code, message: f.message, status: f.status, providerRetryAfterMs: f.provider_retry_after_ms ?? undefined, requestId: f.request_id ?? undefined },
    earlierRetries: c.earlier_retries.map((r) => ({ policyKey: r.policy_key, retry: r.retry, delayMs: r.delay_ms, code: r.code })),
  };
}

test('recorded failures get their decision', () => {
  const config = parseConfig(recorded.config);
  assert.ok(recorded.cases.length, 'test/recorded.json has no cases');
  for (const c of recorded.cases) {
    const d = decide(config, context(c));
    assert.equal(d.tag, c.expected.decision, c.name);
    if (d.tag === 'retry') assert.equal(d.delayMs, c.expected.delay_ms, c.name);
    if (d.tag === 'give-up') assert.ok(d.reason.startsWith('{{name}}: '), d.reason);
  }
});

test('a wrong configuration is refused by name', () => {
  assert.throws(() => parseConfig('{"max_retrys": 3}'), /unknown config key `max_retrys`/);
  assert.throws(() => parseConfig('{"delay_ms": -1}'), /delay_ms must be/);
  assert.deepEqual(parseConfig(''), { maxRetries: 2, delayMs: 1000 });
});
