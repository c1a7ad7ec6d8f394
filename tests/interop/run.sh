#!/usr/bin/env bash
# Interop suite: real MCP clients (Python mcp 2.x, TypeScript SDK 1.x, TypeScript client
# 2.x, MCP Inspector CLI) drive a built zcp binary through every scenario step and a
# PASS/FAIL table is printed. Exits non-zero if any step fails.
#
# Installs the clients from the committed lock files when they are missing or stale
# (npm ci; a venv with pip install -r requirements.txt); builds nothing itself.
#
# Environment:
#   ZCP_BIN        the binary under test (default: target/release/zcp)
#   ZCP_SCENARIO   scenario file (default: tests/interop/scenario.json)
#   INTEROP_ONLY   comma-separated scenario names to run (default: all)
#   INTEROP_KEEP=1 keep wire captures even when everything passed
#   INTEROP_PYTHON interpreter for the venv (default: python3.11, else python3)
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
zcp_bin="${ZCP_BIN:-$root/target/release/zcp}"
scenario="${ZCP_SCENARIO:-$here/scenario.json}"

if [[ ! -x "$zcp_bin" ]]; then
  echo "interop: no zcp binary at $zcp_bin (build it with: cargo build --release --locked)" >&2
  exit 2
fi
if [[ ! -f "$scenario" ]]; then
  echo "interop: no scenario file at $scenario" >&2
  exit 2
fi

fingerprint() { sha256sum "$@" | sha256sum | cut -d' ' -f1; }

# Node clients, from package-lock.json. Install scripts are skipped: none of the clients
# needs one, and the Inspector's only script is a no-op outside its own source tree.
command -v node >/dev/null || { echo "interop: node is required" >&2; exit 2; }
npm_stamp="$here/node_modules/.interop-lock"
want="$(fingerprint "$here/package.json" "$here/package-lock.json")"
if [[ ! -f "$npm_stamp" || "$(cat "$npm_stamp")" != "$want" ]]; then
  echo "interop: installing node clients (npm ci)"
  (cd "$here" && npm ci --ignore-scripts --no-audit --no-fund --loglevel=error </dev/null)
  echo "$want" >"$npm_stamp"
fi

# Python client, from requirements.txt, in a venv next to this script.
python="${INTEROP_PYTHON:-$(command -v python3.11 || command -v python3 || true)}"
[[ -n "$python" ]] || { echo "interop: python3 (3.11 or newer) is required" >&2; exit 2; }
venv="$here/.venv"
py_stamp="$venv/.interop-lock"
want="$(fingerprint "$here/requirements.txt")"
if [[ ! -x "$venv/bin/python" || ! -f "$py_stamp" || "$(cat "$py_stamp")" != "$want" ]]; then
  echo "interop: installing python client (venv + pip install -r requirements.txt)"
  rm -rf "$venv"
  "$python" -m venv "$venv"
  "$venv/bin/python" -m pip install --disable-pip-version-check --no-input --quiet \
    -r "$here/requirements.txt" </dev/null
  echo "$want" >"$py_stamp"
fi

exec "$venv/bin/python" "$here/lib/harness.py" "$zcp_bin" "$scenario" </dev/null
