#!/usr/bin/env bash
# Builds the component: ./build.sh  →  {{name}}.wasm (world {{world}} of wit/0.2.0, dsh:llm@0.2.0).
#
# Needs componentize-py, pinned in requirements.txt (pip install -r requirements.txt). src/app.py is
# the export, src/{{module}}.py the logic; only src/ goes into the component.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
if ! command -v componentize-py >/dev/null 2>&1; then
    echo "componentize-py is not installed: pip install -r $here/requirements.txt" >&2
    exit 127
fi
# A scratch copy of src/, so no __pycache__ of the working tree ends up in the component.
src="$(mktemp -d)"
tmp="$here/{{name}}.wasm.tmp$$"
trap 'rm -rf "$src" "$tmp"' EXIT
cp "$here"/src/*.py "$src/"
(cd "$src" && componentize-py -q -d "$here/wit/0.2.0" -w {{world}} componentize -p "$src" app -o "$tmp")
mv "$tmp" "$here/{{name}}.wasm"
echo "built $here/{{name}}.wasm"
