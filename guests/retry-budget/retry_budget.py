"""dsh recovery listener `retry-budget`: a cap on the total backoff of one step.

Plain Python, standard library only, no WIT types: this module is the listener's whole logic and is
unit-tested natively (``python3 -m unittest`` in this folder). ``app.py`` is the thin layer that
componentize-py exports as world ``recovery-listener``; it only converts the generated WIT types.

Configuration (``[[listeners]] config = { budget_ms = 60000 }`` in dsh.toml, handed over as JSON):
``budget_ms`` is required, a positive whole number of milliseconds. Any other key is refused by name;
``retry_policy`` is refused with where it belongs (``[providers.NAME.retry_policy]``).

The decision, in order, on each failure:

1. ``QUOTA_EXCEEDED`` and ``AUTH`` give up at once, saying what to do: waiting cures neither.
2. A code that the retry policy never retries (``CONTEXT_WINDOW_EXCEEDED``: compaction's job,
   ``INVALID_REQUEST``, ``CONTENT_FILTER``, ...) is delegated: the budget only bounds waiting.
3. Otherwise the listener predicts the delay that llm-retry, which sits AFTER it in the waterfall,
   would propose for this failure (see ``proposed_delay``). No proposal (llm-retry would not retry:
   the code is not in ``retryable_codes``, ``max_retries`` is spent, the provider's retry-after is
   beyond ``max_delay_ms`` in normal mode, the policy does not parse) means delegate: nothing is
   going to wait, and llm-retry explains its own refusal.
4. The backoff already scheduled for this step is the sum of ``delay-ms`` of the earlier
   ``llm/retry`` events the host hands over (every listener's, since the budget is the step's).
   If that sum plus the proposed delay exceeds ``budget_ms``, give up explaining the numbers;
   otherwise delegate, and llm-retry decides.

A pure function of its input: no clock, no randomness, no I/O.
"""

import json
import math
from dataclasses import dataclass, field
from typing import List, Optional, Union

NAME = "retry-budget"
VERSION = "0.1.0"

# The policy key of the listener whose delay is predicted, and its defaults (docs/DESIGN.md, "Recovery").
LLM_RETRY_KEY = "llm-retry"
DEFAULT_MAX_RETRIES = 5
DEFAULT_INITIAL_DELAY_MS = 1000
DEFAULT_MAX_DELAY_MS = 120_000
DEFAULT_JITTER_RATIO = 0.2

# docs/DESIGN.md, "The failure record".
DEFAULT_RETRYABLE = (
    "RATE_LIMITED",
    "OVERLOADED",
    "SERVER_ERROR",
    "NETWORK",
    "STREAM_TRUNCATED",
    "TIMEOUT",
    "EMPTY_RESPONSE",
)

CONFIG_KEYS = ("budget_ms",)
# Larger than any delay a u64 can carry is a typo, not a wish.
MAX_BUDGET_MS = 2**64 - 1


class ConfigError(ValueError):
    """The listener's configuration is refused; the text says why and what to write instead."""


@dataclass
class Failure:
    code: str
    message: str = ""
    status: Optional[int] = None
    provider_retry_after_ms: Optional[int] = None
    request_id: Optional[str] = None


@dataclass
class EarlierRetry:
    policy_key: str
    retry: int
    delay_ms: int
    code: str


@dataclass
class Context:
    failure: Failure
    provider: str = "the provider"
    earlier_retries: List[EarlierRetry] = field(default_factory=list)
    retry_policy_json: str = "{}"
    turn: int = 1
    step: int = 1


@dataclass
class Delegate:
    pass


@dataclass
class GiveUp:
    reason: str


Decision = Union[Delegate, GiveUp]


# ---- configuration ---------------------------------------------------------------------------


def parse_config(config_json: str) -> int:
    """The budget in milliseconds, or ``ConfigError`` naming the problem and the fix."""
    example = "for example config = { budget_ms = 60000 } under its [[listeners]] entry in dsh.toml"
    if config_json is None or not config_json.strip():
        raise ConfigError(f"the retry-budget listener needs `budget_ms` in its config, {example}")
    try:
        value = json.loads(config_json)
    except ValueError as e:
        raise ConfigError(f"the retry-budget listener's config is not valid JSON ({e})") from None
    if not isinstance(value, dict):
        raise ConfigError(
            f"the retry-budget listener's config must be a JSON object, got {_kind(value)}; {example}"
        )
    unknown = sorted(k for k in value if k not in CONFIG_KEYS and k != "retry_policy")
    if "retry_policy" in value:
        message = (
            "`retry_policy` does not belong in the retry-budget listener's config: the retry policy "
            "belongs to the provider, under [providers.NAME.retry_policy] in dsh.toml"
        )
        if unknown:
            message += f"; also unknown: {_quoted(unknown)} (the only key is `budget_ms`)"
        raise ConfigError(message)
    if unknown:
        raise ConfigError(
            f"unknown key{'' if len(unknown) == 1 else 's'} {_quoted(unknown)} in the retry-budget "
            f"listener's config: its only key is `budget_ms` (milliseconds)"
        )
    if "budget_ms" not in value:
        raise ConfigError(f"the retry-budget listener needs `budget_ms` in its config, {example}")
    budget = _whole_number(value["budget_ms"])
    if budget is None or budget <= 0 or budget > MAX_BUDGET_MS:
        raise ConfigError(
            "budget_ms must be a positive whole number of milliseconds (the most the retries of one "
            f"step may wait in all), got {_shown(value['budget_ms'])}; {example}"
        )
    return budget


# ---- the decision ----------------------------------------------------------------------------


