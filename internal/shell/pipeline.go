package shell

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A line ending in a pipeline (`go test ./... | tail -15`) exits with
// its last command's status: a failure before it is hidden, and a model
// reading "[exit code 0]" under FAIL believes the tail. bash keeps every
// command's status in PIPESTATUS; a watched line reports them when the
// shell exits, on a descriptor of its own, so the result can name the
// failure without changing the command's own exit code, output or files
// (no pipefail). POSIX sh has no PIPESTATUS: there the result says that
// only the last command's status is known.

// Pipeline is the last pipeline of a command line, watched.
type Pipeline struct {
	// Names are its commands as the footer shows them: "go test …", "tail".
	Names []string
	// Bash says the statuses are reported; under POSIX sh they cannot be.
	Bash   bool
	marker string
}

// LastPipeline returns line as the shell should run it and the watch
// of its last statement's pipeline, or line itself and nil when that
// statement is not a plain pipeline (a single command, a list, a
// negated or background pipeline) or the line does not parse.
func (i Interpreter) LastPipeline(line string) (string, *Pipeline) {
	lang := syntax.LangPOSIX
	if i.Bash {
		lang = syntax.LangBash
	}
	f, err := syntax.NewParser(syntax.Variant(lang)).Parse(strings.NewReader(line), "")
	if err != nil || len(f.Stmts) == 0 {
		return line, nil
	}
	last := f.Stmts[len(f.Stmts)-1]
	bin, ok := last.Cmd.(*syntax.BinaryCmd)
	if !ok || last.Negated || last.Background || last.Coprocess || (bin.Op != syntax.Pipe && bin.Op != syntax.PipeAll) {
		return line, nil
	}
	p := &Pipeline{Names: pipelineNames(bin), Bash: i.Bash}
	if !i.Bash {
		return line, p
	}
	var nonce [8]byte
	rand.Read(nonce[:])
	p.marker = "cb-ls:pipestatus:" + hex.EncodeToString(nonce[:]) + ":"
	// On the line's own first line, so $LINENO stays as written; on a
	// duplicate of stderr, so a line that redirects its shell's stderr
	// (exec 2>log) does not get the report in its file.
	prefix := fmt.Sprintf(`exec {__cbls_status}>&2; trap 'printf "\n%%s%%s\n" %s "${PIPESTATUS[*]}" >&"$__cbls_status"' EXIT; `, p.marker)
	return prefix + line, p
}

// pipelineNames lists the commands of a pipeline, left to right.
func pipelineNames(c syntax.Command) []string {
	if b, ok := c.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) {
		return append(pipelineNames(b.X.Cmd), pipelineNames(b.Y.Cmd)...)
	}
	return []string{commandName(c)}
}

var subcommand = regexp.MustCompile(`^[a-z][a-z0-9_-]*$`)

// commandName is how the footer names one command of a pipeline: its
// program, and a subcommand word after it ("go test"), with "…" when
// more than options follow ("go test ./..." → "go test …", "tail -15"
// → "tail").
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

// Take removes the watch's report from the end of output (the shell's
// last words, after whatever the command printed) and returns output
// without it and the statuses, nil when the shell reported none (it
// was killed, or the line replaced the EXIT trap) or they do not match
// the pipeline.
func (p *Pipeline) Take(output string) (string, []int) {
	if p == nil || p.marker == "" {
		return output, nil
	}
	at := strings.LastIndex(output, "\n"+p.marker)
	if at < 0 {
		return output, nil
	}
	report, _, _ := strings.Cut(output[at+1+len(p.marker):], "\n")
	rest := output[at+1+len(p.marker)+len(report):]
	rest = strings.TrimPrefix(rest, "\n")
	output = output[:at] + rest
	var st []int
	for _, f := range strings.Fields(report) {
		n, err := strconv.Atoi(f)
		if err != nil {
			return output, nil
		}
		st = append(st, n)
	}
	if len(st) != len(p.Names) {
		return output, nil
	}
	return output, st
}

// Note is what the exit footer adds about the pipeline: "pipeline: go
// test …=1, tail=0" when one of its commands failed, the POSIX sh
// caveat when the statuses are not known, and "" when all succeeded.
func (p *Pipeline) Note(statuses []int) string {
	if p == nil {
		return ""
	}
	if !p.Bash {
		return "ran in /bin/sh (no bash): a pipeline's status is its last command's"
	}
	failed := false
	parts := make([]string, len(statuses))
	for k, s := range statuses {
		failed = failed || s != 0
		parts[k] = fmt.Sprintf("%s=%d", p.Names[k], s)
	}
	if !failed {
		return ""
	}
	return "pipeline: " + strings.Join(parts, ", ")
}
