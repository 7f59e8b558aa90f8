// The component export of {{name}} (world provider-adapter of dsh:llm@0.2.0, built by build.mjs).
//
// Only conversions between jco's WIT types and the plain values of adapter.js: failure codes are
// kebab-case enum names in the WIT ('rate-limited') and written as people write them in the logic
// ('RATE_LIMITED'); u64 values (retry-after, usage, the clock) are BigInts in the WIT and numbers
// in the logic; a `result` error is thrown as `{ payload }`.

import { Decoder as PlainDecoder, NAME, VERSION, classifyFailure, planRequest } from './adapter.js';

function u64(n) {
  return n === undefined || n === null ? undefined : BigInt(n);
}

function failureOut(f) {
  return {
    message: f.message,
    code: f.code.toLowerCase().replaceAll('_', '-'),
    status: f.status,
    providerRetryAfterMs: u64(f.providerRetryAfterMs),
    requestId: f.requestId,
  };
}

function headIn(head) {
  return { status: head.status, headers: head.headers, receivedAtMs: Number(head.receivedAtMs) };
}

function chunkOut(chunk) {
  if (chunk.tag === 'usage') {
    const u = chunk.val;
    return {
      tag: 'usage',
      val: {
        inputTokens: u64(u.inputTokens),
        outputTokens: u64(u.outputTokens),
        cachedInputTokens: u64(u.cachedInputTokens),
        reasoningTokens: u64(u.reasoningTokens),
      },
    };
  }
  if (chunk.tag === 'finish') {
    const f = chunk.val;
    return { tag: 'finish', val: { kind: f.kind, reason: f.reason, failure: f.failure ? failureOut(f.failure) : undefined } };
  }
  return chunk;
}

class Decoder {
  constructor(head) {
    this.inner = new PlainDecoder(headIn(head));
  }

  feed(bytes) {
    return this.inner.feed(bytes).map(chunkOut);
  }

  end() {
    return this.inner.end().map(chunkOut);
  }
}

export const adapter = {
  info() {
    return { name: NAME, version: VERSION };
  },

  planRequest(endpoint, request) {
    try {
      return planRequest(endpoint, request);
    } catch (e) {
      if (e && typeof e.code === 'string' && typeof e.message === 'string') throw { payload: failureOut(e) };
      throw e;
    }
  },

  classifyFailure(head, body) {
    return failureOut(classifyFailure(headIn(head), body));
  },

  Decoder,
};
