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
	// lazy holds the tools registered by RegisterLazy and not built yet.
	lazy map[string]*lazyTool
}

// lazyTool builds a tool once.
type lazyTool struct{ get func() Tool }

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{tools: map[string]Tool{}, lazy: map[string]*lazyTool{}}
}

// Register adds t. A name already present is an error.
func (r *Registry) Register(t Tool) error {
	if t.Name == "" || t.Run == nil {
		return fmt.Errorf("register tool %q: name and Run are required", t.Name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.has(t.Name) {
		return fmt.Errorf("register tool %q: already registered", t.Name)
	}
	r.tools[t.Name] = t
	return nil
}

// RegisterLazy adds the tool called name, built by build when it is
// first needed (Get, Execute, List) and only then: building a tool
// infers its input schema by reflection, and "cb-ls tools run" would
// otherwise build every tool to run one. build must return a tool
// called name; it is called at most once.
func (r *Registry) RegisterLazy(name string, build func() Tool) error {
	if name == "" || build == nil {
		return fmt.Errorf("register tool %q: name and a builder are required", name)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.has(name) {
		return fmt.Errorf("register tool %q: already registered", name)
	}
	r.lazy[name] = &lazyTool{get: sync.OnceValue(func() Tool {
		t := build()
		if t.Name != name || t.Run == nil {
			panic(fmt.Sprintf("tool %q: the builder returned %q (Run set: %t)", name, t.Name, t.Run != nil))
		}
		return t
	})}
	return nil
}

// has reports whether name is registered; r.mu is held.
func (r *Registry) has(name string) bool {
	_, dup := r.tools[name]
	_, lazy := r.lazy[name]
	return dup || lazy
}

// build returns the tool name, building it if it is a lazy one.
func (r *Registry) build(name string) (Tool, bool) {
	r.mu.RLock()
	t, built := r.tools[name]
	f, ok := r.lazy[name]
	r.mu.RUnlock()
	if built || !ok {
		return t, built
	}
	t = f.get() // outside the lock: a builder may be slow, or use r
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.lazy[name] != f {
		// Unregistered (or replaced) while it was built.
		if t, ok := r.tools[name]; ok {
			return t, true
		}
		return Tool{}, false
	}
	delete(r.lazy, name)
	r.tools[name] = t
	return t, true
}

// Unregister removes the tool called name, if present.
func (r *Registry) Unregister(name string) {
	r.mu.Lock()
	delete(r.tools, name)
	delete(r.lazy, name)
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
	for name := range r.lazy {
		if strings.HasPrefix(name, prefix) {
			delete(r.lazy, name)
			n++
		}
	}
	return n
}

// Get returns the tool called exactly name, building it if it was
// registered lazily.
func (r *Registry) Get(name string) (Tool, bool) {
	return r.build(name)
}

// List returns all tools sorted by name, building those registered
// lazily.
func (r *Registry) List() []Tool {
	r.mu.RLock()
	out := make([]Tool, 0, len(r.tools)+len(r.lazy))
	for _, t := range r.tools {
		out = append(out, t)
	}
	lazy := make([]string, 0, len(r.lazy))
	for name := range r.lazy {
		lazy = append(lazy, name)
	}
	r.mu.RUnlock()
	for _, name := range lazy {
		if t, ok := r.build(name); ok {
			out = append(out, t)
		}
	}
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
	defer func() {
		if p := recover(); p != nil {
			slog.Error("tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
			res, err = Errorf("tool %s failed internally: %v", name, p), nil
		}
	}()
	t, ok := r.Get(name) // builds a lazy tool, which may panic
	if !ok {
		return Errorf("unknown tool %q", name), nil
	}
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
