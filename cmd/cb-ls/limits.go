package main

import (
	"github.com/catbuddy/cb-ls/internal/changeset"
	"github.com/catbuddy/cb-ls/internal/config"
)

// applyUserLimits sets, once at start and before anything runs, the
// limits that only the user's own config.json may set: maxDiffMB, the
// size over which a pending file is one whole-file item.
func applyUserLimits() {
	if mb := config.UserMaxDiffMB(); mb > 0 {
		changeset.MaxDiffSize = int64(mb) << 20
	}
}
