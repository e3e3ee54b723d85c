package tools

import "context"

// EditPhase is the stage of a write reported to an EditListener.
type EditPhase string

const (
	EditStarted EditPhase = "writing"
	EditDone    EditPhase = "done"
	EditFailed  EditPhase = "error"
)

// EditEvent reports one phase of one write.
type EditEvent struct {
	Tool    string
	Path    string // absolute
	Rel     string
	Phase   EditPhase
	Added   int
	Removed int
	Message string // the error for EditFailed
}

// EditListener receives edit events. It must not block for long: it is
// called on the tool's goroutine.
type EditListener func(ctx context.Context, e EditEvent)
