// classify-failure against Gemini error bodies as Google sends them (shapes from public reports:
// google-gemini/gemini-cli issues #4118, #6678, #8437, continuedev/continue #10062, #10290, ...).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { classifyFailure, classifyInBand, codeFor, errorInfo } from '../src/classify.js';

const enc = new TextEncoder();

function head(status, headers = {}, receivedAtMs = 1_767_225_600_000) {
  return { status, headers: Object.entries(headers), receivedAtMs };
}

function classify(status, body, headers = {}) {
  return classifyFailure(head(status, headers), enc.encode(typeof body === 'string' ? body : JSON.stringify(body)));
}

const googleError = (code, status, message, details) => ({
  error: { code, message, status, ...(details ? { details } : {}) },
});

test('the token-count overflow is CONTEXT_WINDOW_EXCEEDED', () => {
  const f = classify(400, googleError(400, 'INVALID_ARGUMENT',
    'The input token count (1200293) exceeds the maximum number of tokens allowed (1048576).'));
  assert.equal(f.code, 'CONTEXT_WINDOW_EXCEEDED');
  assert.equal(f.status, 400);
  assert.match(f.message, /1200293/);
  // The array envelope and the older `errors` list.
  const wrapped = [{ error: { code: 400, message: 'The input token count (134123) exceeds the maximum number of tokens allowed (131072).',
    errors: [{ message: 'x', domain: 'global', reason: 'badRequest' }], status: 'INVALID_ARGUMENT' } }];
  assert.equal(classify(400, wrapped).code, 'CONTEXT_WINDOW_EXCEEDED');
  // Vertex's wording.
  assert.equal(classify(400, googleError(400, 'INVALID_ARGUMENT',
    'Unable to submit request because the input token count is 40000 but model only supports up to 32768. Reduce the input token count and try again.')).code,
  'CONTEXT_WINDOW_EXCEEDED');
  // An overflow carried by a 500 is still an overflow.
  assert.equal(classify(500, googleError(500, 'INTERNAL',
    'The input token count (2000000) exceeds the maximum number of tokens allowed (1048576).')).code,
  'CONTEXT_WINDOW_EXCEEDED');
});

test('other INVALID_ARGUMENT and NOT_FOUND are INVALID_REQUEST', () => {
  assert.equal(classify(400, googleError(400, 'INVALID_ARGUMENT', 'Request contains an invalid argument.')).code, 'INVALID_REQUEST');
  assert.equal(classify(404, googleError(404, 'NOT_FOUND',
    'models/gemini-9 is not found for API version v1beta, or is not supported for generateContent.')).code, 'INVALID_REQUEST');
  // An output limit above the model's is not an overflow of the context.
  assert.equal(classify(400, googleError(400, 'INVALID_ARGUMENT',
    'Unable to submit request because it has a maxOutputTokens value of 100000 but the supported range is from 1 (inclusive) to 65537 (exclusive). Update the value and try again.')).code,
  'INVALID_REQUEST');
  assert.equal(classify(400, googleError(400, 'FAILED_PRECONDITION', 'Precondition check failed.')).code, 'INVALID_REQUEST');
});

test('an invalid API key is AUTH although Gemini sends 400 INVALID_ARGUMENT', () => {
  const body = googleError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'API_KEY_INVALID', domain: 'googleapis.com',
      metadata: { service: 'generativelanguage.googleapis.com' } },
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
  ]);
  const f = classify(400, body);
  assert.equal(f.code, 'AUTH');
  assert.equal(f.message, 'API key not valid. Please pass a valid API key.');
  assert.equal(classify(400, googleError(400, 'INVALID_ARGUMENT', 'API key expired. Please renew the API key.')).code, 'AUTH');
  assert.equal(classify(403, googleError(403, 'PERMISSION_DENIED', 'Your API key was reported as leaked. Please use another API key.')).code, 'AUTH');
  assert.equal(classify(403, googleError(403, 'PERMISSION_DENIED', 'Method doesn\'t allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.')).code, 'AUTH');
  assert.equal(classify(401, googleError(401, 'UNAUTHENTICATED', 'Request had invalid authentication credentials.')).code, 'AUTH');
  assert.equal(classify(403, googleError(403, 'PERMISSION_DENIED', 'Generative Language API has not been used in project 123 before or it is disabled.', [
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'SERVICE_DISABLED' }])).code, 'AUTH');
});

