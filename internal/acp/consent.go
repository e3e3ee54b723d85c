package acp

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/guard"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// ErrClientRefused wraps a read the client said no to. A client may
// refuse fs/read_text_file on the user's behalf (acpx --deny-all, a
// permission prompt the user declined): that answer is the user's word,
// so the file's text is then not read from the disk either and never
// reaches the model.
var ErrClientRefused = errors.New("the editor refused to give this file")

// readFailure is why the client could not give a file.
type readFailure int

const (
	readRefused readFailure = iota // any answer that is not one of the two below
	readMissing                    // it has no file by that name
	readIsDir                      // the path is a directory
)

// classifyReadError reads a client's error answer to fs/read_text_file.
// ACP has one code for a missing file (-32002, resource not found); other
// clients say it in the message ("ENOENT", "No such file or directory",
// "not found"). Only those and "is a directory" mean the client simply
// has no such text file; everything else, a permission error or an
// internal one alike, is a refusal.
func classifyReadError(err error) readFailure {
	var re *sdk.RequestError
	text := strings.ToLower(err.Error())
	if errors.As(err, &re) {
		if re.Code == -32002 {
			return readMissing
		}
		text = strings.ToLower(re.Message + " " + fmt.Sprint(re.Data))
	}
	switch {
	case strings.Contains(text, "permission") || strings.Contains(text, "denied") || strings.Contains(text, "refused"):
		return readRefused
	case strings.Contains(text, "is a directory") || strings.Contains(text, "eisdir"):
		return readIsDir
	case strings.Contains(text, "no such file") || strings.Contains(text, "enoent") ||
		strings.Contains(text, "not found") || strings.Contains(text, "does not exist") || strings.Contains(text, "cannot find"):
		return readMissing
	}
	return readRefused
}

// Read implements tools.Workspace, and it is the one place every read of
// an ACP session goes through: the tools', the prompt's document, the
// rules files, the checks before a write. Where the client offers
// fs/read_text_file it is asked, so the model sees the editor's unsaved
// text; the disk answers only when the client has no such file or it is
// a directory, so that the model gets the same precise errors as
// anywhere else. A refusal is final (ErrClientRefused).
//
// A file that is on no disk is not asked about: the client would only
// say it has none, and clients show every such answer to the user as an
// error (the rules files are looked for on every prompt).
func (w *workspace) Read(ctx context.Context, p guard.Path) (tools.Document, error) {
	if !w.caps.ReadTextFile {
		return w.disk.Read(ctx, p)
	}
	if _, err := os.Lstat(p.Abs); errors.Is(err, fs.ErrNotExist) {
		return w.disk.Read(ctx, p)
	}
	res, err := w.s.a.client().ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(w.s.id), Path: p.Abs})
	if err == nil {
		if len(res.Content) > maxClientText {
			return tools.Document{}, fmt.Errorf("%s %w (over %d MB)", p.Rel, tools.ErrTooLarge, maxClientText>>20)
		}
		w.markSeen(p.Abs)
		return clientDocument([]byte(res.Content)), nil
	}
	if ctx.Err() != nil {
		return tools.Document{}, ctx.Err()
	}
	switch classifyReadError(err) {
	case readMissing, readIsDir:
		w.s.a.log.Debug("acp: the client has no such file; reading the disk", "path", p.Abs, "error", err)
		return w.disk.Read(ctx, p)
	}
	w.s.a.log.Info("acp: the client refused a read", "path", p.Abs, "error", err)
	return tools.Document{}, fmt.Errorf("%s: %w (%s); its text was not read", p.Rel, ErrClientRefused, clientMessage(err))
}

// clientMessage is the text of a client's error, without the JSON-RPC
// wrapping.
func clientMessage(err error) string {
	var re *sdk.RequestError
	if !errors.As(err, &re) {
		return err.Error()
	}
	if m, ok := re.Data.(map[string]any); ok {
		for _, k := range []string{"error", "message", "details"} {
			if s, ok := m[k].(string); ok && s != "" {
				return s
			}
		}
	}
	return re.Message
}
