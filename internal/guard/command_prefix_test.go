package guard

import "testing"

func TestCommandPrefix(t *testing.T) {
	for cmd, want := range map[string]string{
		"go generate ./...":              "go generate",
		"npm install left-pad":           "npm install",
		"make":                           "make",
		"make -j4 all":                   "make",
		"cd sub && go generate ./x":      "go generate",
		"rm keep.txt":                    "rm",
		"./gen.sh --all":                 "./gen.sh",
		"go generate && npm install":     "",
		"$(echo rm) -f x":                "",
		"ls -la":                         "ls",
		"git status --short":             "git status",
		"cat a | grep x":                 "",
		"for f in *; do touch $f; done":  "",
		"sed -i s/a/b/ x.txt | head -n1": "sed",
	} {
		if got := CommandPrefix(cmd); got != want {
			t.Errorf("CommandPrefix(%q) = %q, want %q", cmd, got, want)
		}
	}
}

func TestMatchPrefix(t *testing.T) {
	rules := []string{"go generate", "npm install"}
	for cmd, want := range map[string]bool{
		"go generate ./...":                  true,
		"cd sub && go generate":              true,
		"npm install && git status":          true,
		"go generated":                       false, // whole words only
		"go generate; rm -rf build":          false,
		"npm installx":                       false,
		"go test ./...":                      false,
		"for i in 1; do go generate; done":   false,
		"echo x > y && go generate ./mocks/": false,
		"go generate ./mocks/ 2>&1":          true,
		"ls -la":                             false, // read-only, but no rule names it
	} {
		if _, got := MatchPrefix(cmd, rules); got != want {
			t.Errorf("MatchPrefix(%q) = %v, want %v", cmd, got, want)
		}
	}
	if r, ok := AnyPrefix("cd x && env A=1 terraform apply -auto-approve", []string{"terraform apply"}); !ok || r != "terraform apply" {
		t.Errorf("AnyPrefix through env = %q %v, want the terraform rule", r, ok)
	}
	if _, ok := AnyPrefix("terraform plan", []string{"terraform apply"}); ok {
		t.Error("AnyPrefix matched a different subcommand")
	}
}

func TestGitWrites(t *testing.T) {
	for cmd, want := range map[string]bool{
		"git commit -m x":             true,
		"git add . && git commit -qm": true,
		"git -C sub checkout main":    true,
		"go generate && git stash":    true,
		"git status":                  false,
		"git config core.fsmonitor x": false,
		"git -c core.x=y commit":      false,
		"go generate ./...":           false,
	} {
		if got := GitWrites(cmd); got != want {
			t.Errorf("GitWrites(%q) = %v, want %v", cmd, got, want)
		}
	}
}

// A rule also covers a read-only command it names (asked about where the
// sandbox cannot hide .catbuddy/'s names); other read-only commands on
// the line ride along as before.
func TestMatchPrefixReadOnly(t *testing.T) {
	for cmd, want := range map[string]bool{
		"find . -name '*.go'":        true,
		"find . | grep x":            true,
		"find . -delete":             true, // the rule names find: the user allowed it
		"ls -la":                     false,
		"ls && find . -exec rm {} ;": true,
	} {
		if _, got := MatchPrefix(cmd, []string{"find"}); got != want {
			t.Errorf("MatchPrefix(%q, [find]) = %v, want %v", cmd, got, want)
		}
	}
}
