package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// ServerConfig is one entry of the common `mcpServers` format: a
// subprocess speaking MCP on stdio (command, args, env) or a streamable
// HTTP endpoint (url, headers).
type ServerConfig struct {
	Command string            `json:"command,omitempty"`
	Args    []string          `json:"args,omitempty"`
	Env     map[string]string `json:"env,omitempty"`
	// Cwd is the subprocess's directory (default: the primary root).
	Cwd     string            `json:"cwd,omitempty"`
	URL     string            `json:"url,omitempty"`
	Headers map[string]string `json:"headers,omitempty"`
	// Type is optional: "stdio" or "http" (also "streamable-http",
	// "streamableHttp"); inferred from command or url when empty.
	Type     string `json:"type,omitempty"`
	Disabled bool   `json:"disabled,omitempty"`
	// Timeout is the per-call timeout in seconds (default 60).
	Timeout int `json:"timeout,omitempty"`

	// Source is the file this entry came from.
	Source string `json:"-"`
	// Project is true for an entry of a project's .catbuddy/mcp.json: its
	// ${VARS} expand only from ProjectEnv, and its URL is guarded.
	Project bool `json:"-"`
	// ProjectEnv names the variables a project entry may expand, from
	// the user's own mcp.json.
	ProjectEnv []string `json:"-"`
}

// Transport returns "stdio" or "http", or an error for an entry that is
// neither.
func (c ServerConfig) Transport() (string, error) {
	switch strings.ToLower(c.Type) {
	case "stdio":
		if c.Command == "" {
			return "", errors.New(`type "stdio" needs a "command"`)
		}
		return "stdio", nil
	case "http", "streamable-http", "streamablehttp":
		if c.URL == "" {
			return "", errors.New(`type "http" needs a "url"`)
		}
		return "http", nil
	case "sse":
		return "", errors.New(`the legacy "sse" transport is not supported; use the server's streamable HTTP endpoint`)
	case "":
	default:
		return "", fmt.Errorf("unknown type %q (want stdio or http)", c.Type)
	}
	switch {
	case c.Command != "" && c.URL != "":
		return "", errors.New(`give either "command" or "url", not both`)
	case c.Command != "":
		return "stdio", nil
	case c.URL != "":
		return "http", nil
	}
	return "", errors.New(`needs a "command" (stdio) or a "url" (streamable HTTP)`)
}

// Config is the merged MCP configuration.
type Config struct {
	Servers map[string]ServerConfig
	// Errors are problems with individual files or entries; the rest of
	// the configuration still applies.
	Errors []error
}

// Names returns the server names, sorted.
func (c Config) Names() []string {
	names := make([]string, 0, len(c.Servers))
	for n := range c.Servers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// UserConfigPath returns mcp.json in the user's configuration directory
// (config.UserDir, the same as config.json's), or "" when there is none.
func UserConfigPath() string {
	dir := config.UserDir(os.Getenv)
	if dir == "" {
		return ""
	}
	return filepath.Join(dir, "mcp.json")
}

// ProjectConfigPath is root's .catbuddy/mcp.json.
func ProjectConfigPath(root string) string { return filepath.Join(root, ".catbuddy", "mcp.json") }

// ConfigPaths lists the files read, lowest precedence first: the user's
// file, then each workspace root's .catbuddy/mcp.json.
func ConfigPaths(userPath string, roots []string) []string {
	var out []string
	if userPath != "" {
		out = append(out, userPath)
	}
	for _, r := range roots {
		out = append(out, ProjectConfigPath(r))
	}
	return out
}

// LoadConfig reads and merges the files; a server defined in a later
// file replaces one of the same name from an earlier file. Missing
// files are skipped; unreadable ones and bad entries are reported in
// Config.Errors.
func LoadConfig(paths []string) Config {
	cfg := Config{Servers: map[string]ServerConfig{}}
	var projectEnv []string
	for _, p := range paths {
		project := filepath.Base(filepath.Dir(p)) == ".catbuddy"
		servers, env, err := readConfigFile(p)
		if !project {
			projectEnv = append(projectEnv, env...)
		}
		if err != nil {
			if !errors.Is(err, fs.ErrNotExist) {
				cfg.Errors = append(cfg.Errors, err)
			}
			continue
		}
		for name, sc := range servers {
			sc.Source = p
			sc.Project = project
			if name == "" {
				cfg.Errors = append(cfg.Errors, fmt.Errorf("%s: a server has an empty name", p))
				continue
			}
			if _, err := sc.Transport(); err != nil {
				cfg.Errors = append(cfg.Errors, fmt.Errorf("%s: server %q: %v", p, name, err))
				continue
			}
			cfg.Servers[name] = sc
		}
	}
	for name, sc := range cfg.Servers {
		if sc.Project {
			sc.ProjectEnv = projectEnv
			cfg.Servers[name] = sc
		}
	}
	return cfg
}

func readConfigFile(path string) (map[string]ServerConfig, []string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	var file struct {
		MCPServers map[string]ServerConfig `json:"mcpServers"`
		// Servers is VS Code's spelling of the same map.
		Servers map[string]ServerConfig `json:"servers"`
		// ProjectEnv (honoured in the user's file only) names the
		// variables a trusted project's entries may expand.
		ProjectEnv []string `json:"projectEnv"`
	}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil, nil
	}
	if err := json.Unmarshal(data, &file); err != nil {
		return nil, nil, fmt.Errorf("%s: %v", path, err)
	}
	out := file.Servers
	if out == nil {
		out = map[string]ServerConfig{}
	}
	for k, v := range file.MCPServers {
		out[k] = v
	}
	return out, file.ProjectEnv, nil
}

// expand is expandEnv for this entry: a project's entry expands only the
// variables the user listed in projectEnv, others become empty (the
// project must not be able to ask for ${OPENAI_API_KEY}).
func (c ServerConfig) expand(s string) string {
	if !c.Project {
		return expandEnv(s, os.Getenv)
	}
	return expandEnv(s, func(k string) string {
		if slices.Contains(c.ProjectEnv, k) {
			return os.Getenv(k)
		}
		return ""
	})
}

// expandEnv replaces ${VAR} (only the braced form, so values holding a
// literal $ survive) with getenv(VAR): secrets stay out of the file.
func expandEnv(s string, getenv func(string) string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		b.WriteString(getenv(s[i+2 : i+j]))
		s = s[i+j+1:]
	}
}
