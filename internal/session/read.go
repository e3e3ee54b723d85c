package session

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/catbuddy/cb-ls/internal/agent"
)

// ErrNotFound is returned by Find for a run no session file holds.
var ErrNotFound = errors.New("no stored run")

// Session is a stored run: its summary and its conversation.
type Session struct {
	Summary
	Messages []agent.Message
}

// Log returns the log that continues s: new turns are appended after the
// stored ones.
func (s *Session) Log() *Log {
	stored := make([]uint64, len(s.Messages))
	for i := range s.Messages {
		// Encoding what was decoded gives the same line back.
		b, err := encodeLine(record{Kind: "message", Message: &s.Messages[i]})
		if err != nil {
			stored[i] = 0 // cannot match: the next turn stores the conversation whole
			continue
		}
		stored[i] = maphash.Bytes(seed, b)
	}
	return &Log{Path: s.Summary.Log, header: s.Header, stored: stored}
}

// messagePrefix starts every message line (record's field order), so a
// summary can count messages without decoding them.
var messagePrefix = []byte(`{"kind":"message"`)

// Load reads the session file at path, conversation included.
func Load(path string) (*Session, error) {
	return load(path, true)
}

// LoadSummary reads the session file at path without decoding its
// messages: what a list of runs needs.
func LoadSummary(path string) (Summary, error) {
	s, err := load(path, false)
	if err != nil {
		return Summary{}, err
	}
	return s.Summary, nil
}

// load reads a session file. A last line without its newline is a write
// that was cut short (the process died): it is ignored, and so are the
// messages of a turn whose turn record never came. Any other unreadable
// line is an error naming the file and line: the user's data is never
// silently dropped.
func load(path string, messages bool) (*Session, error) {
	f, err := openRegular(path)
	if err != nil {
		return nil, fmt.Errorf("session: %w", err)
	}
	defer f.Close()
	s := &Session{Summary: Summary{Log: path}}
	var pending []agent.Message // messages of a turn not yet closed
	reset := false              // the turn not yet closed replaces the conversation
	header := false
	rd := bufio.NewReaderSize(f, 64<<10)
	for n := 1; ; n++ {
		line, err := rd.ReadBytes('\n')
		if err == io.EOF {
			break // a line without its newline was cut short
		}
		if err != nil {
			return nil, fmt.Errorf("session %s: %w", path, err)
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !messages && bytes.HasPrefix(line, messagePrefix) {
			continue
		}
		var rec record
		if err := json.Unmarshal(line, &rec); err != nil {
			return nil, fmt.Errorf("session %s line %d: %w", path, n, err)
		}
		switch {
		case rec.Kind == "run" && rec.Run != nil && !header:
			s.Header, header = *rec.Run, true
		case rec.Kind == "message" && rec.Message != nil && header:
			pending = append(pending, *rec.Message)
		case rec.Kind == "reset" && header:
			// The conversation was rewritten (compacted): what follows
			// replaces it, once its turn record shows it was written whole.
			reset, pending = true, pending[:0]
		case rec.Kind == "turn" && rec.Turn != nil && header:
			if reset {
				s.Messages, reset = nil, false
			}
			s.Messages = append(s.Messages, pending...)
			pending = pending[:0]
			s.AddTurn(*rec.Turn)
		default:
			return nil, fmt.Errorf("session %s line %d: unexpected %q record", path, n, rec.Kind)
		}
	}
	if !header {
		return nil, fmt.Errorf("session %s: no run record", path)
	}
	if s.Updated.IsZero() {
		s.Updated = s.Started
	}
	return s, nil
}

// Find returns the session file of runID under any of roots.
func Find(roots []string, runID string) (string, error) {
	if err := CheckID(runID); err != nil {
		return "", err
	}
	infix := "-" + runID + "-"
	for _, root := range roots {
		dir, err := DirOf(root)
		if err != nil {
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			continue // no sessions of this folder
		}
		for _, e := range entries {
			if strings.HasSuffix(e.Name(), ".jsonl") && strings.Contains(e.Name(), infix) && e.Type().IsRegular() {
				return filepath.Join(dir, e.Name()), nil
			}
		}
	}
	return "", fmt.Errorf("%w %q among the sessions of %s in %s", ErrNotFound, runID, strings.Join(roots, ", "), Where)
}

// List returns the runs stored under roots, most recently active first.
// A file that cannot be read is reported in the error and skipped: one
// damaged session does not hide the others.
func List(roots []string) ([]Summary, error) {
	var out []Summary
	var errs []error
	for _, root := range roots {
		dir, err := DirOf(root)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		entries, err := os.ReadDir(dir)
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				errs = append(errs, err)
			}
			continue
		}
		for _, e := range entries {
			if !strings.HasSuffix(e.Name(), ".jsonl") || !e.Type().IsRegular() {
				continue
			}
			s, err := LoadSummary(filepath.Join(dir, e.Name()))
			if err != nil {
				errs = append(errs, err)
				continue
			}
			s.Root = root
			out = append(out, s)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Updated.After(out[j].Updated) })
	return out, errors.Join(errs...)
}
