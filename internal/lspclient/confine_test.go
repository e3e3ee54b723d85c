package lspclient_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"

	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// serveWriter is a language server that, once initialized, tries to
// write the project (its go.mod, as gopls with GOFLAGS=-mod=mod does),
// its cache (XDG_CACHE_HOME), its TMPDIR and the module cache, and
// answers every outline with one symbol per attempt, named by what came
// of it: "gomod-denied", "cache-ok" and so on.
func serveWriter() {
	var mu sync.Mutex
	var report []string
	try := func(what, path string) {
		err := os.MkdirAll(filepath.Dir(path), 0o755)
		if err == nil {
			err = os.WriteFile(path, []byte("go 1.26.8\n"), 0o644)
		}
		mu.Lock()
		defer mu.Unlock()
		if err != nil {
			report = append(report, what+"-denied")
		} else {
			report = append(report, what+"-ok")
		}
	}
	conn := jsonrpc2.NewConn(jsonrpc2.NewHeaderStream(stdio{os.Stdin, os.Stdout}))
	conn.Go(context.Background(), func(ctx context.Context, req *jsonrpc2.Request) (any, error) {
		switch req.Method() {
		case "initialize":
			return map[string]any{"capabilities": map[string]any{"documentSymbolProvider": true}}, nil
		case "initialized":
			wd, _ := os.Getwd()
			try("gomod", filepath.Join(wd, "go.mod"))
			try("newfile", filepath.Join(wd, "planted.go"))
			try("cache", filepath.Join(os.Getenv("XDG_CACHE_HOME"), "fakels", "cache.txt"))
			try("tmp", filepath.Join(os.Getenv("TMPDIR"), "t"))
			try("modcache", filepath.Join(os.Getenv("GOMODCACHE"), "example.com", "m@v1.0.0", "planted.go"))
			return nil, nil
		case "textDocument/documentSymbol":
			mu.Lock()
			defer mu.Unlock()
			var syms []any
			for i, r := range report {
				pos := map[string]int{"line": i, "character": 0}
				rng := map[string]any{"start": pos, "end": pos}
				syms = append(syms, map[string]any{"name": r, "kind": 12, "range": rng, "selectionRange": rng})
			}
			return syms, nil
		case "shutdown":
			return nil, nil
		case "exit":
			os.Exit(0)
		}
		return nil, nil
	})
	<-conn.Done()
}

// TestServerConfinedCannotWriteProject: a language server cb-ls starts
// cannot write the project (neither change go.mod nor create a file),
// still answers, and writes its own cache and TMPDIR; with namespaces
// it may download into the module cache, a copy-on-write view, and the
// user's module cache does not change. The starting status says that
// the server is sandboxed.
func TestServerConfinedCannotWriteProject(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	for _, split := range []bool{false, true} {
		t.Run(fmt.Sprintf("split=%v", split), func(t *testing.T) {
			if !split {
				testenv.NeedsSandbox(t, info.Namespaces, "user namespaces", info.Summary)
			}
			sandbox.ForceSplitGrants(split)
			t.Cleanup(func() { sandbox.ForceSplitGrants(false) })
			cache := t.TempDir()
			t.Setenv("XDG_CACHE_HOME", cache)
			mod := t.TempDir()
			t.Setenv("GOMODCACHE", mod)
			dir := writeProject(t, map[string]string{"go.mod": "module example.com/calc\n", "main.go": "package main\n"})
			t.Setenv(fakeServerEnv, "writer")
			var mu sync.Mutex
			var statuses []lspclient.Status
			c := lspclient.New(lspclient.Options{Roots: []string{dir}, IndexingWait: 100 * time.Millisecond, // the fake says nothing of its loading
				Servers: map[string]lspclient.ServerConfig{"fakels": {Command: []string{os.Args[0]}, Extensions: []string{".go"}}},
				OnStatus: func(st lspclient.Status) {
					mu.Lock()
					statuses = append(statuses, st)
					mu.Unlock()
				}})
			t.Cleanup(func() { c.Close(context.Background()) })
			if confined, why := c.Sandbox(); !confined {
				t.Fatalf("servers are not confined here: %s", why)
			}
			params := map[string]any{"textDocument": map[string]string{"uri": "file://" + filepath.Join(dir, "main.go")}}
			raw, err := c.Call(t.Context(), filepath.Join(dir, "main.go"), "textDocument/documentSymbol", params)
			if err != nil {
				t.Fatalf("the confined server did not answer: %v", err)
			}
			var syms []struct{ Name string }
			if err := json.Unmarshal(raw, &syms); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, s := range syms {
				got = append(got, s.Name)
			}
			modWant := "modcache-ok"
			if split {
				modWant = "modcache-denied" // no overlay without namespaces: read-only
			}
			if want := []string{"gomod-denied", "newfile-denied", "cache-ok", "tmp-ok", modWant}; strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("what the server could write: %q, want %q", got, want)
			}
			if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(b) != "module example.com/calc\n" {
				t.Errorf("the server changed go.mod: %q", b)
			}
			if _, err := os.Stat(filepath.Join(dir, "planted.go")); err == nil {
				t.Error("the server created a file in the project")
			}
			if b, err := os.ReadFile(filepath.Join(cache, "catbuddy-servers", "fakels", "cache.txt")); err != nil || string(b) != "go 1.26.8\n" {
				t.Errorf("the server's cache is not kept in catbuddy-servers: %q, %v", b, err)
			}
			if _, err := os.Stat(filepath.Join(mod, "example.com")); err == nil {
				t.Error("the server wrote the user's module cache")
			}
			mu.Lock()
			defer mu.Unlock()
			if len(statuses) == 0 || !statuses[0].Confined || !strings.HasPrefix(statuses[0].Text, "starting fakels… (sandboxed") {
				t.Errorf("the starting status does not say the server is sandboxed: %+v", statuses)
			}
		})
	}
}