test('a per-minute RESOURCE_EXHAUSTED is RATE_LIMITED with RetryInfo as the delay', () => {
  const body = googleError(429, 'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.', [
      { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [
        { quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { location: 'global', model: 'gemini-2.5-flash' }, quotaValue: '10' }] },
      { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
      { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '37s' },
    ]);
  const f = classify(429, body, { 'x-request-id': 'req-9' });
  assert.equal(f.code, 'RATE_LIMITED');
  assert.equal(f.providerRetryAfterMs, 37_000);
  assert.equal(f.requestId, 'req-9');
  assert.equal(f.status, 429);
});

test('RESOURCE_EXHAUSTED without details is RATE_LIMITED', () => {
  assert.equal(classify(429, googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).')).code, 'RATE_LIMITED');
  assert.equal(classify(429, [googleError(429, 'RESOURCE_EXHAUSTED',
    'Resource exhausted. Please try again later. Please refer to https://cloud.google.com/vertex-ai/generative-ai/docs/error-code-429 for more details.')]).code,
  'RATE_LIMITED');
  // The quota wording alone, which Gemini also uses for per-minute limits, decides nothing.
  assert.equal(classify(429, googleError(429, 'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details.')).code, 'RATE_LIMITED');
});

test('a daily quota, a zero limit or depleted credits is QUOTA_EXCEEDED', () => {
  const perDay = googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota, please check your plan and billing details.', [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [
      { quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier' },
      { quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests', quotaId: 'GenerateRequestsPerDayPerProjectPerModel-FreeTier' }] },
    { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '20.04466179s' },
  ]);
  const f = classify(429, perDay);
  assert.equal(f.code, 'QUOTA_EXCEEDED');
  assert.equal(f.providerRetryAfterMs, 20_045, 'the hint is still reported');
  assert.equal(classify(429, googleError(429, 'RESOURCE_EXHAUSTED', 'You exceeded your current quota.', [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [
      { quotaMetric: 'generativelanguage.googleapis.com/generate_requests_per_model_per_day', quotaId: 'GenerateRequestsPerDayPerProjectPerModel' }] }])).code,
  'QUOTA_EXCEEDED');
  assert.equal(classify(429, googleError(429, 'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details.\n* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 0, model: gemini-2.5-pro\nPlease retry in 20.04466179s.')).code,
  'QUOTA_EXCEEDED');
  assert.equal(classify(429, googleError(429, 'RESOURCE_EXHAUSTED',
    'Your prepayment credits are depleted. Please go to AI Studio at https://ai.studio/projects to manage your project and billing.')).code,
  'QUOTA_EXCEEDED');
  assert.equal(classify(400, googleError(400, 'FAILED_PRECONDITION',
    'Gemini API free tier is not available in your country. Please enable billing on your project in Google AI Studio.')).code,
  'QUOTA_EXCEEDED');
});

test('server-side statuses', () => {
  assert.equal(classify(503, googleError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.')).code, 'OVERLOADED');
  assert.equal(classify(500, googleError(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting')).code, 'SERVER_ERROR');
  assert.equal(classify(504, googleError(504, 'DEADLINE_EXCEEDED', 'Deadline expired before operation could complete.')).code, 'TIMEOUT');
  assert.equal(classify(499, googleError(499, 'CANCELLED', 'The operation was cancelled.')).code, 'SERVER_ERROR');
  // The rpc status wins over a status code that disagrees (a proxy relaying with 500).
  assert.equal(classify(500, googleError(503, 'UNAVAILABLE', 'Service Unavailable')).code, 'OVERLOADED');
});

test('bodies that are not Google errors are classified by status', () => {
  const html = classify(502, '<html><head><title>502 Bad Gateway</title></head><body>nginx</body></html>');
  assert.equal(html.code, 'SERVER_ERROR');
  assert.match(html.message, /HTTP 502 Bad Gateway from Gemini, with an HTML page: 502 Bad Gateway/);
  assert.equal(classify(503, '').code, 'OVERLOADED');
  assert.match(classify(503, '').message, /empty body/);
  assert.equal(classify(429, 'slow down').code, 'RATE_LIMITED');
  assert.equal(classify(401, 'no').code, 'AUTH');
  assert.equal(classify(404, '{"foo": 1}').code, 'INVALID_REQUEST');
  assert.equal(classify(504, 'upstream timed out').code, 'TIMEOUT');
  assert.equal(classify(418, 'teapot').code, 'INVALID_REQUEST');
  const garbage = classifyFailure(head(500), new Uint8Array([0xff, 0xfe, 0x00]));
  assert.equal(garbage.code, 'SERVER_ERROR');
});

test('retry-after headers when there is no RetryInfo', () => {
  const body = googleError(429, 'RESOURCE_EXHAUSTED', 'Resource has been exhausted (e.g. check quota).');
  assert.equal(classify(429, body, { 'retry-after': '2' }).providerRetryAfterMs, 2000);
  assert.equal(classify(429, body, { 'retry-after': '1.5' }).providerRetryAfterMs, 1500);
  assert.equal(classify(429, body, { 'retry-after-ms': '250' }).providerRetryAfterMs, 250);
  const now = Date.parse('Thu, 01 Jan 2026 00:00:00 GMT');
  const f = classifyFailure(head(429, { 'retry-after': 'Thu, 01 Jan 2026 00:00:30 GMT' }, now), enc.encode(JSON.stringify(body)));
  assert.equal(f.providerRetryAfterMs, 30_000);
  assert.equal(classify(429, body, { 'retry-after': 'soon' }).providerRetryAfterMs, undefined);
  assert.equal(classify(429, body).providerRetryAfterMs, undefined);
  // RetryInfo wins over the headers.
  const withInfo = googleError(429, 'RESOURCE_EXHAUSTED', 'x', [{ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '1.5s' }]);
  assert.equal(classify(429, withInfo, { 'retry-after': '9' }).providerRetryAfterMs, 1500);
});

test('request id from x-request-id, else request-id', () => {
  const body = googleError(500, 'INTERNAL', 'x');
  assert.equal(classify(500, body, { 'request-id': 'r1' }).requestId, 'r1');
  assert.equal(classify(500, body, { 'x-request-id': 'x1', 'request-id': 'r1' }).requestId, 'x1');
  assert.equal(classify(500, body).requestId, undefined);
});

test('a relay that quotes the Google error as JSON text is unwrapped', () => {
  const inner = JSON.stringify(googleError(400, 'INVALID_ARGUMENT', 'The input token count (3475108) exceeds the maximum number of tokens allowed (1048576).'), null, 2);
  assert.equal(classify(400, { error: { message: inner, code: 400, status: 'Bad Request' } }).code, 'CONTEXT_WINDOW_EXCEEDED');
});

test('in-band errors take their status from the error itself', () => {
  const h = head(200, { 'x-request-id': 'abc', 'retry-after': '5' });
  const f = classifyInBand(googleError(503, 'UNAVAILABLE', 'The model is overloaded.'), h);
  assert.equal(f.code, 'OVERLOADED');
  assert.equal(f.status, 503);
  assert.equal(f.requestId, 'abc');
  assert.equal(f.providerRetryAfterMs, undefined, "the 200's retry-after does not describe it");
  const bare = classifyInBand({ error: { message: 'something broke' } }, head(200));
  assert.equal(bare.code, 'SERVER_ERROR');
  assert.equal(bare.status, undefined);
});

test('errorInfo reads what a Google error says', () => {
  const info = errorInfo(googleError(429, 'RESOURCE_EXHAUSTED', 'm', [
    { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId: 'A-PerDay' }] },
    { '@type': 'type.googleapis.com/google.rpc.ErrorInfo', reason: 'rate_limit_exceeded' }]));
  assert.deepEqual(info.quotas, ['A-PerDay']);
  assert.deepEqual(info.reasons, ['RATE_LIMIT_EXCEEDED']);
  assert.equal(info.code, 429);
  assert.equal(errorInfo({ foo: 1 }), undefined);
  assert.equal(errorInfo([]), undefined);
  assert.equal(codeFor({ wording: '' }, undefined), 'SERVER_ERROR');
});
