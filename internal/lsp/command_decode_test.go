package lsp

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sameCommandAsGeneral holds fastExecuteCommand to encoding/json: whatever
// the fast path accepts, the general decoder accepts with the same command
// and arguments (nil when absent, empty when []).
func sameCommandAsGeneral(t *testing.T, raw []byte) (fast bool) {
	t.Helper()
	name, args, ok := fastExecuteCommand(raw)
	if !ok {
		return false
	}
	var p executeCommandParams
	if err := json.Unmarshal(raw, &p); err != nil {
		t.Fatalf("fast path accepted %q, encoding/json refused it: %v", raw, err)
	}
	if name != p.Command || !reflect.DeepEqual(args, p.Arguments) {
		t.Fatalf("%q: fast (%q, %#v) != general (%q, %#v)", raw, name, args, p.Command, p.Arguments)
	}
	return true
}

func TestFastExecuteCommand(t *testing.T) {
	for _, tc := range []struct {
		raw  string
		fast bool // taken by the fast path
	}{
		{`{"command":"drive.probe","arguments":[]}`, true},
		{`{"command":"drive.probe"}`, true},
		{` { "arguments" : [ ] , "command" : "x" } `, true},
		{`{"command":"catbuddy.listTools","workDoneToken":"t-1"}`, true},
		{`{"command":"c","workDoneToken":-7,"arguments":[]}`, true},
		{`{"command":"caf\u00e9 \ud83d\ude00 \"q\" \\"}`, true},
		{`{"command":"\ud800x"}`, true}, // a lone surrogate: U+FFFD, as encoding/json decodes it
		{`{"command":"naïve 中文"}`, true},
		{`{"command":""}`, true},
		// Everything else is the general decoder's.
		{`{"command":"c","arguments":[1]}`, false},
		{`{"command":"c","arguments":[{"a":1}]}`, false},
		{`{"command":"c","arguments":null}`, false},
		{`{"command":null}`, false},
		{`{"Command":"c"}`, false},
		{`{"command":"a","command":"b"}`, false},
		{`{"command":"c","arguments":[],"arguments":[]}`, false},
		{`{"command":"c","extra":1}`, false},
		{`{"command":"c","workDoneToken":1.5}`, false},
		{`{"command":"c","workDoneToken":null}`, false},
		{`{"arguments":[]}`, false},
		{`{}`, false},
		{`null`, false},
		{``, false},
		{`{"command":"c"} x`, false},
		{`{"command":"c",}`, false},
		{`{"command":"a\x01"}`, false},
		{"{\"command\":\"\xff\"}", false},
		{`{"command":"\q"}`, false},
		{`[{"command":"c"}]`, false},
	} {
		if got := sameCommandAsGeneral(t, []byte(tc.raw)); got != tc.fast {
			t.Errorf("%q: fast path taken = %v, want %v", tc.raw, got, tc.fast)
		}
	}
}

func FuzzFastExecuteCommand(f *testing.F) {
	f.Add(`{"command":"drive.probe","arguments":[]}`)
	f.Add(`{"command":"c\u00e9\ud800","workDoneToken":"t","arguments":[ ]}`)
	f.Add(`{"workDoneToken":12,"command":"x"}`)
	f.Fuzz(func(t *testing.T, raw string) { sameCommandAsGeneral(t, []byte(raw)) })
}

// TestDecodeExecuteCommandErrors: params the fast path refuses get the
// general decoder's answers.
func TestDecodeExecuteCommandErrors(t *testing.T) {
	for raw, want := range map[string]string{
		``:                               "missing params",
		`{"command":1}`:                  "invalid executeCommand params",
		`{"command":"c","arguments":{}}`: "invalid executeCommand params",
	} {
		_, err := decodeExecuteCommand([]byte(raw))
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", raw, err, want)
		}
	}
	p, err := decodeExecuteCommand([]byte(`{"command":"c","arguments":[1,"two"]}`))
	if err != nil || p.Command != "c" || len(p.Arguments) != 2 || string(p.Arguments[1]) != `"two"` {
		t.Errorf("general path: %+v, %v", p, err)
	}
}
