package tools

import (
	"context"
	"slices"
	"strings"
	"sync"
)

// A language server's answer can be true but incomplete: the server was
// still loading its project, or it did not look at files outside its
// project. Whoever answers the question knows; the tool that words the
// answer must say so. Language tools run concurrently, so the caveats
// travel with the call's context, not with the shared LanguageFeatures.

type languageNotesKey struct{}

type languageNotes struct {
	mu    sync.Mutex
	notes []string // read before the answer: whether to trust it
	after []string // read after it: what the change left undone
}

// NoteLanguageAnswer adds a caveat to the answer of the language tool
// call that ctx belongs to. Outside such a call it does nothing.
func NoteLanguageAnswer(ctx context.Context, note string) {
	n, _ := ctx.Value(languageNotesKey{}).(*languageNotes)
	if n == nil || note == "" {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.notes, note) {
		n.notes = append(n.notes, note)
	}
}

// NoteLanguageChange adds a remark about the change to the end of the
// answer of the language tool call that ctx belongs to ("formatted by the
// editor"). Outside such a call it does nothing.
func NoteLanguageChange(ctx context.Context, note string) {
	if note != "" {
		noteAfter(ctx, note)
	}
}

// noteAfter adds a remark to the end of the answer of the language
// tool call in ctx: something about the change, not a doubt about the
// answer.
func noteAfter(ctx context.Context, note string) {
	n, _ := ctx.Value(languageNotesKey{}).(*languageNotes)
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if !slices.Contains(n.after, note) {
		n.after = append(n.after, note)
	}
}

// withLanguageNotes returns a context that collects caveats for one
// tool call.
func withLanguageNotes(ctx context.Context) (context.Context, *languageNotes) {
	n := &languageNotes{}
	return context.WithValue(ctx, languageNotesKey{}, n), n
}

// apply puts the caveats in front of an answer, where the model reads
// them before it trusts the figures, and the remarks after it.
func (n *languageNotes) apply(res Result) Result {
	n.mu.Lock()
	defer n.mu.Unlock()
	var b strings.Builder
	for _, note := range n.notes {
		b.WriteString("Note: " + note + ".\n")
	}
	b.WriteString(res.Output)
	for _, note := range n.after {
		b.WriteString("\n(" + note + ".)")
	}
	res.Output = b.String()
	return res
}
