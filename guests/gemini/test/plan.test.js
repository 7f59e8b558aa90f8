// plan-request: the URL, headers and JSON body of Gemini's native streaming call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { planRequest, requestBody, geminiSchema, argsObject, responseObject, SIGNATURE_PLACEHOLDER } from '../src/plan.js';

const dec = new TextDecoder();
const msg = (role, content, extra = {}) => ({ role, content, toolCalls: [], toolCallId: undefined, ...extra });
const request = (messages, extra = {}) => ({ model: 'gemini-2.5-flash', messages, tools: [], maxTokens: undefined, temperature: undefined, ...extra });
const endpoint = { baseUrl: 'https://generativelanguage.googleapis.com/v1beta' };

test('the URL, method and headers', () => {
  const plan = planRequest(endpoint, request([msg('user', 'Hi')]));
  assert.equal(plan.method, 'POST');
  assert.equal(plan.url, 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse');
  assert.deepEqual(plan.headers, [
    ['content-type', 'application/json'],
    ['accept', 'text/event-stream'],
    ['x-goog-api-key', '{credential}'],
  ]);
  assert.ok(plan.body instanceof Uint8Array);
  assert.deepEqual(JSON.parse(dec.decode(plan.body)), { contents: [{ role: 'user', parts: [{ text: 'Hi' }] }] });
  // A trailing slash, a full model name, a tuned model.
  assert.equal(planRequest({ baseUrl: 'http://127.0.0.1:8080/v1beta/' }, request([], { model: 'models/gemini-2.0-flash' })).url,
    'http://127.0.0.1:8080/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse');
  assert.equal(planRequest(endpoint, request([], { model: 'tunedModels/my-model-123' })).url,
    'https://generativelanguage.googleapis.com/v1beta/tunedModels/my-model-123:streamGenerateContent?alt=sse');
  assert.match(planRequest(endpoint, request([], { model: 'odd name?' })).url, /models\/odd%20name%3F:stream/);
});

test('no model is INVALID_REQUEST', () => {
  assert.throws(() => planRequest(endpoint, request([], { model: ' ' })), (e) => e.code === 'INVALID_REQUEST' && /no model/.test(e.message));
});

test('system messages, generation config', () => {
  const body = requestBody(request([msg('system', 'Be terse.'), msg('system', 'Use French.'), msg('user', 'Hi')],
    { maxTokens: 256, temperature: Math.fround(0.7) }));
  assert.deepEqual(body.systemInstruction, { parts: [{ text: 'Be terse.' }, { text: 'Use French.' }] });
  assert.deepEqual(body.generationConfig, { maxOutputTokens: 256, temperature: 0.7 });
  assert.deepEqual(body.contents, [{ role: 'user', parts: [{ text: 'Hi' }] }]);
  assert.equal(requestBody(request([msg('user', 'x')])).generationConfig, undefined);
  assert.deepEqual(requestBody(request([msg('user', 'x')], { temperature: 0 })).generationConfig, { temperature: 0 });
});

test('a tool round trip: functionCall with the signature placeholder, functionResponse by name', () => {
  const body = requestBody(request([
    msg('user', 'Weather in Paris and Rome?'),
    msg('assistant', 'Checking.', { toolCalls: [
      { id: 'call_0', name: 'get_weather', arguments: '{"city":"Paris"}' },
      { id: 'call_1', name: 'get_weather', arguments: '{"city":"Rome"}' }] }),
    msg('tool', '{"temp_c":21}', { toolCallId: 'call_0' }),
    msg('tool', 'sunny, 25 C', { toolCallId: 'call_1' }),
    msg('assistant', 'Paris 21, Rome 25.'),
    msg('user', 'Thanks'),
  ]));
  assert.deepEqual(body.contents, [
    { role: 'user', parts: [{ text: 'Weather in Paris and Rome?' }] },
    { role: 'model', parts: [
      { text: 'Checking.' },
      { functionCall: { name: 'get_weather', args: { city: 'Paris' } }, thoughtSignature: SIGNATURE_PLACEHOLDER },
      { functionCall: { name: 'get_weather', args: { city: 'Rome' } } }] },
    { role: 'user', parts: [
      { functionResponse: { name: 'get_weather', response: { temp_c: 21 } } },
      { functionResponse: { name: 'get_weather', response: { output: 'sunny, 25 C' } } },
      // The next user message joins the same content: Gemini wants alternating turns.
    ] },
    { role: 'model', parts: [{ text: 'Paris 21, Rome 25.' }] },
    { role: 'user', parts: [{ text: 'Thanks' }] },
  ]);
});

test('an assistant message with only tool calls, consecutive user messages merged', () => {
  const body = requestBody(request([
    msg('user', 'a'), msg('user', 'b'),
    msg('assistant', '', { toolCalls: [{ id: 'x', name: 'ls', arguments: '' }] }),
    msg('tool', '', { toolCallId: 'x' }),
    msg('user', 'c'),
  ]));
  assert.deepEqual(body.contents, [
    { role: 'user', parts: [{ text: 'a' }, { text: 'b' }] },
    { role: 'model', parts: [{ functionCall: { name: 'ls', args: {} }, thoughtSignature: SIGNATURE_PLACEHOLDER }] },
    { role: 'user', parts: [{ functionResponse: { name: 'ls', response: { output: '' } } }, { text: 'c' }] },
  ]);
});

test('a tool result whose call is gone goes as marked user text', () => {
  const body = requestBody(request([msg('user', 'q'), msg('tool', '42', { toolCallId: 'call_9' })]));
  assert.deepEqual(body.contents, [{ role: 'user', parts: [{ text: 'q' }, { text: '[result of tool call call_9]\n42' }] }]);
});

test('arguments and results that are not JSON objects', () => {
  assert.deepEqual(argsObject(''), {});
  assert.deepEqual(argsObject('  '), {});
  assert.deepEqual(argsObject('{"a":1}'), { a: 1 });
  assert.deepEqual(argsObject('{"a":'), { arguments: '{"a":' });
  assert.deepEqual(argsObject('[1,2]'), { arguments: '[1,2]' });
  assert.deepEqual(responseObject('{"ok":true}'), { ok: true });
  assert.deepEqual(responseObject('"text"'), { output: '"text"' });
  assert.deepEqual(responseObject('plain'), { output: 'plain' });
});

test('tools become functionDeclarations with a Gemini-shaped schema', () => {
  const schema = {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    type: 'object',
    additionalProperties: false,
    properties: {
      path: { type: 'string', description: 'file path', minLength: 1 },
      mode: { type: ['string', 'null'], enum: ['r', 'w', null] },
      lines: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 3 },
      kind: { const: 'file' },
      either: { oneOf: [{ type: 'string' }, { type: 'number' }] },
    },
    required: ['path', 'ghost'],
  };
  const body = requestBody(request([msg('user', 'x')], { tools: [
    { name: 'read', description: 'Read a file', parametersSchema: JSON.stringify(schema) },
    { name: 'now', description: '', parametersSchema: '{"type":"object","properties":{}}' },
    { name: 'ping', description: 'no schema', parametersSchema: '' },
  ] }));
  assert.deepEqual(body.tools, [{ functionDeclarations: [
    { name: 'read', description: 'Read a file', parameters: {
      type: 'object',
      properties: {
        path: { type: 'string', description: 'file path', minLength: 1 },
        mode: { nullable: true, type: 'string', enum: ['r', 'w'] },
        lines: { type: 'array', items: { type: 'integer', minimum: 1 }, maxItems: 3 },
        kind: { enum: ['file'] },
        either: { anyOf: [{ type: 'string' }, { type: 'number' }] },
      },
      required: ['path'],
    } },
    { name: 'now' },
    { name: 'ping', description: 'no schema' },
  ] }]);
  assert.deepEqual(geminiSchema({ type: ['string', 'integer'] }), { anyOf: [{ type: 'string' }, { type: 'integer' }] });
});

test('a schema that is not JSON is INVALID_REQUEST naming the tool', () => {
  assert.throws(() => requestBody(request([msg('user', 'x')], { tools: [{ name: 'bad', description: '', parametersSchema: '{' }] })),
    (e) => e.code === 'INVALID_REQUEST' && /tool "bad"/.test(e.message));
});
