package config

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A project's language servers are commands: they apply only once the
// project is trusted, and merge with the user's by name.
func TestProjectLanguageServersNeedTrust(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	user := filepath.Join(home, "catbuddy", "config.json")
	writeJSON(t, user, `{"languageServers":{"gopls":{"command":["gopls"],"extensions":[".go"]}}}`)
	writeJSON(t, filepath.Join(root, ".catbuddy", "config.json"),
		`{"languageServers":{"pyright":{"command":["./evil.sh"],"extensions":[".py"]}}}`)
	store := TrustStore{Path: filepath.Join(t.TempDir(), "trust.json")}
	keys := map[string]string{"OPENAI_API_KEY": "sk-user"}

	l, err := load(LoadOptions{Root: root}, env(keys), user, store)
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]LanguageServer{"gopls": {Command: []string{"gopls"}, Extensions: []string{".go"}}}; !cmp.Equal(want, l.LanguageServers) {
		t.Errorf("untrusted: %v", l.LanguageServers)
	}
	if got := ignoredKeys(l); !cmp.Equal(got, []string{"languageServers"}) || l.Ignored[0].Reason != ReasonNeedsTrust {
		t.Errorf("untrusted: ignored %v", l.Ignored)
	}
	p, err := IdentifyProject(root)
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Trust(p); err != nil {
		t.Fatal(err)
	}
	if l, err = load(LoadOptions{Root: root}, env(keys), user, store); err != nil {
		t.Fatal(err)
	}
	if len(l.LanguageServers) != 2 || l.LanguageServers["pyright"].Command[0] != "./evil.sh" || l.LanguageServers["gopls"].Command[0] != "gopls" {
		t.Errorf("trusted: %v", l.LanguageServers)
	}
}

func TestLanguageServersValidatedAndMergedByName(t *testing.T) {
	for _, c := range []struct{ json, err string }{
		{`{"languageServers":{"gopls":{"extensions":[".go"]}}}`, "languageServers.gopls: command is required"},
		{`{"languageServers":{"gopls":{"command":["gopls"]}}}`, "languageServers.gopls: extensions is required"},
		{`{"languageServers":{"gopls":{"command":["gopls"],"extensions":["go"]}}}`, `extension "go" must start with a dot`},
		{`{"languageServers":{"gopls":{"command":["gopls"],"extensions":[".go"],"indexingWait":601}}}`, "indexingWait 601 is not between 0 and 600 seconds"},
	} {
		s, err := ParseSettings([]byte(c.json))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.validate(); err == nil || !strings.Contains(err.Error(), c.err) {
			t.Errorf("%s: got %v, want %q", c.json, err, c.err)
		}
	}
	s, err := ParseSettings([]byte(`{"languageServers":{"gopls":{"comand":["gopls"]}}}`))
	if err != nil || !cmp.Equal(s.Unknown, []string{"languageServers.gopls.comand"}) {
		t.Errorf("unknown keys inside an entry: %v %v", s.Unknown, err)
	}
	base := Config{LanguageServers: map[string]LanguageServer{"gopls": {Command: []string{"gopls"}}, "rust": {Command: []string{"rust-analyzer"}}}}
	over := Config{LanguageServers: map[string]LanguageServer{"gopls": {Command: []string{"/opt/gopls"}}}}
	m := Merge(base, over)
	if m.LanguageServers["gopls"].Command[0] != "/opt/gopls" || m.LanguageServers["rust"].Command[0] != "rust-analyzer" {
		t.Errorf("merge: %v", m.LanguageServers)
	}
	if base.LanguageServers["gopls"].Command[0] != "gopls" {
		t.Error("merge changed its base")
	}
}

func TestParseLanguageServerFlag(t *testing.T) {
	for _, c := range []struct {
		in, name string
		want     LanguageServer
		err      string
	}{
		{in: ".go=gopls", name: "gopls", want: LanguageServer{Command: []string{"gopls"}, Extensions: []string{".go"}}},
		{in: ".ts, .tsx=/usr/bin/typescript-language-server --stdio", name: "typescript-language-server",
			want: LanguageServer{Command: []string{"/usr/bin/typescript-language-server", "--stdio"}, Extensions: []string{".ts", ".tsx"}}},
		{in: "gopls", err: "want EXTENSIONS=COMMAND"},
		{in: ".go=", err: "the command after = is empty"},
		{in: "=gopls", err: "languageServers.gopls: extensions is required"},
		{in: "go=gopls", err: `extension "go" must start with a dot`},
	} {
		name, got, err := ParseLanguageServerFlag(c.in)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want %q", c.in, err, c.err)
			}
			continue
		}
		if err != nil || name != c.name || !cmp.Equal(got, c.want) {
			t.Errorf("%q: %q %+v %v, want %q %+v", c.in, name, got, err, c.name, c.want)
		}
	}
}
