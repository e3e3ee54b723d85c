package changeset

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/catbuddy/cb-ls/internal/tools"
)

// fileAt returns the pending file rel, failing when it is not listed.
func (fx *fixture) fileAt(rel string) File {
	fx.t.Helper()
	for _, f := range fx.set.Files() {
		if f.Path.Rel == rel {
			return f
		}
	}
	fx.t.Fatalf("%s is not listed: %+v", rel, fx.set.Files())
	return File{}
}

// A cloned project ships creds.txt -> ~/.git-credentials; the model
// replaces it in the layer. The change's base is the link, never what
// it points to: the credentials reach neither the listing nor the news
// the agent gets after a discard.
func TestExecOverACredentialLinkNeverReadsThrough(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	secret := filepath.Join(t.TempDir(), ".git-credentials")
	const token = "https://user:ghp_SECRETTOKEN@github.com"
	if err := os.WriteFile(secret, []byte(token+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(secret, filepath.Join(fx.root, "creds.txt")); err != nil {
		t.Fatal(err)
	}
	out := fx.exec("rm creds.txt && echo x > creds.txt", true)
	if strings.Contains(out, "SECRETTOKEN") {
		t.Fatalf("the command's result holds the credentials:\n%s", out)
	}
	f := fx.fileAt("creds.txt")
	for _, h := range f.Hunks {
		if strings.Contains(h.OldText+h.NewText+h.Label, "SECRETTOKEN") {
			t.Fatalf("the pending change holds the credentials: %+v", h)
		}
	}
	if f.Whole == nil || f.Whole.BaseForm != FormLink || f.Whole.BaseTarget != secret || f.Whole.Form != FormText {
		t.Fatalf("creds.txt is not a link replaced by a file: %+v", f.Whole)
	}
	if !strings.Contains(f.Hunks[0].Label, "replacing link -> "+secret) {
		t.Fatalf("label %q", f.Hunks[0].Label)
	}
	if _, err := fx.set.Discard(Selection{}); err != nil {
		t.Fatal(err)
	}
	if news := fx.set.TakeNews(); strings.Contains(news, "SECRETTOKEN") || !strings.Contains(news, "creds.txt") {
		t.Fatalf("news after the discard = %q", news)
	}
	if tg, err := os.Readlink(filepath.Join(fx.root, "creds.txt")); err != nil || tg != secret {
		t.Fatalf("the user's link is now %q, %v", tg, err)
	}
}

// z -> /dev/zero deleted by a command: the listing looks at the link,
// and never reads the device (which would never end).
func TestExecDeletingALinkToDevZeroIsBounded(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	if err := os.Symlink("/dev/zero", filepath.Join(fx.root, "z")); err != nil {
		t.Fatal(err)
	}
	fx.exec("rm z", true)
	done := make(chan []File, 1)
	go func() { done <- fx.set.Files() }()
	var files []File
	select {
	case files = <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("listing a deleted link to /dev/zero did not end")
	}
	if len(files) != 1 || files[0].Path.Rel != "z" || files[0].Kind != KindDeleted || files[0].Whole == nil || files[0].Whole.BaseTarget != "/dev/zero" {
		t.Fatalf("files = %+v", files)
	}
	if _, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(fx.root, "z")); !os.IsNotExist(err) {
		t.Fatalf("the kept deletion left z: %v", err)
	}
}

// truncate -s 2G in a command: one whole-file item, listed by its size,
// with nothing the size of the file ever allocated.
func TestExecHugeSparseFileIsOneWholeItem(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	fx.exec("truncate -s 2G big.bin", true)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f := fx.fileAt("big.bin")
	_ = fx.set.ViewFiles()
	_ = fx.set.Count()
	runtime.ReadMemStats(&after)
	if grown := after.TotalAlloc - before.TotalAlloc; grown > 32<<20 {
		t.Fatalf("listing a 2 GB file allocated %d MB", grown>>20)
	}
	if f.Whole == nil || f.Whole.Form != FormBig || f.Whole.Size != 2<<30 || len(f.Hunks) != 1 ||
		f.Hunks[0].Label != "big.bin: 2.0 GB, whole file" || f.Hunks[0].NewText != "" {
		t.Fatalf("big.bin = %+v, %+v", f.Whole, f.Hunks)
	}
	if _, err := fx.view.Read(context.Background(), fx.path("big.bin")); err == nil {
		t.Fatal("the run's view read a 2 GB file whole")
	}
	if _, err := fx.set.Discard(Selection{}); err != nil || len(fx.set.Files()) != 0 {
		t.Fatalf("discard: %v, %+v", err, fx.set.Files())
	}
}

// A big binary file is kept byte for byte, streamed, through no editor.
func TestExecBigAndBinaryFilesKeptWhole(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	out := fx.exec(`head -c 9437184 /dev/urandom > big.bin && printf 'x\000\377\376y' > small.bin && sha256sum big.bin`, true)
	f := fx.fileAt("big.bin")
	if f.Whole == nil || f.Whole.Form != FormBig {
		t.Fatalf("big.bin = %+v", f)
	}
	if s := fx.fileAt("small.bin"); s.Whole == nil || s.Whole.Form != FormBinary || s.Hunks[0].Label != "small.bin: 5 bytes, binary, whole file" {
		t.Fatalf("small.bin = %+v %+v", s.Whole, s.Hunks)
	}
	res, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil || len(res.Left) != 0 || len(res.Kept) != 2 {
		t.Fatalf("keep = %+v, %v", res, err)
	}
	b, err := os.ReadFile(filepath.Join(fx.root, "big.bin"))
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	if !strings.Contains(out, hex.EncodeToString(sum[:])) {
		t.Fatalf("big.bin on disk is not what the command wrote (%x):\n%s", sum, out)
	}
	if got := fx.disk("small.bin"); got != "x\x00\xff\xfey" {
		t.Fatalf("small.bin = %q", got)
	}
}

// A FIFO and links a command made are listed; keep makes the links
// (never following them) and names the FIFO as left, never dropping it.
func TestExecFIFOAndLinksListedAndKept(t *testing.T) {
	needsOverlay(t)
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	out := fx.exec("mkfifo pipe && ln -s ../outside/secret lnk && ln -sf a.txt a-link", true)
	if !strings.Contains(out, "created pipe (a FIFO; not kept") || !strings.Contains(out, "created lnk (link -> ../outside/secret)") {
		t.Fatalf("the agent is not told of the FIFO and the link:\n%s", out)
	}
	pipe := fx.fileAt("pipe")
	if pipe.Whole == nil || pipe.Whole.Form != FormFIFO || !strings.Contains(pipe.KeepRefused, "not kept: a FIFO") {
		t.Fatalf("pipe = %+v", pipe)
	}
	if l := fx.fileAt("lnk"); l.Whole == nil || l.Whole.Form != FormLink || l.Hunks[0].Label != "lnk: link -> ../outside/secret" {
		t.Fatalf("lnk = %+v", l)
	}
	res, err := fx.set.Keep(context.Background(), Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 2 || len(res.Left) != 1 || res.Left[0].Hunk != pipe.Hunks[0].ID || !strings.Contains(res.Left[0].Reason, "a FIFO") {
		t.Fatalf("keep = %+v", res)
	}
	for name, want := range map[string]string{"lnk": "../outside/secret", "a-link": "a.txt"} {
		if tg, err := os.Readlink(filepath.Join(fx.root, name)); err != nil || tg != want {
			t.Fatalf("%s on disk: %q, %v", name, tg, err)
		}
	}
	if _, err := os.Lstat(filepath.Join(fx.root, "pipe")); !os.IsNotExist(err) {
		t.Fatalf("the FIFO reached the disk: %v", err)
	}
	if files := fx.set.Files(); len(files) != 1 || files[0].Path.Rel != "pipe" {
		t.Fatalf("pending after the keep: %+v", files)
	}
}

// Nothing beneath a .git or .catbuddy directory, at any depth and in
// any case, is kept; it is listed, and discarded.
func TestKeepRefusesGitAndStateDirectories(t *testing.T) {
	fx := newFixture(t, map[string]string{"vendor/x/.GIT/config": "[core]\n", "a.txt": "a\n"})
	ctx := context.Background()
	fx.edit(fx.view, "vendor/x/.GIT/config", "[core]\n", "[core]\n\tfsmonitor = ./evil\n")
	create := func(rel, text string) {
		p := pathOf(fx.root, rel)
		if _, err := fx.view.Apply(ctx, tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: text}}, After: []byte(text)}); err != nil {
			t.Fatal(err)
		}
	}
	create("sub/.catbuddy/state.json", "{}\n")
	fx.edit(fx.view, "a.txt", "a", "A")
	res, err := fx.set.Keep(ctx, Selection{}, tools.DiskWorkspace{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Kept) != 1 || len(res.Left) != 2 {
		t.Fatalf("keep = %+v", res)
	}
	for _, l := range res.Left {
		if !strings.Contains(l.Reason, "not kept: cb-ls never writes into") {
			t.Fatalf("left %+v", l)
		}
	}
	if fx.disk("vendor/x/.GIT/config") != "[core]\n" || !strings.HasPrefix(fx.disk("sub/.catbuddy/state.json"), "<") || fx.disk("a.txt") != "A\n" {
		t.Fatal("keep wrote beneath .git or .catbuddy, or not a.txt")
	}
	if f := fx.fileAt("vendor/x/.GIT/config"); f.KeepRefused == "" || f.RunsLater == "" {
		t.Fatalf("config = %+v", f)
	}
	if _, err := fx.set.Discard(Selection{}); err != nil || len(fx.set.Files()) != 0 {
		t.Fatalf("discard: %v, %+v", err, fx.set.Files())
	}
}

// Files that run later without the user typing a build command say why.
func TestFilesThatRunLaterSayWhy(t *testing.T) {
	fx := newFixture(t, map[string]string{"a.txt": "a\n"})
	for rel, why := range map[string]string{
		".envrc":                   "direnv loads it on cd",
		".github/workflows/ci.yml": "GitHub Actions runs it on the next push",
		".vscode/tasks.json":       "VS Code runs its tasks",
		".gitattributes":           "filter and diff drivers",
		"main.go":                  "",
	} {
		p := pathOf(fx.root, rel)
		if _, err := fx.view.Apply(context.Background(), tools.Change{Path: p, Create: true, Edits: []tools.TextEdit{{NewText: "x\n"}}, After: []byte("x\n")}); err != nil {
			t.Fatal(err)
		}
		f := fx.fileAt(rel)
		if why == "" && f.RunsLater != "" || !strings.Contains(f.RunsLater, why) {
			t.Errorf("%s runs later: %q, want %q", rel, f.RunsLater, why)
		}
		if f.KeepRefused != "" {
			t.Errorf("%s refused: %s", rel, f.KeepRefused)
		}
	}
}
