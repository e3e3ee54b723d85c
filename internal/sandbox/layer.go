package sandbox

import (
	"errors"
	"io/fs"
)

// ErrNoOverlay is wrapped by Prepare's error when a request asks for a
// copy-on-write layer and this system cannot give one: the caller falls
// back to asking before a command writes (Info.OverlayReason says why).
var ErrNoOverlay = errors.New("no copy-on-write layer")

// ErrLayerInterrupted is wrapped by Prepare's error when the machine
// stopped while a command ran over the layer: what that command wrote
// may be incomplete. OverlayLayer.ClearInterrupted accepts the layer.
var ErrLayerInterrupted = errors.New("a command over the layer was interrupted")

// Change is what a layer does to one path of its folder.
type Change uint8

const (
	// Created: the folder has nothing at the path.
	Created Change = iota + 1
	// Changed: the path replaces the folder's entry of the same type,
	// in content or mode (a directory is listed only when its mode
	// changed; a file copied up unchanged, by touch for one, is listed
	// too).
	Changed
	// Deleted: the folder's entry, and for a directory everything
	// beneath it, is gone (a whiteout, or absent beneath an opaque
	// directory).
	Deleted
	// Replaced: the folder's entry is gone and the layer's is in its
	// place: one of another type, or an opaque directory, which shows
	// nothing of the folder's directory. The entries beneath it are
	// listed as well: those the layer has, and as Deleted those of the
	// folder's directory that it hides.
	Replaced
)

func (c Change) String() string {
	switch c {
	case Created:
		return "created"
	case Changed:
		return "changed"
	case Deleted:
		return "deleted"
	case Replaced:
		return "replaced"
	}
	return "unknown"
}

// UpperEntry is one changed path of a layer (see ScanUpper).
type UpperEntry struct {
	// Path is relative to the layer's root, slash-separated.
	Path   string
	Change Change
	// Mode and Size are the layer's entry's (zero for Deleted);
	// LowerMode is the folder's (zero for Created).
	Mode      fs.FileMode
	LowerMode fs.FileMode
	Size      int64
	// Target is a symbolic link's target.
	Target string
	// ModeOnly marks a Changed entry whose content is the folder's:
	// only its permissions differ.
	ModeOnly bool
}
