// {{name}}: a dsh-host provider adapter, the logic (plain JavaScript, unit-tested with node --test).
//
// As generated it speaks the OpenAI chat-completions streaming API (what `dsh-host mock` answers,
// and what many servers offer); change planRequest, classifyFailure and Decoder to your provider's
// API. component.js is the component export: it converts between jco's WIT types (dsh:llm@0.2.0)
// and the plain values used here. support/ holds helpers from dsh-host's own JavaScript guest: an
// SSE parser over raw bytes, retry-after parsing (seconds, HTTP dates, retry-after-ms), text helpers
// and the canonical codes.
//
// The contract in short: planRequest says which HTTP call to make, with `{credential}` where the key
// goes (the host inserts it: the adapter never sees it); classifyFailure turns a non-2xx answer into
// one canonical code; a Decoder turns the 2xx body, fed in network reads cut anywhere, into chunks.
// An adapter never retries.

import * as codes from './support/codes.js';
import { headerRetryAfterMs } from './support/retry.js';
import { SseParser } from './support/sse.js';
import { excerpt, header, statusLine, toBytes, utf8 } from './support/text.js';

export const NAME = '{{name}}';
export const VERSION = '0.1.0';

function refuse(message) {
  return codes.failure(codes.INVALID_REQUEST, `${NAME}: ${message}`);
}

/** The HTTP call for one completion: `POST {baseUrl}/chat/completions`, streamed. Throws a failure. */
export function planRequest(endpoint, request) {
  if (!request.model.trim()) throw refuse('no model: give one with --model or `model` in dsh.toml');
  if (request.tools.length) throw refuse('this adapter does not send tools yet (run without --tools)');
  const o = request.options;
  if (o.topP !== undefined || o.stop.length || o.reasoningEffort !== undefined || o.responseFormat !== undefined) {
    // Refuse what cannot be sent rather than drop it: the caller asked for it.
    throw refuse('this adapter sends only max-output-tokens and temperature among the generation options');
  }
  const messages = request.messages.map((m) => {
    if (m.content.some((p) => p.tag !== 'text')) throw refuse('this adapter does not send images');
    if (m.toolCalls.length || m.role === 'tool') throw refuse('this adapter does not send tool calls or results');
    return { role: m.role, content: m.content.map((p) => p.val).join('') };
  });
  const body = { model: request.model, messages, stream: true };
  if (o.maxOutputTokens !== undefined) body.max_tokens = o.maxOutputTokens;
  if (o.temperature !== undefined) body.temperature = o.temperature;
  return {
    method: 'POST',
    url: `${endpoint.baseUrl.replace(/\/+$/, '')}/chat/completions`,
    headers: [
      ['content-type', 'application/json'],
      ['authorization', 'Bearer {credential}'],
    ],
    body: toBytes(JSON.stringify(body)),
  };
}

/** A non-2xx answer as one canonical failure. Never throws: garbage is classified by its status. */
export function classifyFailure(head, body) {
  const text = utf8(body);
  let error;
  try {
    const parsed = JSON.parse(text);
    if (parsed && typeof parsed.error === 'object' && parsed.error !== null) error = parsed.error;
  } catch {
    // not JSON: an HTML page from a proxy, or garbage
  }
  let message = error && typeof error.message === 'string' && error.message.trim() ? error.message : undefined;
  if (message === undefined) {
    message = text.trim() ? `${statusLine(head.status)}: ${excerpt(text)}` : statusLine(head.status);
  }
  const kind = (error && (error.code || error.type)) || '';
  return codes.failure(codeFor(head.status, String(kind), message), message, {
    status: head.status,
    providerRetryAfterMs: headerRetryAfterMs(head),
    requestId: header(head, 'x-request-id'),
  });
}

/** By meaning, not by status alone: a 429 that waiting cannot cure is a quota, a 400 that says the
 * context is too long is an overflow (compaction may cure it). */
function codeFor(status, kind, message) {
  const lower = message.toLowerCase();
  const overflow = kind === 'context_length_exceeded' || lower.includes('maximum context length') || lower.includes('context window');
  if (status === 401 || status === 403) return codes.AUTH;
  if (status === 402) return codes.QUOTA_EXCEEDED; // Payment Required: billing, which waiting will not cure
  if (status === 429) return kind === 'insufficient_quota' ? codes.QUOTA_EXCEEDED : codes.RATE_LIMITED;
  if ([400, 413, 422].includes(status) && overflow) return codes.CONTEXT_WINDOW_EXCEEDED;
  if (status === 408 || status === 504) return codes.TIMEOUT;
  if (status === 503 || status === 529) return codes.OVERLOADED;
  if (status >= 400 && status < 500) return codes.INVALID_REQUEST;
  return codes.SERVER_ERROR;
}

const FINISH_KINDS = { length: 'length', tool_calls: 'tool-calls', content_filter: 'content-filter' };

/** One per 2xx answer: server-sent events into chunks (`{tag, val}`, numbers as plain numbers). */
export class Decoder {
  constructor(head) {
    this.head = head;
    this.sse = new SseParser();
  }

  feed(bytes) {
    return this.sse.feed(bytes).flatMap((e) => chunksOf(e.data));
  }

  end() {
    return this.sse.finish().flatMap((e) => chunksOf(e.data));
  }
}

function errorFinish(code, message) {
  return { tag: 'finish', val: { kind: 'error', reason: undefined, failure: codes.failure(code, message) } };
}

/** The chunks of one event. Keepalives and empty deltas give none: they are not progress. */
function chunksOf(data) {
  if (data === '[DONE]') return [];
  let event;
  try {
    event = JSON.parse(data);
  } catch {
    return [errorFinish(codes.SERVER_ERROR, `unparseable event: ${excerpt(data)}`)];
  }
  if (!event || typeof event !== 'object') return [errorFinish(codes.SERVER_ERROR, `unexpected event: ${excerpt(data)}`)];
  if (event.error && typeof event.error === 'object') {
    return [errorFinish(codes.SERVER_ERROR, String(event.error.message || 'an error inside the stream'))];
  }
  const chunks = [];
  const choice = (Array.isArray(event.choices) && event.choices[0]) || {};
  const text = choice.delta && choice.delta.content;
  if (typeof text === 'string' && text) chunks.push({ tag: 'text', val: text });
  if (typeof choice.finish_reason === 'string') {
    const reason = choice.finish_reason;
    chunks.push({ tag: 'finish', val: { kind: FINISH_KINDS[reason] || 'stop', reason, failure: undefined } });
  }
  if (event.usage && typeof event.usage === 'object') {
    chunks.push({
      tag: 'usage',
      val: { inputTokens: event.usage.prompt_tokens, outputTokens: event.usage.completion_tokens },
    });
  }
  return chunks;
}
