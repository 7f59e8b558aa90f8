// The component export (world `provider-adapter` of dsh:llm@0.1.0), built by componentize-js
// (build.mjs). Only conversions live here; the logic is in the plain modules beside it, tested with
// `node --test`.
//
// jco's mapping of the WIT types: records are objects with camelCase fields, enums are their
// kebab-case names, variants are `{tag, val}`, `option<T>` is the value or `undefined`,
// `list<u8>` is a Uint8Array, u64 is a BigInt. A `result` error is returned by throwing
// `{payload: failure}`.

import { planRequest as plan } from './plan.js';
import { classifyFailure as classify } from './classify.js';
import { GeminiDecoder } from './decode.js';

export const NAME = 'gemini';
export const VERSION = '0.1.0';

function u64(n) {
  return n === undefined || n === null ? undefined : BigInt(n);
}

function failureOut(f) {
  return {
    message: f.message,
    code: f.code,
    status: f.status,
    providerRetryAfterMs: u64(f.providerRetryAfterMs),
    requestId: f.requestId,
  };
}

function headIn(head) {
  return { status: head.status, headers: head.headers, receivedAtMs: Number(head.receivedAtMs) };
}

function chunkOut(chunk) {
  switch (chunk.tag) {
    case 'usage': {
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
    case 'finish': {
      const f = chunk.val;
      return {
        tag: 'finish',
        val: { kind: f.kind, reason: f.reason, failure: f.failure ? failureOut(f.failure) : undefined },
      };
    }
    default:
      return chunk;
  }
}

class Decoder {
  constructor(head) {
    this.inner = new GeminiDecoder(headIn(head));
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
      return plan(endpoint, request);
    } catch (e) {
      if (e && typeof e === 'object' && typeof e.code === 'string' && typeof e.message === 'string') {
        throw { payload: failureOut(e) };
      }
      throw e;
    }
  },

  classifyFailure(head, body) {
    return failureOut(classify(headIn(head), body));
  },

  Decoder,
};
