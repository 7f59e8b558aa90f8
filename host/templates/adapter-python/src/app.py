"""The component export of {{name}} (world `provider-adapter` of dsh:llm@0.2.0).

componentize-py generates the `wit_world` package from wit/0.2.0 when it builds the component (see
build.sh); this module only converts between the generated WIT types and the plain values of
`{{module}}`, where the whole logic lives and is unit-tested natively. componentize-py looks for the
`decoder` resource's class in a module named after the interface: `adapter.py`.
"""

import {{module}} as logic
from componentize_py_types import Err
from wit_world import exports
from wit_world.exports import adapter as a
from wit_world.imports import types as t

ROLES = {t.Role.SYSTEM: "system", t.Role.USER: "user", t.Role.ASSISTANT: "assistant", t.Role.TOOL: "tool"}
FINISH_KINDS = {
    "stop": t.FinishKind.STOP,
    "length": t.FinishKind.LENGTH,
    "tool-calls": t.FinishKind.TOOL_CALLS,
    "content-filter": t.FinishKind.CONTENT_FILTER,
    "error": t.FinishKind.ERROR,
}


def failure_out(f: logic.Failure) -> t.LlmFailure:
    return t.LlmFailure(
        message=f.message,
        code=t.FailureCode[f.code],  # the enum's members are named as people write codes
        status=f.status,
        provider_retry_after_ms=f.retry_after_ms,
        request_id=f.request_id,
    )


def request_in(r: t.CompletionRequest) -> logic.Request:
    o = r.options
    others = [
        name
        for name, is_set in [
            ("top-p", o.top_p is not None),
            ("stop", bool(o.stop)),
            ("reasoning-effort", o.reasoning_effort is not None),
            ("response-format", o.response_format is not None),
        ]
        if is_set
    ]
    return logic.Request(
        model=r.model,
        messages=[
            logic.Message(
                role=ROLES[m.role],
                text="".join(p.value for p in m.content if isinstance(p, t.ContentPart_Text)),
                has_images=any(isinstance(p, t.ContentPart_ImageUrl) for p in m.content),
                has_tool_calls=bool(m.tool_calls),
            )
            for m in r.messages
        ],
        has_tools=bool(r.tools),
        max_output_tokens=o.max_output_tokens,
        temperature=o.temperature,
        other_options=others,
    )


def chunk_out(c) -> t.Chunk:
    if c[0] == "text":
        return t.Chunk_Text(c[1])
    if c[0] == "usage":
        return t.Chunk_Usage(t.Usage(input_tokens=c[1], output_tokens=c[2], cached_input_tokens=None, reasoning_tokens=None))
    _, kind, reason, failure = c
    return t.Chunk_Finish(
        t.Finish(kind=FINISH_KINDS[kind], reason=reason, failure=failure_out(failure) if failure else None)
    )


class Adapter(exports.Adapter):
    def info(self) -> a.AdapterInfo:
        return a.AdapterInfo(name=logic.NAME, version=logic.VERSION)

    def plan_request(self, endpoint: t.Endpoint, request: t.CompletionRequest) -> t.HttpPlan:
        try:
            plan = logic.plan_request(endpoint.base_url, request_in(request))
        except logic.Refused as e:
            raise Err(failure_out(logic.Failure("INVALID_REQUEST", str(e))))
        return t.HttpPlan(method=plan.method, url=plan.url, headers=plan.headers, body=plan.body)

    def classify_failure(self, head: t.ResponseHead, body: bytes) -> t.LlmFailure:
        return failure_out(logic.classify_failure(head.status, head.headers, head.received_at_ms, body))
