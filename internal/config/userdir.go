package config

// cb-ls keeps the user's own files in two directories: one configuration
// directory for every configuration file (config.json, mcp.json) and one
// state directory (the trust decisions, the runs' change sets and
// sessions). The configuration directory follows the XDG base directory
// variables on every platform, so the documented path ~/.config/catbuddy
// is the same on Linux and macOS; the state directory follows
// XDG_STATE_HOME where it is set and the platform's convention otherwise
// (package userstate).

import (
	"os"
	"path/filepath"

	"github.com/catbuddy/cb-ls/internal/userstate"
)

// UserDir returns $XDG_CONFIG_HOME/catbuddy, else ~/.config/catbuddy, or
// "" when neither the variable nor a home directory is known. getenv is
// os.Getenv outside tests.
func UserDir(getenv func(string) string) string {
	return dir(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateDir returns the user's state directory (userstate.Base):
// $XDG_STATE_HOME/catbuddy, else the platform's place for it
// (~/.local/state/catbuddy on Linux), or "" when none is known. The
// trust decisions, and every workspace folder's change sets and
// sessions, live there.
func StateDir(getenv func(string) string) string {
	return userstate.Base(getenv)
}

func dir(getenv func(string) string, variable, underHome string) string {
	base := getenv(variable)
	// The XDG specification says a relative path is invalid and must be
	// ignored: it would name a directory under whatever the cwd is.
	if base == "" || !filepath.IsAbs(base) {
		home := getenv("HOME")
		if home == "" {
			h, err := os.UserHomeDir()
			if err != nil {
				return ""
			}
			home = h
		}
		base = filepath.Join(home, underHome)
	}
	return filepath.Join(base, "catbuddy")
}
