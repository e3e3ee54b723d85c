package headless

import (
	"fmt"
	"io"
	"strings"

	"github.com/catbuddy/cb-ls/internal/app"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/session"
)

// pickContinued finds the run --continue names: the id given (or ""), else the
// first argument when it names a stored run (--continue ID "text"), else
// the most recently active run under roots. It returns the remaining
// arguments (the reply).
func pickContinued(roots []string, id string, args []string) (*session.Session, []string, error) {
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
			return nil, nil, fmt.Errorf("no stored run to continue for %s (sessions are kept in %s)", strings.Join(roots, ", "), session.Where)
		}
		path = list[0].Log
	}
	s, err := session.Load(path)
	return s, args, err
}

// headlessRun starts a new headless run, stored under root.
func headlessRun(root, input string, cfg config.Config) *app.Run {
	cmd, _ := config.FindCommand(cfg, config.CommandRun)
	return app.NewRun(root, cmd, session.Header{Input: input, Provider: cfg.Provider, Model: cfg.Model, BaseURL: cfg.BaseURL, MaxSteps: cfg.MaxSteps})
}

// reportStored tells on stderr what became of the turn and what can be
// done next. Only a conversation that reached the model can be
// continued: a run refused before that (bad settings) stores nothing. A
// failed run can be, once its cause is fixed, and the message says so.
func reportStored(stderr io.Writer, r *app.Run, res app.Result) {
	switch {
	case len(r.Messages) == 0:
		return
	case res.StoreErr != nil:
		fmt.Fprintf(stderr, "cb-ls run: the conversation was not stored, so it cannot be continued: %v\n", res.StoreErr)
	case res.Err == nil:
		fmt.Fprintf(stderr, "run %s stored; reply with: cb-ls run --continue \"…\"\n", r.ID)
	case res.Status == "cancelled":
		fmt.Fprintf(stderr, "run %s was interrupted and stored as far as it got; go on with: cb-ls run --continue \"…\"\n", r.ID)
	default:
		fmt.Fprintf(stderr, "run %s failed and is stored as far as it got; once the cause is fixed, go on with: cb-ls run --continue \"…\"\n", r.ID)
	}
	if res.TranscriptErr != nil {
		fmt.Fprintf(stderr, "cb-ls run: the transcript was not written: %v\n", res.TranscriptErr)
	} else if res.TranscriptPath != "" {
		fmt.Fprintf(stderr, "transcript: %s\n", res.TranscriptPath)
	}
}
