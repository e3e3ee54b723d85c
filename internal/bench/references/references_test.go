// Package references measures what the language feature bridge adds to a
// language server's own time: the lsp tool's references, run through
// cb-ls (catbuddy.runTool), asked of the editor with
// catbuddy/languageFeature, answered by a fake editor that forwards the
// question to a real gopls — against the same question asked of the same
// gopls directly, in the same run. The project is generated: a module of
// CB_LS_BENCH_FILES Go files (default 20,000) in packages of 100, one
// function called from every 20th file.
//
//	PATH="$(bash scripts/get-gopls.sh):$PATH" \
//	    go test -run '^$' -bench . -benchtime 20x -timeout 60m ./internal/bench/references/
//
// Reported: gopls-ms (the direct question), tool-ms (the lsp tool through
// the bridge), and added-ms, the median over iterations of the tool's
// time minus gopls's own time for the question the editor forwarded in
// that iteration (target: ≤ 5 ms); added-cpu-ms, the CPU this process
// (cb-ls, the fake editor, the gopls client) spends on the tool's
// question beyond a direct one, steadier than wall time on a loaded
// machine; and load-s, the first answer's wait while gopls loads the
// project.
package references

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"github.com/catbuddy/cb-ls/internal/fileuri"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/catbuddy/cb-ls/internal/lspclient"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// Layout of the generated module.
const (
	perPackage = 100
	callEvery  = 20
	targetFile = "base/base.go"
	targetLine = 4 // 1-based line of "func Target"
)

