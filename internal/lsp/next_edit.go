package lsp

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/complete"
)

// Next-edit suggestions (docs/completions.md#next-edit-suggestions):
// after the user edits and pauses, the model is asked, off the read
// loop, for the one edit that comes next near the last one
// (complete.Engine.NextEdit). A client that shows pending changes gets
// it as a pseudo-run's one pending hunk (runId "nes-N",
// catbuddy/pendingChanges), kept with catbuddy.keep and discarded with
// catbuddy.discard or by the next change; a plain client gets it as the
// item of its next textDocument/inlineCompletion when it is an
// insertion at that cursor (next_edit_keep.go).
//
// On the keystroke path (before, in didChange) it costs an atomic load
// while off; on, a mutex and a few comparisons per keystroke, one read
// of the lines around the change at the first keystroke after a pause
// (what the region was before the user's edits), and a wake-up of the
// worker at most once per pause.

// nextEdits is one connection's next-edit state. One suggestion at a
// time: it follows the last edit.
type nextEdits struct {
	s *Server
	// on says next edits may be on (settings and the client's
	// capabilities, refresh); the worker checks the document's folder's
	// settings before each request.
	on    atomic.Bool
	pause atomic.Int64 // nanoseconds of quiet before a request
	kick  chan struct{}
	start sync.Once

	mu       sync.Mutex
	idle     bool // the worker waits for a kick
	last     time.Time
	seq      uint64 // changes seen
	doc      uri.URI
	line     int  // where the last change started
	burst    bool // a change since the last request
	region   region
	cancel   context.CancelCauseFunc // the request in flight
	shown    *suggestion             // the suggestion on offer
	withdraw []string                // ids to clear with an empty notification
	n        int                     // suggestions made
	// declined are the suggestions the user discarded, newest last: the
	// same one is not offered again (a model asked after the next pause
	// often answers the same).
	declined []declinedEdit
}

// declinedEdit is a suggestion the user discarded, by its document and
// text.
type declinedEdit struct {
	uri      uri.URI
	old, new string
}

// maxDeclined bounds nextEdits.declined.
const maxDeclined = 8

// region is the text of lines around the first change after a pause,
// as it was before it, and how many lines the changes since added
// (delta): while every change falls inside it, it shows the model what
// the user changed there.
type region struct {
	doc   uri.URI
	start int
	text  string
	lines int // lines of text
	delta int
	valid bool
}

// covers reports whether a change starting at line falls in the region.
func (r *region) covers(u uri.URI, line int) bool {
	return r.valid && r.doc == u && line >= r.start && line <= r.start+r.lines+r.delta
}

func newNextEdits(s *Server) *nextEdits {
	return &nextEdits{s: s, kick: make(chan struct{}, 1), idle: true}
}

// refresh reads the settings: next edits are on when a workspace
// folder's (or, with none, the editor's) settings turn them on and the
// client can show one (pendingChanges, or inline completions). Called
// after every settings change (syncMode).
func (n *nextEdits) refresh() {
	s := n.s
	caps := s.Capabilities()
	shows := s.experimental().PendingChanges || caps.TextDocument != nil && caps.TextDocument.InlineCompletion != nil
	on, pause := false, 0
	roots := s.Guard().Roots()
	if len(roots) == 0 {
		roots = []string{""}
	}
	for _, r := range roots {
		ic := s.completionConfig(r).InlineCompletion
		if ic.NextEditOn() {
			on, pause = true, max(pause, ic.NextEditPause())
		}
	}
	on = on && shows
	n.pause.Store(int64(pause) * int64(time.Millisecond))
	if on {
		s.completer.Tracker.Activate()
		n.start.Do(func() {
			ctx := s.baseCtx
			if ctx == nil {
				ctx = context.Background()
			}
			go n.run(ctx)
		})
	}
	if n.on.Swap(on) != on {
		s.log.Info("next-edit suggestions", "on", on, "pauseMs", pause)
	}
}

