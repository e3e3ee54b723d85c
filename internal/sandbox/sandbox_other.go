//go:build !linux

package sandbox

import (
	"errors"
	"io/fs"
	"os"
	"os/exec"
)

// Probe reports that commands are not confined on this system.
func Probe() Info {
	return Info{Summary: "off (Landlock and namespaces exist only on Linux): commands run with the server's rights",
		OverlayReason: "The copy-on-write layer needs Linux's overlayfs, which this system does not have."}
}

// Run is never made here: Prepare fails.
type Run struct{ Cmd *exec.Cmd }

// Cleanup does nothing here.
func (s *Run) Cleanup() {}

// MountsFailed is always false here.
func (s *Run) MountsFailed(exitCode int, output string) bool { return false }

// Prepare fails: there is no sandbox on this system.
func Prepare(r Request) (*Run, error) {
	return nil, errors.New("no sandbox on this system")
}

// ForceSplitGrants does nothing here.
func ForceSplitGrants(on bool) {}

// Main returns at once: no process is ever started as the helper here.
func Main() {}

// LayerFailed is always false here: no layer is ever mounted.
func (s *Run) LayerFailed(exitCode int, output string) bool { return false }

// LayerNote says nothing here.
func (s *Run) LayerNote(output string) string { return "" }

// GoCacheCold is "": there is no overlay of the build cache here.
func (s *Run) GoCacheCold() string { return "" }

// ScanUpper fails here: there are no layers on this system.
func ScanUpper(upper, lower string) ([]UpperEntry, error) { return nil, ErrNoOverlay }

// WriteFile fails here: there are no layers on this system.
func (l OverlayLayer) WriteFile(rel string, data []byte, perm fs.FileMode) error { return ErrNoOverlay }

// Delete fails here: there are no layers on this system.
func (l OverlayLayer) Delete(rel string) error { return ErrNoOverlay }

// Revert fails here: there are no layers on this system.
func (l OverlayLayer) Revert(rel string) error { return ErrNoOverlay }

// Remove deletes the layer's directories.
func (l OverlayLayer) Remove() error { return errors.Join(os.RemoveAll(l.Upper), os.RemoveAll(l.Work)) }

// ClearInterrupted does nothing here: there are no layers.
func (l OverlayLayer) ClearInterrupted() error { return nil }
