// The response-body decoder: Gemini's `streamGenerateContent?alt=sse` stream into chunks.
//
// Each `data:` event is one GenerateContentResponse:
//   {"candidates": [{"content": {"role": "model", "parts": [...]}, "finishReason": "STOP", ...}],
//    "usageMetadata": {...}, "promptFeedback": {...}, "modelVersion": "...", "responseId": "..."}
//
// - parts: `text` → text; `text` with `thought: true` → reasoning; `functionCall {name, args, id?}`
//   → one tool-call delta holding the whole call (Gemini never splits a call across events): index
//   in order of appearance, id = the call's own `id` if Gemini gives one, else `call_0`, `call_1`...,
//   arguments = the JSON text of `args` (`{}` when absent). Other parts (inline data, code execution)
//   are not part of the contract and are skipped.
// - usageMetadata (cumulative; the last one counts) → one usage chunk, emitted just before the
//   finish: input = promptTokenCount, output = candidatesTokenCount + thoughtsTokenCount (Gemini
//   bills thinking as output, as OpenAI's completion_tokens include reasoning), cached-input =
//   cachedContentTokenCount, reasoning = thoughtsTokenCount.
// - finishReason (emitted at once: nothing of use follows it):
//   STOP → stop, or tool-calls if a function call was seen; MAX_TOKENS → length;
//   SAFETY, RECITATION, BLOCKLIST, PROHIBITED_CONTENT, SPII, LANGUAGE, IMAGE_* → content-filter;
//   MALFORMED_FUNCTION_CALL, UNEXPECTED_TOOL_CALL, TOO_MANY_TOOL_CALLS → error EMPTY_RESPONSE (the
//   model produced no usable answer; a retry usually does better); MISSING_THOUGHT_SIGNATURE → error
//   INVALID_REQUEST; OTHER and anything unknown → stop.
// - promptFeedback.blockReason (the prompt itself was blocked; no candidates) → content-filter.
// - Nothing produced: a stop/length/tool-calls finish with no text and no function call, or a
//   stream of well-formed responses without any candidate that ends without a finish, is an explicit
//   error finish EMPTY_RESPONSE whose message says what Gemini sent (a MAX_TOKENS that thinking used
//   up is named as such). The host would turn the bare stop into EMPTY_RESPONSE too; the adapter says
//   why. A stream cut before any finish is left without one: the host reports STREAM_TRUNCATED.
// - `{"error": {...}}` in the stream → error finish, classified like a non-2xx body (classify.js).
// - A 2xx body without SSE framing (the endpoint without `alt=sse` answers one JSON array) is read
//   as JSON at the end; anything else unparseable is a SERVER_ERROR naming what came.

import * as codes from './codes.js';
import { classifyInBand, headerRequestId } from './classify.js';
import { SseParser } from './sse.js';
import { QUOTE_CHARS, excerpt, header, htmlTitle, looksLikeHtml, utf8 } from './text.js';

/** A body that has shown no SSE framing is kept (to be read as JSON at the end) up to this size. */
const MAX_PLAIN_BODY = 32 * 1024 * 1024;

const CONTENT_FILTER_REASONS = new Set([
  'SAFETY', 'RECITATION', 'BLOCKLIST', 'PROHIBITED_CONTENT', 'SPII', 'LANGUAGE', 'IMAGE_SAFETY',
  'IMAGE_PROHIBITED_CONTENT', 'IMAGE_RECITATION', 'IMAGE_OTHER',
]);
const BAD_TOOL_CALL_REASONS = new Set([
  'MALFORMED_FUNCTION_CALL', 'UNEXPECTED_TOOL_CALL', 'TOO_MANY_TOOL_CALLS',
]);

export class GeminiDecoder {
  constructor(head) {
    this.head = head;
    this.sse = new SseParser();
    this.raw = [];
    this.rawBytes = 0;
    this.rawTooLarge = false;
    this.finished = false;
    this.tools = 0;
    this.text = 0;
    this.reasoning = 0;
    this.responses = 0;
    this.candidates = 0;
    this.usage = undefined;
  }

