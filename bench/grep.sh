#!/usr/bin/env bash
# bench/grep.sh — grep (via "cb-ls tools run") against ripgrep over the Go
# source tree, for a literal and a regex pattern. Checks that both report
# the same matches (per-file counts), then times RUNS alternating runs of
# each and prints the medians of wall time and of CPU time (user+system,
# which a loaded machine disturbs less) and their ratios (targets: wall ≤ 1.2, CPU ≤ 1.15).
# The start-up of "cb-ls tools run", part of every timed run, is also
# timed alone (no call on stdin) against rg over an empty directory.
#
#   bash bench/grep.sh [RUNS]      RUNS defaults to 7
#   GREP_BENCH_DIR=/some/tree bash bench/grep.sh
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-7}
SRC=${GREP_BENCH_DIR:-$(go env GOROOT)/src}
command -v rg >/dev/null || { echo "ripgrep is needed: apt-get install -y ripgrep" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cb-ls" ./cmd/cb-ls

RG_FLAGS=(--no-config --no-ignore-global --no-require-git --hidden -g '!.git/' -g '!.catbuddy/')

json_escape() { local s=${1//\\/\\\\}; printf '%s' "${s//\"/\\\"}"; }

# ours MODE PATTERN LITERAL: one grep call through the CLI.
ours() {
  local call
  call=$(printf '{"name":"grep","arguments":{"pattern":"%s","literal":%s,"output_mode":"%s","limit":5000}}' \
    "$(json_escape "$2")" "$3" "$1")
  printf '%s\n' "$call" | "$tmp/cb-ls" tools run --root "$SRC" --mode project 2>/dev/null
}

# timed FILE CMD…: appends "wall_ms cpu_ms" of one run of CMD to FILE.
timed() {
  local out=$1 t
  shift
  t=$({ TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>&1; } 2>&1 | tail -1)
  awk -v t="$t" 'BEGIN {split(t, a, " "); printf "%d %d\n", a[1] * 1000, (a[2] + a[3]) * 1000}' >>"$out"
}
rg_run() { (cd "$SRC" && rg "${RG_FLAGS[@]}" "$@" . >/dev/null) || true; }
median() { sort -n | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

fail=0
bench() { # NAME PATTERN LITERAL(true|false)
  local name=$1 pat=$2 lit=$3 fflag=()
  [ "$lit" = true ] && fflag=(-F)
  # Same matches: per-file counts of matching lines, sorted.
  ours count "$pat" "$lit" | sed -E 's/^\{"name":"grep","output":"//; s/","is_error":false\}$//' \
    | sed 's/\\n/\n/g' | grep -v '^…' | sort >"$tmp/ours.txt"
  (cd "$SRC" && rg "${RG_FLAGS[@]}" "${fflag[@]}" -c -e "$pat" . | sed 's|^\./||' | sort) >"$tmp/rg.txt"
  local files matches
  files=$(wc -l <"$tmp/rg.txt")
  matches=$(awk -F: '{s+=$NF} END {print s+0}' "$tmp/rg.txt")
  if ! cmp -s "$tmp/ours.txt" "$tmp/rg.txt"; then
    echo "$name: MATCHES DIFFER from ripgrep:"; diff "$tmp/rg.txt" "$tmp/ours.txt" | head -20; fail=1
  fi
  : >"$tmp/t_ours"; : >"$tmp/t_rg"
  for _ in $(seq "$RUNS"); do
    timed "$tmp/t_ours" ours content "$pat" "$lit"
    timed "$tmp/t_rg" rg_run "${fflag[@]}" -n -e "$pat"
  done
  local mo mr co cr
  mo=$(cut -d' ' -f1 "$tmp/t_ours" | median); mr=$(cut -d' ' -f1 "$tmp/t_rg" | median)
  co=$(cut -d' ' -f2 "$tmp/t_ours" | median); cr=$(cut -d' ' -f2 "$tmp/t_rg" | median)
  ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a/b}'; }
  printf '%-8s %-34s %5d files %6d lines  wall: cb-ls %5s ms, rg %5s ms, ratio %s  CPU: cb-ls %5s ms, rg %5s ms, ratio %s (targets: wall ≤ 1.2, CPU ≤ 1.15)\n' \
    "$name" "$pat" "$files" "$matches" "$mo" "$mr" "$(ratio "$mo" "$mr")" "$co" "$cr" "$(ratio "$co" "$cr")"
}

echo "grep vs ripgrep $(rg --version | sed -n 1p) over $SRC, median of $RUNS alternating runs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
startup() {
  local empty=$tmp/empty co cr mo mr
  mkdir -p "$empty"
  : >"$tmp/s_ours"; : >"$tmp/s_rg"
  for _ in $(seq "$RUNS"); do
    timed "$tmp/s_ours" sh -c '"$0" tools run --root "$1" --mode project </dev/null' "$tmp/cb-ls" "$empty"
    timed "$tmp/s_rg" sh -c 'cd "$0" && rg x . ; true' "$empty"
  done
  mo=$(cut -d' ' -f1 "$tmp/s_ours" | median); mr=$(cut -d' ' -f1 "$tmp/s_rg" | median)
  co=$(cut -d' ' -f2 "$tmp/s_ours" | median); cr=$(cut -d' ' -f2 "$tmp/s_rg" | median)
  printf '%-8s %-34s wall: cb-ls %5s ms, rg %5s ms; CPU: cb-ls %5s ms, rg %5s ms\n' start-up "(tools run without a call)" "$mo" "$mr" "$co" "$cr"
}

startup
bench literal 'context.Context' true
bench regex 'func \w+\(ctx context\.Context' false
exit $fail
