package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// A command over the layer cannot change a file whose owner (or group)
// the helper's user namespace does not map, and it maps only the
// user's own uid and gid: overlayfs copies a file up with its owner,
// and chown to an unmapped id fails with EOVERFLOW ("Value too large
// for defined data type"). Inside the namespace such a file shows as
// uid 65534. Creating or deleting an entry copies up its directory, so
// a foreign directory refuses those too.
//
// Nothing can be caught before the command runs without walking the
// whole workspace for every call, and the command sees only the errno.
// So the explanation comes afterwards, from what is known for certain:
// the output names the errno, and the files it names (or, when it names
// none, the workspace's files) are looked up for their owner. The
// caller adds LayerNote's sentence to the command's result.

// eoverflowText is EOVERFLOW's message as C libraries, Python, Go and
// Node spell it (compared without case).
const eoverflowText = "value too large for defined data type"

// foreignWalkLimit bounds the walk for foreign files when the output
// names none: the note is not worth more than a fraction of a second.
const foreignWalkLimit = 100000

// LayerNote explains, for the command's result, a failure that the
// copy-on-write layer caused: "" unless the run has a layer and the
// output reports EOVERFLOW. It names the files owned by another user
// that the command could not change, and says why.
func (s *Run) LayerNote(output string) string {
	if len(s.layers) == 0 || !strings.Contains(strings.ToLower(output), eoverflowText) && !strings.Contains(output, "EOVERFLOW") {
		return ""
	}
	uid, gid := os.Getuid(), os.Getgid()
	var named []string
	seen := map[string]bool{}
	for _, line := range strings.Split(output, "\n") {
		if !strings.Contains(strings.ToLower(line), eoverflowText) && !strings.Contains(line, "EOVERFLOW") {
			continue
		}
		for _, c := range pathCandidates(line) {
			if !filepath.IsAbs(c) {
				c = filepath.Join(s.dir, c)
			}
			c = filepath.Clean(c)
			for _, l := range s.layers {
				if !isUnder(c, l.Lower) || c == l.Lower {
					continue
				}
				for _, p := range foreignOnPath(l.Lower, c, uid, gid) {
					if !seen[p] {
						seen[p] = true
						named = append(named, describeOwner(p, l.Lower))
					}
				}
			}
		}
	}
	me := fmt.Sprintf("uid %d", uid)
	why := fmt.Sprintf("the sandbox's user namespace maps only your own user (%s) and group, so the copy-on-write layer cannot copy such a file or directory up to change it, nor create or delete entries in such a directory (EOVERFLOW, \"Value too large for defined data type\"). Nothing on disk changed; changing the owner to you lets commands change them.", me)
	if len(named) > 0 {
		return fmt.Sprintf("[layer: %s %s owned by another user or group: %s]", strings.Join(named, ", "), isAre(len(named)), why)
	}
	found, more := foreignFiles(s.layers, uid, gid, 5)
	if len(found) == 0 {
		return "[layer: the command reports EOVERFLOW (\"Value too large for defined data type\"), and no file of another owner was found in the workspace, so it comes from elsewhere than the copy-on-write layer.]"
	}
	list := strings.Join(found, ", ")
	if more {
		list += " and more"
	}
	return fmt.Sprintf("[layer: the command reports EOVERFLOW without naming the file; the workspace holds files of another user or group (%s), and %s]", list, why)
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// pathCandidates are the words of an error line that may be paths: the
// quoted strings, the parts between ": ", and the plain words.
func pathCandidates(line string) []string {
	var out []string
	for _, q := range []struct{ open, close string }{{"'", "'"}, {`"`, `"`}, {"‘", "’"}, {"`", "'"}} {
		rest := line
		for {
			i := strings.Index(rest, q.open)
			if i < 0 {
				break
			}
			rest = rest[i+len(q.open):]
			j := strings.Index(rest, q.close)
			if j < 0 {
				break
			}
			out = append(out, rest[:j])
			rest = rest[j+len(q.close):]
		}
	}
	for _, part := range strings.Split(line, ": ") {
		out = append(out, strings.TrimSpace(part))
		for _, w := range strings.Fields(part) {
			out = append(out, strings.Trim(w, "'\"‘’`,;()[]"))
		}
	}
	return out
}

// foreignOnPath lists the existing entries from lower (exclusive) down
// to p that belong to another user or group: a copy-up of p needs
// each of them.
func foreignOnPath(lower, p string, uid, gid int) []string {
	rel, err := filepath.Rel(lower, p)
	if err != nil {
		return nil
	}
	var out []string
	cur := lower
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		cur = filepath.Join(cur, part)
		fi, err := os.Lstat(cur)
		if err != nil {
			break
		}
		if foreign(fi, uid, gid) {
			out = append(out, cur)
		}
	}
	return out
}

func foreign(fi fs.FileInfo, uid, gid int) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (int(st.Uid) != uid || int(st.Gid) != gid)
}

// describeOwner says "src/gen.go (uid 0, root)" for a path of the layer.
func describeOwner(p, lower string) string {
	rel, err := filepath.Rel(lower, p)
	if err != nil {
		rel = p
	}
	fi, err := os.Lstat(p)
	if err != nil {
		return rel
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return rel
	}
	owner := "uid " + strconv.Itoa(int(st.Uid))
	if u, err := user.LookupId(strconv.Itoa(int(st.Uid))); err == nil {
		owner += ", " + u.Username
	}
	if int(st.Gid) != os.Getgid() {
		owner += fmt.Sprintf(", gid %d", st.Gid)
	}
	if fi.IsDir() {
		rel += "/"
	}
	return fmt.Sprintf("%s (%s)", filepath.ToSlash(rel), owner)
}

// foreignFiles walks the layers' folders (not .git/ or .catbuddy/) for
// up to max entries of another owner.
func foreignFiles(layers []OverlayLayer, uid, gid, max int) (found []string, more bool) {
	seen := 0
	for _, l := range layers {
		filepath.WalkDir(l.Lower, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			seen++
			if seen > foreignWalkLimit {
				return filepath.SkipAll
			}
			if d.IsDir() && p != l.Lower && (d.Name() == ".git" || d.Name() == ".catbuddy") {
				return filepath.SkipDir
			}
			if p == l.Lower {
				return nil
			}
			if fi, err := d.Info(); err == nil && foreign(fi, uid, gid) {
				if len(found) == max {
					more = true
					return filepath.SkipAll
				}
				found = append(found, describeOwner(p, l.Lower))
			}
			return nil
		})
	}
	return found, more
}
