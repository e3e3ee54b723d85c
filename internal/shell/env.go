package shell

import "strings"

// execEnvAllowed are the variables a command inherits from the server:
// what shells, locales and toolchains need to find themselves. Anything
// else (tokens, database URLs, SSH_AUTH_SOCK, the editor's IPC sockets)
// stays behind unless the user names it in tools.execEnv. A trailing *
// matches a prefix.
var execEnvAllowed = []string{
	"PATH", "HOME", "USER", "LOGNAME", "SHELL", "PWD",
	"LANG", "LANGUAGE", "LC_*", "TZ", "TERM", "COLORTERM", "NO_COLOR", "CI",
	"XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS",
	"SSL_CERT_FILE", "SSL_CERT_DIR",
	// Toolchains.
	"GO*", "CGO_*", "CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "PKG_CONFIG_PATH",
	"CARGO_HOME", "RUSTUP_HOME", "RUSTUP_TOOLCHAIN", "RUSTFLAGS",
	"JAVA_HOME", "GRADLE_USER_HOME",
	"NODE_PATH", "NVM_DIR", "NVM_BIN", "VOLTA_HOME", "PNPM_HOME", "BUN_INSTALL", "DENO_DIR",
	"PYENV_ROOT", "PYENV_VERSION", "VIRTUAL_ENV", "CONDA_PREFIX", "PYTHONPATH",
}

// providerSecrets are variables known to hold credentials whose names do
// not follow the patterns IsSecretEnv checks.
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

// IsSecretEnv reports whether an environment variable's name says it
// holds a credential: a provider key, *_API_KEY, *_APIKEY, *_TOKEN, *_SECRET(_KEY),
// *_ACCESS_KEY, *_PRIVATE_KEY, *PASSWORD*, *PASSWD*, *CREDENTIAL* or
// *SECRET*. Even a variable the allow-list admits by pattern (GO*) is
// dropped when its name says so; MCP servers' environments use the same
// test.
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

// Environ returns the environment (KEY=VALUE entries) a command gets
// from env: the allow-listed variables, those the user added (names or
// prefix*), none whose name looks like a secret unless the user named it
// exactly, none whose value carries a password in a URL (a GOPROXY with
// user:token@), and then the sandbox's own settings (set) on top. It
// also returns the names it dropped, for the log. set may be nil.
func Environ(env, userAllowed []string, set map[string]string) (out, dropped []string) {
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		if _, over := set[name]; over {
			continue
		}
		exact := matchesEnv(name, userAllowed, true)
		ok := exact || ((matchesEnv(name, execEnvAllowed, false) || matchesEnv(name, userAllowed, false)) &&
			!IsSecretEnv(name) && !urlWithPassword(value))
		if !ok {
			dropped = append(dropped, name)
			continue
		}
		out = append(out, kv)
	}
	for k, v := range set {
		out = append(out, k+"="+v)
	}
	return out, dropped
}

// matchesEnv reports whether name is listed in patterns; exactOnly
// ignores the prefix* patterns.
func matchesEnv(name string, patterns []string, exactOnly bool) bool {
	for _, p := range patterns {
		if p == name {
			return true
		}
		if prefix, ok := strings.CutSuffix(p, "*"); ok && !exactOnly && strings.HasPrefix(name, prefix) {
			return true
		}
	}
	return false
}

// urlWithPassword reports whether v holds a URL with user:password@.
func urlWithPassword(v string) bool {
	for _, part := range strings.FieldsFunc(v, func(r rune) bool { return r == ',' || r == '|' || r == ' ' }) {
		_, rest, ok := strings.Cut(part, "://")
		if !ok {
			continue
		}
		host, _, _ := strings.Cut(rest, "/")
		if user, _, ok := strings.Cut(host, "@"); ok && strings.Contains(user, ":") {
			return true
		}
	}
	return false
}

// Settings are the variables cb-ls sets for every command, over what it
// inherits. NO_COLOR=1 (no-color.org) asks tools for plain output: the
// model reads text, and escape codes that get through anyway are
// stripped by Output. Without the network (offline), package managers
// are told so, so that they fail at once instead of stalling on
// retries: npm_config_offline makes npm, npx and pnpm use only their
// cache, and PIP_RETRIES=0 makes pip report its first connection
// error. PIP_NO_INDEX is not set: pip would then say "no matching
// distribution" instead of naming the network, which misleads.
func Settings(offline bool) map[string]string {
	set := map[string]string{"NO_COLOR": "1"}
	if offline {
		set["npm_config_offline"] = "true"
		set["PIP_RETRIES"] = "0"
	}
	return set
}
