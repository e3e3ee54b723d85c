package guard

import (
	"errors"
	"strings"
	"testing"
)

// TestCommandGuardReadsTheShellThatRuns reads each construct on which
// bash and a POSIX sh (dash, Debian's /bin/sh) disagree in both
// dialects: bash's reading judges what bash does; /bin/sh's refuses
// what the two read differently, saying why.
func TestCommandGuardReadsTheShellThatRuns(t *testing.T) {
	bash := testCommandGuard()
	sh := posix(bash)
	cases := []struct {
		name, cmd string
		// bashWhy is the refusal bash's reading gives, "" when bash
		// runs the line harmlessly.
		bashWhy string
		// shWhy is what the refusal for /bin/sh says.
		shWhy string
	}{
		{"here-string", "xargs rm -rf <<< ~", "deletes /home/u", "herestrings"},
		{"harmless here-string", "cat <<< hello", "", "herestrings"},
		// One quoted word to bash; to dash a word, then rm -rf ~.
		{"$'…' hiding a command from bash's reading", `echo $'it\'s; rm -rf ~ #'`, "", "$'…'"},
		{"$'…' decoded", `$'\x72m' -rf /`, "deletes /", "$'…'"},
		{"$'…' harmless", `printf $'a\tb\n'`, "", "$'…'"},
		{`$"…"`, `echo $"hello"`, "", `$"…"`},
		{"process substitution", "diff <(sort a) <(sort b)", "", "bash syntax"},
		{"process substitution running a deletion", "cat <(rm -rf ~)", "deletes /home/u", "bash syntax"},
		{"[[ ]]", "[[ -f go.mod ]] && go test ./...", "", "[[ … ]]"},
		{"[[ ]] then a deletion", "[[ -d x ]] || rm -rf /", "deletes /", "[[ … ]]"},
		{"brace expansion", "mkdir -p src/{a,b}", "", "brace expansion (src/{a,b} is src/a src/b to bash)"},
		{"brace expansion into a deletion", "rm -rf /{usr,x}", "deletes /usr", "brace expansion"},
		{"bash -c inside /bin/sh is bash", `bash -c 'cat <<< hi'`, "", ""},
		{"sh -c inside bash is /bin/sh", `sh -c 'cat <<< hi'`, "herestrings", "herestrings"},
		{"sh -c hiding a command from bash's reading", `sh -c "echo \$'x\\' ; rm -rf ~ #'"`, "$'…'", "$'…'"},
		{"echo into sh is /bin/sh", `echo '[[ -f x ]]' | sh`, "[[ … ]]", "[[ … ]]"},
		{"here-doc for dash is /bin/sh", "dash <<'EOF'\necho {a,b}\nEOF", "brace expansion", "brace expansion"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := bash.Check(c.cmd, "")
			switch {
			case c.bashWhy == "" && err != nil:
				t.Errorf("bash: Check(%q) = %v, want nil", c.cmd, err)
			case c.bashWhy != "" && (!errors.Is(err, ErrCommandRefused) || !strings.Contains(err.Error(), c.bashWhy)):
				t.Errorf("bash: Check(%q) = %v, want a refusal mentioning %q", c.cmd, err, c.bashWhy)
			}
			err = sh.Check(c.cmd, "")
			switch {
			case c.shWhy == "" && err != nil:
				t.Errorf("POSIX sh: Check(%q) = %v, want nil", c.cmd, err)
			case c.shWhy != "" && (!errors.Is(err, ErrCommandRefused) || !strings.Contains(err.Error(), c.shWhy)):
				t.Errorf("POSIX sh: Check(%q) = %v, want a refusal mentioning %q", c.cmd, err, c.shWhy)
			}
		})
	}
}

// TestCommandGuardDefaultsToPOSIX: a guard that is not told which shell
// runs the line reads it as /bin/sh, the stricter reading.
func TestCommandGuardDefaultsToPOSIX(t *testing.T) {
	g := &CommandGuard{Roots: []string{"/work/proj"}, WorkRoot: "/work/proj", Home: "/home/u"}
	err := g.Check(`echo $'it\'s; rm -rf ~ #'`, "")
	if !errors.Is(err, ErrCommandRefused) {
		t.Fatalf("Check = %v, want a refusal", err)
	}
	if !strings.Contains(err.Error(), "/bin/sh") {
		t.Errorf("refusal %q does not say the line runs in /bin/sh", err)
	}
}

// TestCommandGuardPOSIXAdvice: where the line itself is read as POSIX sh,
// bash is not installed, so the refusal says so and does not suggest
// bash -c; a POSIX script inside a bash line (sh -c) is told bash -c.
func TestCommandGuardPOSIXAdvice(t *testing.T) {
	bash := testCommandGuard()
	err := posix(bash).Check("cat <<< hi", "")
	if err == nil || !strings.Contains(err.Error(), "bash is not installed here") || strings.Contains(err.Error(), "bash -c") {
		t.Errorf("a line for /bin/sh: %v", err)
	}
	err = bash.Check(`sh -c 'cat <<< hi'`, "")
	if err == nil || !strings.Contains(err.Error(), "bash -c") || strings.Contains(err.Error(), "not installed") {
		t.Errorf("sh -c inside a bash line: %v", err)
	}
}