  /** One network read (a Uint8Array), as it came. */
  feed(bytes) {
    const out = [];
    if (this.finished) return out;
    if (!this.sse.sawFraming() && !this.rawTooLarge) {
      if (this.rawBytes + bytes.length > MAX_PLAIN_BODY) {
        this.rawTooLarge = true;
        this.raw = [];
      } else {
        this.raw.push(bytes.slice());
        this.rawBytes += bytes.length;
      }
    }
    const events = this.sse.feed(bytes);
    if (this.sse.sawFraming() && this.raw.length) {
      this.raw = [];
      this.rawBytes = 0;
    }
    for (const event of events) this.onEvent(event, out);
    return out;
  }

  /** The body is complete. */
  end() {
    const out = [];
    if (this.finished) return out;
    for (const event of this.sse.finish()) this.onEvent(event, out);
    if (this.finished) return out;
    if (!this.sse.sawFraming()) {
      this.decodePlainBody(out);
      if (this.finished) return out;
    }
    if (this.responses > 0 && this.candidates === 0) {
      this.emitError(codes.failure(codes.EMPTY_RESPONSE,
        `Gemini's answer had no candidates (${this.responses} response(s), no finishReason, no promptFeedback)`,
        { requestId: headerRequestId(this.head) }), out);
    }
    // Otherwise: no finish; the host reports STREAM_TRUNCATED.
    return out;
  }

  onEvent(event, out) {
    if (this.finished) return;
    const data = event.data.trim();
    if (data === '' || data === '[DONE]') return;
    let value;
    try {
      value = JSON.parse(data);
    } catch {
      // A payload that is not JSON (a cut-off last event) carries nothing usable; a stream made
      // only of them ends without a finish: truncated.
      return;
    }
    this.onJson(value, out);
  }

  onJson(v, out) {
    if (this.finished) return;
    if (Array.isArray(v)) {
      for (const item of v) this.onJson(item, out);
      return;
    }
    if (!v || typeof v !== 'object') return;
    if (v.error !== undefined && v.error !== null) {
      this.emitError(classifyInBand(v, this.head), out);
      return;
    }
    this.responses += 1;
    if (v.usageMetadata && typeof v.usageMetadata === 'object') {
      this.usage = usageOf(v.usageMetadata) ?? this.usage;
    }
    const blocked = v.promptFeedback?.blockReason;
    if (typeof blocked === 'string' && blocked && blocked !== 'BLOCK_REASON_UNSPECIFIED') {
      this.emitFinish({ kind: 'content-filter', reason: blocked }, out);
      return;
    }
    const candidate = Array.isArray(v.candidates) ? v.candidates[0] : undefined;
    if (!candidate || typeof candidate !== 'object') return;
    this.candidates += 1;
    const parts = candidate.content?.parts;
    for (const part of Array.isArray(parts) ? parts : []) this.onPart(part, out);
    const reason = candidate.finishReason;
    if (typeof reason === 'string' && reason && reason !== 'FINISH_REASON_UNSPECIFIED') {
      this.onFinishReason(reason, out);
    }
  }

  onPart(part, out) {
    if (!part || typeof part !== 'object') return;
    if (typeof part.text === 'string' && part.text !== '') {
      if (part.thought === true) {
        this.reasoning += 1;
        out.push({ tag: 'reasoning', val: part.text });
      } else {
        this.text += part.text.trim() ? 1 : 0;
        out.push({ tag: 'text', val: part.text });
      }
    }
    const call = part.functionCall;
    if (call && typeof call === 'object') {
      const index = this.tools;
      this.tools += 1;
      const id = typeof call.id === 'string' && call.id ? call.id : `call_${index}`;
      const args = call.args === undefined || call.args === null ? {} : call.args;
      out.push({
        tag: 'tool-call',
        val: {
          index,
          id,
          name: typeof call.name === 'string' ? call.name : '',
          arguments: JSON.stringify(args),
        },
      });
    }
  }

