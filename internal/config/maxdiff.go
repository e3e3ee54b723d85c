package config

import "os"

// MaxMaxDiffMB is the largest maxDiffMB accepted: a file that size is
// read whole into memory to be diffed.
const MaxMaxDiffMB = 256

// UserMaxDiffMB returns maxDiffMB from the user's own config.json, 0
// when it is unset or the file cannot be read (the caller keeps its
// default). No project file and no editor setting counts: the limit
// bounds what cb-ls reads into memory, which a cloned project must not
// raise.
func UserMaxDiffMB() int {
	path := userConfigFile(os.Getenv)
	if path == "" {
		return 0
	}
	cfg, _, err := readConfigFile(path, true)
	if err != nil {
		return 0
	}
	return cfg.MaxDiffMB
}
