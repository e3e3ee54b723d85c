#!/usr/bin/env bash
# bench/layer.sh — the copy-on-write layer that commands run over
# (internal/sandbox): what it adds to one command plus the scan of an
# upper directory of 1,000 changed files (target ≤ 20 ms), and `go test
# ./...` in a project of 20,000 files over the layer against today's
# sandboxed exec (target ≤ 1.1×). Each benchmark alternates the runs it
# compares, so that they see the same load, and prints medians.
#
#   bash bench/layer.sh [GO_TEST_RUNS]     GO_TEST_RUNS defaults to 9
#   MOUNT_RUNS=100 bash bench/layer.sh
set -euo pipefail
cd "$(dirname "$0")/.."
GO_TEST_RUNS=${1:-9}
MOUNT_RUNS=${MOUNT_RUNS:-60}

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
go test -c -o "$tmp/sandbox.test" ./internal/sandbox

# metric OUTPUT UNIT: the value reported before UNIT on the benchmark line.
metric() { awk -v u="$2" '/^Benchmark/ {for (i = 2; i <= NF; i++) if ($i == u) print $(i-1)}' <<<"$1"; }
verdict() { awk -v v="$1" -v t="$2" 'BEGIN {print (v <= t ? "ok" : "OVER")}'; }

echo "the copy-on-write layer, $(nproc) CPUs, load $(cut -d' ' -f1-3 /proc/loadavg), $(uname -r)"
out=$("$tmp/sandbox.test" -test.run '^$' -test.bench '^BenchmarkLayerMountScan$' -test.benchtime "${MOUNT_RUNS}x")
grep -E '^(Benchmark|--- |FAIL)' <<<"$out" || true
ms=$(metric "$out" mount+scan-ms)
printf 'layer + scan of 1,000 changed files: median %s ms (mount %s ms, scan %s ms; /bin/true %s ms sandboxed, %s ms over the layer), target 20 ms: %s\n' \
  "$ms" "$(metric "$out" mount-ms)" "$(metric "$out" scan-ms)" "$(metric "$out" sandboxed-ms)" "$(metric "$out" layer-ms)" "$(verdict "$ms" 20)"
cpu=$(metric "$out" mount+scan-cpu-ms)
printf '  in CPU time: median %s ms (mount %s ms, scan %s ms), target 20 ms: %s\n' \
  "$cpu" "$(metric "$out" mount-cpu-ms)" "$(metric "$out" scan-cpu-ms)" "$(verdict "$cpu" 20)"

out=$("$tmp/sandbox.test" -test.run '^$' -test.bench '^BenchmarkLayerGoTest$' -test.benchtime "${GO_TEST_RUNS}x")
grep -E '^(Benchmark|--- |FAIL)' <<<"$out" || true
ratio=$(metric "$out" ratio)
printf 'go test ./... in 20,000 files: median %s ms over the layer, %s ms sandboxed, ratio %s, target 1.1: %s\n' \
  "$(metric "$out" layer-median-ms)" "$(metric "$out" sandboxed-median-ms)" "$ratio" "$(verdict "$ratio" 1.1)"
cratio=$(metric "$out" cpu-ratio)
printf '  in CPU time: median %s ms over the layer, %s ms sandboxed, ratio %s, target 1.1: %s\n' \
  "$(metric "$out" layer-cpu-ms)" "$(metric "$out" sandboxed-cpu-ms)" "$cratio" "$(verdict "$cratio" 1.1)"