  onFinishReason(reason, out) {
    const requestId = headerRequestId(this.head);
    if (CONTENT_FILTER_REASONS.has(reason)) {
      this.emitFinish({ kind: 'content-filter', reason }, out);
      return;
    }
    if (BAD_TOOL_CALL_REASONS.has(reason)) {
      this.emitFinish({
        kind: 'error',
        reason,
        failure: codes.failure(codes.EMPTY_RESPONSE,
          `Gemini produced no usable answer: its tool call failed (finishReason ${reason}); a retry usually does better`,
          { requestId }),
      }, out);
      return;
    }
    if (reason === 'MISSING_THOUGHT_SIGNATURE') {
      this.emitFinish({
        kind: 'error',
        reason,
        failure: codes.failure(codes.INVALID_REQUEST,
          'Gemini refused the conversation: a function call in it lacks its thought signature (finishReason MISSING_THOUGHT_SIGNATURE)',
          { requestId }),
      }, out);
      return;
    }
    const kind = reason === 'MAX_TOKENS' ? 'length' : this.tools > 0 ? 'tool-calls' : 'stop';
    if (this.text === 0 && this.tools === 0) {
      const why = reason === 'MAX_TOKENS'
        ? `Gemini reached the output token limit (finishReason MAX_TOKENS) before any text${
          this.reasoning || this.usage?.reasoningTokens ? ': thinking used the whole budget; raise max-tokens' : ''}`
        : `Gemini finished (finishReason ${reason}) without any text or function call`;
      this.emitFinish({
        kind: 'error',
        reason,
        failure: codes.failure(codes.EMPTY_RESPONSE, why, { requestId }),
      }, out);
      return;
    }
    this.emitFinish({ kind, reason }, out);
  }

  emitError(failure, out) {
    this.emitFinish({ kind: 'error', reason: undefined, failure }, out);
  }

  emitFinish(finish, out) {
    if (this.usage) out.push({ tag: 'usage', val: this.usage });
    out.push({ tag: 'finish', val: { kind: finish.kind, reason: finish.reason, failure: finish.failure } });
    this.finished = true;
  }

  /** A body without SSE framing: one JSON document (an array of responses, or one response). */
  decodePlainBody(out) {
    const bytes = joinBytes(this.raw, this.rawBytes);
    this.raw = [];
    const text = utf8(bytes);
    if (!text.trim() && !this.rawTooLarge) return;
    let value;
    try {
      if (this.rawTooLarge) throw new Error('too large');
      value = JSON.parse(text);
    } catch {
      this.emitError(this.unparseable(text), out);
      return;
    }
    const items = Array.isArray(value) ? value : [value];
    const understood = items.some((v) => v && typeof v === 'object'
      && ['candidates', 'usageMetadata', 'promptFeedback', 'error'].some((k) => k in v));
    if (!understood) {
      this.emitError(this.unparseable(text), out);
      return;
    }
    this.onJson(items, out);
  }

  unparseable(text) {
    const contentType = header(this.head, 'content-type') ?? 'none';
    const start = looksLikeHtml(text)
      ? (htmlTitle(text) ? `an HTML page titled ${JSON.stringify(htmlTitle(text))}` : excerpt(text, QUOTE_CHARS))
      : JSON.stringify(excerpt(text, QUOTE_CHARS));
    const size = this.rawTooLarge ? ' (too large to be one JSON document)' : '';
    return codes.failure(codes.SERVER_ERROR,
      `Gemini sent an unparseable response body${size}: neither an SSE stream nor JSON (HTTP ${this.head.status}, content-type ${contentType}); it starts with ${start}`,
      { requestId: headerRequestId(this.head) });
  }
}

/** Gemini's usageMetadata as a usage record (plain numbers), or undefined if it says nothing. */
export function usageOf(u) {
  const n = (k) => (Number.isSafeInteger(u[k]) && u[k] >= 0 ? u[k] : undefined);
  const candidates = n('candidatesTokenCount');
  const thoughts = n('thoughtsTokenCount');
  const usage = {
    inputTokens: n('promptTokenCount'),
    outputTokens: candidates === undefined && thoughts === undefined
      ? undefined : (candidates ?? 0) + (thoughts ?? 0),
    cachedInputTokens: n('cachedContentTokenCount'),
    reasoningTokens: thoughts,
  };
  return Object.values(usage).some((x) => x !== undefined) ? usage : undefined;
}

function joinBytes(parts, total) {
  const out = new Uint8Array(total);
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
