package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// pendingStore returns the connection's change sets (app opens them over
// the workspace folders, with the sets earlier processes left); nil
// before initialize.
func (s *Server) pendingStore() *changeset.Store {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.app == nil {
		return nil
	}
	return s.app.Changes
}

// announcePending tells the client, after initialized, of the sets found
// at start: a client with the capability gets each as a notification,
// any other one message naming them and the commands that act on them.
func (s *Server) announcePending(ctx context.Context) {
	st := s.pendingStore()
	if st == nil {
		return
	}
	for _, msg := range st.Legacy() {
		s.showMessage(ctx, protocol.MessageTypeWarning, "cb-ls: "+msg)
	}
	sets := st.Pending()
	if len(sets) == 0 {
		return
	}
	if s.experimental().PendingChanges {
		for _, set := range sets {
			s.notifyPending(ctx, set)
		}
		return
	}
	names := make([]string, len(sets))
	for i, set := range sets {
		names[i] = fmt.Sprintf("%s (%s, %d pending)", set.RunID(), set.Title(), set.Count())
	}
	s.showMessage(ctx, protocol.MessageTypeInfo, fmt.Sprintf(
		"cb-ls: earlier runs left changes pending: %s. catbuddy.keep or catbuddy.discard {\"runId\": …} acts on them; catbuddy.pendingChanges lists them.",
		strings.Join(names, "; ")))
}

// pendingRootsChanged finds the sets of folders added since, and tells
// a client with the capability.
func (s *Server) pendingRootsChanged() {
	st := s.pendingStore()
	if st == nil {
		return
	}
	st.Reload()
	for _, set := range st.Pending() {
		s.onPendingChange(set.RunID())
	}
}

// exclusive reports whether a turn with cfg holds its document alone:
// with review "before" (asked for, or for want of the copy-on-write
// layer, as app decides), each change is reviewed in the editor while
// the run waits, and a second run on the document is refused as it
// always was. Pending changes are merged at keep time, so their runs
// share.
func exclusive(cfg config.Config) bool {
	return cfg.ReviewMode() == config.ReviewBefore || !tools.OptionsFrom(cfg.Tools).Exec.SandboxInfo().Overlay
}
