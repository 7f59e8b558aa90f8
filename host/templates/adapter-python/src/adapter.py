"""The `decoder` resource of {{name}}'s export (componentize-py looks for it in a module named after
the interface, `adapter`): wraps `{{module}}.Decoder` and converts its chunks."""

import {{module}} as logic
from app import chunk_out
from wit_world.exports import adapter as a
from wit_world.imports import types as t


class Decoder(a.Decoder):
    def __init__(self, head: t.ResponseHead) -> None:
        self.inner = logic.Decoder()

    def feed(self, bytes: bytes) -> list:
        return [chunk_out(c) for c in self.inner.feed(bytes)]

    def end(self) -> list:
        return [chunk_out(c) for c in self.inner.end()]
