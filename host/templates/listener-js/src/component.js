// The component export of {{name}} (world recovery-listener of dsh:llm@0.2.0, built by build.mjs).
//
// Only conversions between jco's WIT types and the plain values of listener.js: failure codes are
// kebab-case enum names in the WIT ('rate-limited') and written as people write them in the logic
// ('RATE_LIMITED'); u64 values are BigInts in the WIT and numbers in the logic; `configure`'s
// error is thrown.

import { NAME, POLICY_KEY, VERSION, decide, parseConfig } from './listener.js';

// Set by `configure`, which the host calls on a fresh instance before every decision.
let config;

function codeIn(code) {
  return code.toUpperCase().replaceAll('-', '_');
}

function numberIn(n) {
  return n === undefined ? undefined : Number(n);
}

export const listener = {
  info() {
    return { name: NAME, version: VERSION };
  },

  configure(configJson) {
    config = parseConfig(configJson);
  },

  onFailure(context) {
    if (!config) return { tag: 'give-up', val: `${NAME}: on-failure was called before configure` };
    const f = context.failure;
    const decision = decide(config, {
      failure: { ...f, code: codeIn(f.code), providerRetryAfterMs: numberIn(f.providerRetryAfterMs) },
      earlierRetries: context.earlierRetries.map((r) => ({
        policyKey: r.policyKey,
        retry: r.retry,
        delayMs: Number(r.delayMs),
        code: codeIn(r.code),
      })),
    });
    if (decision.tag === 'retry') {
      return { tag: 'retry', val: { delayMs: BigInt(decision.delayMs), policyKey: POLICY_KEY, replaceMessages: undefined } };
    }
    if (decision.tag === 'give-up') return { tag: 'give-up', val: decision.reason };
    return { tag: 'delegate' };
  },
};
