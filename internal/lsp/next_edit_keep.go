package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/catbuddy/cb-ls/internal/complete"
)

// A next edit on offer, and how the client takes it: as a pseudo-run's
// pending hunk (catbuddy/pendingChanges, catbuddy.keep, catbuddy.discard)
// or, for a plain client, as its next inline completion when it is an
// insertion at that cursor. Nothing of it is stored: a next edit is
// worth nothing once the user typed on, so it lives in memory, pinned
// to the document version it was computed on.

// nextEditRunPrefix starts the runId of every next edit ("nes-3").
const nextEditRunPrefix = "nes-"

// nextEditTitle is the pseudo-run's title in catbuddy.pendingChanges.
const nextEditTitle = "Next edit"

// suggestion is one next edit on offer.
type suggestion struct {
	id, hunk string
	uri      uri.URI
	rel      string
	version  int32
	rng      protocol.Range
	old, new string
	// notified: sent as catbuddy/pendingChanges (the client has the UI).
	notified bool
	// insert, at: the edit as an insertion at a position, when it is one.
	insert string
	at     protocol.Position
}

// offer makes sug the suggestion on offer unless a change came since
// seq or the buffer moved past version.
func (n *nextEdits) offer(b *Buffer, version int32, seq uint64, sug complete.Suggestion) *suggestion {
	s := n.s
	enc := s.PositionEncoding()
	rel := filepath.Base(b.Path)
	if p, err := s.Guard().Resolve(b.Path); err == nil {
		rel = p.Rel
	}
	start := protocol.Position{Line: uint32(sug.Start)}
	sg := &suggestion{
		uri: b.URI, rel: rel, version: version, old: sug.Old, new: sug.New,
		rng:      protocol.Range{Start: start, End: relPos(start, sug.Old, enc)},
		notified: s.experimental().PendingChanges,
	}
	if p, ins, ok := insertion(sug.Old, sug.New); ok {
		sg.insert, sg.at = ins, relPos(start, sug.Old[:p], enc)
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.seq != seq || b.Version() != version {
		return nil
	}
	if slices.Contains(n.declined, declinedEdit{uri: sg.uri, old: sg.old, new: sg.new}) {
		s.log.Debug("next edit not offered again: the user discarded it", "path", rel)
		return nil
	}
	n.n++
	sg.id = fmt.Sprintf("%s%d", nextEditRunPrefix, n.n)
	sg.hunk = sg.id + ".1"
	n.shown = sg
	return sg
}

// relPos is the position after text, which starts at from.
func relPos(from protocol.Position, text string, enc protocol.PositionEncodingKind) protocol.Position {
	p := PositionOf([]byte(text), len(text), enc)
	if p.Line == 0 {
		p.Character += from.Character
	}
	p.Line += from.Line
	return p
}

// insertion reports whether old→new only inserts text, and where in
// old (a byte offset on a rune boundary) and what.
func insertion(old, new string) (int, string, bool) {
	p := 0
	for p < len(old) && p < len(new) && old[p] == new[p] {
		p++
	}
	for p > 0 && p < len(old) && !utf8.RuneStart(old[p]) {
		p--
	}
	if !strings.HasSuffix(new[p:], old[p:]) || len(new) == len(old) {
		return 0, "", false
	}
	return p, new[p : len(new)-(len(old)-p)], true
}

// params is the suggestion as its pseudo-run's pending changes.
func (sg *suggestion) params() *PendingChangesParams {
	return &PendingChangesParams{RunID: sg.id, Files: sg.files()}
}

func (sg *suggestion) files() []PendingFile {
	return []PendingFile{{URI: sg.uri, Path: sg.rel, Kind: "changed", Hunks: []PendingHunk{{
		ID: sg.hunk, Range: sg.rng, OldText: sg.old, NewText: sg.new,
		Label: fmt.Sprintf("%s: %s: line %d", nextEditTitle, sg.rel, sg.rng.Start.Line+1),
	}}}}
}

// chosen reports whether a keep or discard argument names this
// suggestion's hunk (naming nothing names everything).
func (sg *suggestion) chosen(a selectionArgs) bool {
	if len(a.Hunks) == 0 && len(a.Files) == 0 {
		return true
	}
	for _, h := range a.Hunks {
		if h == sg.hunk {
			return true
		}
	}
	for _, f := range a.Files {
		if f == sg.uri {
			return true
		}
	}
	return false
}

// register routes catbuddy.keep, catbuddy.discard and
// catbuddy.pendingChanges of a next edit's runId here; every other
// runId goes to the runs' handlers as before.
func (n *nextEdits) register() {
	s := n.s
	for name, h := range map[string]func(context.Context, selectionArgs) (any, error){CmdKeep: n.keep, CmdDiscard: n.discard} {
		orig := s.commands[name]
		s.commands[name] = func(ctx context.Context, args []json.RawMessage) (any, error) {
			var a selectionArgs
			if len(args) == 1 && json.Unmarshal(args[0], &a) == nil && strings.HasPrefix(a.RunID, nextEditRunPrefix) {
				return h(ctx, a)
			}
			return orig(ctx, args)
		}
	}
	orig := s.commands[CmdPendingChanges]
	s.commands[CmdPendingChanges] = func(ctx context.Context, args []json.RawMessage) (any, error) {
		res, err := orig(ctx, args)
		list, ok := res.(PendingList)
		if err != nil || !ok {
			return res, err
		}
		id, _ := optionalRunID(args)
		n.mu.Lock()
		sg := n.shown
		n.mu.Unlock()
		if sg != nil && sg.notified && (id == "" || id == sg.id) {
			list.Runs = append([]PendingRun{{RunID: sg.id, Title: nextEditTitle, Files: sg.files()}}, list.Runs...)
		}
		return list, nil
	}
}

// take removes the suggestion a names from offer.
func (n *nextEdits) take(a selectionArgs) (*suggestion, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sg := n.shown
	if sg == nil || sg.id != a.RunID {
		return nil, fmt.Errorf("next edit %q is no longer pending: a newer change replaced it", a.RunID)
	}
	if !sg.chosen(a) {
		return nil, invalidParams("next edit %s has one hunk, %s; the argument names others", sg.id, sg.hunk)
	}
	n.shown = nil
	return sg, nil
}

// cleared tells the client the suggestion is gone.
func (n *nextEdits) cleared(sg *suggestion) {
	if sg.notified {
		n.s.notify(n.s.baseCtx, MethodPendingChanges, &PendingChangesParams{RunID: sg.id, Files: []PendingFile{}})
	}
}

// keep applies the suggestion to the buffer as ONE workspace/applyEdit
// pinned to the version it was computed on, without a review (the user
// chose it); a buffer changed since drops it with the reason.
func (n *nextEdits) keep(ctx context.Context, a selectionArgs) (any, error) {
	s := n.s
	sg, err := n.take(a)
	if err != nil {
		return nil, err
	}
	defer n.cleared(sg)
	out := KeepResult{Kept: []string{}, Left: []LeftHunk{}, Resolved: []ResolvedHunk{}}
	b, ok := s.overlay.Get(sg.uri)
	switch {
	case !ok:
		out.Left = append(out.Left, LeftHunk{Hunk: sg.hunk, Reason: "the document was closed: the next edit is dropped"})
		return out, nil
	case b.Version() != sg.version:
		out.Left = append(out.Left, LeftHunk{Hunk: sg.hunk, Reason: fmt.Sprintf(
			"the document changed since the next edit was made (version %d, now %d): it is dropped", sg.version, b.Version())})
		return out, nil
	}
	label := nextEditTitle + ": " + sg.rel
	v := sg.version
	edit := protocol.WorkspaceEdit{DocumentChanges: []protocol.DocumentChange{&protocol.TextDocumentEdit{
		TextDocument: protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: sg.uri}, Version: &v},
		Edits:        []protocol.TextDocumentEditElement{textEdit(sg.rng, sg.new, "")},
	}}}
	res, err := s.client.ApplyEdit(ctx, &protocol.ApplyWorkspaceEditParams{Label: &label, Edit: edit})
	if err != nil {
		return nil, fmt.Errorf("keep next edit %s of %s: the editor refused it: %w", sg.id, sg.rel, err)
	}
	if res == nil || !res.Applied {
		reason := "the editor did not apply it"
		if res != nil && res.FailureReason != nil && *res.FailureReason != "" {
			reason += ": " + *res.FailureReason
		}
		out.Left = append(out.Left, LeftHunk{Hunk: sg.hunk, Reason: reason})
		return out, nil
	}
	out.Kept = append(out.Kept, sg.hunk)
	s.log.Info("next edit kept", "id", sg.id, "path", sg.rel)
	return out, nil
}