def on_failure(budget_ms: int, ctx: Context) -> Decision:
    """Decides for one failure (see the module documentation for the order)."""
    code = ctx.failure.code
    provider = ctx.provider
    if code == "QUOTA_EXCEEDED":
        return GiveUp(
            f"retry-budget: provider {provider} reports its quota exhausted (QUOTA_EXCEEDED); waiting "
            "will not cure it: check the billing and plan (credits, spending or daily limits) of the "
            f"account behind provider {provider}'s API key, or switch to another provider or model"
        )
    if code == "AUTH":
        return GiveUp(
            f"retry-budget: provider {provider} refused the credentials (AUTH); retrying will not "
            f"cure it: check the API key in the environment variable named by api_key_env under "
            f"[providers.{provider}] in dsh.toml (is it set, current, and a key for this provider?)"
        )
    if code not in DEFAULT_RETRYABLE:
        return Delegate()

    proposal = proposed_delay(ctx)
    if proposal is None:
        return Delegate()
    delay, how = proposal
    scheduled = sum(max(0, int(r.delay_ms)) for r in ctx.earlier_retries)
    if scheduled + delay <= budget_ms:
        return Delegate()
    count = len(ctx.earlier_retries)
    already = (
        f"{scheduled} ms already scheduled by the {count} earlier "
        f"{'retry' if count == 1 else 'retries'} of this step"
        if count
        else "nothing scheduled yet in this step"
    )
    return GiveUp(
        f"retry-budget: retrying this {code} would wait {delay} ms ({how}) on top of {already}: "
        f"{scheduled + delay} ms in all, over the budget of {budget_ms} ms (budget_ms); "
        "raise budget_ms to wait longer"
    )


def proposed_delay(ctx: Context):
    """What llm-retry would propose for this failure, as ``(delay_ms, explanation)``, or ``None``
    when llm-retry would not retry it at all.

    Read from the context as llm-retry reads it: the retry number is 1 + the earlier retries with
    policy key ``llm-retry``; the provider's ``provider-retry-after-ms`` is the delay when positive
    and within ``max_delay_ms``; otherwise the policy's exponential delay
    ``initial_delay_ms * 2^(n-1)`` capped at ``max_delay_ms``, times the UPPER jitter bound
    ``1 + jitter_ratio`` (llm-retry draws its jitter from a sample this listener does not rely on,
    so it assumes the longest wait the policy allows), rounded up to a whole millisecond.
    """
    policy = read_policy(ctx.retry_policy_json)
    if policy is None:
        return None
    code = ctx.failure.code
    if code not in DEFAULT_RETRYABLE:
        return None
    if policy.mode == "normal" and code not in policy.retryable_codes:
        return None
    retry = 1 + sum(1 for r in ctx.earlier_retries if r.policy_key == LLM_RETRY_KEY)
    if policy.mode == "normal" and retry > policy.max_retries:
        return None
    hint = ctx.failure.provider_retry_after_ms
    if hint is not None and hint > 0:
        if hint <= policy.max_delay_ms:
            return hint, f"the provider's retry-after, which llm-retry honours for retry {retry}"
        if policy.mode == "normal":
            return None
    capped = min(policy.initial_delay_ms * 2 ** min(retry - 1, 1100), policy.max_delay_ms)
    # Rounded up, but not past a float's noise (50 * 1.2 is 60.00000000000001).
    delay = math.ceil(capped * (1 + policy.jitter_ratio) - 1e-6)
    return delay, (
        f"llm-retry's delay for retry {retry}: {capped} ms of backoff plus up to "
        f"{_percent(policy.jitter_ratio)} jitter"
    )


@dataclass
class Policy:
    mode: str = "normal"
    max_retries: int = DEFAULT_MAX_RETRIES
    initial_delay_ms: int = DEFAULT_INITIAL_DELAY_MS
    max_delay_ms: int = DEFAULT_MAX_DELAY_MS
    jitter_ratio: float = DEFAULT_JITTER_RATIO
    retryable_codes: tuple = DEFAULT_RETRYABLE


def read_policy(policy_json: str) -> Optional[Policy]:
    """The provider's retry policy with its defaults, or ``None`` if it does not make sense (then
    llm-retry gives up naming the field, and this listener stays out of the way)."""
    if policy_json is None or not policy_json.strip():
        return Policy()
    try:
        value = json.loads(policy_json)
    except ValueError:
        return None
    if not isinstance(value, dict):
        return None
    p = Policy()
    mode = value.get("mode", "normal")
    if mode not in ("normal", "always"):
        return None
    p.mode = mode
    for key in ("max_retries", "initial_delay_ms", "max_delay_ms"):
        if key in value:
            n = _whole_number(value[key])
            if n is None or n < 0:
                return None
            setattr(p, key, n)
    if "jitter_ratio" in value:
        j = value["jitter_ratio"]
        if isinstance(j, bool) or not isinstance(j, (int, float)) or not 0 <= j <= 1:
            return None
        p.jitter_ratio = float(j)
    if "retryable_codes" in value:
        codes = value["retryable_codes"]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            return None
        p.retryable_codes = tuple(codes)
    if p.initial_delay_ms <= 0 or p.max_delay_ms < p.initial_delay_ms:
        return None
    return p


# ---- helpers ---------------------------------------------------------------------------------


def _whole_number(v) -> Optional[int]:
    if isinstance(v, bool):
        return None
    if isinstance(v, int):
        return v
    if isinstance(v, float) and math.isfinite(v) and v == int(v):
        return int(v)
    return None


def _kind(v) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, (int, float)):
        return "a number"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "a list"
    return "an object"


def _shown(v) -> str:
    text = json.dumps(v)
    return text if len(text) <= 60 else text[:57] + "..."


def _quoted(keys) -> str:
    return ", ".join(f"`{k}`" for k in keys)


def _percent(ratio: float) -> str:
    return f"{ratio * 100:g} %"
