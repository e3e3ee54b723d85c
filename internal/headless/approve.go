package headless

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// prompter asks the user one question at a time on the terminal; edit
// review and exec approval share it, since they share stdin.
type prompter struct {
	in     *bufio.Reader
	out    io.Writer
	before func() // clears the progress line before asking

	mu sync.Mutex
}

// ask prints question and reads one line, giving up when ctx ends
// (Ctrl-C while the question is open). The caller holds p.mu.
func (p *prompter) ask(ctx context.Context, question string) (string, error) {
	if p.before != nil {
		p.before()
	}
	fmt.Fprint(p.out, question)
	type line struct {
		s   string
		err error
	}
	ch := make(chan line, 1)
	go func() {
		s, err := p.in.ReadString('\n')
		if err == io.EOF && s != "" {
			err = nil
		}
		ch <- line{s, err}
	}()
	select {
	case l := <-ch:
		if l.err != nil {
			fmt.Fprintln(p.out)
		}
		return l.s, l.err
	case <-ctx.Done():
		fmt.Fprintln(p.out)
		return "", ctx.Err()
	}
}

// approveExec asks on the terminal: y runs the command once, a always
// allows its prefix (stored in the user's config), anything else — the
// end of input included — rejects it.
func (p *prompter) approveExec(ctx context.Context, req tools.ApprovalRequest) (tools.Decision, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	choices := "[y/N]"
	if req.Prefix != "" {
		choices = fmt.Sprintf("[y/N/a] (a = always allow %q)", req.Prefix)
	}
	answer, err := p.ask(ctx, fmt.Sprintf("\n%s\n%s ", req.Message(), choices))
	if err != nil {
		if ctx.Err() != nil {
			return tools.Rejected, ctx.Err()
		}
		return tools.Rejected, nil
	}
	switch strings.ToLower(strings.TrimSpace(answer)) {
	case "y", "yes":
		return tools.Approved, nil
	case "a", "always":
		if req.Prefix == "" {
			return tools.Approved, nil
		}
		path, err := config.AddExecAllowRule(req.Prefix)
		if err != nil {
			fmt.Fprintf(p.out, "(%q is allowed for this run only: %v)\n", req.Prefix, err)
		} else {
			fmt.Fprintf(p.out, "(%q is now always allowed: tools.exec.allow in %s)\n", req.Prefix, path)
		}
		return tools.AlwaysApproved, nil
	}
	return tools.Rejected, nil
}

// errNoTerminal is what the model hears when nobody can be asked.
var errNoTerminal = errors.New("cb-ls run has no terminal to ask on and --yes was not given, so commands that need approval are refused")

// execApprover picks cb-ls run's Approver: --yes approves everything, a
// terminal asks, and otherwise requests are refused with a clear reason.
func execApprover(yes, terminal bool, p *prompter) tools.Approver {
	switch {
	case yes:
		return tools.ApproveAll
	case terminal:
		return tools.ApproverFunc(p.approveExec)
	}
	return tools.ApproverFunc(func(context.Context, tools.ApprovalRequest) (tools.Decision, error) {
		return tools.Rejected, errNoTerminal
	})
}
