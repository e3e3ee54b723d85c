package config

import (
	"path/filepath"
	"testing"
)

func TestDirs(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name          string
		env           map[string]string
		config, state string
	}{
		{"xdg", map[string]string{"XDG_CONFIG_HOME": "/x/cfg", "XDG_STATE_HOME": "/x/state", "HOME": "/h"}, "/x/cfg/catbuddy", "/x/state/catbuddy"},
		{"home", map[string]string{"HOME": "/h"}, "/h/.config/catbuddy", "/h/.local/state/catbuddy"},
		{"relative xdg is ignored", map[string]string{"XDG_CONFIG_HOME": "cfg", "XDG_STATE_HOME": "st", "HOME": "/h"}, "/h/.config/catbuddy", "/h/.local/state/catbuddy"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := UserDir(env(tc.env)); got != filepath.FromSlash(tc.config) {
				t.Errorf("UserDir = %q, want %q", got, tc.config)
			}
			if got := StateDir(env(tc.env)); got != filepath.FromSlash(tc.state) {
				t.Errorf("StateDir = %q, want %q", got, tc.state)
			}
		})
	}
}
