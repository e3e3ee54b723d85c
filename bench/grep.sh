#!/usr/bin/env bash
# bench/grep.sh — grep (via "cb-ls tools run") against ripgrep over the Go
# source tree, for a literal and a regex pattern. Checks that both report
# the same matches (per-file counts), then times RUNS alternating runs of
# each and prints the medians and the ratio (target: ≤ 2.0).
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

now_ns() { date +%s%N; }
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
    local t0 t1
    t0=$(now_ns); ours content "$pat" "$lit" >/dev/null; t1=$(now_ns)
    echo $(((t1 - t0) / 1000000)) >>"$tmp/t_ours"
    t0=$(now_ns); (cd "$SRC" && rg "${RG_FLAGS[@]}" "${fflag[@]}" -n -e "$pat" . >/dev/null) || true; t1=$(now_ns)
    echo $(((t1 - t0) / 1000000)) >>"$tmp/t_rg"
  done
  local mo mr
  mo=$(median <"$tmp/t_ours"); mr=$(median <"$tmp/t_rg")
  printf '%-8s %-34s %5d files %6d lines  cb-ls %6s ms  rg %6s ms  ratio %s (target ≤ 2.0)\n' \
    "$name" "$pat" "$files" "$matches" "$mo" "$mr" "$(awk -v a="$mo" -v b="$mr" 'BEGIN {printf "%.2f", a/b}')"
}

echo "grep vs ripgrep $(rg --version | sed -n 1p) over $SRC, median of $RUNS alternating runs, $(nproc) CPUs"
bench literal 'context.Context' true
bench regex 'func \w+\(ctx context\.Context' false
exit $fail
