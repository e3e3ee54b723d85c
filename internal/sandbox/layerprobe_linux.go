package sandbox

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

// probeToken is what the probe's command prints when it read, through
// the merged view, a file that lies only in the upper directory.
const probeToken = "cb-ls overlay probe: merged"

// overlayErr says why commands cannot run over a copy-on-write layer on
// this system (info as probed without it), or nil when they can. It
// mounts one for real, through the helper, as Prepare's commands get
// it: a kernel version says too little (a distribution may forbid
// overlayfs in user namespaces, a security module may refuse it).
func overlayErr(info Info) error {
	switch {
	case info.Landlock == 0:
		return errors.New("the copy-on-write layer needs the command sandbox, which is off here")
	case !info.Namespaces:
		return fmt.Errorf("the copy-on-write layer needs private mount namespaces, and %v", namespacesErr())
	}
	if major, minor, ok := kernelVersion(); ok && (major < 5 || major == 5 && minor < 11) {
		return fmt.Errorf("overlayfs in a user namespace needs Linux 5.11 or later, and this is %d.%d", major, minor)
	}
	if _, ok := os.LookupEnv(specEnv); ok {
		// This process was started as the helper and did not become it:
		// a probe from here would start itself again.
		return errors.New("this program does not start the sandbox helper (sandbox.Main)")
	}
	// The upper and work directories of every run lie in the user's
	// state directory (package userstate), so that is where the layer
	// must work: a state directory on NFS, or on a tmpfs without user
	// extended attributes, cannot host it, and commands then fall back
	// as where there is no overlay, with this reason.
	state := userstate.Base(os.Getenv)
	if state == "" {
		return errors.New("the copy-on-write layer lives in the user's state directory, and there is none (no home directory)")
	}
	if err := probeOverlayIn(state); err != nil {
		return fmt.Errorf("the state directory %s cannot hold the copy-on-write layer: %w", state, err)
	}
	return nil
}

// probeOverlayIn mounts a layer whose directories lie in parent and
// checks that a file of its upper directory shows in the merged view.
func probeOverlayIn(parent string) error {
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return err
	}
	dir, err := os.MkdirTemp(parent, "overlay-probe-")
	if err != nil {
		return err
	}
	defer removeTree(dir)
	l := OverlayLayer{Lower: filepath.Join(dir, "lower"), Upper: filepath.Join(dir, "upper"), Work: filepath.Join(dir, "work")}
	for _, d := range []string{l.Lower, l.Upper, l.Work} {
		if err := os.Mkdir(d, 0o700); err != nil {
			return err
		}
	}
	if err := os.WriteFile(filepath.Join(l.Upper, "probe"), []byte(probeToken), 0o600); err != nil {
		return err
	}
	self, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return fmt.Errorf("read the server's mount namespace: %v", err)
	}
	spec, err := json.Marshal(helperSpec{
		Argv:   []string{"/bin/cat", filepath.Join(l.Lower, "probe")},
		Dir:    "/",
		Rules:  []rule{{Path: "/", Access: llRead}},
		Mounts: &nsMounts{ParentNS: self, Layers: []OverlayLayer{l}},
	})
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	// A binary that does not call Main takes the argument as its own: a
	// test binary then runs no test, any other fails on the flag.
	cmd := exec.CommandContext(ctx, "/proc/self/exe", "-test.run=^$")
	cmd.Args[0] = "cb-ls-overlay-probe"
	cmd.Env = []string{specEnv + "=" + string(spec)}
	cmd.SysProcAttr = namespaceAttr(Policy{Network: true})
	out, err := cmd.CombinedOutput()
	text := strings.TrimSpace(string(out))
	switch {
	case text == probeToken:
		return nil
	case strings.HasPrefix(text, layerFailed):
		_, why, _ := strings.Cut(text, "): ")
		return fmt.Errorf("overlayfs cannot be mounted in the sandbox's user namespace here: %s", why)
	case err != nil:
		return fmt.Errorf("the sandbox helper could not show a copy-on-write layer (%v): %s", err, firstLine(text))
	}
	return fmt.Errorf("the sandbox helper's merged view lacks the upper layer's file: %s", firstLine(text))
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// removeTree removes dir and everything beneath it, making read-only
// directories writable first: overlayfs leaves its work directory mode
// 000, Go's module cache leaves read-only ones.
func removeTree(dir string) error {
	_ = filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	return os.RemoveAll(dir)
}
