package lspfeatures

import (
	"encoding/json"
	"reflect"
	"testing"
)

// sameLocations checks an answer fastLocations accepted against
// encoding/json: both decode it, to the same values.
func sameLocations(t *testing.T, raw string) bool {
	t.Helper()
	fast, ok := fastLocations([]byte(raw))
	if !ok {
		return false
	}
	var slow []locationOrLink
	if err := json.Unmarshal([]byte(raw), &slow); err != nil {
		t.Fatalf("fast decoder accepted %s, encoding/json refuses it: %v", raw, err)
	}
	if len(fast) == 0 && len(slow) == 0 {
		return true
	}
	if !reflect.DeepEqual(fast, slow) {
		t.Fatalf("%s:\nfast %+v\nslow %+v", raw, fast, slow)
	}
	return true
}

func TestFastLocations(t *testing.T) {
	r := `{"start":{"line":3,"character":7},"end":{"character":9,"line":4}}`
	for _, raw := range []string{
		`[]`,
		` [ { "uri" : "file:///a/b.go" , "range" : ` + r + ` } ] `,
		`[{"uri":"file:///a/b%20c.go","range":` + r + `},{"range":` + r + `,"uri":"file:///d.go"}]`,
		`[{"originSelectionRange":` + r + `,"targetUri":"file:///t.go","targetRange":` + r + `,"targetSelectionRange":{"start":{"line":1,"character":2},"end":{"line":1,"character":5}}}]`,
	} {
		if !sameLocations(t, raw) {
			t.Errorf("fast decoder refused %s", raw)
		}
	}
	for _, raw := range []string{
		`null`,
		`{"uri":"file:///a.go","range":` + r + `}`, // one Location: decodeList's case
		`[{"uri":"file:///a.go","range":` + r + `,"extra":1}]`,
		`[{"uri":"file:///caf\u00e9.go","range":` + r + `}]`,
		`[{"uri":"file:///café.go","range":` + r + `}]`,
		`[{"uri":"file:///a.go","range":{"start":{"line":-1,"character":0},"end":{"line":0,"character":0}}}]`,
		`[{"uri":"file:///a.go","range":{"start":{"line":1.5,"character":0},"end":{"line":0,"character":0}}}]`,
		`[{"uri":"file:///a.go","range":` + r + `},]`,
		`[{"uri":"file:///a.go","range":` + r + `}] x`,
		`[{"uri":null,"range":` + r + `}]`,
	} {
		if _, ok := fastLocations([]byte(raw)); ok {
			t.Errorf("fast decoder accepted %s", raw)
		}
	}
}

// FuzzFastLocations: whatever the fast decoder accepts, encoding/json
// decodes to the same.
func FuzzFastLocations(f *testing.F) {
	f.Add(`[{"uri":"file:///a.go","range":{"start":{"line":0,"character":1},"end":{"line":0,"character":4}}}]`)
	f.Add(`[{"targetUri":"file:///t.go","targetRange":{"start":{"line":0,"character":0},"end":{"line":2,"character":0}}}]`)
	f.Fuzz(func(t *testing.T, raw string) { sameLocations(t, raw) })
}
