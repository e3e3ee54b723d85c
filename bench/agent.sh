#!/bin/sh
# bench/agent.sh — the agent loop against its targets: harness overhead
# per tool-calling turn ≤ 2 ms median (scripted model on loopback, every
# provider and streaming mode), and a 100-turn run's heap growth per turn
# next to the transcript's size per turn (flat memory: about equal).
#
#   bench/agent.sh            # COUNT=3 BENCHTIME=20x
set -eu
cd "$(dirname "$0")/.."
count=${COUNT:-3}
benchtime=${BENCHTIME:-20x}
out=$(go test -run '^$' -bench 'TurnOverhead|Memory100Turns' -benchtime "$benchtime" -count "$count" ./internal/agent/)
printf '%s\n' "$out" | grep -E '^Benchmark'
printf '%s\n' "$out" | awk '
function median(a, name, k,   i, j, t, v) {
	for (i = 1; i <= k; i++) v[i] = a[name, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
}
/^BenchmarkTurnOverhead/ {
	name = $1; sub(/-[0-9]+$/, "", name)
	for (i = 1; i <= NF; i++) if ($(i+1) == "median-ms/turn") { n[name]++; ms[name, n[name]] = $i }
}
END {
	bad = 0
	for (name in n) {
		m = median(ms, name, n[name])
		printf "%-40s median over %d runs: %.3f ms/turn (target 2 ms)\n", name, n[name], m
		if (m > 2) bad = 1
	}
	if (bad) { print "FAIL: over target"; exit 1 }
}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
