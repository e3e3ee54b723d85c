#!/usr/bin/env bash
# bench/keystroke.sh — the keystroke path against a floor: cb-ls and
# internal/bench/lspfloor (a server that frames and decodes the same
# messages with encoding/json, keeps the opened text and applies every
# change to it) each get a generated 10 MB Go document and N one-character
# didChanges at scattered lines, each followed by a probe request (an
# unknown executeCommand), from internal/bench/lspdrive. The servers run
# interleaved, RUNS times; printed: the medians of the server CPU per
# keystroke+probe (summed over the process's threads in nanoseconds from
# /proc/PID/task/*/schedstat; split into user and system time, getrusage's
# utime and stime, with the threads' wake-ups per keystroke) and of the
# peak RSS, and cb-ls's ratios to the floor (targets: CPU ≤ 1.5×,
# RSS ≤ 1.2×). On a loaded machine the CPU figures spread widely; the
# lspdrive package comment shows how to count instructions instead. N is
# 10,000 so that even the fallback counter of 10 ms ticks resolves the
# total within 2%.
#
#   bash bench/keystroke.sh [RUNS] [N] [SIZE]     defaults: 5 10000 10MB
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-5}
N=${2:-10000}
SIZE=${3:-10MB}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cb-ls" ./cmd/cb-ls
go build -o "$tmp/floor" ./internal/bench/lspfloor
go build -o "$tmp/drive" ./internal/bench/lspdrive

echo "keystroke+probe at $SIZE, $N changes, $RUNS interleaved runs, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
"$tmp/drive" -size "$SIZE" -n "$N" -runs "$RUNS" -floor floor \
  -server "cb-ls=$tmp/cb-ls serve" -server "floor=$tmp/floor" >"$tmp/results.json"
