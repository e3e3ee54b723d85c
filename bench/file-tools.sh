#!/bin/sh
# bench/file-tools.sh — the 10 MB file-tool benchmarks against their
# targets (edit_file end to end ≤ 30 ms, unchanged re-read ≤ 10 ms).
# Prints, per benchmark, the median wall time and median CPU time per
# operation over COUNT runs (default 5), and their ratio to the target.
# On a shared machine the CPU column is the steadier of the two.
#
#   bench/file-tools.sh            # COUNT=5 BENCHTIME=20x
set -eu
cd "$(dirname "$0")/.."
count=${COUNT:-5}
benchtime=${BENCHTIME:-20x}
out=$(go test -run '^$' -bench 'EditFile10MB|ReadUnchanged10MB' -benchtime "$benchtime" -count "$count" ./internal/tools/)
printf '%s\n' "$out" | awk '
/^Benchmark/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	n[name]++
	wall[name, n[name]] = $3 / 1e6
	cpu[name, n[name]] = $5 / 1e6
}
function median(a, name, k,   i, j, t, v) {
	for (i = 1; i <= k; i++) v[i] = a[name, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
}
END {
	target["BenchmarkEditFile10MB"] = 30
	target["BenchmarkEditFile10MBBuffer"] = 30
	target["BenchmarkReadUnchanged10MB"] = 10
	printf "%-30s %10s %10s %8s %10s %10s\n", "benchmark", "wall ms", "cpu ms", "target", "wall/tgt", "cpu/tgt"
	for (name in n) {
		w = median(wall, name, n[name]); c = median(cpu, name, n[name]); t = target[name]
		printf "%-30s %10.1f %10.1f %8d %10.2f %10.2f\n", name, w, c, t, w / t, c / t
	}
}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
