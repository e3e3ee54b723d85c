package acp

import (
	"strconv"
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// clientProfile is what cb-ls knows of a client beyond its
// capabilities: some clients offer fs/* but do not give what the
// protocol means by them, and following them would lose the user's work;
// some show only part of a question, and the user would approve what
// they never saw.
type clientProfile struct {
	// name is the client as it introduced itself, for logs.
	name string
	// diskBacked: the client answers fs/read_text_file from the disk, not
	// from its buffers (so the model would never see unsaved text, and a
	// missing file comes back as empty text), and its fs/write_text_file
	// replaces an open buffer and saves it, so unsaved text is gone from
	// buffer and disk alike. cb-ls then reads the disk itself and writes
	// atomically to the disk: the editor's own "file changed on disk"
	// check then protects a buffer with unsaved changes.
	diskBacked bool
	// firstContentOnly: the client shows the first content item of a
	// session/request_permission and nothing of the rest, so a question
	// about three files shows one diff. Such a client is asked one
	// question per file, that file's diff its only content.
	firstContentOnly bool
	// titleOnly: the client shows a question's title and nothing of its
	// content, so the diffs go into the title as unified diffs.
	titleOnly bool
}

// diskBackedClients are the clientInfo names (lower case) of clients
// known to be disk-backed. CodeCompanion.nvim (its
// interactions/chat/acp/fs.lua, checked at v19.22): read_text_file reads
// the path with the file utilities, and write_text_file calls
// nvim_buf_set_lines on the open buffer and then `silent update!`.
var diskBackedClients = []string{"codecompanion"}

// firstContentOnlyClients are the clientInfo names (lower case) of
// clients that show only the first content item of a question.
// CodeCompanion.nvim (interactions/chat/acp/request_permission.lua,
// checked at v19.22: requires_diff and get_diff read content[1] and
// locations[1] only). agent-shell up to 0.50.1 (agent-shell.el:
// agent-shell--make-diff-info takes the first "diff" item with seq-find);
// later versions are taken to show them all.
var firstContentOnlyClients = map[string]string{
	"codecompanion": "", // every version
	"agent-shell":   "0.50.1",
}

// titleOnlyClients are the clientInfo names of clients that show only
// a question's title. acpx (0.19.1, dist: promptForToolPermission
// prints "[permission] Allow <title> [<kind>]? (y/N)", and a tool call's
// diffs only as "diff <path> (+N lines)" once it ended).
var titleOnlyClients = []string{"acpx"}

// profileOf is the profile of the client that sent info in initialize.
func profileOf(info *sdk.Implementation) clientProfile {
	if info == nil {
		return clientProfile{name: "client"}
	}
	p := clientProfile{name: strings.TrimSpace(info.Name + " " + info.Version)}
	name := strings.ToLower(info.Name)
	for _, n := range diskBackedClients {
		if strings.Contains(name, n) {
			p.diskBacked = true
		}
	}
	for n, upTo := range firstContentOnlyClients {
		if strings.Contains(name, n) && (upTo == "" || !versionAfter(info.Version, upTo)) {
			p.firstContentOnly = true
		}
	}
	for _, n := range titleOnlyClients {
		if name == n {
			p.titleOnly = true
		}
	}
	return p
}

// versionAfter reports whether version v (dotted numbers, an optional
// "v" before them) comes after upTo. A version that cannot be read is
// not after: the client is taken to be the one known to need care.
func versionAfter(v, upTo string) bool {
	a, okA := versionParts(v)
	b, _ := versionParts(upTo)
	if !okA {
		return false
	}
	for i := 0; i < len(a) || i < len(b); i++ {
		var x, y int
		if i < len(a) {
			x = a[i]
		}
		if i < len(b) {
			y = b[i]
		}
		if x != y {
			return x > y
		}
	}
	return false
}

// versionParts reads "0.50.1" (or "v0.50.1", "0.50.1-snapshot").
func versionParts(v string) ([]int, bool) {
	v = strings.TrimPrefix(strings.TrimSpace(v), "v")
	if i := strings.IndexAny(v, "-+ "); i >= 0 {
		v = v[:i]
	}
	if v == "" {
		return nil, false
	}
	var out []int
	for _, f := range strings.Split(v, ".") {
		n, err := strconv.Atoi(f)
		if err != nil {
			return nil, false
		}
		out = append(out, n)
	}
	return out, true
}

// fsCaps is the part of the client's fs capabilities cb-ls uses: none
// for a disk-backed client, whose reads and writes go to the disk
// directly.
func (p clientProfile) fsCaps(offered sdk.FileSystemCapabilities) sdk.FileSystemCapabilities {
	if p.diskBacked {
		return sdk.FileSystemCapabilities{}
	}
	return offered
}
