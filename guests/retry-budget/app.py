"""The component export of the retry-budget listener (world `recovery-listener` of dsh:llm@0.1.0).

componentize-py generates the `wit_world` package from ../../wit/0.1.0 when it builds the component
(see build.sh); this module only converts between the generated WIT types and the plain types of
`retry_budget`, where the whole logic lives and is unit-tested natively.

The host configures a fresh instance before every decision, so the budget kept in a module global by
`configure` is always the one of this listener's [[listeners]] entry.
"""

import retry_budget as rb
from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import listener as l

_budget_ms = None


class Listener(exports.Listener):
    def info(self) -> l.ListenerInfo:
        return l.ListenerInfo(name=rb.NAME, version=rb.VERSION)

    def configure(self, config_json: str) -> None:
        global _budget_ms
        try:
            _budget_ms = rb.parse_config(config_json)
        except rb.ConfigError as e:
            raise Err(str(e))

    def on_failure(self, context: l.FailureContext) -> l.Decision:
        if _budget_ms is None:
            return l.Decision_GiveUp("retry-budget: on-failure was called before configure")
        f = context.failure
        ctx = rb.Context(
            failure=rb.Failure(
                code=f.code,
                message=f.message,
                status=f.status,
                provider_retry_after_ms=f.provider_retry_after_ms,
                request_id=f.request_id,
            ),
            provider=context.provider,
            earlier_retries=[
                rb.EarlierRetry(r.policy_key, r.retry, r.delay_ms, r.code)
                for r in context.earlier_retries
            ],
            retry_policy_json=context.retry_policy_json,
            turn=context.turn,
            step=context.step,
        )
        decision = rb.on_failure(_budget_ms, ctx)
        if isinstance(decision, rb.GiveUp):
            return l.Decision_GiveUp(decision.reason)
        return l.Decision_Delegate()