// before runs in didChange before the changes apply: it supersedes the
// suggestion on offer and the request in flight, and notes where the
// user edits.
func (n *nextEdits) before(u uri.URI, changes []protocol.TextDocumentContentChangeEvent) {
	if !n.on.Load() {
		return
	}
	line, delta := -1, 0
	for i, c := range changes {
		ch, ok := c.(*protocol.TextDocumentContentChangePartial)
		if !ok {
			line = -1
			break
		}
		if i == 0 {
			line = int(ch.Range.Start.Line)
		}
		delta += strings.Count(ch.Text, "\n") - int(ch.Range.End.Line-ch.Range.Start.Line)
	}
	n.mu.Lock()
	n.last = time.Now()
	n.seq++
	n.doc, n.line = u, line
	cancel := n.cancel
	n.cancel = nil
	wake := n.idle
	n.idle = false
	if n.shown != nil {
		if n.shown.notified {
			n.withdraw = append(n.withdraw, n.shown.id)
			wake = true
		}
		n.shown = nil
	}
	snap := false
	switch {
	case line < 0:
		n.region.valid = false
	case n.region.covers(u, line):
		n.region.delta += delta
	case !n.burst:
		snap = true // the first change here: what was there before
	default:
		n.region.valid = false
	}
	n.burst = true
	n.mu.Unlock()
	if cancel != nil {
		cancel(complete.ErrSuperseded)
	}
	if snap {
		r := region{doc: u}
		if b, ok := n.s.overlay.Get(u); ok {
			r.start, r.text = b.snapshotLines(line-complete.NextEditLines, line+complete.NextEditLines+1, complete.NextEditBytes)
			r.lines, r.valid = strings.Count(r.text, "\n"), r.text != ""
			r.delta = delta
		}
		n.mu.Lock()
		n.region = r
		n.mu.Unlock()
	}
	if wake {
		select {
		case n.kick <- struct{}{}:
		default:
		}
	}
}

// closed withdraws a suggestion for u, which the editor closed.
func (n *nextEdits) closed(u uri.URI) {
	n.mu.Lock()
	if n.shown != nil && n.shown.uri == u {
		if n.shown.notified {
			n.withdraw = append(n.withdraw, n.shown.id)
		}
		n.shown = nil
	}
	n.mu.Unlock()
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// run is the worker: it waits for a change, then for the pause after
// it, then asks.
func (n *nextEdits) run(ctx context.Context) {
	for {
		select {
		case <-n.kick:
		case <-ctx.Done():
			return
		}
		n.flush(ctx)
		for {
			n.mu.Lock()
			wait := time.Duration(n.pause.Load()) - time.Since(n.last)
			burst := n.burst
			if !burst {
				n.idle = true
			}
			n.mu.Unlock()
			if !burst {
				break
			}
			if wait <= 0 {
				n.ask(ctx)
				continue
			}
			t := time.NewTimer(wait)
			select {
			case <-t.C:
			case <-n.kick:
				t.Stop()
				n.flush(ctx)
			case <-ctx.Done():
				t.Stop()
				return
			}
		}
	}
}

// flush clears the withdrawn suggestions in the client.
func (n *nextEdits) flush(ctx context.Context) {
	n.mu.Lock()
	ids := n.withdraw
	n.withdraw = nil
	n.mu.Unlock()
	for _, id := range ids {
		n.s.notify(ctx, MethodPendingChanges, &PendingChangesParams{RunID: id, Files: []PendingFile{}})
	}
}

// ask computes one suggestion for the last edit and offers it.
func (n *nextEdits) ask(ctx context.Context) {
	s := n.s
	n.mu.Lock()
	u, line, seq, reg := n.doc, n.line, n.seq, n.region
	n.burst = false
	base := ctx
	ctx, cancel := context.WithCancelCause(ctx)
	n.cancel = cancel
	n.mu.Unlock()
	defer func() {
		n.mu.Lock()
		if n.seq == seq {
			n.cancel = nil
		}
		n.mu.Unlock()
		cancel(nil)
	}()
	b, ok := s.overlay.Get(u)
	if !ok || !b.InSync() || line < 0 {
		return
	}
	cfg := s.completionConfig(b.Path)
	in := complete.NextInput{
		Config: cfg, Line: line, Source: overlaySource{s.overlay}, Filter: complete.NewFilter(s.Guard().Roots()),
	}
	var version int32
	var whole bool
	in.Doc, in.Start, in.Region, version, whole = b.nextEditRegion(line, reg)
	if whole {
		in.Before = reg.text
	}
	t0 := time.Now()
	sug, err := s.completer.NextEdit(ctx, in)
	switch {
	case errors.Is(err, complete.ErrSuperseded) || ctx.Err() != nil:
		s.log.Debug("next edit", "path", b.Path, "outcome", "superseded")
		return
	case errors.Is(err, complete.ErrOff), errors.Is(err, complete.ErrExcluded), errors.Is(err, complete.ErrNoEdit):
		s.log.Debug("next edit", "path", b.Path, "outcome", err.Error())
		return
	case err != nil:
		s.completionFailed(fmt.Errorf("next edit: %w", err))
		return
	}
	sg := n.offer(b, version, seq, sug)
	if sg == nil {
		s.log.Debug("next edit", "path", b.Path, "outcome", "superseded")
		return
	}
	s.log.Debug("next edit", "path", b.Path, "outcome", "offered", "id", sg.id, "lines", fmt.Sprint(sug.Start+1, "-", sug.End), "plan", sug.Plan, "took", time.Since(t0))
	if sg.notified {
		s.notify(base, MethodPendingChanges, sg.params())
	}
}
