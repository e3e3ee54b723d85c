package main

import (
	"os"
	"runtime/pprof"
)

// startProfile writes a CPU profile to $CB_LS_CPUPROFILE, when set, until
// the returned function runs.
func startProfile() func() {
	path := os.Getenv("CB_LS_CPUPROFILE")
	if path == "" {
		return func() {}
	}
	f, err := os.Create(path)
	if err != nil {
		return func() {}
	}
	if pprof.StartCPUProfile(f) != nil {
		f.Close()
		return func() {}
	}
	return func() { pprof.StopCPUProfile(); f.Close() }
}
