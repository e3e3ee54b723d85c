#!/usr/bin/env bash
# bench/run.sh — run every Go benchmark of the repository, print each
# figure and, where the product sets a target, the ratio to it (≤ 1.00
# meets it), then compare grep with ripgrep (bench/grep.sh).
#
#   bash bench/run.sh            BENCHTIME=10x by default
#   BENCHTIME=3s bash bench/run.sh
#   SKIP_GREP=1 bash bench/run.sh
#   PKGS="./internal/tools ./filestate" bash bench/run.sh   only these packages
set -euo pipefail
cd "$(dirname "$0")/.."
BENCHTIME=${BENCHTIME:-10x}

# Targets in milliseconds per operation, by benchmark name (without the
# -N CPU suffix). Add a line here when a benchmark gets a target.
declare -A TARGET_MS=(
  [BenchmarkEditFile10MB]=30
  [BenchmarkEditFile10MBBuffer]=30
  [BenchmarkReadUnchanged10MB]=10
  [BenchmarkIsUnchanged10MB]=10
  # A pending set of 4 files, 24 hunks: its catbuddy/pendingChanges
  # payload, and a keep from request to applyEdit (whole round trip).
  [BenchmarkPendingChanges]=5
  [BenchmarkKeep]=50
  # 10 files, 50 hunks, to the applyEdit; one conflict resolved.
  [BenchmarkKeep50Hunks]=50
  [BenchmarkKeepResolveConflict]=20
  [BenchmarkCollect1000]=20
  [BenchmarkKeep24Hunks]=50
)

out=$(mktemp)
trap 'rm -f "$out"' EXIT
pkgs=$(go list ${PKGS:-./...} | while read -r p; do
  d=$(go list -f '{{.Dir}}' "$p")
  grep -lq '^func Benchmark' "$d"/*_test.go 2>/dev/null && echo "$p"
done)
status=0
for p in $pkgs; do
  go test -run '^$' -bench . -benchtime "$BENCHTIME" -benchmem "$p" | tee -a "$out" | grep -E '^(Benchmark|FAIL|ok|---)' || status=1
done

echo
# A benchmark that also reports cpu-ns/op is judged on CPU time: on a
# shared machine wall time mostly measures the neighbours.
printf '%-40s %10s %10s %10s %7s\n' benchmark "wall ms" "cpu ms" "target ms" ratio
while read -r name ns cpu; do
  base=${name%-*}
  ms=$(awk -v n="$ns" 'BEGIN {printf "%.3f", n/1e6}')
  cms=-
  [ "$cpu" != - ] && cms=$(awk -v n="$cpu" 'BEGIN {printf "%.3f", n/1e6}')
  t=${TARGET_MS[$base]:-}
  if [ -n "$t" ]; then
    judged=$ms
    [ "$cms" != - ] && judged=$cms
    r=$(awk -v a="$judged" -v b="$t" 'BEGIN {printf "%.2f", a/b}')
    flag=$(awk -v r="$r" 'BEGIN {print (r <= 1 ? "ok" : "OVER")}')
    printf '%-40s %10s %10s %10s %7s %s\n' "$base" "$ms" "$cms" "$t" "$r" "$flag"
    [ "$flag" = ok ] || status=1
  else
    printf '%-40s %10s %10s %10s %7s\n' "$base" "$ms" "$cms" - -
  fi
done < <(awk '/^Benchmark/ {cpu="-"; for (i=4; i<=NF; i++) if ($(i) == "cpu-ns/op") cpu=$(i-1); print $1, $3, cpu}' "$out")

if [ -z "${SKIP_GREP:-}" ]; then
  echo
  bash bench/grep.sh || status=1
fi
exit $status
