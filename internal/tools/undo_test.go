package tools

import (
	"os"
	"strings"
	"testing"

	"github.com/catbuddy/cb-ls/internal/filestate"
)

// TestUndoRunCommandChanges: files a write command changed are restored
// from the content recorded before it ran (RecordPrior), files it
// created are deleted, and a file whose content was not kept is named.
func TestUndoRunCommandChanges(t *testing.T) {
	e := newFileEnv(t, map[string]string{"gen.txt": "generated later\n", "made.txt": "by the command\n", "big.bin": "changed\n"})
	led := filestate.NewLedger()
	led.RecordPrior(e.abs("gen.txt"), []byte("original\n"), true)
	led.RecordPrior(e.abs("made.txt"), nil, false)
	led.RecordUnrestorable(e.abs("big.bin"), "a command changed it and it was larger than 1 MiB, too large to keep its content before the command")
	res, err := e.tc.UndoRun(t.Context(), led.Files())
	if err != nil {
		t.Fatalf("UndoRun: %v", err)
	}
	if got := e.read("gen.txt"); got != "original\n" {
		t.Errorf("gen.txt = %q", got)
	}
	if _, err := os.Stat(e.abs("made.txt")); !os.IsNotExist(err) {
		t.Errorf("made.txt still there: %v", err)
	}
	msg := res.Message()
	for _, w := range []string{"restored gen.txt", "deleted made.txt", "left big.bin alone: a command changed it and it was larger than 1 MiB"} {
		if !strings.Contains(msg, w) {
			t.Errorf("message %q lacks %q", msg, w)
		}
	}
}
