#!/usr/bin/env bash
# trust.sh OUT.png — the trust question in a real session: the project's
# .catbuddy files name an MCP server and a looser web allow-list, and cb-ls
# asks through vim.ui.select (Neovim's own list here) before any of it
# applies. The screenshot shows the question; the answer is Not now, and the
# script checks that the project's server had not run once the list closed
# (the e2e tests cover both answers). Needs what session.sh needs.
set -euo pipefail
. "$(dirname "$0")/session.sh"
shot_begin trust "$1"

printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' >"$work/proj/calc.go"
mkdir -p "$work/proj/.catbuddy" "$work/proj/tools"
# The server the project names records that it ran, beside the project.
printf ': > "$(dirname "$0")/../../ran"\n' >"$work/proj/tools/docs-mcp.sh"
echo '{"mcpServers": {"docs": {"command": "sh", "args": ["tools/docs-mcp.sh", "--stdio"]}}}' >"$work/proj/.catbuddy/mcp.json"
echo '{"tools": {"webAllow": ["127.0.0.1:3000"]}}' >"$work/proj/.catbuddy/config.json"
echo '{"turns": []}' >"$work/script.json"
start_model
start_nvim 132 24 SHOT=trust
wait_for 'Not now'
render 1100 480
# Not now: nothing of the project runs.
t send-keys -t "$session" 2 Enter
wait_for 'calc.go'
[ ! -e "$work/ran" ] || { echo "trust.sh: the project's server ran after Not now"; exit 1; }
echo "trust.sh: $out"
