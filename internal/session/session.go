// Package session stores each agent run's conversation in the
// workspace folder's place in the user's state directory
// (<state>/folders/<key>/sessions, see package userstate), next to its
// transcript, so that a run can be listed and continued after the
// server (or the editor) restarted. Nothing of it lies in the project.
//
// A session is a JSONL file, appended to once per turn and never
// rewritten: a "run" record (the command, the document, the settings),
// then for every turn the conversation's new "message" records and one
// "turn" record (outcome, tokens, changed files). Keys are never
// written. The agent's tools and commands cannot read the directory: it
// lies outside the workspace, and the sandbox hides it.
package session

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/userstate"
)

// dirName is the sessions directory in a folder's state directory.
const dirName = "sessions"

// Where names, for the user, where the sessions of a workspace folder
// are kept.
const Where = "the user's state directory"

// DirOf returns the directory that holds the sessions of the workspace
// folder root.
func DirOf(root string) (string, error) {
	st, err := userstate.For("", root)
	if err != nil {
		return "", fmt.Errorf("session: %w", err)
	}
	return st.Path(dirName), nil
}

// Header is what a session says about its run before any turn.
type Header struct {
	RunID   string `json:"runId"`
	Command string `json:"command"`
	Title   string `json:"title"` // the command's title
	// Path is the document's absolute path, "" for a free question;
	// File is the same for display (relative to the work root).
	Path    string    `json:"path,omitempty"`
	File    string    `json:"file,omitempty"`
	Input   string    `json:"input,omitempty"` // the first request's text
	Started time.Time `json:"started"`
	// The settings the run started with (never the key): a reply uses
	// the current ones, these say what produced the stored answers.
	Provider string `json:"provider,omitempty"`
	Model    string `json:"model,omitempty"`
	BaseURL  string `json:"baseUrl,omitempty"`
	MaxSteps int    `json:"maxSteps,omitempty"`
}

// Turn is one request and the work it caused: the first run or a reply.
type Turn struct {
	Input   string `json:"input,omitempty"`
	Outcome string `json:"outcome"` // done, cancelled, error
	Error   string `json:"error,omitempty"`
	Steps   int    `json:"steps"`
	// Usage is this turn's tokens.
	Usage agent.Usage `json:"usage"`
	// Files are the files the turn changed, as display paths.
	Files []string  `json:"files,omitempty"`
	Ended time.Time `json:"ended"`
}

// record is one line of a session file. Kind comes first in the JSON so
// that listing can skip message lines without decoding them.
type record struct {
	Kind    string         `json:"kind"` // run, message, turn
	Run     *Header        `json:"run,omitempty"`
	Message *agent.Message `json:"message,omitempty"`
	Turn    *Turn          `json:"turn,omitempty"`
}

// Summary describes a stored run for a list: what catbuddy.listRuns and
// cb-ls run --continue need, without the conversation.
type Summary struct {
	Header
	// Outcome is the last turn's; Updated is when it ended.
	Outcome string
	Updated time.Time
	Turns   int
	Usage   agent.Usage // all turns
	Files   []string    // changed by any turn, first change first
	// Log is the session file.
	Log string
	// Root is the workspace folder it was found for (List).
	Root string
}

// TitleText is the run's title for a list: the first line of its first
// request, or the command's title when it had none.
func (s Summary) TitleText() string {
	if line, _, _ := strings.Cut(strings.TrimSpace(s.Input), "\n"); line != "" {
		if len(line) > 80 {
			line = line[:80] + "…"
		}
		return line
	}
	return s.Title
}

// AddTurn counts a turn that ended into s.
func (s *Summary) AddTurn(t Turn) {
	s.Turns++
	s.Outcome = t.Outcome
	s.Updated = t.Ended
	s.Usage.InputTokens += t.Usage.InputTokens
	s.Usage.OutputTokens += t.Usage.OutputTokens
	for _, f := range t.Files {
		if !slices.Contains(s.Files, f) {
			s.Files = append(s.Files, f)
		}
	}
}

// validID reports what a run id may look like: it becomes part of a
// file name, so nothing that could leave the directory or act as a
// pattern: 1 to 64 of A-Z, a-z, 0-9, _ and -. (A loop, not a regexp:
// compiling {1,64} at start-up cost every cb-ls process 860 allocations.)
func validID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		switch c := id[i]; {
		case 'A' <= c && c <= 'Z', 'a' <= c && c <= 'z', '0' <= c && c <= '9', c == '_', c == '-':
		default:
			return false
		}
	}
	return true
}

// CheckID returns an error for a run id that cannot name a session.
func CheckID(id string) error {
	if !validID(id) {
		return fmt.Errorf("invalid run id %q (letters, digits, - and _ only)", id)
	}
	return nil
}

// Name is the sortable base name (no extension) shared by a run's
// transcript and session files.
func Name(started time.Time, runID, command string) string {
	safe := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, command)
	return fmt.Sprintf("%s-%s-%s", started.UTC().Format("20060102-150405"), runID, safe)
}
