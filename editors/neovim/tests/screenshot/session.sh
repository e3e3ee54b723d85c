# session.sh — sourced by the screenshot scripts of this folder: a real
# session (Neovim in tmux, cb-ls, the scripted model) in a temporary
# directory, waited on by what the screen shows, and rendered to a PNG with
# headless Chromium. Needs: tmux, chromium, python3, and $CB_LS,
# $SCRIPTMODEL, $NVIM (a Neovim whose TUI can start: Debian's 0.7.2; the
# 0.10 from get-nvim.sh cannot re-exec itself with --embed).
#
#   shot_begin NAME OUT.png   $out, $here, $work (with proj/.git), cleanup on exit
#   start_model               the scripted model on $work/script.json; sets $url
#   start_nvim COLS ROWS [VAR=value…]   Neovim on proj/calc.go in tmux
#   wait_for TEXT             until the screen shows TEXT (20 s)
#   render WIDTH HEIGHT       the screen now, as $out

shot_begin() {
  session=$1
  out=$(realpath -m "$2")
  here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
  work=$(mktemp -d)
  model_pid=""
  trap shot_cleanup EXIT
  mkdir -p "$work/proj/.git"
}

t() { tmux -L "catbuddy-$session-$$" "$@"; }

shot_cleanup() {
  t kill-server 2>/dev/null || true
  [ -n "$model_pid" ] && kill "$model_pid" 2>/dev/null || true
  rm -rf "$work"
}

start_model() {
  "$SCRIPTMODEL" --script "$work/script.json" >"$work/model.out" 2>&1 &
  model_pid=$!
  for _ in $(seq 100); do grep -q '^http' "$work/model.out" 2>/dev/null && break; sleep 0.1; done
  url=$(grep -m1 '^http' "$work/model.out")
}

start_nvim() {
  local cols=$1 rows=$2
  shift 2
  cd "$work/proj"
  t new-session -d -s "$session" -x "$cols" -y "$rows" \
    "env TERM=xterm-256color $* PLUGIN_DIR='$here/../..' CB_LS='$CB_LS' MODEL_URL='$url' XDG_STATE_HOME='$work/state' '$NVIM' -n -i NONE -u '$here/init.lua' calc.go"
}

wait_for() {
  for _ in $(seq 200); do t capture-pane -t "$session" -p | grep -qF "$1" && return 0; sleep 0.1; done
  echo "$session: the screen never showed \"$1\":"; t capture-pane -t "$session" -p; exit 1
}

render() {
  sleep 0.3 # let the last redraw land
  t capture-pane -t "$session" -e -p >"$work/screen.ansi"
  python3 "$here/ansi2html.py" <"$work/screen.ansi" >"$work/screen.html"
  chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size="$1,$2" \
    --screenshot="$out" "file://$work/screen.html" >/dev/null 2>&1
}
