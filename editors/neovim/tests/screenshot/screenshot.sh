#!/usr/bin/env bash
# screenshot.sh OUT.png — runs the real review flow (Neovim in tmux, cb-ls,
# the scripted model), captures the screen with the review window open and
# renders it to a PNG with headless Chromium. Needs: tmux, chromium,
# python3, and $CB_LS, $SCRIPTMODEL, $NVIM (a Neovim whose TUI can start: Debian's 0.7.2; the 0.10 from get-nvim.sh cannot re-exec itself with --embed).
set -euo pipefail
out=$(realpath -m "$1")
here=$(cd "$(dirname "$0")" && pwd)
work=$(mktemp -d)
session="shot"
t() { tmux -L "catbuddy-shot-$$" "$@"; }
model_pid=""
cleanup() {
  t kill-server 2>/dev/null || true
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

mkdir -p "$work/proj/.git"
printf 'package calc\n\n// Add returns the sum of a and b.\nfunc Add(a, b int) int {\n\treturn a - b\n}\n' >"$work/proj/calc.go"
cat >"$work/script.json" <<'JSON'
{"turns": [
  {"tool_calls": [{"name": "read_file", "args": {"path": "calc.go"}}]},
  {"tool_calls": [{"name": "edit_file", "args": {"path": "calc.go", "old_string": "return a - b", "new_string": "return a + b"}}]},
  {"text": "Fixed: Add subtracted instead of adding."}
]}
JSON
"$SCRIPTMODEL" --script "$work/script.json" >"$work/model.out" 2>&1 &
model_pid=$!
for _ in $(seq 100); do grep -q '^http' "$work/model.out" 2>/dev/null && break; sleep 0.1; done
url=$(grep -m1 '^http' "$work/model.out")

cd "$work/proj"
t new-session -d -s "$session" -x 92 -y 22 \
  "env TERM=xterm-256color PLUGIN_DIR='$here/../..' CB_LS='$CB_LS' MODEL_URL='$url' XDG_STATE_HOME='$work/state' '$NVIM' -n -i NONE -u '$here/init.lua' calc.go"
found=""
for _ in $(seq 150); do
  if t capture-pane -t "$session" -p | grep -q 'a accept'; then found=1; break; fi
  sleep 0.1
done
[ -n "$found" ] || { echo "screenshot: the review window never opened:"; t capture-pane -t "$session" -p; exit 1; }
sleep 0.3 # let the last redraw land
t capture-pane -t "$session" -e -p >"$work/screen.ansi"
python3 "$here/ansi2html.py" <"$work/screen.ansi" >"$work/screen.html"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=770,440 \
  --screenshot="$out" "file://$work/screen.html" >/dev/null 2>&1
# Accept, and check the edit landed: the screenshot shows a working flow.
t send-keys -t "$session" a
for _ in $(seq 100); do
  t capture-pane -t "$session" -p | grep -q 'return a + b' && { echo "screenshot: $out"; exit 0; }
  sleep 0.1
done
echo "screenshot: accepted, but the buffer never showed the fix"; exit 1
