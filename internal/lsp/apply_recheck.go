package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// The editor, not cb-ls, writes the files an applyEdit changes: a closed
// file is opened and saved by its path, an open one saved by its URI.
// That write happens in the editor's process after the guard's check,
// and nothing makes it refuse a symlink: a directory on the path swapped
// for a link to .catbuddy/ in between would redirect it there. The
// server sends the real path the guard resolved (no link on it at the
// time of the check) and, once the editor answers, looks again
// (recheckApplied): every path must still resolve to the same real path
// inside the workspace, and the projects' .catbuddy/ config files must
// be as they were. Anything else is an error for the model, a log line
// and a warning to the user. A swap made and undone while the editor
// wrote, into a .catbuddy/ file other than the config files, is what
// this cannot see (docs/trust.md).

// errRedirected is wrapped when an applied edit's path no longer leads
// where the guard admitted it.
var errRedirected = errors.New("the edit may have been written elsewhere")

// configHashes are the projects' .catbuddy config hashes, by root.
func (w *Workspace) configHashes() map[string]string {
	out := map[string]string{}
	for _, r := range w.server.Guard().Roots() {
		if id, err := config.IdentifyProject(r); err == nil {
			out[r] = id.Hash
		}
	}
	return out
}

// recheckApplied checks, after the editor applied cs at targets, that
// each target's path still resolves to the real path the guard admitted
// and that no project's .catbuddy config changed (before holds the
// hashes from before the edit was sent). It reports what it found to
// the log and the user and returns the model's error, or nil.
func (w *Workspace) recheckApplied(ctx context.Context, cs []tools.Change, targets []pinned, before map[string]string) error {
	s := w.server
	g := s.Guard()
	var found []string
	for i, t := range targets {
		path, err := fileuri.ToPath(t.uri)
		if err != nil {
			continue
		}
		gp, err := g.Resolve(path)
		switch {
		case err != nil:
			found = append(found, fmt.Sprintf("%s now leads to %s, which the agent may not change (%v)", cs[i].Path.Rel, realPath(path), err))
		case gp.Abs != cs[i].Path.Abs:
			found = append(found, fmt.Sprintf("%s now leads to %s, not %s", cs[i].Path.Rel, gp.Abs, cs[i].Path.Abs))
		}
	}
	for root, hash := range w.configHashes() {
		if old, ok := before[root]; ok && old != hash {
			found = append(found, fmt.Sprintf("the .catbuddy config of %s changed while the edit was applied", root))
		}
	}
	if len(found) == 0 {
		return nil
	}
	msg := strings.Join(found, "; ")
	s.log.Error("an applied edit's path was redirected after the guard's check", "files", changedNames(cs), "found", msg)
	_ = s.client.ShowMessage(ctx, &protocol.ShowMessageParams{Type: protocol.MessageTypeWarning,
		Message: "cb-ls: an agent edit to " + changedNames(cs) + " may have been written elsewhere by the editor: " + msg +
			". A directory on its path was probably swapped for a symlink. Check these files; a changed .catbuddy config needs your trust again before it applies."})
	return fmt.Errorf("%w: %s: the editor wrote it by path, and %s. Do not retry; tell the user", errRedirected, changedNames(cs), msg)
}
