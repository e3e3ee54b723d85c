package session

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"hash/maphash"
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/agent"
	"github.com/catbuddy/cb-ls/internal/userstate"
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
	// err is why the log has no place (no state directory): each
	// AppendTurn says so.
	err error
	// stored holds a hash of each message already in the file, to notice
	// a conversation that was rewritten (compacted, or old tool outputs
	// trimmed) rather than only extended.
	stored []uint64
}

// seed is per process: hashes are only compared within one Log.
var seed = maphash.MakeSeed()

// NewLog returns the log of a new run under root. Nothing is written
// before the first turn ends.
func NewLog(root string, h Header) *Log {
	name := Name(h.Started, h.RunID, h.Command) + ".jsonl"
	dir, err := DirOf(root)
	if err != nil {
		return &Log{header: h, err: err}
	}
	return &Log{Path: filepath.Join(dir, name), header: h}
}

// Header returns the run's header.
func (l *Log) Header() Header { return l.header }

// AppendTurn stores a turn that ended: the conversation's messages that
// are not stored yet (msgs is the whole conversation) and the turn
// record, in one write. Any of secrets (8 bytes or more) is blanked
// first: a key must never reach a file, even if a tool echoed one.
//
// A conversation that is no longer an extension of the stored one (the
// agent compacted it) is stored whole after a "reset" record: the file
// stays append-only, and loading it gives the conversation as it is now.
func (l *Log) AppendTurn(msgs []agent.Message, t Turn, secrets ...string) error {
	if l.err != nil {
		return l.err
	}
	lines := make([][]byte, len(msgs))
	hashes := make([]uint64, len(msgs))
	rewritten := len(msgs) < len(l.stored)
	for i := range msgs {
		b, err := encodeLine(record{Kind: "message", Message: &msgs[i]})
		if err != nil {
			return fmt.Errorf("session %s: message %d: %w", l.Path, i, err)
		}
		lines[i], hashes[i] = b, maphash.Bytes(seed, b)
		if i < len(l.stored) && hashes[i] != l.stored[i] {
			rewritten = true
		}
	}
	var buf bytes.Buffer
	if l.stored == nil { // a new file
		b, err := encodeLine(record{Kind: "run", Run: &l.header})
		if err != nil {
			return fmt.Errorf("session %s: %w", l.Path, err)
		}
		buf.Write(b)
	}
	from := len(l.stored)
	if rewritten {
		buf.WriteString(`{"kind":"reset"}` + "\n")
		from = 0
	}
	for _, b := range lines[from:] {
		buf.Write(b)
	}
	b, err := encodeLine(record{Kind: "turn", Turn: &t})
	if err != nil {
		return fmt.Errorf("session %s: %w", l.Path, err)
	}
	buf.Write(b)
	data := buf.Bytes()
	for _, s := range secrets {
		if len(s) >= 8 {
			data = bytes.ReplaceAll(data, []byte(s), []byte("[redacted]"))
		}
	}
	// No symlink may redirect the user's conversation: the directory is
	// opened from the state directory down without following one, and
	// the file is opened inside it only when it is a regular file.
	dir, err := userstate.OpenPath(filepath.Dir(l.Path))
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
	if l.stored == nil {
		unreserve(dir, l.header.RunID)
	}
	l.stored = hashes
	return nil
}

// encodeLine is one record as a JSON line.
func encodeLine(r record) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(r)
	return buf.Bytes(), err
}
