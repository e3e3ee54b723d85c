#!/usr/bin/env bash
# bench/state.sh — the pending store in the user's state directory
# (internal/changeset): a run's first writing command with its layer
# there, against the same with the layer inside the project where cb-ls
# kept it before (target ≤ 1.05×, the two alternated in one run), and
# what `cb-ls changes` does before it prints on a run whose command left
# 200,000 files pending (target ≤ 5 s, with the process's peak memory).
#
#   bash bench/state.sh [FIRST_EXEC_RUNS]     FIRST_EXEC_RUNS defaults to 21
set -euo pipefail
cd "$(dirname "$0")/.."
RUNS=${1:-21}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/changeset.test" ./internal/changeset
export XDG_STATE_HOME="$tmp/state"

metric() { awk -v u="$2" '/^Benchmark/ {for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$1"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN {print (v <= t ? "ok" : "OVER")}'; }

echo "the pending store, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
out=$("$tmp/changeset.test" -test.run '^$' -test.bench '^BenchmarkFirstExecStateDir$' -test.benchtime "${RUNS}x")
grep -E '^(Benchmark|--- |FAIL)' <<<"$out" || true
ratio=$(metric "$out" ratio)
printf 'first writing command: median %s ms with the layer in the state directory, %s ms in the project, ratio %s, target 1.05: %s\n' \
  "$(metric "$out" state-median-ms)" "$(metric "$out" project-median-ms)" "$ratio" "$(verdict "$ratio" 1.05)"

out=$("$tmp/changeset.test" -test.run '^$' -test.bench '^BenchmarkList200000$' -test.benchtime 3x)
grep -E '^(Benchmark|--- |FAIL)' <<<"$out" || true
ms=$(metric "$out" median-ms)
printf 'cb-ls changes on 200,000 pending files: median %s ms (peak RSS %s MB), target 5000 ms: %s\n' \
  "$ms" "$(metric "$out" peak-rss-MB)" "$(verdict "$ms" 5000)"
