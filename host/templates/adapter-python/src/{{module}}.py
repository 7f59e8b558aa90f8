"""{{name}}: a dsh-host provider adapter, the logic (plain Python, unit-tested natively).

As generated it speaks the OpenAI chat-completions streaming API (what `dsh-host mock` answers, and
what many servers offer); change `plan_request`, `classify_failure` and `Decoder` to your provider's
API. `app.py` and `adapter.py` are the component export: they convert between the types
componentize-py generates from wit/0.2.0 and the plain values used here.

The contract in short: `plan_request` says which HTTP call to make, with `{credential}` where the key
goes (the host inserts it: the adapter never sees it); `classify_failure` turns a non-2xx answer into
one canonical code; a `Decoder` turns the 2xx body, fed in network reads cut anywhere, into chunks.
An adapter never retries.
"""

import json
import math
import re
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime
from typing import List, Optional, Tuple

NAME = "{{name}}"
VERSION = "0.1.0"
QUOTE_CHARS = 200


class Refused(Exception):
    """A request the provider could never accept (INVALID_REQUEST)."""


@dataclass
class Failure:
    code: str  # canonical, as people write it: "RATE_LIMITED"
    message: str
    status: Optional[int] = None
    retry_after_ms: Optional[int] = None
    request_id: Optional[str] = None


@dataclass
class Message:
    role: str  # "system", "user", "assistant", "tool"
    text: str
    has_images: bool = False
    has_tool_calls: bool = False


@dataclass
class Request:
    model: str
    messages: List[Message]
    has_tools: bool = False
    max_output_tokens: Optional[int] = None
    temperature: Optional[float] = None
    other_options: List[str] = field(default_factory=list)  # options set that this adapter cannot send


@dataclass
class Plan:
    method: str
    url: str
    headers: List[Tuple[str, str]]
    body: bytes


# Chunks: ("text", str), ("usage", input_tokens, output_tokens), ("finish", kind, reason, Failure|None)
# where kind is "stop", "length", "tool-calls", "content-filter" or "error".


def plan_request(base_url: str, request: Request) -> Plan:
    if not request.model.strip():
        raise Refused(f"{NAME}: no model: give one with --model or `model` in dsh.toml")
    if request.has_tools:
        raise Refused(f"{NAME}: this adapter does not send tools yet (run without --tools)")
    if request.other_options:
        raise Refused(f"{NAME}: this adapter cannot send {', '.join(request.other_options)}")
    messages = []
    for m in request.messages:
        if m.has_images:
            raise Refused(f"{NAME}: this adapter does not send images")
        if m.has_tool_calls or m.role == "tool":
            raise Refused(f"{NAME}: this adapter does not send tool calls or results")
        messages.append({"role": m.role, "content": m.text})
    body = {"model": request.model, "messages": messages, "stream": True}
    if request.max_output_tokens is not None:
        body["max_tokens"] = request.max_output_tokens
    if request.temperature is not None:
        body["temperature"] = request.temperature
    return Plan(
        method="POST",
        url=base_url.rstrip("/") + "/chat/completions",
        headers=[("content-type", "application/json"), ("authorization", "Bearer {credential}")],
        body=json.dumps(body).encode(),
    )


def header(headers, name: str) -> Optional[str]:
    for k, v in headers:
        if k.lower() == name and v.strip():
            return v.strip()
    return None


def retry_after_ms(headers, received_at_ms: int) -> Optional[int]:
    """`retry-after-ms` first, else `retry-after`: seconds, or an HTTP date against the host's clock."""
    ms = header(headers, "retry-after-ms")
    if ms is not None:
        try:
            hint = delay_ms(float(ms))
            if hint is not None:
                return hint
        except ValueError:
            pass
    after = header(headers, "retry-after")
    if after is None:
        return None
    try:
        return delay_ms(float(after) * 1000)
    except ValueError:
        pass
    try:
        date_ms = int(parsedate_to_datetime(after).timestamp() * 1000)
    except (TypeError, ValueError, IndexError, OverflowError):
        return None
    if date_ms >= received_at_ms:
        return delay_ms(date_ms - received_at_ms)
    # An HTTP date has one-second resolution: within the current second means now.
    return 0 if received_at_ms - date_ms < 1000 else None


U64_MAX = 2**64 - 1


def delay_ms(value: float) -> Optional[int]:
    """A delay the contract can carry (a u64 of milliseconds), else no hint: `1e999`, `NaN`, a
    negative or an absurdly large value would make the host refuse the whole answer."""
    if not math.isfinite(value) or value < 0:
        return None
    ms = round(value)
    return ms if ms <= U64_MAX else None


