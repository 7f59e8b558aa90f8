// The SSE decoder against Gemini streams (streamGenerateContent?alt=sse), split at every byte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GeminiDecoder, usageOf } from '../src/decode.js';
import { SseParser } from '../src/sse.js';

const enc = new TextEncoder();

function head(headers = {}) {
  return { status: 200, headers: Object.entries({ 'content-type': 'text/event-stream', ...headers }), receivedAtMs: 0 };
}

function sse(...responses) {
  return responses.map((r) => `data: ${typeof r === 'string' ? r : JSON.stringify(r)}\r\n\r\n`).join('');
}

/** Decodes `body` fed in pieces of `step` bytes (Infinity: in one read). */
function decode(body, { step = Infinity, headers = {} } = {}) {
  const d = new GeminiDecoder(head(headers));
  const bytes = enc.encode(body);
  const out = [];
  for (let i = 0; i < bytes.length; i += Math.min(step, bytes.length)) {
    out.push(...d.feed(bytes.slice(i, i + step)));
  }
  out.push(...d.end());
  return out;
}

/** Every split gives the same chunks, once adjacent texts are joined. */
function decodeEverySplit(body, opts = {}) {
  const whole = joinTexts(decode(body, opts));
  for (const step of [1, 2, 3, 7, 64]) {
    assert.deepEqual(joinTexts(decode(body, { ...opts, step })), whole, `split every ${step} bytes`);
  }
  return whole;
}

function joinTexts(chunks) {
  const out = [];
  for (const c of chunks) {
    const last = out[out.length - 1];
    if (last && (c.tag === 'text' || c.tag === 'reasoning') && last.tag === c.tag) last.val += c.val;
    else out.push({ ...c });
  }
  return out;
}

const part = (text, extra = {}) => ({ text, ...extra });
const response = (parts, finishReason, usage) => ({
  candidates: [{ content: { parts, role: 'model' }, ...(finishReason ? { finishReason } : {}), index: 0 }],
  ...(usage ? { usageMetadata: usage } : {}),
  modelVersion: 'gemini-2.5-flash',
  responseId: 'resp-1',
});

test('a streamed text answer with usage', () => {
  const body = sse(
    response([part('Hel')], undefined, { promptTokenCount: 5, candidatesTokenCount: 1, totalTokenCount: 6 }),
    response([part('lo, wörld ✓')], undefined, { promptTokenCount: 5, candidatesTokenCount: 3, totalTokenCount: 8 }),
    response([part('!')], 'STOP', { promptTokenCount: 5, candidatesTokenCount: 4, totalTokenCount: 9, cachedContentTokenCount: 2 }),
  );
  assert.deepEqual(decodeEverySplit(body), [
    { tag: 'text', val: 'Hello, wörld ✓!' },
    { tag: 'usage', val: { inputTokens: 5, outputTokens: 4, cachedInputTokens: 2, reasoningTokens: undefined } },
    { tag: 'finish', val: { kind: 'stop', reason: 'STOP', failure: undefined } },
  ]);
});

test('thought parts are reasoning and thinking tokens count as output', () => {
  const body = sse(
    response([part('Let me think.', { thought: true })]),
    response([part('Answer.')], 'STOP', { promptTokenCount: 3, candidatesTokenCount: 2, thoughtsTokenCount: 10 }),
  );
  const chunks = decodeEverySplit(body);
  assert.deepEqual(chunks.slice(0, 2), [{ tag: 'reasoning', val: 'Let me think.' }, { tag: 'text', val: 'Answer.' }]);
  assert.deepEqual(chunks[2].val, { inputTokens: 3, outputTokens: 12, cachedInputTokens: undefined, reasoningTokens: 10 });
});

