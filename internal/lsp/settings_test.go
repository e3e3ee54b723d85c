package lsp_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/agent/agenttest"
	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/lsp"
	"github.com/catbuddy/cb-ls/internal/lsp/fake"
	"github.com/google/go-cmp/cmp"
	"go.lsp.dev/protocol"
)

// sampleSettings returns a settings object that sets every key of the
// documented shape (config.Config's json tags, walked by reflection, so a
// key added to Config is covered here with no edit) to a non-zero value,
// plus apiKey.
func sampleSettings(t *testing.T) map[string]any {
	t.Helper()
	out := sampleObject(reflect.TypeOf(config.Config{}), "")
	// Values the run validates, and a model that answers at once.
	model := agenttest.NewServer(t, agenttest.Script{APIKey: testKey, Turns: []agenttest.Turn{{Text: "ok"}, {Text: "ok"}, {Text: "ok"}}})
	out["baseUrl"] = model.URL()
	out["provider"] = "openai"
	out["mode"] = "project"
	out["customCommands"] = []any{map[string]any{"id": "tests", "title": "Agent: Write tests", "prompt": "Write tests for ${selection}", "readOnly": true}}
	out["apiKey"] = testKey
	return out
}

func sampleObject(t reflect.Type, prefix string) map[string]any {
	out := map[string]any{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" || !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = sampleValue(f.Type, prefix+name)
	}
	return out
}

func sampleValue(t reflect.Type, key string) any {
	switch t.Kind() {
	case reflect.Pointer:
		if t.Elem().Kind() == reflect.Bool {
			return false // the non-default value of an optional switch
		}
		return sampleValue(t.Elem(), key)
	case reflect.String:
		return "v-" + key
	case reflect.Bool:
		return true
	case reflect.Int, reflect.Int64, reflect.Int32:
		return 7
	case reflect.Float64:
		return 0.5
	case reflect.Slice:
		return []any{sampleValue(t.Elem(), key)}
	case reflect.Map:
		return map[string]any{"k": sampleValue(t.Elem(), key)}
	case reflect.Struct:
		return sampleObject(t, key+".")
	case reflect.Interface: // passed through as it is (initializationOptions)
		return map[string]any{"k": "v-" + key}
	}
	panic(fmt.Sprintf("sampleValue: %s has kind %s; teach the test", key, t.Kind()))
}

// leaves lists the zero-valued leaf fields of v by path.
func zeroLeaves(v reflect.Value, path string, out *[]string) {
	if v.Kind() == reflect.Struct {
		for i := range v.NumField() {
			f := v.Type().Field(i)
			if f.IsExported() {
				zeroLeaves(v.Field(i), path+f.Name+".", out)
			}
		}
		return
	}
	if v.IsZero() {
		*out = append(*out, strings.TrimSuffix(path, "."))
	}
}

// settingsEditor starts a fake editor whose server reports the editor's
// settings each run starts from.
func settingsEditor(t *testing.T, opts fake.Options) (*fake.Editor, string, <-chan config.Config) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	calc := filepath.Join(dir, "calc.go")
	if err := os.WriteFile(calc, []byte(calcGo), 0o644); err != nil {
		t.Fatal(err)
	}
	seen := make(chan config.Config, 1)
	var once sync.Once
	opts.Folders = []string{dir}
	opts.Server = lsp.Options{OnRunConfig: func(c config.Config) { once.Do(func() { seen <- c }) }}
	ed := fake.New(t, opts)
	ed.OpenFile(calc)
	return ed, calc, seen
}

// Every documented setting, sent by the editor through each of its three
// channels, reaches the run; the key only through the two that may carry it.
func TestEverySettingReachesTheRun(t *testing.T) {
	sample := sampleSettings(t)
	raw, err := json.Marshal(sample)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := config.ParseSettings(raw)
	if err != nil || len(parsed.Unknown) > 0 {
		t.Fatalf("the sample does not parse: %v %v", err, parsed.Unknown)
	}
	var unset []string
	zeroLeaves(reflect.ValueOf(parsed.Config), "", &unset)
	if len(unset) > 0 {
		t.Fatalf("the sample leaves %v unset", unset)
	}
	noKey := parsed.Config
	noKey.APIKey = ""

	for _, tc := range []struct {
		name string
		opts fake.Options
		send func(ed *fake.Editor)
		want config.Config
	}{
		{"initializationOptions", fake.Options{InitializationOptions: sample}, nil, parsed.Config},
		{"didChangeConfiguration", fake.Options{}, func(ed *fake.Editor) {
			ed.Notify(protocol.MethodWorkspaceDidChangeConfiguration, map[string]any{"settings": map[string]any{"catbuddy": sample}})
		}, parsed.Config},
		// workspace/configuration is plain settings: never a key.
		{"workspace/configuration", fake.Options{Configuration: map[string]any{"catbuddy": sample}}, nil, noKey},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ed, calc, seen := settingsEditor(t, tc.opts)
			if tc.send != nil {
				tc.send(ed)
			}
			u := ed.OpenFile(calc)
			// The run itself may be refused (the sample's base URL is not a
			// server); the settings it starts from are what is checked.
			var started struct {
				RunID string `json:"runId"`
			}
			if ed.ExecuteCommand("catbuddy.run", []any{map[string]any{"command": "tests", "uri": u,
				"range": map[string]any{"start": map[string]int{"line": 0, "character": 0}, "end": map[string]int{"line": 1, "character": 0}}}}, &started) == nil {
				// Let it end (and write its transcript) before the directory goes.
				ed.Await("the run's end", func() bool {
					for _, raw := range ed.Notifications("catbuddy/runEvent") {
						if strings.Contains(string(raw), `"kind":"end"`) {
							return true
						}
					}
					return false
				})
			}
			select {
			case got := <-seen:
				if diff := cmp.Diff(tc.want, got); diff != "" {
					t.Errorf("settings lost on the way (-sent +run):\n%s", diff)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("no run started")
			}
		})
	}
}

// null, [] and {} as initializationOptions all mean "no options"
// (Neovim encodes an empty Lua table as []).
func TestEmptyInitializationOptions(t *testing.T) {
	for _, opts := range []string{"null", "[]", "{}"} {
		t.Run(opts, func(t *testing.T) {
			ed, _, _ := settingsEditor(t, fake.Options{InitializationOptions: json.RawMessage(opts)})
			var cmds []map[string]any
			if err := ed.ExecuteCommand("catbuddy.listCommands", nil, &cmds); err != nil || len(cmds) == 0 {
				t.Fatalf("server unusable after initialize with %s: %v %v", opts, cmds, err)
			}
		})
	}
}