// discard drops the suggestion.
func (n *nextEdits) discard(ctx context.Context, a selectionArgs) (any, error) {
	sg, err := n.take(a)
	if err != nil {
		return nil, err
	}
	n.mu.Lock()
	n.declined = append(n.declined, declinedEdit{uri: sg.uri, old: sg.old, new: sg.new})
	if len(n.declined) > maxDeclined {
		n.declined = n.declined[1:]
	}
	n.mu.Unlock()
	n.cleared(sg)
	return DiscardResult{Discarded: []string{sg.hunk}}, nil
}

// atCursor returns, for a plain client, the suggestion on offer when it
// is an insertion at pos in u at version, and takes it from offer.
func (n *nextEdits) atCursor(u uri.URI, version int32, pos protocol.Position) (string, bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	sg := n.shown
	if sg == nil || sg.notified || sg.insert == "" || sg.uri != u || sg.version != version || sg.at != pos {
		return "", false
	}
	n.shown = nil
	return sg.insert, true
}

// lineRange reads lines [from, to) (clamped to the document) as text,
// cut at a line end to at most limit bytes (cut says so), and returns
// the first line. The caller holds b.mu.
func (b *Buffer) lineRange(from, to, limit int) (int, string, bool) {
	from = max(0, from)
	if from > b.text.Lines() || to <= from {
		return from, "", false
	}
	start, _, _, _ := b.text.lineStart(from)
	end := b.text.Len()
	if to <= b.text.Lines() {
		end, _, _, _ = b.text.lineStart(to)
	}
	cut := end-start > limit
	text := b.text.slice(start, min(end, start+limit))
	if cut {
		text = text[:strings.LastIndexByte(string(text), '\n')+1]
	}
	return from, string(text), cut
}

// snapshotLines reads lines [from, to) for a region, under the lock.
func (b *Buffer) snapshotLines(from, to, limit int) (int, string) {
	b.mu.Lock() // lineStart moves the finger
	defer b.mu.Unlock()
	first, text, _ := b.lineRange(from, to, limit)
	return first, text
}

// nextEditRegion reads what a next edit sends around line: the region
// r's lines as they are now when r still holds every change (whole),
// else the lines around line; and the version it read.
func (b *Buffer) nextEditRegion(line int, r region) (doc complete.Doc, start int, text string, version int32, whole bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	doc = complete.Doc{Key: string(b.URI), Path: b.Path, LanguageID: b.LanguageID, Size: b.text.Len()}
	if r.valid && r.doc == b.URI && r.lines+r.delta >= 0 {
		end := r.start + r.lines + r.delta
		if !strings.HasSuffix(r.text, "\n") {
			end++
		}
		if s, t, cut := b.lineRange(r.start, end, 2*complete.NextEditBytes); !cut && t != "" {
			return doc, s, t, b.version, true
		}
	}
	start, text, _ = b.lineRange(line-complete.NextEditLines, line+complete.NextEditLines+1, complete.NextEditBytes)
	return doc, start, text, b.version, false
}
