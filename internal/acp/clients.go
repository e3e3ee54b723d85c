package acp

import (
	"strings"

	sdk "github.com/coder/acp-go-sdk"
)

// clientProfile is what cb-ls knows of a client beyond its
// capabilities: some clients offer fs/* but do not give what the
// protocol means by them, and following them would lose the user's work.
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
}

// diskBackedClients are the clientInfo names (lower case) of clients
// known to be disk-backed. CodeCompanion.nvim (its
// interactions/chat/acp/fs.lua, checked at v19.22): read_text_file reads
// the path with the file utilities, and write_text_file calls
// nvim_buf_set_lines on the open buffer and then `silent update!`.
var diskBackedClients = []string{"codecompanion"}

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
	return p
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
