"""Unit tests of the retry-budget logic: `python3 -m unittest` in this folder (standard library only)."""

import json
import unittest

import retry_budget as rb
from retry_budget import Context, Delegate, EarlierRetry, Failure, GiveUp


def ctx(code, *, hint=None, earlier=(), policy="{}", provider="openai"):
    """A context; `earlier` is a list of (policy_key, delay_ms)."""
    return Context(
        failure=Failure(code=code, message="x", provider_retry_after_ms=hint),
        provider=provider,
        earlier_retries=[
            EarlierRetry(policy_key=key, retry=i + 1, delay_ms=delay, code=code)
            for i, (key, delay) in enumerate(earlier)
        ],
        retry_policy_json=policy,
    )


def reason(decision):
    assert isinstance(decision, GiveUp), f"expected give-up, got {decision!r}"
    return decision.reason


class ConfigureTest(unittest.TestCase):
    def test_accepts_a_positive_budget(self):
        self.assertEqual(rb.parse_config('{"budget_ms": 60000}'), 60000)
        self.assertEqual(rb.parse_config(' {"budget_ms": 1} '), 1)
        # TOML integers arrive as JSON integers; an integral float is the same number.
        self.assertEqual(rb.parse_config('{"budget_ms": 2500.0}'), 2500)

    def test_budget_is_required(self):
        for text in ["", "  ", "{}"]:
            with self.assertRaises(rb.ConfigError) as e:
                rb.parse_config(text)
            self.assertIn("needs `budget_ms`", str(e.exception))
            self.assertIn("config = { budget_ms = 60000 }", str(e.exception))

    def test_budget_must_be_a_positive_whole_number(self):
        for bad in ["0", "-5", "1.5", '"60000"', "true", "null", "[]", "1e400", "NaN",
                    str(2**64)]:
            with self.assertRaises(rb.ConfigError, msg=bad) as e:
                rb.parse_config(f'{{"budget_ms": {bad}}}')
            self.assertIn("budget_ms must be a positive whole number", str(e.exception), bad)

    def test_a_retry_policy_is_refused_saying_where_it_belongs(self):
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config('{"budget_ms": 100, "retry_policy": {"max_retries": 3}}')
        text = str(e.exception)
        self.assertIn("`retry_policy` does not belong in the retry-budget listener's config", text)
        self.assertIn("[providers.NAME.retry_policy]", text)
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config('{"retry_policy": {}, "foo": 1}')
        self.assertIn("[providers.NAME.retry_policy]", str(e.exception))
        self.assertIn("`foo`", str(e.exception))

    def test_unknown_keys_are_refused_by_name(self):
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config('{"budget_ms": 100, "budget": 5}')
        self.assertIn("unknown key `budget`", str(e.exception))
        self.assertIn("only key is `budget_ms`", str(e.exception))
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config('{"b": 1, "a": 2}')
        self.assertIn("unknown keys `a`, `b`", str(e.exception))

    def test_not_an_object(self):
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config("[1]")
        self.assertIn("must be a JSON object, got a list", str(e.exception))
        with self.assertRaises(rb.ConfigError) as e:
            rb.parse_config("{")
        self.assertIn("not valid JSON", str(e.exception))


class GiveUpAtOnceTest(unittest.TestCase):
    def test_quota_exceeded_says_check_billing(self):
        text = reason(rb.on_failure(10**9, ctx("QUOTA_EXCEEDED", provider="gemini")))
        self.assertIn("QUOTA_EXCEEDED", text)
        self.assertIn("billing and plan", text)
        self.assertIn("provider gemini", text)

    def test_auth_says_check_the_key_variable(self):
        text = reason(rb.on_failure(10**9, ctx("AUTH", provider="gemini")))
        self.assertIn("AUTH", text)
        self.assertIn("api_key_env under [providers.gemini]", text)

    def test_even_with_retries_left_and_a_huge_budget(self):
        for code in ["QUOTA_EXCEEDED", "AUTH"]:
            self.assertIsInstance(rb.on_failure(10**12, ctx(code, hint=1)), GiveUp)


class DelegateTest(unittest.TestCase):
    def test_codes_the_retry_policy_never_retries_are_delegated(self):
        for code in ["CONTEXT_WINDOW_EXCEEDED", "INVALID_REQUEST", "CONTENT_FILTER", "ABORTED",
                     "ADAPTER_FAULT", "SOMETHING_NEW"]:
            # Even a budget of 1 ms: the budget bounds waiting, and these are not waited for.
            self.assertEqual(rb.on_failure(1, ctx(code)), Delegate(), code)

    def test_within_budget_is_delegated(self):
        # First retry: 1000 ms * 1.2 = 1200 ms.
        self.assertEqual(rb.on_failure(1200, ctx("SERVER_ERROR")), Delegate())
        self.assertIsInstance(rb.on_failure(1199, ctx("SERVER_ERROR")), GiveUp)

    def test_when_llm_retry_would_not_retry_there_is_nothing_to_bound(self):
        # Not in the normal-mode allowlist.
        policy = '{"retryable_codes": ["NETWORK"]}'
        self.assertEqual(rb.on_failure(1, ctx("RATE_LIMITED", policy=policy)), Delegate())
        # max_retries spent: llm-retry gives up itself, with its own reason.
        earlier = [("llm-retry", 10)] * 2
        self.assertEqual(
            rb.on_failure(1, ctx("SERVER_ERROR", earlier=earlier, policy='{"max_retries": 2}')),
            Delegate(),
        )
        # A retry-after beyond the cap in normal mode: llm-retry delegates.
        self.assertEqual(
            rb.on_failure(1, ctx("RATE_LIMITED", hint=200_000)), Delegate()
        )
        # A policy that does not parse: llm-retry names the field.
        for bad in ['{"mode": "sometimes"}', "[]", "{", '{"initial_delay_ms": 0}',
                    '{"jitter_ratio": 2}', '{"max_delay_ms": 10, "initial_delay_ms": 20}']:
            self.assertEqual(rb.on_failure(1, ctx("SERVER_ERROR", policy=bad)), Delegate(), bad)


