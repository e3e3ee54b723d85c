#!/usr/bin/env bash
# test-acp-client.sh: build cb-ls and the scripted model, and run the
# independent ACP client tests against the real `cb-ls acp`: the official
# @agentclientprotocol/sdk (client.test.js) and acpx, the headless ACP command
# line (acpx.test.js; acpx 0.19.1 declares Node >= 22.13 but runs on 20).
# Needs Node >= 20 and npm; installs exactly the locked packages with npm ci.
# acpx asks the user only in a terminal, so acpx.test.js runs it in a
# pseudo-terminal made by util-linux `script` (Debian's bsdutils, essential).
set -euo pipefail
command -v script >/dev/null || { echo "test-acp-client: util-linux script is needed (apt-get install bsdutils)" >&2; exit 1; }
root="$(cd "$(dirname "$0")/.." && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

go build -o "$tmp/cb-ls" "$root/cmd/cb-ls"
go build -o "$tmp/scriptmodel" "$root/internal/agent/agenttest/cmd/scriptmodel"
cd "$root/test/acp-client"
npm ci --no-audit --no-fund --loglevel=error
CB_LS_BIN="$tmp/cb-ls" SCRIPTMODEL_BIN="$tmp/scriptmodel" node --test --test-reporter=spec