def excerpt(text: str) -> str:
    text = re.sub(r"\s+", " ", text).strip()
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 1] + "…"


def classify_failure(status: int, headers, received_at_ms: int, body: bytes) -> Failure:
    """A non-2xx answer as one canonical failure. Never raises: garbage is classified by its status."""
    text = body.decode("utf-8", errors="replace")
    error = None
    try:
        parsed = json.loads(text)
        if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict):
            error = parsed["error"]
    except ValueError:
        pass
    message = error.get("message") if error else None
    if not isinstance(message, str) or not message.strip():
        message = f"HTTP {status}" + (f": {excerpt(text)}" if text.strip() else "")
    kind = (error.get("code") or error.get("type") or "") if error else ""
    return Failure(
        code=code_for(status, str(kind), message),
        message=message,
        status=status,
        retry_after_ms=retry_after_ms(headers, received_at_ms),
        request_id=header(headers, "x-request-id"),
    )


def code_for(status: int, kind: str, message: str) -> str:
    """By meaning, not by status alone: a 429 that waiting cannot cure is a quota, a 400 that says
    the context is too long is an overflow (compaction may cure it)."""
    lower = message.lower()
    overflow = kind == "context_length_exceeded" or "maximum context length" in lower or "context window" in lower
    if status in (401, 403):
        return "AUTH"
    if status == 402:  # Payment Required: billing, which waiting will not cure
        return "QUOTA_EXCEEDED"
    if status == 429:
        return "QUOTA_EXCEEDED" if kind == "insufficient_quota" else "RATE_LIMITED"
    if status in (400, 413, 422) and overflow:
        return "CONTEXT_WINDOW_EXCEEDED"
    if status in (408, 504):
        return "TIMEOUT"
    if status in (503, 529):
        return "OVERLOADED"
    if 400 <= status < 500:
        return "INVALID_REQUEST"
    return "SERVER_ERROR"


FINISH_KINDS = {"length": "length", "tool_calls": "tool-calls", "content_filter": "content-filter"}


class Decoder:
    """One per 2xx answer: server-sent events into chunks. Lines are cut on bytes and decoded only
    when complete, so a read that ends inside a line or a UTF-8 character changes nothing."""

    def __init__(self):
        self.pending = b""
        self.data: List[str] = []

    def feed(self, data: bytes) -> list:
        lines = (self.pending + data).split(b"\n")
        self.pending = lines.pop()
        chunks = []
        for line in lines:
            self._line(line.rstrip(b"\r").decode("utf-8", errors="replace"), chunks)
        return chunks

    def end(self) -> list:
        chunks = []
        if self.pending:
            self._line(self.pending.rstrip(b"\r").decode("utf-8", errors="replace"), chunks)
            self.pending = b""
        self._dispatch(chunks)
        return chunks

    def _line(self, line: str, chunks: list) -> None:
        if line == "":
            self._dispatch(chunks)
        elif line.startswith("data:"):
            value = line[5:]
            self.data.append(value[1:] if value.startswith(" ") else value)
        # Comments (keepalives), `event:`, `id:` and `retry:` carry nothing here.

    def _dispatch(self, chunks: list) -> None:
        if not self.data:
            return
        data, self.data = "\n".join(self.data), []
        chunks.extend(chunks_of(data))


def chunks_of(data: str) -> list:
    if data == "[DONE]":
        return []
    try:
        event = json.loads(data)
    except ValueError:
        return [("finish", "error", None, Failure("SERVER_ERROR", f"unparseable event: {excerpt(data)}"))]
    if not isinstance(event, dict):
        return [("finish", "error", None, Failure("SERVER_ERROR", f"unexpected event: {excerpt(data)}"))]
    if isinstance(event.get("error"), dict):
        message = event["error"].get("message") or "an error inside the stream"
        return [("finish", "error", None, Failure("SERVER_ERROR", str(message)))]
    chunks = []
    choices = event.get("choices") or [{}]
    choice = choices[0] if isinstance(choices[0], dict) else {}
    delta = choice.get("delta") or {}
    text = delta.get("content") if isinstance(delta, dict) else None
    if isinstance(text, str) and text:
        chunks.append(("text", text))
    reason = choice.get("finish_reason")
    if isinstance(reason, str):
        chunks.append(("finish", FINISH_KINDS.get(reason, "stop"), reason, None))
    usage = event.get("usage")
    if isinstance(usage, dict):
        chunks.append(("usage", usage.get("prompt_tokens"), usage.get("completion_tokens")))
    return chunks
