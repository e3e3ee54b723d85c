package config

// cb-ls keeps the user's own files in two directories: one configuration
// directory for every configuration file (config.json, mcp.json) and one
// state directory (the trust decisions). Both follow the XDG base
// directory variables on every platform, so the documented path
// ~/.config/catbuddy is the same on Linux and macOS.

import (
	"os"
	"path/filepath"
)

// UserDir returns $XDG_CONFIG_HOME/catbuddy, else ~/.config/catbuddy, or
// "" when neither the variable nor a home directory is known. getenv is
// os.Getenv outside tests.
func UserDir(getenv func(string) string) string {
	return dir(getenv, "XDG_CONFIG_HOME", ".config")
}

// StateDir returns $XDG_STATE_HOME/catbuddy, else ~/.local/state/catbuddy,
// or "" when neither is known.
func StateDir(getenv func(string) string) string {
	return dir(getenv, "XDG_STATE_HOME", filepath.Join(".local", "state"))
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
