#!/usr/bin/env bash
# Builds the retry-budget listener component: build.sh OUT_DIR  →  OUT_DIR/retry_budget.wasm
#
# Needs componentize-py (pinned: pip install componentize-py==0.25.1). The component is world
# recovery-listener of ../../wit/0.1.0 (dsh:llm@0.1.0, on purpose: this guest proves that 0.1 guests
# keep loading and working); app.py is the export, retry_budget.py the logic.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
out="${1:?usage: build.sh OUT_DIR}"
if ! command -v componentize-py >/dev/null 2>&1; then
    echo "componentize-py is not installed: pip install componentize-py==0.25.1" >&2
    exit 127
fi
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tmp="$out/retry_budget.wasm.tmp$$"
# Run from a scratch copy so no __pycache__ or stray module of the working tree ends up inside, and
# -p names exactly the two modules of this guest.
src="$(mktemp -d)"
trap 'rm -rf "$src" "$tmp"' EXIT
cp "$here/app.py" "$here/retry_budget.py" "$src/"
cd "$src"
componentize-py -q -d "$here/../../wit/0.1.0" -w recovery-listener componentize -p "$src" app -o "$tmp"
mv "$tmp" "$out/retry_budget.wasm"
echo "built $out/retry_budget.wasm"
