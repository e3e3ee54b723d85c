package acp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/catbuddy/cb-ls/internal/filestate"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// workspace is the tools.Workspace of an ACP session. Reads go to the
// client (fs/read_text_file) when it offers them, so the model sees the
// editor's unsaved text; every change is first one
// session/request_permission with the diff of each file, and is written
// only once allowed: through fs/write_text_file when the client offers
// it, otherwise atomically on disk as cb-ls run does.
type workspace struct {
	s    *acpSession
	caps sdk.FileSystemCapabilities
	disk tools.DiskWorkspace

	mu         sync.Mutex
	seen       map[string]bool // files whose text came from the client
	allowEdits bool            // "Allow all edits in this session" was chosen
}

var (
	_ tools.Workspace    = (*workspace)(nil)
	_ tools.MultiApplier = (*workspace)(nil)
)

// maxClientText bounds a file read through the client, as the disk
// workspace bounds its reads.
const maxClientText = 64 << 20

// clientDocument is text the client gave or was given. Its stamp is
// derived from the content: the client tells no version, and equal
// stamps must mean equal text.
func clientDocument(content []byte) tools.Document {
	return tools.Document{
		Content: content,
		Stamp:   filestate.Stamp{Size: int64(len(content)), Version: int64(filestate.Hash(content) >> 1)},
		Open:    true,
	}
}

func (w *workspace) markSeen(path string) {
	w.mu.Lock()
	w.seen[path] = true
	w.mu.Unlock()
}

// wasSeen reports whether the user has path in front of them: its text
// came from the client (a read or an embedded resource). Such files
// count as read, as open buffers do in the editor.
func (w *workspace) wasSeen(path string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.seen[path]
}

// Apply implements tools.Workspace.
func (w *workspace) Apply(ctx context.Context, c tools.Change) (tools.Document, error) {
	docs, err := w.ApplyAll(ctx, []tools.Change{c})
	if err != nil {
		return tools.Document{}, err
	}
	return docs[0], nil
}

// ApplyAll implements tools.MultiApplier: the whole change is one
// question, then every file is checked against what the client (or the
// disk) holds now, then it is written. The check comes after the
// answer, not before: the tool has just read the file it computed the
// change from, while the user may well type while the question is open.
func (w *workspace) ApplyAll(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	if len(cs) == 0 {
		return nil, nil
	}
	if err := w.ask(ctx, cs); err != nil {
		return nil, err
	}
	for _, c := range cs {
		if err := w.checkBase(ctx, c); err != nil {
			return nil, err
		}
	}
	return w.write(ctx, cs)
}

// checkBase refuses a change whose file changed since it was read.
func (w *workspace) checkBase(ctx context.Context, c tools.Change) error {
	cur, err := w.Read(ctx, c.Path)
	missing := errors.Is(err, tools.ErrNotExist)
	switch {
	case c.Create && err == nil:
		return fmt.Errorf("%w: %s was created by someone else meanwhile", tools.ErrRejected, c.Path.Rel)
	case c.Create && missing:
		return nil
	case err != nil:
		return err
	case !bytes.Equal(cur.Content, c.Base.Content):
		return fmt.Errorf("%w: %s changed in the editor since it was read; read it again", tools.ErrRejected, c.Path.Rel)
	}
	return nil
}

// write makes cs real once allowed.
func (w *workspace) write(ctx context.Context, cs []tools.Change) ([]tools.Document, error) {
	if !w.caps.WriteTextFile {
		return w.disk.ApplyAll(ctx, cs)
	}
	docs := make([]tools.Document, 0, len(cs))
	for _, c := range cs {
		if c.Delete {
			// ACP has no delete: the disk workspace removes the file.
			d, err := w.disk.Apply(ctx, c)
			if err != nil {
				return docs, err
			}
			docs = append(docs, d)
			continue
		}
		_, err := w.s.a.client().WriteTextFile(ctx, sdk.WriteTextFileRequest{SessionId: sdk.SessionId(w.s.id), Path: c.Path.Abs, Content: string(c.After)})
		if err != nil {
			if ctx.Err() != nil {
				return docs, ctx.Err()
			}
			return docs, fmt.Errorf("%w: the editor could not write %s: %v", tools.ErrRejected, c.Path.Rel, err)
		}
		w.markSeen(c.Path.Abs)
		docs = append(docs, clientDocument(c.After))
	}
	return docs, nil
}
