#!/usr/bin/env bash
# screenshot.sh OUT.png — runs the real review flow, captures the screen with
# the review window open, then accepts and checks that the edit landed.
# Needs what session.sh needs.
set -euo pipefail
. "$(dirname "$0")/session.sh"
shot_begin shot "$1"

printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n' >"$work/proj/calc.go"
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "read_file", "args": {"path": "calc.go"}}]},
  {"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}}]},
  {"text": "Fixed: Add subtracted instead of adding."}
]}
JSON
start_model
start_nvim 92 22
wait_for 'accept/reject'
render 770 440
# Accept, and check the edit landed: the screenshot shows a working flow.
t send-keys -t "$session" a
wait_for 'return a + b'
echo "screenshot: $out"
