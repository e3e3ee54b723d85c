#!/bin/sh
# bench/frontends.sh — ACP against LSP on one turn, in the same run: the
# time from the request (session/prompt, catbuddy.run) to the first model
# request, and the process CPU per turn (agent, in-process client and
# scripted model alike for both). Target: ACP within 1.2x of LSP.
#
#   bench/frontends.sh        # COUNT=5 BENCHTIME=50x
set -eu
cd "$(dirname "$0")/.."
out=$(go test -run '^$' -bench 'LSP|ACP' -benchtime "${BENCHTIME:-50x}" -count "${COUNT:-5}" ./internal/bench/frontends/)
printf '%s\n' "$out" | grep -E '^Benchmark'
printf '%s\n' "$out" | awk '
function median(a, name, k,   i, j, t, v) {
	for (i = 1; i <= k; i++) v[i] = a[name, i]
	for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (v[j] < v[i]) { t = v[i]; v[i] = v[j]; v[j] = t }
	return k % 2 ? v[(k + 1) / 2] : (v[k / 2] + v[k / 2 + 1]) / 2
}
/^Benchmark(LSP|ACP)/ {
	name = $1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
	n[name]++
	for (i = 1; i <= NF; i++) {
		if ($(i+1) == "median-ms-to-model") lat[name, n[name]] = $i
		if ($(i+1) == "median-cpu-ms/turn") cpu[name, n[name]] = $i
	}
}
END {
	for (name in n) {
		l[name] = median(lat, name, n[name]); c[name] = median(cpu, name, n[name])
		printf "%-4s median over %d runs: %.3f ms to the first model request, %.3f ms CPU per turn\n", name, n[name], l[name], c[name]
	}
	rl = l["ACP"] / l["LSP"]; rc = c["ACP"] / c["LSP"]
	printf "ACP/LSP: latency %.2fx, CPU %.2fx (target <= 1.2x)\n", rl, rc
	if (rl > 1.2 || rc > 1.2) { print "FAIL: over target"; exit 1 }
}'
echo "load average: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo n/a)"
