"""{{name}} against recorded failures (tests/recorded.json): each gets its decision, and a wrong
configuration is refused by name."""

import json
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import {{module}} as logic  # noqa: E402

RECORDED = json.loads((HERE / "recorded.json").read_text(encoding="utf-8"))


def context(case) -> logic.Context:
    f = case["failure"]
    return logic.Context(
        failure=logic.Failure(f["code"], f["message"], f["status"], f["provider_retry_after_ms"], f["request_id"]),
        earlier_retries=[
            logic.EarlierRetry(r["policy_key"], r["retry"], r["delay_ms"], r["code"]) for r in case["earlier_retries"]
        ],
    )


class Recorded(unittest.TestCase):
    def test_recorded_failures_get_their_decision(self):
        config = logic.parse_config(RECORDED["config"])
        self.assertTrue(RECORDED["cases"], "tests/recorded.json has no cases")
        for case in RECORDED["cases"]:
            with self.subTest(case["name"]):
                decision = logic.decide(config, context(case))
                expected = case["expected"]
                self.assertEqual(decision[0], expected["decision"])
                if decision[0] == "retry":
                    self.assertEqual(decision[1], expected["delay_ms"])
                if decision[0] == "give-up":
                    self.assertTrue(decision[1].startswith("{{name}}: "), decision[1])

    def test_a_wrong_configuration_is_refused_by_name(self):
        with self.assertRaisesRegex(logic.ConfigError, "unknown config key `max_retrys`"):
            logic.parse_config('{"max_retrys": 3}')
        with self.assertRaisesRegex(logic.ConfigError, "delay_ms must be"):
            logic.parse_config('{"delay_ms": -1}')
        self.assertEqual(logic.parse_config(""), logic.Config())


if __name__ == "__main__":
    unittest.main()
