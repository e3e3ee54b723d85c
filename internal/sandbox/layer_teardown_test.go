//go:build linux

package sandbox

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// TestLayerTeardown: when the command ends, times out or is cancelled,
// nothing of it is left once the call returns: no process (not even one
// that left the process group with setsid), no process in its mount
// namespace, and no mount of the layer in any namespace. The layer
// keeps what the command wrote before it ended.
func TestLayerTeardown(t *testing.T) {
	c, l := newLayerCase(t)
	for i, how := range []string{"exit", "timeout", "cancel"} {
		t.Run(how, func(t *testing.T) {
			// A sleep no other program runs marks the command's processes.
			marker := fmt.Sprintf("%d%03d", 86400+os.Getpid()%1000, i)
			started := "started-" + how
			line := fmt.Sprintf("readlink /proc/self/ns/mnt; echo yes > %s; setsid sleep %s & sleep %s &", started, marker, marker)
			if how != "exit" {
				line += " wait"
			}
			timeout := 10 * time.Minute
			if how == "timeout" {
				timeout = 3 * time.Second
			}
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			r := c.prepare(c.root, line, Policy{WriteWorkspace: true})
			out := shell.NewOutput(10000)
			type ran struct {
				res shell.Result
				err error
			}
			done := make(chan ran, 1)
			go func() {
				res, err := shell.Run(ctx, r.Cmd, out, timeout, 200*time.Millisecond)
				done <- ran{res, err}
			}()
			if how == "cancel" {
				// While it runs, the check below does see its processes
				// and its layer: it can fail.
				waitFor(t, func() bool {
					left := leftovers(marker, "", l.Lower)
					return len(left) >= 3 // two sleeps and the mount
				}, "the command's processes and layer")
				cancel()
			}
			got := <-done
			r.Cleanup()
			if got.err != nil {
				t.Fatal(got.err)
			}
			switch {
			case how == "timeout" && !got.res.TimedOut, how == "cancel" && !got.res.Cancelled, how == "exit" && got.res.ExitCode != 0:
				t.Errorf("%s: %+v: %q", how, got.res, out.String())
			}
			ns, _, _ := strings.Cut(out.String(), "\n")
			if !strings.HasPrefix(ns, "mnt:[") && how != "timeout" { // under load a timeout may come first
				t.Errorf("no mount namespace in the output: %q", out.String())
			}
			nothingLeft(t, marker, ns, l.Lower)
			if _, err := os.Stat(filepath.Join(l.Upper, started)); err != nil && how != "timeout" {
				t.Errorf("the layer lost what the command wrote: %v", err)
			}
		})
	}
}

// waitFor waits until cond holds.
func waitFor(t *testing.T, cond func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("waited 2 minutes for %s", what)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// nothingLeft fails t for each leftover of the command.
func nothingLeft(t *testing.T, marker, ns, lower string) {
	t.Helper()
	for _, l := range leftovers(marker, ns, lower) {
		t.Error(l)
	}
}

// leftovers lists the processes that run sleep marker or live in the
// mount namespace ns, and the mount namespaces with an overlay at lower.
func leftovers(marker, ns, lower string) []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*")
	seenNS := map[string]bool{}
	for _, p := range procs {
		cmdline, err := os.ReadFile(filepath.Join(p, "cmdline"))
		if err != nil {
			continue // gone meanwhile
		}
		if strings.Contains(string(cmdline), "sleep\x00"+marker) {
			out = append(out, fmt.Sprintf("process %s (%q) outlived the call", filepath.Base(p), cmdline))
		}
		pns, err := os.Readlink(filepath.Join(p, "ns", "mnt"))
		if err != nil || seenNS[pns] {
			continue
		}
		seenNS[pns] = true
		if pns == ns {
			out = append(out, fmt.Sprintf("process %s is still in the command's mount namespace %s", filepath.Base(p), ns))
		}
		mounts, err := os.ReadFile(filepath.Join(p, "mountinfo"))
		if err != nil {
			continue
		}
		for _, m := range strings.Split(string(mounts), "\n") {
			if f := strings.Fields(m); len(f) > 4 && f[4] == lower && strings.Contains(m, " - overlay ") {
				out = append(out, fmt.Sprintf("the layer is still mounted in %s (process %s): %s", pns, filepath.Base(p), m))
			}
		}
	}
	if len(seenNS) == 0 {
		out = append(out, "no process's mount namespace could be read")
	}
	return out
}
