package lsp_test

import (
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
)

var waitingMessage = regexp.MustCompile(`^waiting for the model \((\d+) s\)$`)

// While the model sends nothing, the run's progress says so and counts
// the seconds; the run then fails on modelIdleTimeout, and the progress
// ends saying why.
func TestProgressSaysWaitingForTheModel(t *testing.T) {
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	calc := filepath.Join(dir, "calc.go")
	if err := os.WriteFile(calc, []byte(calcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	model := agenttest.NewServer(t, agenttest.Script{Turns: []agenttest.Turn{
		readCall(),
		{Stall: true},
	}})
	ed := fake.New(t, fake.Options{
		Folders: []string{dir},
		Server:  lsp.Options{ModelWaitReport: 250 * time.Millisecond},
		InitializationOptions: map[string]any{
			"provider": "openai", "baseUrl": model.URL(), "model": "scripted", "apiKey": testKey, "maxSteps": 5,
			"modelIdleTimeout": 3,
		},
	})
	f := &runFixture{dir: dir, calc: calc, uri: ed.OpenFile(calc), model: model, ed: ed}
	runID := f.start(t, "catbuddy.fix", f.fixArgs())
	tok := runToken(t, f)
	f.ed.Await("the run to end", func() bool { return len(f.turnEvents(runID, "end")) > 0 })
	if end := f.turnEvents(runID, "end")[0]; end.Outcome != "error" {
		t.Fatalf("the stalled run ended %+v, want an error", end)
	}

	values := f.progressValues(tok)
	var reports []string
	for _, v := range values[1 : len(values)-1] {
		msg, _ := v["message"].(string)
		reports = append(reports, msg)
	}
	var counts []int
	for i, msg := range reports {
		m := waitingMessage.FindStringSubmatch(msg)
		if m == nil {
			continue
		}
		if len(counts) == 0 && (i == 0 || reports[i-1] != "read_file calc.go") {
			t.Errorf("the first waiting message follows %q, want the tool call before the stalled request: %q", reports[max(i-1, 0)], reports)
		}
		n, _ := strconv.Atoi(m[1])
		counts = append(counts, n)
	}
	// Three seconds of silence, a message every quarter of one: the
	// count goes up, by whole seconds, and passes one second.
	if len(counts) < 2 || counts[len(counts)-1] < 1 || counts[len(counts)-1] > 3 {
		t.Fatalf("waiting messages count %v seconds, want several, up to 1–3 s; reports %q", counts, reports)
	}
	for i := 1; i < len(counts); i++ {
		if counts[i] < counts[i-1] {
			t.Errorf("the waiting count went down: %v", counts)
		}
	}
	end, _ := values[len(values)-1]["message"].(string)
	if values[len(values)-1]["kind"] != "end" || !strings.Contains(end, "sent nothing for 3 s") {
		t.Errorf("progress ends %v, want end saying the model sent nothing for 3 s", values[len(values)-1])
	}
}
