package tools

import "strings"

// providerSecrets are variables known to hold credentials whose names do
// not follow the suffix patterns below.
var providerSecrets = map[string]bool{
	"ANTHROPIC_AUTH_TOKEN":           true,
	"AWS_ACCESS_KEY_ID":              true,
	"AZURE_CLIENT_SECRET":            true,
	"GOOGLE_APPLICATION_CREDENTIALS": true,
	"HF_TOKEN":                       true,
	"NPM_TOKEN":                      true,
	"OPENROUTER_KEY":                 true,
	"CB_LS_API_KEY":                  true,
	"CATBUDDY_API_KEY":               true,
}

// IsSecretEnv reports whether an environment variable must not reach a
// command the model runs: provider keys, and any name matching
// *_API_KEY, *_APIKEY, *_TOKEN, *_SECRET(_KEY), *_ACCESS_KEY,
// *_PRIVATE_KEY, *PASSWORD*, *PASSWD* or *CREDENTIAL*.
func IsSecretEnv(name string) bool {
	n := strings.ToUpper(name)
	if providerSecrets[n] {
		return true
	}
	for _, suf := range []string{"_API_KEY", "_APIKEY", "_TOKEN", "_SECRET", "_SECRET_KEY", "_ACCESS_KEY", "_PRIVATE_KEY"} {
		if strings.HasSuffix(n, suf) {
			return true
		}
	}
	for _, sub := range []string{"PASSWORD", "PASSWD", "CREDENTIAL", "SECRET"} {
		if strings.Contains(n, sub) {
			return true
		}
	}
	return false
}

// scrubEnv returns env (KEY=VALUE entries) without secrets, and the
// names it removed, for the log.
func scrubEnv(env []string) (kept, removed []string) {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if IsSecretEnv(name) || name == sandboxEnv {
			removed = append(removed, name)
			continue
		}
		kept = append(kept, kv)
	}
	return kept, removed
}
