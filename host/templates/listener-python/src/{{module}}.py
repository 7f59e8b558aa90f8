"""{{name}}: a dsh-host recovery listener, the logic (plain Python, unit-tested natively).

As generated: "two strikes". A transient failure (RATE_LIMITED, OVERLOADED, SERVER_ERROR) is retried
at most `max_retries` times (default 2) per step, after the provider's retry-after when it gave one,
else after `delay_ms` (default 1000); then it gives up. Every other failure is delegated to the next
listener of the waterfall. Change `decide` to your policy. `app.py` is the component export: it
converts between the types componentize-py generates from wit/0.2.0 and the plain values used here.

A listener only decides: the host waits, logs and calls the provider. The host creates a fresh
instance and calls `configure` before every decision, so module-level configuration is safe.
"""

import json
from dataclasses import dataclass, field
from typing import List, Optional

NAME = "{{name}}"
VERSION = "0.1.0"
POLICY_KEY = "{{name}}"  # the key of this listener's retries in the session log
MAX_DELAY_MS = 3_600_000  # the longest wait the host accepts from a listener
TRANSIENT = ("RATE_LIMITED", "OVERLOADED", "SERVER_ERROR")


class ConfigError(Exception):
    pass


@dataclass
class Config:
    max_retries: int = 2
    delay_ms: int = 1000


@dataclass
class Failure:
    code: str  # canonical, as people write it: "RATE_LIMITED"
    message: str
    status: Optional[int] = None
    retry_after_ms: Optional[int] = None
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
    earlier_retries: List[EarlierRetry] = field(default_factory=list)


# Decisions: ("delegate",), ("retry", delay_ms), ("give-up", reason)


def parse_config(config_json: str) -> Config:
    """`{}` (or nothing) for the defaults; unknown keys are refused by name."""
    config = Config()
    if not config_json.strip():
        return config
    try:
        value = json.loads(config_json)
    except ValueError as e:
        raise ConfigError(f"{NAME}: the config is not valid JSON ({e})")
    if not isinstance(value, dict):
        raise ConfigError(f"{NAME}: the config must be a table, e.g. {{ max_retries = 2 }}")
    for key, v in value.items():
        if key == "max_retries":
            if not isinstance(v, int) or isinstance(v, bool) or v < 0:
                raise ConfigError(f"{NAME}: max_retries must be a whole number, got {json.dumps(v)}")
            config.max_retries = v
        elif key == "delay_ms":
            if not isinstance(v, int) or isinstance(v, bool) or not 0 <= v <= MAX_DELAY_MS:
                raise ConfigError(f"{NAME}: delay_ms must be 0 to {MAX_DELAY_MS}, got {json.dumps(v)}")
            config.delay_ms = v
        else:
            raise ConfigError(f"{NAME}: unknown config key `{key}` (it takes max_retries and delay_ms)")
    return config


def decide(config: Config, context: Context) -> tuple:
    failure = context.failure
    if failure.code not in TRANSIENT:
        return ("delegate",)
    # The count lives in the session log, so a resumed process continues it.
    spent = sum(1 for r in context.earlier_retries if r.policy_key == POLICY_KEY)
    if spent >= config.max_retries:
        return ("give-up", f"{NAME}: {failure.code} after {spent} retries ({failure.message})")
    delay_ms = failure.retry_after_ms if failure.retry_after_ms is not None else config.delay_ms
    if delay_ms > MAX_DELAY_MS:
        return ("give-up", f"{NAME}: the provider asks to wait {delay_ms // 1000} s, longer than an hour")
    return ("retry", delay_ms)
