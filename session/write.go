package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/agent"
	"github.com/catbuddy/cb-ls/guard"
)

// NewRunID returns a run id unique across server restarts and across
// the editor and the command line: a reply names a run by its id alone.
func NewRunID() string {
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return "r" + hex.EncodeToString(b[:])
}

// Log appends a run's turns to its session file. It is used by the one
// goroutine that owns the run at a time.
type Log struct {
	// Path is the session file.
	Path   string
	header Header
	stored int // messages already in the file
}

// NewLog returns the log of a new run under root. Nothing is written
// before the first turn ends.
func NewLog(root string, h Header) *Log {
	name := Name(h.Started, h.RunID, h.Command) + ".jsonl"
	return &Log{Path: filepath.Join(root, filepath.FromSlash(Dir), name), header: h}
}

// Header returns the run's header.
func (l *Log) Header() Header { return l.header }

// AppendTurn stores a turn that ended: the conversation's messages that
// are not stored yet (msgs is the whole conversation) and the turn
// record, in one write. Any of secrets (8 bytes or more) is blanked
// first: a key must never reach a file, even if a tool echoed one.
func (l *Log) AppendTurn(msgs []agent.Message, t Turn, secrets ...string) error {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if l.stored == 0 {
		if err := enc.Encode(record{Kind: "run", Run: &l.header}); err != nil {
			return fmt.Errorf("session %s: %w", l.Path, err)
		}
	}
	if l.stored > len(msgs) {
		return fmt.Errorf("session %s: the conversation has %d messages, %d are stored already", l.Path, len(msgs), l.stored)
	}
	for i := l.stored; i < len(msgs); i++ {
		if err := enc.Encode(record{Kind: "message", Message: &msgs[i]}); err != nil {
			return fmt.Errorf("session %s: message %d: %w", l.Path, i, err)
		}
	}
	if err := enc.Encode(record{Kind: "turn", Turn: &t}); err != nil {
		return fmt.Errorf("session %s: %w", l.Path, err)
	}
	data := buf.Bytes()
	for _, s := range secrets {
		if len(s) >= 8 {
			data = bytes.ReplaceAll(data, []byte(s), []byte("[redacted]"))
		}
	}
	// A symlink planted in the project (".catbuddy" → elsewhere, or the
	// file itself) must not redirect the user's conversation: the
	// directory is opened without following one, and the file is opened
	// inside it with O_NOFOLLOW semantics checked on what was opened.
	// Path is <root>/.catbuddy/sessions/<name> (NewLog, Find).
	sessions := filepath.Dir(l.Path)
	dir, err := guard.OpenStateDir(filepath.Dir(filepath.Dir(sessions)), filepath.Base(sessions))
	if err != nil {
		return fmt.Errorf("session: %w", err)
	}
	defer dir.Close()
	name := filepath.Base(l.Path)
	if fi, err := dir.Lstat(name); err == nil && !fi.Mode().IsRegular() {
		return fmt.Errorf("session: %s is not a regular file; not writing to it", l.Path)
	}
	f, err := dir.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("session: open %s: %w", l.Path, err)
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return fmt.Errorf("session: write %s: %w", l.Path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("session: write %s: %w", l.Path, err)
	}
	l.stored = len(msgs)
	return nil
}
