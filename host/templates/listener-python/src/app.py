"""The component export of {{name}} (world `recovery-listener` of dsh:llm@0.2.0).

componentize-py generates the `wit_world` package from wit/0.2.0 when it builds the component (see
build.sh); this module only converts between the generated WIT types and the plain values of
`{{module}}`, where the whole logic lives and is unit-tested natively.
"""

import {{module}} as logic
from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import listener as l

# Set by `configure`, which the host calls on a fresh instance before every decision.
_config = None


class Listener(exports.Listener):
    def info(self) -> l.ListenerInfo:
        return l.ListenerInfo(name=logic.NAME, version=logic.VERSION)

    def configure(self, config_json: str) -> None:
        global _config
        try:
            _config = logic.parse_config(config_json)
        except logic.ConfigError as e:
            raise Err(str(e))

    def on_failure(self, context: l.FailureContext) -> l.Decision:
        if _config is None:
            return l.Decision_GiveUp(f"{logic.NAME}: on-failure was called before configure")
        f = context.failure
        decision = logic.decide(
            _config,
            logic.Context(
                failure=logic.Failure(
                    code=f.code.name,  # FailureCode members are named as people write codes
                    message=f.message,
                    status=f.status,
                    retry_after_ms=f.provider_retry_after_ms,
                    request_id=f.request_id,
                ),
                earlier_retries=[
                    logic.EarlierRetry(r.policy_key, r.retry, r.delay_ms, r.code.name)
                    for r in context.earlier_retries
                ],
            ),
        )
        if decision[0] == "retry":
            return l.Decision_Retry(
                l.RetryDecision(delay_ms=decision[1], policy_key=logic.POLICY_KEY, replace_messages=None)
            )
        if decision[0] == "give-up":
            return l.Decision_GiveUp(decision[1])
        return l.Decision_Delegate()
