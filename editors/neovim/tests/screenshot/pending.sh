#!/usr/bin/env bash
# pending.sh OUT.png — a run whose two edits stay pending (review =
# 'pending'): the replaced lines highlighted, the new ones as virtual lines,
# signs, the pending count in the statusline; then keeps one hunk and checks
# it landed on disk alone. Needs what session.sh needs.
set -euo pipefail
. "$(dirname "$0")/session.sh"
shot_begin pending "$1"

printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n' >"$work/proj/calc.go"
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "read_file", "args": {"path": "calc.go"}}]},
  {"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "old_string": "// Add returns the sum of a and b.", "new_string": "// Add adds a and b."}}]},
  {"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}}]},
  {"text": "Fixed: Add subtracted instead of adding."}
]}
JSON
start_model
start_nvim 92 16 SHOT=pending
wait_for 'pending review'
wait_for '+ // Add adds a and b.'
wait_for '2 pending'
render 800 330
# Keep the return's hunk (]c twice from the top, then :CatbuddyKeep).
t send-keys -t "$session" gg ']c' ']c' ':CatbuddyKeep' Enter
for _ in $(seq 200); do grep -qF 'return a + b' "$work/proj/calc.go" && break; sleep 0.1; done
grep -qF 'return a + b' "$work/proj/calc.go" || { echo "pending.sh: the kept hunk never landed"; exit 1; }
grep -qF '// Add returns the sum of a and b.' "$work/proj/calc.go" || { echo "pending.sh: the other hunk landed too"; exit 1; }
echo "pending.sh: $out"
