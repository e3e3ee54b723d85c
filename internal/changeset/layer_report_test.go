package changeset

import (
	"strings"
	"testing"
)

// TestExecReportSaysOnlyChanges: what a command's result says it left
// pending is what changed: a file rewritten to its own bytes (a
// formatter) is not named; an ignored file that is a group of its own
// (Cargo.lock) is named as the file, not as a folder; files a command
// made and removed within itself are not named, and the ignored
// temporary files an earlier command left, which this one removed,
// count in their folder's group, not as files "reverted".
func TestExecReportSaysOnlyChanges(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"readme.md": "# hi\n", ".gitignore": "Cargo.lock\ncoverage/\n", "src/a.txt": "a\n"})

	out := fx.exec("cp readme.md $TMPDIR/r && cat $TMPDIR/r > readme.md && echo lock > Cargo.lock", true)
	if strings.Contains(out, "readme.md") {
		t.Errorf("a byte-identical rewrite is reported:\n%s", out)
	}
	if !strings.Contains(out, "created Cargo.lock") || strings.Contains(out, "Cargo.lock/") {
		t.Errorf("a single ignored file is not shown as the file:\n%s", out)
	}

	out = fx.exec("echo x > src/tmp.json && mkdir -p scratch && echo y > scratch/b && rm -rf src/tmp.json scratch", true)
	if strings.Contains(out, "tmp.json") || strings.Contains(out, "scratch") || strings.Contains(out, "Pending") {
		t.Errorf("files made and removed within the command are reported:\n%s", out)
	}

	fx.exec("mkdir -p coverage/tmp && echo 1 > coverage/tmp/c-1.json && echo 2 > coverage/tmp/c-2.json", true)
	out = fx.exec("rm -rf coverage/tmp && mkdir -p coverage/tmp && echo 3 > coverage/tmp/c-3.json", true)
	if strings.Contains(out, "reverted") || !strings.Contains(out, "coverage/ (3 files)") {
		t.Errorf("a coverage tool's temporary files:\n%s", out)
	}
}
