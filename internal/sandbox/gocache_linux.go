package sandbox

import (
	"os"
	"path/filepath"
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
