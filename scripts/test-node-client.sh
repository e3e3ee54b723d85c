#!/usr/bin/env bash
# test-node-client.sh: build cb-ls and run the independent Node client test
# (vscode-jsonrpc + vscode-languageserver-protocol) against the real binary.
# Needs Node >= 20 and npm; installs exactly the locked packages with npm ci.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/cb-ls" "$root/cmd/cb-ls"
cd "$root/test/node-client"
npm ci --no-audit --no-fund --loglevel=error
CB_LS_BIN="$tmp/cb-ls" node --test --test-reporter=spec
