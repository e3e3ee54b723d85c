package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/sandbox"
	"github.com/catbuddy/cb-ls/internal/testenv"
)

// fakeRm is an rm that deletes nothing and says what it was given, so
// a line the guard refuses can still be run to see what the shell
// would have deleted.
const fakeRm = "#!/bin/sh\necho \"FAKE-RM-CALLED:$*\"\n"

// shellCase is one construct on which bash and a POSIX sh disagree,
// and what each shell makes of it. For each shell, exactly one of:
//   - runs: the guard lets the line run, and its output holds this;
//   - deletes: the guard refuses, naming this path (bash) or the
//     construct that hides it (why), and the line run without the guard
//     calls rm on exactly it;
//   - differs: the guard refuses for bash syntax (why), and the line run
//     without the guard shows the POSIX reading (this output), which is
//     not bash's;
//   - unreadable: the guard refuses for bash syntax, and the shell
//     itself cannot parse the line: nothing of it runs.
type shellCase struct {
	name, cmd string
	bash      shellOutcome
	posix     shellOutcome
}

type shellOutcome struct {
	runs, deletes, differs string
	unreadable             bool
	// why is the bash construct the guard's refusal names.
	why string
}

// TestExecGuardReadsTheShellThatRuns runs each construct on which bash
// and dash (Debian's /bin/sh) disagree through the exec tool, where
// bash is installed and on a PATH without it, and once more straight
// through the shell without the guard (rm replaced by fakeRm): the
// guard's verdict is what the shell that runs the line does with it.
func TestExecGuardReadsTheShellThatRuns(t *testing.T) {
	if sh, err := filepath.EvalSymlinks("/bin/sh"); err != nil || filepath.Base(sh) == "bash" {
		testenv.Needs(t, false, "a /bin/sh that is not bash (dash)", "/bin/sh is "+sh, "apt-get install dash")
	}
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CACHE_HOME", "")
	cases := []shellCase{
		{name: "here-string into xargs", cmd: "xargs rm -rf <<< ~",
			bash:  shellOutcome{deletes: home},
			posix: shellOutcome{unreadable: true, why: "bash syntax"}},
		{name: "harmless here-string", cmd: "cat <<< hello",
			bash:  shellOutcome{runs: "hello\n"},
			posix: shellOutcome{unreadable: true, why: "bash syntax"}},
		{name: "$'…' hiding a deletion from a POSIX reading", cmd: `echo $'it\'s; rm -rf ~ #'`,
			bash:  shellOutcome{runs: "it's; rm -rf ~ #\n"},
			posix: shellOutcome{deletes: home, why: "$'…'"}},
		{name: "$'…' spelling rm", cmd: `$'\x72m' -rf /`,
			bash:  shellOutcome{deletes: "/"},
			posix: shellOutcome{differs: "x72m", why: "$'…'"}},
		{name: "process substitution", cmd: "diff <(printf 'a\\n') <(printf 'a\\n') && echo same",
			bash:  shellOutcome{runs: "same\n"},
			posix: shellOutcome{unreadable: true, why: "bash syntax"}},
		{name: "process substitution running a deletion", cmd: "cat <(rm -rf ~)",
			bash:  shellOutcome{deletes: home},
			posix: shellOutcome{unreadable: true, why: "bash syntax"}},
		{name: "[[ ]]", cmd: "[[ -f go.mod ]] && echo yes",
			bash:  shellOutcome{runs: "yes\n"},
			posix: shellOutcome{differs: "[[: not found", why: "[[ … ]]"}},
		{name: "[[ ]] guarding a deletion", cmd: "[[ -d gone ]] || rm -rf /",
			bash:  shellOutcome{deletes: "/"},
			posix: shellOutcome{deletes: "/", why: "[[ … ]]"}},
		{name: "brace expansion", cmd: "echo src/{a,b}",
			bash:  shellOutcome{runs: "src/a src/b\n"},
			posix: shellOutcome{differs: "src/{a,b}\n", why: "brace expansion"}},
		{name: "brace expansion into a deletion", cmd: "rm -rf /{usr,x}",
			bash:  shellOutcome{deletes: "/usr"},
			posix: shellOutcome{differs: "FAKE-RM-CALLED:-rf /{usr,x}\n", why: "brace expansion"}},
	}
	fake := t.TempDir()
	writeTestFile(t, filepath.Join(fake, "rm"), fakeRm)
	if err := os.Chmod(filepath.Join(fake, "rm"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, mode := range []string{"bash", "no bash"} {
		t.Run(mode, func(t *testing.T) {
			if mode == "bash" {
				testenv.NeedsTool(t, "bash", "running lines in bash", "apt-get install bash")
				t.Setenv("PATH", fake+string(os.PathListSeparator)+os.Getenv("PATH"))
			} else {
				t.Setenv("PATH", fake+string(os.PathListSeparator)+pathWithoutBash(t, "xargs", "cat", "diff", "printf"))
			}
			sh := hostShell()
			if sh.Bash != (mode == "bash") {
				t.Fatalf("hostShell() = %+v with PATH=%s", sh, os.Getenv("PATH"))
			}
			tc, root := execToolContext(t, ExecOptions{})
			r := NewRegistry()
			if err := r.Register(Exec(tc)); err != nil {
				t.Fatal(err)
			}
			writeTestFile(t, filepath.Join(root, "go.mod"), "module m\n")
			// Which shell ran: $0 is what exec started, BASH_VERSION is
			// set only in bash.
			res, _ := runExecTool(t, t.Context(), r, map[string]any{"command": `echo "$0 ${BASH_VERSION:+bash}"`})
			if want := map[bool]string{true: sh.Path + " bash\n", false: "/bin/sh \n"}[sh.Bash]; !strings.HasPrefix(res.Output, want) {
				t.Fatalf("the shell that ran: %q, want %q", res.Output, want)
			}
			for _, c := range cases {
				t.Run(c.name, func(t *testing.T) {
					want := c.bash
					if !sh.Bash {
						want = c.posix
					}
					guarded, err := runExecTool(t, t.Context(), r, map[string]any{"command": c.cmd})
					if err != nil {
						t.Fatal(err)
					}
					// The same line, run without the guard, read-only.
					unguarded, _ := runConfined(t.Context(), tc, sh, c.cmd, root, time.Minute, sandbox.Policy{})
					refused := guarded.IsError && strings.Contains(guarded.Output, "command refused")
					switch {
					case want.runs != "":
						if refused || !strings.HasPrefix(guarded.Output, want.runs) {
							t.Errorf("the guard should let it run and print %q: %q", want.runs, guarded.Output)
						}
					case want.deletes != "":
						// Bash's reading names the deletion; the POSIX one
						// refuses the construct that hides it.
						reason := "deletes " + want.deletes
						if want.why != "" {
							reason = want.why
						}
						if !refused || !strings.Contains(guarded.Output, reason) {
							t.Errorf("the guard should refuse it for %q: %q", reason, guarded.Output)
						}
						if !rmCalledOn(unguarded.Output, want.deletes) {
							t.Errorf("run without the guard, the line should call rm on %s: %q", want.deletes, unguarded.Output)
						}
					case want.differs != "":
						if !refused || !strings.Contains(guarded.Output, want.why) {
							t.Errorf("the guard should refuse it for %q: %q", want.why, guarded.Output)
						}
						if !strings.Contains(unguarded.Output, want.differs) {
							t.Errorf("run without the guard, %s should read it as POSIX (%q): %q", sh, want.differs, unguarded.Output)
						}
					case want.unreadable:
						if !refused || !strings.Contains(guarded.Output, want.why) {
							t.Errorf("the guard should refuse it for %q: %q", want.why, guarded.Output)
						}
						if !strings.Contains(unguarded.Output, "Syntax error") || !strings.Contains(unguarded.Output, "[exit code 2]") || strings.Contains(unguarded.Output, "FAKE-RM") {
							t.Errorf("run without the guard, %s should not parse it: %q", sh, unguarded.Output)
						}
					}
					if refused && !sh.Bash && (!strings.Contains(guarded.Output, "bash is not installed here") || strings.Contains(guarded.Output, "bash -c")) {
						t.Errorf("a refusal where bash is missing should say so, and not suggest bash -c: %q", guarded.Output)
					}
				})
			}
		})
	}
}

// rmCalledOn reports whether fakeRm's report in out names path as the
// first operand after -rf.
func rmCalledOn(out, path string) bool {
	for _, line := range strings.Split(out, "\n") {
		if args, ok := strings.CutPrefix(line, "FAKE-RM-CALLED:-rf "); ok {
			if f := strings.Fields(args); len(f) > 0 && f[0] == path {
				return true
			}
		}
	}
	return false
}

// pathWithoutBash is a PATH of one directory holding links to the named
// programs (found on the current PATH) and no bash.
func pathWithoutBash(t *testing.T, names ...string) string {
	t.Helper()
	dir := t.TempDir()
	for _, n := range names {
		p, err := exec.LookPath(n)
		if err != nil {
			testenv.NeedsTool(t, n, "the lines run on a PATH without bash", "apt-get install coreutils findutils diffutils")
		}
		if err := os.Symlink(p, filepath.Join(dir, n)); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}
