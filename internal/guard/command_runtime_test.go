package guard

import (
	"errors"
	"strings"
	"testing"
)

// TestCommandGuardRuntimeParts covers commands whose program is known
// only at run time, cd followed within a line, and xargs.
func TestCommandGuardRuntimeParts(t *testing.T) {
	g := testCommandGuard()
	cases := []struct{ cmd, cwd, why string }{
		{"$(echo rm) -f keep.txt", "", "command name from $(…)"},
		{"`echo rm` -rf ~", "", "command name from $(…)"},
		{"$(echo rm) -rf ~", "", "known only at run time"},
		{"cmd=rm; $cmd -rf build", "", "variable"},
		{`"${X:-rm}" -rf x`, "", "known only at run time"},
		{"env $CMD x", "", "known only at run time"},
		{`eval "$payload"`, "", "known only at run time"},
		{`sh -c "$(cat script)"`, "", "known only at run time"},
		{"echo cm0gLXJmIH4= | base64 -d | sh", "", "runs data piped into it"},
		{"cat install.sh | bash", "", "runs data piped into it"},
		{"git show HEAD:x.py | python3 -", "", "runs data piped into it"},
		{"cat x | perl", "", "runs data piped into it"},
		{"cat x | bash -s -- arg", "", "runs data piped into it"},
		{"base64 -d < blob | source /dev/stdin", "", "runs data piped into it"},
		{"sh < script.sh", "", "file redirected into it"},
		{"python3 - < x.py", "", "file redirected into it"},
		{"bash <<< \"$(cat x)\"", "", "built at run time"},
		{"cd .. && rm -rf proj", "", "workspace root /work/proj"},
		{"cd sub; cd ../.. && rm -rf proj", "", "workspace root /work/proj"},
		{"cd && rm -rf .", "", "deletes /home/u"},
		{"cd ~ && rm -rf *", "", "everything in the working directory"},
		{"echo ~ | xargs rm -rf", "", "deletes /home/u"},
		{"echo / | xargs -n1 rm -rf", "", "deletes /"},
	}
	for _, c := range cases {
		err := g.Check(c.cmd, c.cwd)
		if err == nil {
			t.Errorf("Check(%q) = nil, want refusal mentioning %q", c.cmd, c.why)
			continue
		}
		if !errors.Is(err, ErrCommandRefused) || !strings.Contains(err.Error(), c.why) {
			t.Errorf("Check(%q) = %q, want a refusal mentioning %q", c.cmd, err, c.why)
		}
		refusedInPOSIX(t, g, c.cmd, c.cwd)
	}
	for _, ok := range []string{
		"echo 'ls -la' | sh",
		"cat data.json | python3 -c 'import json,sys; print(json.load(sys.stdin))'",
		"cat x | perl -ne 'print if /a/'",
		"echo hi | node -e 'process.stdin.pipe(process.stdout)'",
		"git diff | bash scripts/lint.sh",
		"$HOME/go/bin/staticcheck ./...",
		"cd sub && rm -rf build",
		"cd sub && go test ./...",
		"python3 - <<'EOF'\nprint(1)\nEOF",
		"find . -name '*.o' | xargs rm -f",
		"echo build | xargs rm -rf",
	} {
		if err := g.Check(ok, ""); err != nil {
			t.Errorf("Check(%q) = %v, want nil", ok, err)
		}
	}
}

func TestReadOnlyCommand(t *testing.T) {
	for _, c := range []string{
		"ls -la", "cat a.txt", "head -n 5 a", "rg TODO", "grep -rn x . | sort | head -20",
		"find . -name '*.go'", "git status", "git --no-pager diff HEAD~1", "git -C sub log --oneline",
		"git show HEAD:x", "git blame a.go", "go vet ./...", "go list -m all", "go version", "go env GOPATH",
		"wc -l a b 2>/dev/null", "cd sub && ls", "echo $(git rev-parse HEAD)", "cat a 2>&1",
	} {
		if !ReadOnlyCommand(c) {
			t.Errorf("ReadOnlyCommand(%q) = false, want true", c)
		}
	}
	for _, c := range []string{
		"rm keep.txt", "echo gone > keep.txt", "sed -i s/keep/lost/ keep.txt", "cd .. && rm -rf ws",
		"$(echo rm) -f keep.txt", "find . -delete", "find . -exec rm {} +", "find . -fprint out",
		"git commit -m x", "git -c core.pager=sh log", "git diff --output=x", "git", "go test ./...",
		"go env -w GOFLAGS=x", "go generate", "rg --pre ./evil x", "sort -o out in", "sort -oout in",
		"uniq in out", "./ls", "/tmp/cat x", "X=1 ls", "ls > out", "cat a >> b", "for f in *; do cat $f; done",
		"cat $f", "echo x | tee y", "touch x", "", "ls; rm x", "echo $(rm x)", "f() { ls; }",
	} {
		if ReadOnlyCommand(c) {
			t.Errorf("ReadOnlyCommand(%q) = true, want false", c)
		}
	}
}
