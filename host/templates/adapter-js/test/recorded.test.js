// {{name}} against recorded provider answers (test/recorded.json): each failure gets its canonical
// code, retry-after and request id; each stream decodes to its text and finish, whole, byte by byte
// and in random pieces alike.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { classifyFailure, Decoder } from '../src/adapter.js';

const recorded = JSON.parse(readFileSync(new URL('./recorded.json', import.meta.url), 'utf8'));
const RECEIVED_AT_MS = 1_696_004_797_000;
const enc = new TextEncoder();

function decode(body, sizes) {
  const d = new Decoder({ status: 200, headers: [['content-type', 'text/event-stream']], receivedAtMs: RECEIVED_AT_MS });
  const out = [];
  let at = 0;
  for (const size of sizes) {
    out.push(...d.feed(body.subarray(at, at + size)));
    at += size;
  }
  out.push(...d.feed(body.subarray(at)), ...d.end());
  return out;
}

/** A reproducible generator (xorshift) for the random cuttings. */
function randomSizes(len, seed) {
  let state = seed;
  const sizes = [];
  for (let total = 0; total < len; ) {
    state ^= state << 13;
    state ^= state >>> 17;
    state ^= state << 5;
    const size = 1 + (Math.abs(state) % 17);
    sizes.push(size);
    total += size;
  }
  return sizes;
}

test('recorded failures get their code, retry-after and request id', () => {
  assert.ok(recorded.failures.length, 'test/recorded.json has no failures');
  for (const c of recorded.failures) {
    const headers = Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]);
    const f = classifyFailure({ status: c.status, headers, receivedAtMs: RECEIVED_AT_MS }, enc.encode(c.body));
    assert.equal(f.code, c.expected_code, c.source);
    assert.equal(f.providerRetryAfterMs ?? null, c.expected_retry_after_ms, c.source);
    assert.equal(f.requestId ?? null, c.expected_request_id, c.source);
    assert.equal(f.status, c.status, c.source);
  }
});

test('recorded streams decode to their text and finish however they are cut', () => {
  assert.ok(recorded.streams.length, 'test/recorded.json has no streams');
  for (const c of recorded.streams) {
    const body = enc.encode(c.body);
    const whole = decode(body, []);
    const cuttings = [new Array(body.length).fill(1), ...[1, 2, 3, 4, 5].map((s) => randomSizes(body.length, s * 7919))];
    for (const sizes of cuttings) assert.deepEqual(decode(body, sizes), whole, c.source);
    const text = whole.filter((ch) => ch.tag === 'text').map((ch) => ch.val).join('');
    const finishes = whole.filter((ch) => ch.tag === 'finish');
    assert.equal(text, c.expected_text, c.source);
    assert.equal(finishes.length, 1, JSON.stringify(whole));
    assert.equal(finishes[0].val.reason, c.expected_finish, c.source);
  }
});
