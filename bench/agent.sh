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
out=$(go test -run '^$' -bench 'TurnOverhead|Memory100Turns' -benchtime "$benchtime" -count "$count" ./agent/)
printf '%s\n' "$out" | grep -E '^Benchmark'
printf '%s\n' "$out" | awk '
/^BenchmarkTurnOverhead/ {
	for (i = 1; i <= NF; i++) if ($(i+1) == "median-ms/turn") { v = $i; if (v > worst) worst = v }
}
END {
	printf "worst median per turn: %.3f ms (target 2 ms)\n", worst
	if (worst > 2) { print "FAIL: over target"; exit 1 }
}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
