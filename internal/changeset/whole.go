package changeset

import (
	"fmt"
	"path"
	"strings"

	"github.com/catbuddy/cb-ls/internal/shell"
)

// Whole describes a pending file that is one item, kept or discarded as
// a whole and never diffed: a binary file, a text that is not UTF-8, a
// file over MaxDiffSize, a symbolic link, a FIFO, a socket, a device,
// or a path too long for the system. Front ends show Describe (the file's one hunk has it as its
// Label) instead of a diff.
type Whole struct {
	// Form is what the run leaves at the path (FormNone for a deletion),
	// BaseForm what the user has there (FormNone for a creation).
	Form, BaseForm Form
	// Size and BaseSize are the regular files' sizes in bytes.
	Size, BaseSize int64
	// Target and BaseTarget are the links' targets, as written in them
	// (never followed).
	Target, BaseTarget string
}

// Describe names the item for the user: "big.bin: 2.0 GB, whole file",
// "lib: link -> ../lib2", "run.fifo: a FIFO".
func (w *Whole) Describe(rel string) string {
	if w.Form == FormNone {
		return rel + ": delete " + formPhrase(w.BaseForm, w.BaseSize, w.BaseTarget)
	}
	what := formPhrase(w.Form, w.Size, w.Target)
	if w.BaseForm != FormNone && w.BaseForm != w.Form {
		what += ", replacing " + formPhrase(w.BaseForm, w.BaseSize, w.BaseTarget)
	}
	return rel + ": " + what
}

// formPhrase names one side.
func formPhrase(f Form, size int64, target string) string {
	switch f {
	case FormLink:
		return "link -> " + target
	case FormBig, FormText:
		return humanSize(size) + ", whole file"
	case FormBinary:
		return humanSize(size) + ", binary, whole file"
	case FormNotUTF8:
		return humanSize(size) + ", not UTF-8 text, whole file"
	case FormFIFO:
		return "a FIFO"
	case FormSocket:
		return "a socket"
	case FormDevice:
		return "a device"
	case FormDir:
		return "a directory"
	case FormLongPath:
		return "a path longer than the system allows"
	}
	return "nothing"
}

// humanSize writes n bytes as "2.0 GB", "812 bytes".
func humanSize(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d bytes", n)
	}
	v, i := float64(n), -1
	for v >= unit && i < 4 {
		v /= unit
		i++
	}
	return fmt.Sprintf("%.1f %cB", v, "KMGTP"[i])
}

// unkeepable says why a whole item cannot be kept: what the run leaves
// is not something cb-ls makes in the user's folder.
func (w *Whole) unkeepable() string {
	switch w.Form {
	case FormFIFO, FormSocket, FormDevice, FormDir:
		return "not kept: " + formPhrase(w.Form, 0, "") + "; only regular files and links are kept (discard it)"
	case FormLongPath:
		return "not kept: its path is longer than the system allows (discard it)"
	}
	if w.BaseForm == FormLongPath || w.BaseForm == FormDir {
		return "not kept: the folder has " + formPhrase(w.BaseForm, 0, "") + " there (discard it)"
	}
	return ""
}

// protectedReason says why keep never writes rel: beneath a .git or
// .catbuddy directory at any depth (git runs its hooks and config;
// cb-ls keeps its own state), names compared without regard to case,
// as a case-insensitive file system would. "" when rel may be kept.
func protectedReason(rel string) string {
	for _, part := range strings.Split(path.Clean(rel), "/") {
		switch strings.ToLower(part) {
		case ".git":
			return "not kept: cb-ls never writes into a .git directory (git runs its hooks and config); discard it, or make the change yourself"
		case ".catbuddy":
			return "not kept: cb-ls never writes into its own .catbuddy directory; discard it"
		}
	}
	return ""
}

// runsLater says why rel runs later outside any sandbox, or "".
func runsLater(rel string) string { return shell.RunsLaterReason(rel) }
