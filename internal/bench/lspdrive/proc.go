package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// clockTick is the kernel's USER_HZ, the unit of utime and stime in
// /proc/PID/stat: 100 on every Linux architecture Go supports.
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time the process has used so far: the sum of its
// threads' on-CPU nanoseconds from /proc/PID/task/*/schedstat where the
// kernel has it (1,000 changes of ~100 µs are only ten of stat's 10 ms
// ticks), else utime+stime from /proc/PID/stat.
func cpuTime(pid int) (time.Duration, error) {
	if d, err := schedTime(pid); err == nil {
		return d, nil
	}
	return statTime(pid)
}

func schedTime(pid int) (time.Duration, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(files) == 0 {
		return 0, fmt.Errorf("/proc/%d/task/*/schedstat: none", pid)
	}
	var sum int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		fields := strings.Fields(string(b))
		if len(fields) == 0 {
			return 0, fmt.Errorf("%s: empty", f)
		}
		ns, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0, fmt.Errorf("%s: %v", f, err)
		}
		sum += ns
	}
	return time.Duration(sum), nil
}

func statTime(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, err
	}
	// The command name (field 2) may hold spaces; fields after it are fixed.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return time.Duration(utime+stime) * clockTick, nil
}

// peakRSS is the process's high-water resident set (VmHWM) in KiB.
func peakRSS(pid int) (int64, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
		}
	}
	return 0, fmt.Errorf("/proc/%d/status: no VmHWM", pid)
}
