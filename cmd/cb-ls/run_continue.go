package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/session"
)

// continueFlag is --continue: a boolean flag ("the project's last run")
// that also takes a run id as --continue=ID.
type continueFlag struct {
	set bool
	id  string
}

func (c *continueFlag) String() string { return c.id }

// IsBoolFlag lets --continue stand alone.
func (c *continueFlag) IsBoolFlag() bool { return true }

func (c *continueFlag) Set(v string) error {
	c.set = true
	switch v {
	case "true":
		c.id = ""
	case "false":
		c.set = false
	default:
		if err := session.CheckID(v); err != nil {
			return err
		}
		c.id = v
	}
	return nil
}

// pickContinued finds the run --continue names: the id given, else the
// first argument when it names a stored run (--continue ID "text"), else
// the most recently active run under roots. It returns the remaining
// arguments (the reply).
func pickContinued(roots []string, c continueFlag, args []string) (*session.Session, []string, error) {
	id := c.id
	if id == "" && len(args) > 1 && session.CheckID(args[0]) == nil {
		if _, err := session.Find(roots, args[0]); err == nil {
			id, args = args[0], args[1:]
		}
	}
	var path string
	if id != "" {
		p, err := session.Find(roots, id)
		if err != nil {
			return nil, nil, err
		}
		path = p
	} else {
		list, err := session.List(roots)
		if len(list) == 0 {
			if err != nil {
				return nil, nil, err
			}
			return nil, nil, fmt.Errorf("no stored run to continue in %s of %s", session.Dir, strings.Join(roots, ", "))
		}
		path = list[0].Log
	}
	s, err := session.Load(path)
	return s, args, err
}

// headlessLog returns where a new headless run's conversation is stored.
func headlessLog(root, input string, cfg config.Config) *session.Log {
	cmd, _ := config.FindCommand(cfg, config.CommandRun)
	return session.NewLog(root, session.Header{
		RunID: session.NewRunID(), Command: cmd.ID, Title: cmd.Title, Input: input, Started: time.Now(),
		Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxSteps: cfg.MaxSteps,
	})
}

// turnOf is the stored record of a turn that ended with out and err.
func turnOf(input string, out agent.Outcome, err error, files []string) session.Turn {
	t := session.Turn{Input: input, Outcome: "done", Steps: out.Steps, Usage: out.Usage, Files: files, Ended: time.Now()}
	switch {
	case errors.Is(err, context.Canceled):
		t.Outcome, t.Error = "cancelled", "interrupted"
	case err != nil:
		t.Outcome, t.Error = "error", err.Error()
	}
	return t
}

// storeRun stores a turn that ended (the conversation and its markdown
// transcript, beside each other in .catbuddy/sessions, as an editor's run
// is stored) and tells on stderr what can be done next. Only a
// conversation that reached the model can be continued: a run refused
// before that (bad settings) stores nothing. A failed run can be, once
// its cause is fixed, and the message says so.
func storeRun(stderr io.Writer, log *session.Log, tr *session.Transcript, prior string, t session.Turn, out agent.Outcome, err error, key string) {
	if len(out.Messages) == 0 {
		return
	}
	if serr := log.AppendTurn(out.Messages, t, key); serr != nil {
		fmt.Fprintf(stderr, "cb-ls run: the conversation was not stored, so it cannot be continued: %v\n", serr)
		return
	}
	path, terr := log.WriteTranscript(session.JoinTurns(prior, tr.Finish(t.Outcome, out, err)), key)
	if terr != nil {
		fmt.Fprintf(stderr, "cb-ls run: the transcript was not written: %v\n", terr)
	}
	id := log.Header().RunID
	switch {
	case err == nil:
		fmt.Fprintf(stderr, "run %s stored; reply with: cb-ls run --continue \"…\"\n", id)
	case t.Outcome == "cancelled":
		fmt.Fprintf(stderr, "run %s was interrupted and stored as far as it got; go on with: cb-ls run --continue \"…\"\n", id)
	default:
		fmt.Fprintf(stderr, "run %s failed and is stored as far as it got; once the cause is fixed, go on with: cb-ls run --continue \"…\"\n", id)
	}
	if terr == nil {
		fmt.Fprintf(stderr, "transcript: %s\n", path)
	}
}
