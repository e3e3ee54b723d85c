package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// goCacheOverlay plans the copy-on-write view of the user's Go build
// cache at target, so the first build of a command is as warm as the
// user's own; nil where the user has no build cache.
func goCacheOverlay(tmp, target string) *nsOverlay {
	lower := os.Getenv("GOCACHE")
	if lower == "" {
		if c, err := os.UserCacheDir(); err == nil {
			lower = filepath.Join(c, "go-build")
		}
	}
	if fi, err := os.Stat(lower); lower == "" || lower == "off" || err != nil || !fi.IsDir() {
		return nil
	}
	scratch := filepath.Join(tmp, ".gocache")
	o := &nsOverlay{Lower: realOr(lower), Target: target, Scratch: scratch, Upper: filepath.Join(scratch, "upper"), Work: filepath.Join(scratch, "work")}
	for _, d := range []string{o.Scratch, o.Target} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			return nil
		}
	}
	return o
}

// coldNote is the file in the command's TMPDIR (the parent of the
// overlay's Scratch) where the helper says why the overlay failed.
const coldNote = ".gocache-cold"

// noteGoCacheCold records, for the server to read after the command
// (GoCacheCold), that the user's build cache could not be overlaid.
func noteGoCacheCold(o *nsOverlay, err error) {
	msg := fmt.Sprintf("no overlay of %s: %v", o.Lower, err)
	_ = os.WriteFile(filepath.Join(filepath.Dir(o.Scratch), coldNote), []byte(msg), 0o600)
}

// GoCacheCold says why the command's Go build cache did not start as a
// view of the user's ("no overlay of …: …"), or "" when it did or no
// overlay was planned. Builds then fill the private cache, which
// persists: only the first build of a project is slow. Call it before
// Cleanup.
func (s *Run) GoCacheCold() string {
	b, err := os.ReadFile(filepath.Join(s.tmp, coldNote))
	if err != nil {
		return ""
	}
	return strings.TrimSpace(string(b))
}
