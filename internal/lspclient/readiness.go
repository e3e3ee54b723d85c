package lspclient

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A language server answers while it loads its project, and what it
// answers then is partial: pyright counts the references in the files it
// has read so far, tsserver names the import line as a definition. So
// every question first waits for the server to finish loading, up to a
// bound, and an answer given before then is marked as possibly
// incomplete.
//
// Loading is what the server says it is: work-done progress ($/progress
// begin … end, gopls's "Loading packages", tsserver's project loading,
// pyright's analysis) and its first publishDiagnostics, which servers
// send once they have looked at the project. A server that has said
// neither is taken to be loading until its first wait runs out with no
// progress under way; after that its silence means it has nothing to
// report.

// DefaultIndexingWait bounds how long one question waits for a server
// that is still loading its project.
const DefaultIndexingWait = 20 * time.Second

// IndexingNote marks an answer given while its server was loading.
const IndexingNote = "the language server %s is still indexing; this answer may be incomplete"

// readiness is what a server said about its loading.
type readiness struct {
	mu          sync.Mutex
	active      map[string]string // progress token → its title and latest message
	sawEnd      bool              // some work-done progress ended
	sawDiags    bool              // the first publishDiagnostics came
	silent      bool              // a wait ran out with the server saying nothing
	changed     chan struct{}     // closed (and replaced) on every change
	startedWait time.Time         // when the server started: how long it has been indexing
}

func newReadiness() *readiness {
	return &readiness{active: map[string]string{}, changed: make(chan struct{}), startedWait: time.Now()}
}

// indexing reports whether the server is loading, and what it says it
// is doing ("" when it has said nothing).
func (r *readiness) indexing() (bool, string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, title := range r.active {
		return true, title
	}
	return !r.sawEnd && !r.sawDiags && !r.silent, ""
}

// notify wakes the waiters; r.mu is held.
func (r *readiness) notify() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// progress records one $/progress notification. Tokens are strings or
// numbers; their JSON text keys them.
func (r *readiness) progress(params json.RawMessage) {
	var p struct {
		Token json.RawMessage `json:"token"`
		Value struct {
			Kind    string `json:"kind"`
			Title   string `json:"title"`
			Message string `json:"message"`
		} `json:"value"`
	}
	if json.Unmarshal(params, &p) != nil || len(p.Token) == 0 {
		return
	}
	key := string(p.Token)
	r.mu.Lock()
	defer r.mu.Unlock()
	switch p.Value.Kind {
	case "begin":
		r.active[key] = p.Value.Title
	case "report":
		if title, ok := r.active[key]; ok && p.Value.Message != "" {
			r.active[key] = withMessage(title, p.Value.Message)
		}
	case "end":
		delete(r.active, key)
		r.sawEnd = true
	default:
		return
	}
	r.notify()
}

// withMessage is a progress title with its latest message. The title
// before any report is kept as it came, so a report does not pile up.
func withMessage(title, message string) string {
	title, _, _ = strings.Cut(title, ": ")
	if title == "" {
		return message
	}
	return title + ": " + message
}

// diagnostics records a publishDiagnostics.
func (r *readiness) diagnostics() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.sawDiags {
		r.sawDiags = true
		r.notify()
	}
}

// wait returns once the server is not loading, ctx ends or bound
// passes; it reports whether the server is ready. tick is called about
// once a second while it waits, with how long the server has been
// loading and what it says it is doing.
func (r *readiness) wait(ctx context.Context, bound time.Duration, tick func(elapsed time.Duration, doing string)) bool {
	timer := time.NewTimer(bound)
	defer timer.Stop()
	ticker := time.NewTicker(time.Second)
	defer ticker.Stop()
	for {
		busy, doing := r.indexing()
		if !busy {
			return true
		}
		r.mu.Lock()
		changed, since := r.changed, r.startedWait
		r.mu.Unlock()
		if tick != nil {
			tick(time.Since(since), doing)
		}
		select {
		case <-changed:
		case <-ticker.C:
		case <-ctx.Done():
			return false
		case <-timer.C:
			r.mu.Lock()
			if len(r.active) == 0 {
				r.silent = true
			}
			r.mu.Unlock()
			return false
		}
	}
}

// indexingStatus renders "gopls: indexing (12 s)" with what the server
// says it is doing.
func indexingStatus(name string, elapsed time.Duration, doing string) string {
	s := fmt.Sprintf("%s: indexing (%d s)", name, int(elapsed.Seconds()))
	if doing != "" {
		s += " · " + doing
	}
	return s
}
