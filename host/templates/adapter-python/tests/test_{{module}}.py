"""{{name}} against recorded provider answers (tests/recorded.json): each failure gets its canonical
code, retry-after and request id; each stream decodes to its text and finish, whole, byte by byte
and in random pieces alike."""

import json
import random
import sys
import unittest
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))

import {{module}} as logic  # noqa: E402

RECORDED = json.loads((HERE / "recorded.json").read_text(encoding="utf-8"))
RECEIVED_AT_MS = 1_696_004_797_000


def decode(body: bytes, sizes) -> list:
    decoder, chunks, at = logic.Decoder(), [], 0
    for size in sizes:
        chunks += decoder.feed(body[at : at + size])
        at += size
    chunks += decoder.feed(body[at:])
    return chunks + decoder.end()


class Recorded(unittest.TestCase):
    def test_recorded_failures_get_their_code_retry_after_and_request_id(self):
        self.assertTrue(RECORDED["failures"], "tests/recorded.json has no failures")
        for case in RECORDED["failures"]:
            with self.subTest(case["source"]):
                headers = list(case["headers"].items())
                f = logic.classify_failure(case["status"], headers, RECEIVED_AT_MS, case["body"].encode())
                self.assertEqual(f.code, case["expected_code"])
                self.assertEqual(f.retry_after_ms, case["expected_retry_after_ms"])
                self.assertEqual(f.request_id, case["expected_request_id"])
                self.assertEqual(f.status, case["status"])

    def test_a_hint_the_contract_cannot_carry_is_no_hint(self):
        # The contract's retry-after is a u64 of milliseconds: an infinite, NaN, negative or
        # oversized value must become "no hint", never an exception (which would trap the guest).
        for value in ["1e999", "NaN", "-1", "99999999999999999999"]:
            for name in ["retry-after", "retry-after-ms"]:
                with self.subTest(f"{name}: {value}"):
                    f = logic.classify_failure(429, [(name, value)], RECEIVED_AT_MS, b"")
                    self.assertEqual((f.code, f.retry_after_ms), ("RATE_LIMITED", None))

    def test_recorded_streams_decode_to_their_text_and_finish_however_they_are_cut(self):
        self.assertTrue(RECORDED["streams"], "tests/recorded.json has no streams")
        for case in RECORDED["streams"]:
            body = case["body"].encode()
            rng = random.Random(7)
            cuttings = [[], [1] * len(body)] + [
                [rng.randint(1, 17) for _ in range(len(body))] for _ in range(5)
            ]
            whole = decode(body, [])
            for sizes in cuttings:
                with self.subTest(case["source"], sizes=sizes[:5]):
                    self.assertEqual(decode(body, sizes), whole)
            text = "".join(c[1] for c in whole if c[0] == "text")
            finishes = [c for c in whole if c[0] == "finish"]
            self.assertEqual(text, case["expected_text"])
            self.assertEqual(len(finishes), 1, whole)
            self.assertEqual(finishes[0][2], case["expected_finish"])


if __name__ == "__main__":
    unittest.main()
