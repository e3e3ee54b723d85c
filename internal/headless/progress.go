package headless

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/diff"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// progress renders a run's events on stderr: on a terminal, one status
// line rewritten in place (step counter and current tool) above the
// permanent lines (errors, edits and their diffs); otherwise plain lines
// that read well in CI logs.
type progress struct {
	w        io.Writer
	tty      bool
	maxSteps int

	mu     sync.Mutex
	lang   string // the language server status last printed (no terminal)
	step   int
	text   strings.Builder // the model's text of the current step
	status bool            // a status line is on screen (tty)
}

func newProgress(w io.Writer, tty bool, maxSteps int) *progress {
	return &progress{w: w, tty: tty, maxSteps: maxSteps}
}

func (p *progress) start(cfg config.Config) {
	p.mu.Lock()
	defer p.mu.Unlock()
	// Never the key: provider, model and endpoint only.
	p.println(fmt.Sprintf("cb-ls run: %s %s at %s", cfg.Provider, cfg.Model, cfg.BaseURL))
}

// event is the Runner's emit callback.
func (p *progress) event(ev agent.Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch ev.Kind {
	case agent.EventStep:
		p.step = ev.Step
		p.text.Reset()
		p.setStatus("thinking…")
	case agent.EventText:
		p.text.WriteString(ev.Text)
	case agent.EventToolCall:
		if t := strings.TrimSpace(p.text.String()); t != "" {
			p.println(indent(t, "  "))
			p.text.Reset()
		}
		if plan, ok := tools.ParsePlan(ev.Args); ok && ev.Tool == tools.PlanToolName {
			p.println("  plan:")
			p.println(indent(strings.TrimRight(plan.Checklist(), "\n"), "    "))
			return
		}
		what := ev.Tool + " " + argSummary(ev.Args)
		if p.tty {
			p.setStatus(what)
		} else {
			p.println(fmt.Sprintf("[%d] %s", ev.Step, strings.TrimSpace(what)))
		}
	case agent.EventToolResult:
		switch {
		case len(ev.Edits) > 0:
			for _, e := range ev.Edits {
				p.println(fmt.Sprintf("  edited %s +%d -%d", diff.QuoteName(e.Rel), e.Added, e.Removed))
				if d := strings.TrimRight(quoteDiffNames(e.Diff, e.Rel), "\n"); d != "" {
					p.println(indent(d, "    "))
				}
			}
		case ev.IsError:
			first, _, _ := strings.Cut(strings.TrimSpace(ev.Output), "\n")
			p.println(fmt.Sprintf("  %s failed: %s", ev.Tool, diff.QuoteName(truncate(first, 200))))
		}
	}
}

// language shows a language server's status (app.Options.OnLanguageStatus):
// on a terminal in the status line, without one once per kind of
// status ("gopls: indexing" once, not every second); a permanent one
// (a server withdrawn) as a line of its own.
func (p *progress) language(text string, permanent bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if permanent {
		p.println("  " + text)
		return
	}
	if p.tty && p.step == 0 {
		// Servers start with the run, before its first step.
		fmt.Fprintf(p.w, "\r\033[K%s", truncate(text, 100))
		p.status = true
		return
	}
	if p.tty {
		p.setStatus(text)
		return
	}
	kind, _, _ := strings.Cut(text, " (")
	if kind != p.lang {
		p.lang = kind
		p.println("  " + text)
	}
}

// pause clears the status line so a question can be asked.
func (p *progress) pause() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.clearStatus()
}

func (p *progress) done() { p.pause() }

func (p *progress) setStatus(s string) {
	if !p.tty {
		return
	}
	line := fmt.Sprintf("step %d/%d · %s", p.step, p.maxSteps, s)
	fmt.Fprintf(p.w, "\r\033[K%s", truncate(line, 100))
	p.status = true
}

func (p *progress) clearStatus() {
	if p.status {
		fmt.Fprint(p.w, "\r\033[K")
		p.status = false
	}
}

// println prints a permanent line, keeping the status line below it.
func (p *progress) println(s string) {
	p.clearStatus()
	fmt.Fprintln(p.w, s)
}

// argSummary is the one argument that says what a call is about. A
// pattern comes before a path: what grep and glob look for says more
// than where (often just ".").
func argSummary(args json.RawMessage) string {
	var m map[string]any
	if json.Unmarshal(args, &m) != nil {
		return ""
	}
	for _, k := range []string{"pattern", "path", "file_path", "command", "url", "query"} {
		if s, ok := m[k].(string); ok && s != "" {
			return diff.QuoteName(truncate(strings.ReplaceAll(s, "\n", " "), 80))
		}
	}
	return ""
}

// quoteDiffNames quotes rel where a unified diff's header names it
// ("--- a/rel", "+++ b/rel"): a name with a newline would otherwise
// forge diff lines, one with an escape sequence rewrite the terminal.
func quoteDiffNames(d, rel string) string {
	q := diff.QuoteName(rel)
	if q == rel {
		return d
	}
	for _, side := range []string{"--- a/", "+++ b/"} {
		d = strings.Replace(d, side+rel+"\n", side+q+"\n", 1)
	}
	return d
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + "…"
}

func indent(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
