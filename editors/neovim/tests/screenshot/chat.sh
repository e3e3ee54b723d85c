#!/usr/bin/env bash
# chat.sh OUT.png — the chat buffer in a real session: an Explain run streams
# into :CatbuddyChat, a reply is typed at its prompt and answered. Needs what
# session.sh needs.
set -euo pipefail
. "$(dirname "$0")/session.sh"
shot_begin chat "$1"

printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' >"$work/proj/calc.go"
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "read_file", "args": {"path": "calc.go"}}]},
  {"text": "`Add` returns the sum of its two arguments:\n\n```go\nreturn a + b\n```\n\nIt has no side effects."},
  {"tool_calls": [{"name": "grep", "args": {"pattern": "Add\\("}}]},
  {"text": "Only `calc.go` defines it; nothing calls `Add` yet, so the signature can change freely."}
]}
JSON
start_model
start_nvim 120 30 SHOT=chat
wait_for 'It has no side effects.'
# Reply from the chat's prompt: the run goes on with its history.
t send-keys -t "$session" C-w l
t send-keys -t "$session" G A 'who calls it?' Escape Enter
wait_for 'nothing calls'
render 1010 640
echo "chat.sh: $out"
