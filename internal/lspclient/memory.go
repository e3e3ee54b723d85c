package lspclient

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// A server cb-ls starts is one more process beside the editor's own (a
// second gopls holds its own copy of the project's types), so what it
// costs is shown: the resident memory of each started server, read from
// /proc on Linux. A confined server runs under the sandbox's helper:
// its memory is the process tree's.

// Process is one started language server as a status shows it.
type Process struct {
	Server string
	PID    int
	// RSS is the resident memory of the server's process tree in bytes,
	// or -1 where it cannot be read (not Linux, or the process is gone).
	RSS int64
}

// String is the status line of p: "gopls (pid 4242): 182.4 MB resident".
func (p Process) String() string {
	if p.RSS < 0 {
		return fmt.Sprintf("%s (pid %d): memory unknown", p.Server, p.PID)
	}
	return fmt.Sprintf("%s (pid %d): %.1f MB resident", p.Server, p.PID, float64(p.RSS)/1e6)
}

// Processes lists the servers started and running, by name, with their
// memory.
func (c *Client) Processes() []Process {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	var out []Process
	for name, s := range c.started {
		if s.cmd != nil && s.cmd.Process != nil {
			out = append(out, Process{Server: name, PID: s.cmd.Process.Pid})
		}
	}
	c.mu.Unlock()
	slices.SortFunc(out, func(a, b Process) int { return strings.Compare(a.Server, b.Server) })
	for i := range out {
		out[i].RSS = treeRSS(out[i].PID)
	}
	return out
}

// treeRSS sums VmRSS over pid and its descendants, or -1 when pid's
// cannot be read.
func treeRSS(pid int) int64 {
	own := vmRSS(pid)
	if own < 0 {
		return -1
	}
	total := own
	for _, child := range children(pid) {
		if r := treeRSS(child); r > 0 {
			total += r
		}
	}
	return total
}

// vmRSS reads the VmRSS line of /proc/<pid>/status, in bytes.
func vmRSS(pid int) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return -1
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := bytes.CutPrefix(sc.Bytes(), []byte("VmRSS:"))
		if !ok {
			continue
		}
		fields := strings.Fields(string(rest)) // "182400 kB"
		if len(fields) == 0 {
			return -1
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return -1
		}
		return kb * 1024
	}
	return -1
}

// children lists the child processes of pid's threads.
func children(pid int) []int {
	tasks, _ := filepath.Glob(filepath.Join("/proc", strconv.Itoa(pid), "task", "*", "children"))
	var out []int
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue
		}
		for _, f := range strings.Fields(string(b)) {
			if n, err := strconv.Atoi(f); err == nil {
				out = append(out, n)
			}
		}
	}
	return out
}