// TestServerUnconfinedWhenTurnedOff: with the sandbox turned off the
// server runs as before, it can write the project, and the status says
// it is not sandboxed.
func TestServerUnconfinedWhenTurnedOff(t *testing.T) {
	dir := writeProject(t, map[string]string{"go.mod": "module example.com/calc\n", "main.go": "package main\n"})
	t.Setenv(fakeServerEnv, "writer")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	t.Setenv("GOMODCACHE", t.TempDir())
	var first lspclient.Status
	var once sync.Once
	c := lspclient.New(lspclient.Options{Roots: []string{dir}, NoSandbox: true, IndexingWait: 100 * time.Millisecond,
		Servers:  map[string]lspclient.ServerConfig{"fakels": {Command: []string{os.Args[0]}, Extensions: []string{".go"}}},
		OnStatus: func(st lspclient.Status) { once.Do(func() { first = st }) }})
	t.Cleanup(func() { c.Close(context.Background()) })
	params := map[string]any{"textDocument": map[string]string{"uri": "file://" + filepath.Join(dir, "main.go")}}
	if _, err := c.Call(t.Context(), filepath.Join(dir, "main.go"), "textDocument/documentSymbol", params); err != nil {
		t.Fatal(err)
	}
	if confined, why := c.Sandbox(); confined || !strings.Contains(why, "turned the sandbox off") {
		t.Errorf("Sandbox() = %v, %q", confined, why)
	}
	if first.Confined || first.Text != "starting fakels… (not sandboxed)" {
		t.Errorf("starting status: %+v", first)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(b) != "go 1.26.8\n" {
		t.Errorf("unconfined, the server should have written go.mod: %q", b)
	}
}

// TestGoplsConfinedKeepsGoMod: gopls with GOFLAGS=-mod=mod on a go.mod
// without a go directive adds one ("go 1.x") when it loads the module,
// on disk, outside any review. Confined it cannot: go.mod is unchanged
// after a question, and gopls still answers it.
func TestGoplsConfinedKeepsGoMod(t *testing.T) {
	info := sandbox.Probe()
	testenv.NeedsSandbox(t, info.Landlock > 0, "Landlock", info.Summary)
	files := map[string]string{}
	for name, text := range goProject {
		files[name] = text
	}
	const gomod = "module example.com/calc\n"
	files["go.mod"] = gomod
	dir := writeProject(t, files)
	t.Setenv("GOFLAGS", "-mod=mod")
	reg, c := headless(t, dir)
	if confined, why := c.Sandbox(); !confined {
		t.Fatalf("servers are not confined here: %s", why)
	}
	res := run(t, reg, "lsp", map[string]any{"operation": "definition", "path": "main.go", "line": 10, "symbol": "Add"})
	if res.IsError || !strings.Contains(res.Output, "calc/calc.go:4: func Add(a, b int) int { return a + b }") {
		t.Fatalf("the confined gopls did not answer:\n%s", res.Output)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "go.mod")); string(b) != gomod {
		t.Errorf("gopls changed go.mod on disk:\n%s", b)
	}
}