class ProposedDelayTest(unittest.TestCase):
    def delay(self, c):
        proposal = rb.proposed_delay(c)
        self.assertIsNotNone(proposal)
        return proposal[0]

    def test_exponential_with_the_upper_jitter_bound(self):
        got = [self.delay(ctx("OVERLOADED", earlier=[("llm-retry", 0)] * n)) for n in range(5)]
        self.assertEqual(got, [1200, 2400, 4800, 9600, 19200])

    def test_capped_at_max_delay(self):
        policy = '{"initial_delay_ms": 300, "max_delay_ms": 1000, "jitter_ratio": 0}'
        got = [self.delay(ctx("TIMEOUT", earlier=[("llm-retry", 0)] * n, policy=policy))
               for n in range(4)]
        self.assertEqual(got, [300, 600, 1000, 1000])
        # Huge retry numbers (always mode is unbounded) stay at the cap, with jitter.
        always = '{"mode": "always"}'
        self.assertEqual(
            self.delay(ctx("NETWORK", earlier=[("llm-retry", 0)] * 3000, policy=always)), 144_000
        )

    def test_only_llm_retry_retries_count_for_the_retry_number(self):
        earlier = [("compaction-basic", 0), ("llm-retry", 50), ("someone-else", 5)]
        self.assertEqual(self.delay(ctx("NETWORK", earlier=earlier)), 2400)

    def test_rounded_up(self):
        policy = '{"initial_delay_ms": 3, "jitter_ratio": 0.1}'
        self.assertEqual(self.delay(ctx("NETWORK", policy=policy)), 4)  # 3.3

    def test_the_providers_retry_after_is_the_proposal(self):
        self.assertEqual(self.delay(ctx("RATE_LIMITED", hint=37_000)), 37_000)
        self.assertEqual(self.delay(ctx("RATE_LIMITED", hint=120_000)), 120_000)
        # Zero means "no hint".
        self.assertEqual(self.delay(ctx("RATE_LIMITED", hint=0)), 1200)
        # Beyond the cap: always mode falls back to its own delay.
        policy = '{"mode": "always", "max_delay_ms": 2000}'
        self.assertEqual(self.delay(ctx("RATE_LIMITED", hint=10_000, policy=policy)), 1200)

    def test_the_hosts_serialized_policy(self):
        policy = json.dumps({
            "mode": "normal", "max_retries": 5, "initial_delay_ms": 50, "max_delay_ms": 120000,
            "jitter_ratio": 0.2, "retryable_codes": list(rb.DEFAULT_RETRYABLE),
        })
        self.assertEqual(self.delay(ctx("SERVER_ERROR", policy=policy)), 60)
        self.assertEqual(self.delay(ctx("SERVER_ERROR", policy="")), 1200)


class BudgetTest(unittest.TestCase):
    def test_scheduled_plus_proposed_over_the_budget_gives_up_with_the_numbers(self):
        policy = '{"initial_delay_ms": 1000, "jitter_ratio": 0.2}'
        # Two retries so far (1000 + 2000 scheduled), the third would be 4000 * 1.2 = 4800.
        c = ctx("SERVER_ERROR", earlier=[("llm-retry", 1000), ("llm-retry", 2000)], policy=policy)
        self.assertEqual(rb.on_failure(7800, c), Delegate())
        text = reason(rb.on_failure(7799, c))
        self.assertIn("retrying this SERVER_ERROR would wait 4800 ms", text)
        self.assertIn("3000 ms already scheduled by the 2 earlier retries of this step", text)
        self.assertIn("7800 ms in all, over the budget of 7799 ms", text)
        self.assertIn("retry 3", text)

    def test_every_listeners_delays_count_against_the_budget(self):
        c = ctx("NETWORK", earlier=[("some-listener", 5000)])
        self.assertIsInstance(rb.on_failure(6199, c), GiveUp)
        self.assertEqual(rb.on_failure(6200, c), Delegate())

    def test_a_retry_after_over_the_budget_gives_up_before_waiting(self):
        text = reason(rb.on_failure(30_000, ctx("RATE_LIMITED", hint=37_000)))
        self.assertIn("would wait 37000 ms (the provider's retry-after", text)
        self.assertIn("nothing scheduled yet in this step", text)
        self.assertIn("over the budget of 30000 ms", text)

    def test_one_earlier_retry_is_singular(self):
        text = reason(rb.on_failure(100, ctx("TIMEOUT", earlier=[("llm-retry", 60)])))
        self.assertIn("by the 1 earlier retry of this step", text)


if __name__ == "__main__":
    unittest.main()
