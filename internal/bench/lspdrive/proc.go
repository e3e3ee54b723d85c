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
	if d, _, err := schedTime(pid); err == nil {
		return d, nil
	}
	user, sys, err := statTime(pid)
	return user + sys, err
}

// schedTime sums the process's threads' on-CPU time and the number of
// times they were scheduled onto a CPU (each a wake-up, or a resumption
// after preemption) from /proc/PID/task/*/schedstat. A thread that ended
// takes its figures with it: Go servers keep their threads.
func schedTime(pid int) (time.Duration, int64, error) {
	files, err := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
	if err != nil || len(files) == 0 {
		return 0, 0, fmt.Errorf("/proc/%d/task/*/schedstat: none", pid)
	}
	var sum, slices int64
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			continue // the thread ended
		}
		fields := strings.Fields(string(b))
		if len(fields) < 3 {
			return 0, 0, fmt.Errorf("%s: %d fields", f, len(fields))
		}
		ns, err1 := strconv.ParseInt(fields[0], 10, 64)
		n, err2 := strconv.ParseInt(fields[2], 10, 64)
		if err1 != nil || err2 != nil {
			return 0, 0, fmt.Errorf("%s: bad fields %q", f, b)
		}
		sum += ns
		slices += n
	}
	return time.Duration(sum), slices, nil
}

// statTime is the process's user and system CPU time from /proc/PID/stat,
// the figures getrusage(2) reports, in 10 ms ticks.
func statTime(pid int) (user, sys time.Duration, err error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, 0, err
	}
	// The command name (field 2) may hold spaces; fields after it are fixed.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, 0, fmt.Errorf("/proc/%d/stat: %d fields", pid, len(f))
	}
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, 0, fmt.Errorf("/proc/%d/stat: bad utime/stime", pid)
	}
	return time.Duration(utime) * clockTick, time.Duration(stime) * clockTick, nil
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
