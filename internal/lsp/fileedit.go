package lsp

import (
	"context"
	"fmt"

	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/tools"
)

// MethodFileEdit is the custom notification for every phase of a write.
const MethodFileEdit = "catbuddy/fileEdit"

// FileEditParams is the payload of catbuddy/fileEdit (docs/PROTOCOL.md).
type FileEditParams struct {
	URI     string `json:"uri"`
	Phase   string `json:"phase"` // writing, done, error
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	Message string `json:"message,omitempty"`
}

type progressKey struct{}

// withProgress returns ctx carrying p: edits made under ctx are reported
// on p as well (a run's progress token).
func withProgress(ctx context.Context, p *Progress) context.Context {
	return context.WithValue(ctx, progressKey{}, p)
}

// onEdit is the tools' EditListener: catbuddy/fileEdit, a log line, and a
// report on the run's progress when ctx carries one. It only sends
// notifications, so it never blocks the tool.
func (s *Server) onEdit(ctx context.Context, e tools.EditEvent) {
	u := string(fileuri.FromPath(e.Path))
	s.notify(ctx, MethodFileEdit, FileEditParams{URI: u, Phase: string(e.Phase), Added: e.Added, Removed: e.Removed, Message: e.Message})
	var line string
	typ := protocol.MessageTypeInfo
	switch e.Phase {
	case tools.EditStarted:
		line = fmt.Sprintf("%s %s: proposing an edit", e.Tool, e.Rel)
	case tools.EditDone:
		line = fmt.Sprintf("%s %s +%d -%d", e.Tool, e.Rel, e.Added, e.Removed)
	default:
		typ = protocol.MessageTypeWarning
		line = fmt.Sprintf("%s %s: not applied: %s", e.Tool, e.Rel, e.Message)
	}
	s.logMessage(ctx, typ, line)
	if p, ok := ctx.Value(progressKey{}).(*Progress); ok && e.Phase != tools.EditStarted {
		p.Report(ctx, line, -1)
	}
}