// generate writes a module of n Go files below a new directory and
// returns it with the number of references to base.Target (its
// declaration included).
func generate(b *testing.B, n int) (string, int) {
	dir, err := filepath.EvalSymlinks(b.TempDir())
	if err != nil {
		b.Fatal(err)
	}
	write := func(rel, text string) {
		p := filepath.Join(dir, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	write("go.mod", "module example.com/big\n\ngo 1.22\n")
	write(targetFile, "package base\n\n// Target is what every 20th file calls.\nfunc Target(x int) int { return x + 1 }\n")
	refs := 1
	for k := 1; k < n; k++ {
		pkg := fmt.Sprintf("p%04d", k/perPackage)
		var s strings.Builder
		fmt.Fprintf(&s, "package %s\n\n", pkg)
		if k%callEvery == 0 {
			s.WriteString("import \"example.com/big/base\"\n\n")
			fmt.Fprintf(&s, "// G%d calls base.Target.\nfunc G%d() int { return base.Target(%d) }\n", k, k, k)
			refs++
		}
		fmt.Fprintf(&s, "// F%d is a function of its own.\nfunc F%d(a, b int) int {\n\tif a > b {\n\t\treturn a - b\n\t}\n\treturn a*%d + b\n}\n", k, k, k)
		write(fmt.Sprintf("%s/f%05d.go", pkg, k), s.String())
	}
	return dir, refs
}

func BenchmarkReferences(b *testing.B) {
	gopls := testenv.NeedsTool(b, "gopls", "the references benchmark", "PATH=\"$(bash scripts/get-gopls.sh):$PATH\"")
	n := 20000
	if v := os.Getenv("CB_LS_BENCH_FILES"); v != "" {
		var err error
		if n, err = strconv.Atoi(v); err != nil || n < 2 {
			b.Fatalf("CB_LS_BENCH_FILES=%q: want a number of files ≥ 2", v)
		}
	}
	dir, refs := generate(b, n)
	var lastCPU time.Duration // of the last direct or bridged call
	ctx := context.Background()
	c := lspclient.New(lspclient.Options{Roots: []string{dir}, Timeout: 30 * time.Minute, StartTimeout: 5 * time.Minute,
		Servers: map[string]lspclient.ServerConfig{"gopls": {Command: []string{gopls}, Extensions: []string{".go"}}}})
	b.Cleanup(func() { c.Close(context.Background()) })
	target := filepath.Join(dir, targetFile)
	params := protocol.ReferenceParams{
		TextDocumentPositionParams: protocol.TextDocumentPositionParams{
			TextDocument: protocol.TextDocumentIdentifier{URI: fileuri.FromPath(target)},
			Position:     protocol.Position{Line: targetLine - 1, Character: uint32(len("func "))},
		},
		Context: protocol.ReferenceContext{IncludeDeclaration: true},
	}
	direct := func() (time.Duration, int) {
		t, cpu := time.Now(), testenv.CPUTime()
		raw, err := c.Call(ctx, target, protocol.MethodTextDocumentReferences, &params)
		d := time.Since(t)
		lastCPU = testenv.CPUTime() - cpu
		if err != nil {
			b.Fatalf("gopls references: %v", err)
		}
		var locs []json.RawMessage
		if err := json.Unmarshal(raw, &locs); err != nil {
			b.Fatalf("gopls references: %v: %s", err, raw)
		}
		return d, len(locs)
	}
	load, got := direct()
	if got != refs {
		b.Fatalf("gopls found %d references to base.Target, the project has %d", got, refs)
	}

	// The editor forwards the question to the same gopls and records how
	// long gopls took, so that the bridge's cost is the rest.
	var (
		mu    sync.Mutex
		inner time.Duration
	)
	e := fake.New(b, fake.Options{Folders: []string{dir}, Capabilities: fake.LanguageFeatures(protocol.MethodTextDocumentReferences)})
	e.SetLanguageFeatures(func(ctx context.Context, method string, params json.RawMessage) (any, error) {
		var p struct {
			TextDocument struct {
				URI string `json:"uri"`
			} `json:"textDocument"`
		}
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, err
		}
		u, err := url.Parse(p.TextDocument.URI)
		if err != nil {
			return nil, err
		}
		t := time.Now()
		raw, err := c.Call(ctx, u.Path, method, params)
		mu.Lock()
		inner = time.Since(t)
		mu.Unlock()
		if err != nil {
			return nil, err
		}
		return jsonrpc2.RawMessage(raw), nil
	})
	args := map[string]any{"operation": "references", "path": targetFile, "line": targetLine, "symbol": "Target"}
	bridged := func() (time.Duration, time.Duration) {
		t, cpu := time.Now(), testenv.CPUTime()
		out, isErr := e.RunTool("lsp", args)
		d := time.Since(t)
		lastCPU = testenv.CPUTime() - cpu
		if isErr || !strings.Contains(out, "p0000/f00020.go:6: func G20() int { return base.Target(20) }") {
			b.Fatalf("lsp references through the bridge:\n%s", out)
		}
		mu.Lock()
		defer mu.Unlock()
		return d, d - inner
	}
	bridged() // the first tool call registers the run's state

	var dDirect, dTool, dAdded, cDirect, cTool []float64
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		// Alternate the order, so neither side always runs on a cache
		// the other warmed.
		if i%2 == 0 {
			d, _ := direct()
			dDirect, cDirect = append(dDirect, ms(d)), append(cDirect, ms(lastCPU))
		}
		tool, added := bridged()
		dTool, dAdded, cTool = append(dTool, ms(tool)), append(dAdded, ms(added)), append(cTool, ms(lastCPU))
		if i%2 == 1 {
			d, _ := direct()
			dDirect, cDirect = append(dDirect, ms(d)), append(cDirect, ms(lastCPU))
		}
	}
	b.StopTimer()
	b.ReportMetric(median(dDirect), "gopls-ms")
	b.ReportMetric(median(dTool), "tool-ms")
	b.ReportMetric(median(dAdded), "added-ms")
	// CPU is steadier than wall time on a shared machine: what this
	// process spends on a bridged question beyond a direct one.
	b.ReportMetric(median(cTool)-median(cDirect), "added-cpu-ms")
	b.ReportMetric(load.Seconds(), "load-s")
	b.ReportMetric(float64(n), "files")
	b.ReportMetric(float64(refs), "refs")
}

func median(v []float64) float64 {
	if len(v) == 0 {
		return 0
	}
	s := slices.Clone(v)
	slices.Sort(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
