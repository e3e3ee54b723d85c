package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
)

// Registry maps exact tool names to tools. It is safe for concurrent
// use: MCP tools come and go while runs execute.
type Registry struct {
	mu    sync.RWMutex
	tools map[string]Tool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry { return &Registry{tools: map[string]Tool{}} }

// Register adds t. A name already present is an error.
func (r *Registry) Register(t Tool) error {
	if t.Name == "" || t.Run == nil {
		return fmt.Errorf("register tool %q: name and Run are required", t.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if _, dup := r.tools[t.Name]; dup {
		return fmt.Errorf("register tool %q: already registered", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// Unregister removes the tool called name, if present.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	delete(r.tools, name)
	r.mu.Unlock()
}

// UnregisterPrefix removes every tool whose name starts with prefix and
// returns how many it removed.
func (r *Registry) UnregisterPrefix(prefix string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for name := range r.tools {
		if strings.HasPrefix(name, prefix) {
			delete(r.tools, name)
			n++
		}
	}
	return n
}

// Get returns the tool called exactly name.
func (r *Registry) Get(name string) (Tool, bool) {
	r.mu.RLock()
	defer r.mu.RUnlock()
	t, ok := r.tools[name]
	return t, ok
}

// List returns all tools sorted by name.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	out := make([]Tool, 0, len(r.tools))
	for _, t := range r.tools {
		out = append(out, t)
	}
	r.mu.RUnlock()
	slices.SortFunc(out, func(a, b Tool) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Execute runs the tool called exactly name with args. It is the only
// way tools are run. Unknown names, bad arguments, tool errors and
// panics all come back as error results; the returned error is non-nil
// only when ctx ended, which means the run itself is over.
func (r *Registry) Execute(ctx context.Context, name string, args json.RawMessage) (res Result, err error) {
	if err := ctx.Err(); err != nil {
		return Errorf("cancelled before %s ran", name), err
	}
	t, ok := r.Get(name)
	if !ok {
		return Errorf("unknown tool %q", name), nil
	}
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
			res, err = Errorf("tool %s failed internally: %v", name, p), nil
		}
	}()
	res, err = t.Run(ctx, args)
	if err != nil {
		if ctxErr := ctx.Err(); ctxErr != nil {
			return Errorf("%s cancelled: %v", name, err), ctxErr
		}
		msg := err.Error()
		if !strings.HasPrefix(msg, "Error:") {
			msg = "Error: " + msg
		}
		return Result{Output: msg, IsError: true}, nil
	}
	if n := runNews(ctx); n != "" {
		res.Output += "\n\n" + n
	}
	return res, nil
}