test('function calls are whole tool-call deltas and the finish is tool-calls', () => {
  const body = sse(
    response([part('Checking.'), { functionCall: { name: 'get_weather', args: { city: 'Paris', days: 2 } } }]),
    response([{ functionCall: { name: 'list_files' } }, { functionCall: { name: 'echo', args: { a: [1, { b: null }] }, id: 'fc-7' } }], 'STOP'),
  );
  assert.deepEqual(decodeEverySplit(body), [
    { tag: 'text', val: 'Checking.' },
    { tag: 'tool-call', val: { index: 0, id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris","days":2}' } },
    { tag: 'tool-call', val: { index: 1, id: 'call_1', name: 'list_files', arguments: '{}' } },
    { tag: 'tool-call', val: { index: 2, id: 'fc-7', name: 'echo', arguments: '{"a":[1,{"b":null}]}' } },
    { tag: 'finish', val: { kind: 'tool-calls', reason: 'STOP', failure: undefined } },
  ]);
});

test('MAX_TOKENS is length', () => {
  const chunks = decode(sse(response([part('Once upon')], 'MAX_TOKENS')));
  assert.deepEqual(chunks.at(-1).val, { kind: 'length', reason: 'MAX_TOKENS', failure: undefined });
});

test('safety, recitation and friends are content-filter finishes', () => {
  for (const reason of ['SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'LANGUAGE', 'IMAGE_SAFETY']) {
    const body = sse(response([part('Partial ')]), {
      candidates: [{ finishReason: reason, index: 0, safetyRatings: [{ category: 'HARM_CATEGORY_HARASSMENT', probability: 'HIGH', blocked: true }] }],
    });
    const chunks = decode(body);
    assert.deepEqual(chunks.at(-1), { tag: 'finish', val: { kind: 'content-filter', reason, failure: undefined } }, reason);
  }
});

test('a blocked prompt is a content-filter finish', () => {
  const body = sse({
    promptFeedback: { blockReason: 'SAFETY', safetyRatings: [{ category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH' }] },
    usageMetadata: { promptTokenCount: 8, totalTokenCount: 8 },
  });
  assert.deepEqual(decodeEverySplit(body), [
    { tag: 'usage', val: { inputTokens: 8, outputTokens: undefined, cachedInputTokens: undefined, reasoningTokens: undefined } },
    { tag: 'finish', val: { kind: 'content-filter', reason: 'SAFETY', failure: undefined } },
  ]);
});

test('nothing produced is EMPTY_RESPONSE', () => {
  const empty = decode(sse({ candidates: [{ content: { parts: [], role: 'model' }, finishReason: 'STOP', index: 0 }] }));
  assert.equal(empty.length, 1);
  assert.equal(empty[0].val.kind, 'error');
  assert.equal(empty[0].val.failure.code, 'EMPTY_RESPONSE');
  assert.match(empty[0].val.failure.message, /finishReason STOP\) without any text or function call/);
  // Only whitespace is nothing either.
  assert.equal(decode(sse(response([part('  \n')], 'STOP'))).at(-1).val.failure.code, 'EMPTY_RESPONSE');
  // Thinking that used up the output budget.
  const thought = decode(sse(response([part('hmm', { thought: true })], 'MAX_TOKENS', { promptTokenCount: 3, thoughtsTokenCount: 100 })));
  assert.equal(thought.at(-1).val.failure.code, 'EMPTY_RESPONSE');
  assert.match(thought.at(-1).val.failure.message, /thinking used the whole budget; raise max-tokens/);
  // A stream of responses without any candidate.
  const none = decode(sse({ usageMetadata: { promptTokenCount: 4 } }, { candidates: [] }), { headers: { 'x-request-id': 'r-1' } });
  assert.equal(none.at(-1).val.failure.code, 'EMPTY_RESPONSE');
  assert.match(none.at(-1).val.failure.message, /no candidates/);
  assert.equal(none.at(-1).val.failure.requestId, 'r-1');
});

test('a malformed function call is EMPTY_RESPONSE (retryable), a missing signature INVALID_REQUEST', () => {
  const bad = decode(sse({ candidates: [{ content: { parts: [] }, finishReason: 'MALFORMED_FUNCTION_CALL', finishMessage: 'Malformed function call: print(' }] }));
  assert.equal(bad.at(-1).val.kind, 'error');
  assert.equal(bad.at(-1).val.reason, 'MALFORMED_FUNCTION_CALL');
  assert.equal(bad.at(-1).val.failure.code, 'EMPTY_RESPONSE');
  const sig = decode(sse({ candidates: [{ finishReason: 'MISSING_THOUGHT_SIGNATURE' }] }));
  assert.equal(sig.at(-1).val.failure.code, 'INVALID_REQUEST');
});

test('OTHER with text is a stop', () => {
  assert.deepEqual(decode(sse(response([part('ok')], 'OTHER'))).at(-1).val, { kind: 'stop', reason: 'OTHER', failure: undefined });
});

test('an in-band error ends the stream with an error finish classified like a non-2xx body', () => {
  const body = sse(response([part('Going')]), { error: { code: 503, message: 'The model is overloaded. Please try again later.', status: 'UNAVAILABLE' } },
    response([part('ignored')], 'STOP'));
  const chunks = decodeEverySplit(body, { headers: { 'x-request-id': 'rid-5' } });
  assert.deepEqual(chunks[0], { tag: 'text', val: 'Going' });
  assert.equal(chunks.length, 2);
  const finish = chunks[1].val;
  assert.equal(finish.kind, 'error');
  assert.deepEqual(finish.failure, {
    message: 'The model is overloaded. Please try again later.', code: 'OVERLOADED', status: 503,
    providerRetryAfterMs: undefined, requestId: 'rid-5',
  });
  const quota = decode(sse({ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'x',
    details: [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '3s' }] } }));
  assert.equal(quota[0].val.failure.code, 'RATE_LIMITED');
  assert.equal(quota[0].val.failure.providerRetryAfterMs, 3000);
});

test('a stream cut before its finish has no finish (the host says STREAM_TRUNCATED)', () => {
  assert.deepEqual(decode(sse(response([part('Once upon')]))), [{ tag: 'text', val: 'Once upon' }]);
  // Cut in the middle of an event.
  assert.deepEqual(decode(`${sse(response([part('a')]))}data: {"candidates":[{"content":{"par`), [{ tag: 'text', val: 'a' }]);
  assert.deepEqual(decode(''), []);
});

test('the finish is emitted as soon as it arrives; nothing after it counts', () => {
  const d = new GeminiDecoder(head());
  const first = d.feed(enc.encode(sse(response([part('x')], 'STOP'))));
  assert.equal(first.at(-1).tag, 'finish');
  assert.deepEqual(d.feed(enc.encode(sse(response([part('more')])))), []);
  assert.deepEqual(d.end(), []);
});

test('a body without SSE framing is read as JSON (the endpoint without alt=sse)', () => {
  const body = JSON.stringify([response([part('Hi')]), response([part(' there')], 'STOP', { promptTokenCount: 1, candidatesTokenCount: 2 })]);
  const chunks = decodeEverySplit(body, { headers: { 'content-type': 'application/json' } });
  assert.deepEqual(chunks.map((c) => c.tag), ['text', 'usage', 'finish']);
  assert.equal(chunks[0].val, 'Hi there');
  const err = decode(JSON.stringify({ error: { code: 500, message: 'boom', status: 'INTERNAL' } }));
  assert.equal(err[0].val.failure.code, 'SERVER_ERROR');
});

test('an unparseable body is SERVER_ERROR naming what came', () => {
  const chunks = decode('<html><title>Oops</title></html>', { headers: { 'content-type': 'text/html' } });
  assert.equal(chunks.length, 1);
  assert.equal(chunks[0].val.failure.code, 'SERVER_ERROR');
  assert.match(chunks[0].val.failure.message, /an HTML page titled "Oops"/);
  assert.match(chunks[0].val.failure.message, /content-type text\/html/);
});

test('non-JSON data and comments are skipped', () => {
  const body = `: keep-alive\n\ndata: not json\n\n${sse(response([part('fine')], 'STOP'))}`;
  assert.deepEqual(decode(body).map((c) => c.tag), ['text', 'finish']);
});

test('the SSE parser joins data lines, takes LF or CRLF, and a last event without blank line', () => {
  const p = new SseParser();
  const events = [...p.feed(enc.encode('event: x\ndata: a\ndata: b\r\n\r\ndata:c')), ...p.finish()];
  assert.deepEqual(events, [{ event: 'x', data: 'a\nb' }, { event: undefined, data: 'c' }]);
  // A multi-byte character split across reads.
  const q = new SseParser();
  const bytes = enc.encode('data: é\n\n');
  const split = [...q.feed(bytes.slice(0, 7)), ...q.feed(bytes.slice(7))];
  assert.deepEqual(split, [{ event: undefined, data: 'é' }]);
});

test('usageOf', () => {
  assert.equal(usageOf({}), undefined);
  assert.deepEqual(usageOf({ promptTokenCount: 1, candidatesTokenCount: -1 }),
    { inputTokens: 1, outputTokens: undefined, cachedInputTokens: undefined, reasoningTokens: undefined });
});
