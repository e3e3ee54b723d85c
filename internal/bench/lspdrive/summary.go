package main

import (
	"fmt"
	"io"
	"slices"
)

// summarize prints, per server, the medians over its runs of the CPU per
// change, the peak RSS and the latency p50, and their ratios to the server labelled floor
// (measured in the same interleaved runs), one line each.
func summarize(w io.Writer, results []result, floor string) {
	type medians struct{ cpu, rss, p50, user, sys, wake float64 }
	var order []string
	cpu, rss, p50 := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	user, sys, wake := map[string][]float64{}, map[string][]float64{}, map[string][]float64{}
	for _, r := range results {
		if r.Error != "" {
			continue
		}
		if _, ok := cpu[r.Server]; !ok {
			order = append(order, r.Server)
		}
		cpu[r.Server] = append(cpu[r.Server], r.CPUPerChangeUs)
		rss[r.Server] = append(rss[r.Server], float64(r.PeakRSSKB)/1024)
		p50[r.Server] = append(p50[r.Server], r.LatencyP50Ms)
		user[r.Server] = append(user[r.Server], r.UserPerChangeUs)
		sys[r.Server] = append(sys[r.Server], r.SysPerChangeUs)
		wake[r.Server] = append(wake[r.Server], r.WakeupsPerChange)
	}
	m := map[string]medians{}
	for _, s := range order {
		m[s] = medians{median(cpu[s]), median(rss[s]), median(p50[s]), median(user[s]), median(sys[s]), median(wake[s])}
	}
	f, haveFloor := m[floor]
	for _, s := range order {
		line := fmt.Sprintf("%-8s CPU per change+probe %7.1f µs (user %.1f, sys %.1f; %.2f wake-ups)  peak RSS %6.1f MB  latency p50 %.3f ms  (median of %d runs)",
			s, m[s].cpu, m[s].user, m[s].sys, m[s].wake, m[s].rss, m[s].p50, len(cpu[s]))
		if haveFloor && s != floor && f.cpu > 0 && f.rss > 0 {
			line += fmt.Sprintf("  ×%s: CPU %.2f, RSS %.2f", floor, m[s].cpu/f.cpu, m[s].rss/f.rss)
		}
		fmt.Fprintln(w, line)
	}
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
