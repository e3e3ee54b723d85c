#!/usr/bin/env bash
# chat.sh OUT.png — the chat buffer in a real session (Neovim in tmux, cb-ls,
# the scripted model): an Explain run streams into :CatbuddyChat, a reply is
# typed at its prompt and answered; the screen is rendered to a PNG with
# headless Chromium. Needs what screenshot.sh needs.
set -euo pipefail
out=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
session="chat"
t() { tmux -L "catbuddy-chat-$$" "$@"; }
model_pid=""
cleanup() {
  t kill-server 2>/dev/null || true
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT
wait_for() { # wait_for TEXT: until the screen shows TEXT
  for _ in $(seq 200); do t capture-pane -t "$session" -p | grep -qF "$1" && return 0; sleep 0.1; done
  echo "chat.sh: the screen never showed \"$1\":"; t capture-pane -t "$session" -p; exit 1
}

mkdir -p "$work/proj/.git"
printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a + b\n}\n' >"$work/proj/calc.go"
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "read_file", "args": {"path": "calc.go"}}]},
  {"text": "`Add` returns the sum of its two arguments:\n\n```go\nreturn a + b\n```\n\nIt has no side effects."},
  {"tool_calls": [{"name": "grep", "args": {"pattern": "Add\\("}}]},
  {"text": "Only `calc.go` defines it; nothing calls `Add` yet, so the signature can change freely."}
]}
JSON
"$SCRIPTMODEL" --script "$work/script.json" >"$work/model.out" 2>&1 &
model_pid=$!
for _ in $(seq 100); do grep -q '^http' "$work/model.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -m1 '^http' "$work/model.out")

cd "$work/proj"
t new-session -d -s "$session" -x 120 -y 30 \
  "env TERM=xterm-256color SHOT=chat PLUGIN_DIR='$here/../..' CB_LS='$CB_LS' MODEL_URL='$url' XDG_STATE_HOME='$work/state' '$NVIM' -n -i NONE -u '$here/init.lua' calc.go"
wait_for 'It has no side effects.'
# Reply from the chat's prompt: the run goes on with its history.
t send-keys -t "$session" C-w l
t send-keys -t "$session" G A 'who calls it?' Escape Enter
wait_for 'nothing calls'
sleep 0.3 # let the last redraw land
t capture-pane -t "$session" -e -p >"$work/screen.ansi"
python3 "$here/ansi2html.py" <"$work/screen.ansi" >"$work/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1010,640 \
  --screenshot="$out" "file://$work/screen.html" >/dev/null 2>&1
echo "chat.sh: $out"
