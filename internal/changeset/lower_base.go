package changeset

import (
	"context"
	"encoding/hex"
	"fmt"
)

// A file a command deleted, and each file of a command's ignored
// outputs, has no copy of its base: its base is the folder's entry
// itself (fileRecord.Lower), which the layer never writes. An
// `rm -rf` or an `npm install` must not copy the tree. What the folder
// held when the run first touched the file is recorded instead, as a
// fingerprint in the manifest (lowerBase: size and SHA-256, a link's
// target): a keep compares the user's entry with it, and a file the
// user changed since is left pending with the reason, never
// overwritten or deleted.

// lowerBase is the fingerprint of a folder's entry, as the run found it.
type lowerBase struct {
	Form   Form   `json:"form,omitempty"`
	Size   int64  `json:"size,omitempty"`
	SHA256 string `json:"sha256,omitempty"`
	Target string `json:"target,omitempty"`
}

// fingerprint records what the folder holds at rel now. It reads as
// every read here: following no link, opening nothing but a regular
// file, a big one streamed into the hash.
func fingerprint(ctx context.Context, root, rel string) (*lowerBase, error) {
	sd, err := readSide(ctx, root, rel)
	if err != nil {
		return nil, err
	}
	return fingerprintOf(ctx, sd)
}

// fingerprintOf is the fingerprint of a side already read.
func fingerprintOf(ctx context.Context, sd side) (*lowerBase, error) {
	lb := &lowerBase{Form: sd.form, Target: sd.target}
	if sd.form.regular() {
		sum, err := sd.sum(ctx)
		if err != nil {
			return nil, err
		}
		lb.Size, lb.SHA256 = sd.size, hex.EncodeToString(sum[:])
	}
	return lb, nil
}

// matches reports whether o is the same entry as lb: the same form, and
// the same bytes or the same target.
func (lb *lowerBase) matches(o *lowerBase) bool {
	if lb.Form.regular() && o.Form.regular() {
		return lb.Size == o.Size && lb.SHA256 == o.SHA256
	}
	return lb.Form == o.Form && lb.Target == o.Target
}

// userChanged says whether the user changed rel in the folder since the
// run recorded it, for a record whose base is the folder's entry
// (Lower); false for any other record, and for a record of an older
// version of cb-ls, which kept no fingerprint. gone tells that the
// entry is not there at all any more. s.mu is held.
func (f *folder) userChanged(ctx context.Context, rec *fileRecord, rel string) (changed, gone bool, err error) {
	if rec == nil || !rec.Lower || rec.Base == nil {
		return false, false, nil
	}
	now, err := fingerprint(ctx, f.root, rel)
	if err != nil {
		return false, false, fmt.Errorf("look at %s: %w", rel, err)
	}
	return !rec.Base.matches(now), now.Form == FormNone, nil
}
