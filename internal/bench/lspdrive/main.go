// Command drive measures how a stdio language server keeps up with typing:
// it starts the server in a temporary workspace, opens one generated Go
// document, sends one-character incremental didChanges at scattered lines,
// each followed by a probe request, and reports per server and run the time
// from process start to the initialize answer, the latency of each change
// (didChange sent → probe answered: the server has applied it), the server's
// own CPU time per change and its peak RSS. Servers are run interleaved so
// that a noisy machine hurts them alike.
//
//	go run ./internal/bench/lspdrive -size 10MB -n 1000 -runs 3 \
//	    -server "cb-ls=bin/cb-ls serve" -server "peer=node bench/lsp/peer/server.js --stdio"
//
// For counts of instructions, which a loaded machine does not disturb, run
// the servers under valgrind (Go's RDTSCP and asynchronous preemption
// upset it) and compare -n 0 with -n 2000:
//
//	GODEBUG=asyncpreemptoff=1,cpu.rdtscp=off go run ./internal/bench/lspdrive -exitwait 2m -n 2000 \
//	    -server "cb-ls=valgrind --tool=callgrind --callgrind-out-file=cb-ls.2000 bin/cb-ls serve"
//
// With -floor LABEL it also prints each server's medians and their ratios
// to that server (bench/keystroke.sh: cb-ls against internal/bench/lspfloor).
//
// Output: one JSON object per server and run on stdout (see result).
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"strconv"
	"strings"
)

// servers collects repeated -server LABEL=COMMAND flags.
type servers []server

type server struct {
	label string
	argv  []string
}

func (s *servers) String() string { return fmt.Sprint(len(*s), " servers") }

func (s *servers) Set(v string) error {
	label, cmd, ok := strings.Cut(v, "=")
	argv := strings.Fields(cmd)
	if !ok || label == "" || len(argv) == 0 {
		return fmt.Errorf("-server %q: want LABEL=COMMAND ARGS…", v)
	}
	*s = append(*s, server{label, argv})
	return nil
}

func main() {
	var (
		list  servers
		size  = flag.String("size", "1MB", "document size: N, NKB or NMB")
		n     = flag.Int("n", 1000, "changes per run (0: start-up only)")
		runs  = flag.Int("runs", 1, "runs per server, interleaved")
		seed  = flag.Int64("seed", 1, "seed for the changes' positions")
		floor = flag.String("floor", "", "label of the floor server: print medians and ratios to it on stderr")
	)
	flag.DurationVar(&exitWait, "exitwait", exitWait, "how long a server may take to exit before it is killed")
	flag.Var(&list, "server", "LABEL=COMMAND ARGS… of a stdio language server (repeatable)")
	flag.Parse()
	bytes, err := parseSize(*size)
	if err != nil || len(list) == 0 || *n < 0 || *runs < 1 {
		if err == nil {
			err = fmt.Errorf("need at least one -server, n ≥ 0 and runs ≥ 1")
		}
		log.Fatalf("drive: %v", err)
	}
	text := goDocument(bytes)
	enc := json.NewEncoder(os.Stdout)
	failed := false
	var all []result
	for r := 1; r <= *runs; r++ {
		for _, s := range list {
			res, err := measure(s, text, *n, *seed+int64(r))
			res.Run = r
			if err != nil {
				res.Error = err.Error()
				failed = true
				log.Printf("drive: %s run %d: %v", s.label, r, err)
			}
			if err := enc.Encode(res); err != nil {
				log.Fatalf("drive: %v", err)
			}
			all = append(all, res)
		}
	}
	if *floor != "" {
		summarize(os.Stderr, all, *floor)
	}
	if failed {
		os.Exit(1)
	}
}

// parseSize reads "100", "100KB" or "10MB" (powers of 1024).
func parseSize(s string) (int, error) {
	mult := 1
	num := strings.ToUpper(s)
	switch {
	case strings.HasSuffix(num, "MB"):
		mult, num = 1<<20, strings.TrimSuffix(num, "MB")
	case strings.HasSuffix(num, "KB"):
		mult, num = 1<<10, strings.TrimSuffix(num, "KB")
	}
	v, err := strconv.Atoi(num)
	if err != nil || v <= 0 {
		return 0, fmt.Errorf("bad -size %q: want N, NKB or NMB", s)
	}
	return v * mult, nil
}

// goDocument returns about size bytes of Go source with some Latin-1, CJK and
// astral characters, so a server cannot take an ASCII-only shortcut when it
// maps UTF-16 positions.
func goDocument(size int) string {
	var b strings.Builder
	b.WriteString("package bench\n")
	for k := 0; b.Len() < size; k++ {
		if k%8 == 0 {
			fmt.Fprintf(&b, "// f%d: naïve café 中文 😀\n", k)
		} else {
			fmt.Fprintf(&b, "func f%d(a, b int) int { return a*%d + b }\n", k, k)
		}
	}
	return b.String()
}
