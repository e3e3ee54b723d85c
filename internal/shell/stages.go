package shell

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// A line's exit status is its last command's: `go vet ./... && go test
// ./... | tail -30` exits 0 when the tests fail, and a model reading
// "[exit code 0]" under FAIL believes the tail. So every command of the
// line's lists and pipelines (joined by `|`, `&&`, `||`, `;`, in
// subshells and { } groups) reports its status as it ends: the line is
// run with each such statement wrapped as `{ stmt; __cbls_rec K
// "${PIPESTATUS[*]}"; }`, which writes the statuses on a duplicate of
// the shell's stderr (a line that redirects its own stderr does not get
// them in its file) and returns the statement's own status, so the
// line's exit code, output and files are unchanged (no pipefail). The
// wrappers are inserted in the line's own text, on the lines they
// belong to, so $LINENO and here-documents stay as written. A line that
// reads PIPESTATUS itself is run as written. Commands in
// loops, conditions and functions are not watched: there a failure is
// the line's own business. POSIX sh has no PIPESTATUS: there the result
// says that a pipeline's status is its last command's.

// Watch is a command line's watched commands.
type Watch struct {
	// Bash says the statuses are reported; under POSIX sh they cannot be.
	Bash bool
	// stages are the watched statements, in the line's order; each is
	// a command or a pipeline of them (its names, left to right).
	stages [][]string
	piped  bool // the line has a pipeline (for the POSIX sh caveat)
	marker string

	mu       sync.Mutex
	statuses map[int][]int // stage → its commands' statuses, as last reported
}

// Watch returns line as the shell should run it and the watch of its
// commands, or line itself and nil when it has a single command (whose
// status is the line's) or does not parse.
func (i Interpreter) Watch(line string) (string, *Watch) {
	lang := syntax.LangPOSIX
	if i.Bash {
		lang = syntax.LangBash
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		return line, nil
	}
	if strings.Contains(line, "PIPESTATUS") {
		// The line reads the statuses itself (`a | b; echo
		// ${PIPESTATUS[0]}`), which a wrapper would replace with its own.
		return line, nil
	}
	var stmts []*syntax.Stmt
	for _, s := range f.Stmts {
		collect(s, &stmts)
	}
	w := &Watch{Bash: i.Bash}
	commands := 0
	for _, s := range stmts {
		names := pipelineNames(s.Cmd)
		w.stages = append(w.stages, names)
		commands += len(names)
		w.piped = w.piped || len(names) > 1
	}
	if commands < 2 {
		return line, nil
	}
	if !i.Bash {
		if !w.piped {
			return line, nil
		}
		return line, w
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	w.marker = "cb-ls:status:" + hex.EncodeToString(nonce[:]) + ":"
	type insert struct {
		at   int
		text string
	}
	var ins []insert
	for k, s := range stmts {
		end, ok := textEnd(s)
		if !ok {
			return line, nil
		}
		ins = append(ins, insert{int(s.Pos().Offset()), "{ "},
			insert{end, fmt.Sprintf(`; __cbls_rec %d "${PIPESTATUS[*]}"; }`, k)})
	}
	// Stable: a statement's closing comes before a later one's opening
	// at the same offset, which cannot happen in valid text anyway.
	slices.SortStableFunc(ins, func(a, b insert) int { return a.at - b.at })
	var b strings.Builder
	// On the line's own first line, so $LINENO stays as written.
	fmt.Fprintf(&b, `exec {__cbls_status}>&2; __cbls_rec() { local s=$?; printf '\n%%s%%s %%s\n' %s "$1" "$2" >&"$__cbls_status"; return $s; }; `, w.marker)
	prev := 0
	for _, in := range ins {
		if in.at < prev || in.at > len(line) {
			return line, nil
		}
		b.WriteString(line[prev:in.at])
		b.WriteString(in.text)
		prev = in.at
	}
	b.WriteString(line[prev:])
	return b.String(), w
}

// collect appends the statements of s to watch: s itself when it is a
// command or a pipeline, those of its lists, subshells and groups.
func collect(s *syntax.Stmt, out *[]*syntax.Stmt) {
	if s.Negated || s.Background || s.Coprocess || s.Disown || s.Cmd == nil {
		return
	}
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) > 0 {
			*out = append(*out, s)
		}
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			*out = append(*out, s)
			return
		}
		collect(c.X, out)
		collect(c.Y, out)
	case *syntax.Subshell:
		for _, st := range c.Stmts {
			collect(st, out)
		}
	case *syntax.Block:
		for _, st := range c.Stmts {
			collect(st, out)
		}
	}
}

// textEnd is the offset just after s on its own line: after its last
// word, redirection target or closing bracket, before its `;` and
// before any here-document body (which follows the line).
func textEnd(s *syntax.Stmt) (int, bool) {
	end := 0
	switch c := s.Cmd.(type) {
	case *syntax.CallExpr:
		end = int(c.End().Offset())
	case *syntax.BinaryCmd:
		e, ok := textEnd(c.Y)
		if !ok {
			return 0, false
		}
		end = e
	case *syntax.Subshell:
		end = int(c.Rparen.Offset()) + 1
	case *syntax.Block:
		end = int(c.Rbrace.Offset()) + 1
	default:
		return 0, false
	}
	for _, r := range s.Redirs {
		if r.Word != nil {
			end = max(end, int(r.Word.End().Offset()))
		}
	}
	return end, true
}

// pipelineNames lists the commands of a pipeline, left to right.
func pipelineNames(c syntax.Command) []string {
	if b, ok := c.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return append(pipelineNames(b.X.Cmd), pipelineNames(b.Y.Cmd)...)
	}
	return []string{commandName(c)}
}

var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// commandName is how the footer names one command: its program, and a
// subcommand word after it ("go test"), with "…" when more than options
// follow ("go test ./..." → "go test …", "tail -15" → "tail").
func commandName(c syntax.Command) string {
	call, ok := c.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "(…)"
	}
	words := make([]string, len(call.Args))
	for k, w := range call.Args {
		if words[k] = w.Lit(); words[k] == "" {
			words[k] = "…"
		}
	}
	name, rest := words[0], words[1:]
	if len(rest) > 0 && subcommand.MatchString(rest[0]) {
		name, rest = name+" "+rest[0], rest[1:]
	}
	for _, w := range rest {
		if !strings.HasPrefix(w, "-") {
			return name + " …"
		}
	}
	return name
}

// Attach makes out hold back the watch's reports: they are taken out
// of the stream as it arrives, before out bounds it, so none is lost in
// the cut middle of a long output and none reaches the model.
func (w *Watch) Attach(out *Output) {
	if w == nil || w.marker == "" {
		return
	}
	out.extract("\n"+w.marker, w.record)
}

// record takes one report: "K s1 s2 …".
func (w *Watch) record(report string) {
	k, list, _ := strings.Cut(report, " ")
	stage, err := strconv.Atoi(k)
	if err != nil || stage < 0 || stage >= len(w.stages) {
		return
	}
	var st []int
	for _, f := range strings.Fields(list) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return
		}
		st = append(st, n)
	}
	if len(st) != len(w.stages[stage]) {
		return
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.statuses == nil {
		w.statuses = map[int][]int{}
	}
	w.statuses[stage] = st
}

// sigpipeStatus is bash's status of a command killed by SIGPIPE (128+13).
const sigpipeStatus = 141

// Note is what the exit footer adds: "failed: go test …=1" naming each
// command that exited non-zero, in the line's order, the POSIX sh
// caveat when statuses are not known, and "" when all succeeded.
//
// A command that is not a pipeline's last and ended with 141 (killed by
// SIGPIPE) is not named: the command reading from it stopped early, as
// `git diff | head -60` asks, and its output is what was wanted.
func (w *Watch) Note() string {
	if w == nil {
		return ""
	}
	if !w.Bash {
		return "ran in /bin/sh (no bash): a pipeline's status is its last command's"
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	var failed []string
	for k, names := range w.stages {
		for j, s := range w.statuses[k] {
			if s == sigpipeStatus && j < len(names)-1 {
				continue
			}
			if s != 0 {
				failed = append(failed, fmt.Sprintf("%s=%d", names[j], s))
			}
		}
	}
	if len(failed) == 0 {
		return ""
	}
	return "failed: " + strings.Join(failed, ", ")
}
