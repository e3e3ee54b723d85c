package mcp

import (
	"errors"
	"io/fs"
	"sort"
	"strconv"
	"strings"
)

// ProjectServers describes, one line per enabled server, what root's
// .catbuddy/mcp.json would start: the command line with every argument
// (as written, before ${VAR} expansion), its environment's names and
// directory, or the URL and its headers' names. This is what the user is
// asked to trust, so nothing is left out or shortened.
func ProjectServers(root string) ([]string, error) {
	path := ProjectConfigPath(root)
	servers, _, err := readConfigFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(servers))
	for n := range servers {
		names = append(names, n)
	}
	sort.Strings(names)
	var out []string
	for _, n := range names {
		c := servers[n]
		if c.Disabled {
			continue
		}
		out = append(out, n+": "+Describe(c))
	}
	return out, nil
}

// Describe is one server entry as the user should see it before it runs.
func Describe(c ServerConfig) string {
	kind, err := c.Transport()
	if err != nil {
		return "invalid entry (" + err.Error() + ")"
	}
	var b strings.Builder
	if kind == "http" {
		b.WriteString(c.URL)
		if len(c.Headers) > 0 {
			b.WriteString(" with headers " + strings.Join(sortedKeys(c.Headers), ", "))
		}
		return b.String()
	}
	b.WriteString(shellQuote(c.Command))
	for _, a := range c.Args {
		b.WriteString(" " + shellQuote(a))
	}
	if len(c.Env) > 0 {
		b.WriteString(" with environment " + strings.Join(sortedKeys(c.Env), ", "))
	}
	if c.Cwd != "" {
		b.WriteString(" in " + c.Cwd)
	}
	return b.String()
}

func sortedKeys(m map[string]string) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// shellQuote shows an argument so that spaces and quotes inside it are
// visible: the words the user reads are the words that run.
func shellQuote(s string) string {
	if s != "" && !strings.ContainsAny(s, " \t\n\"'\\$`;&|<>(){}*?[]#~") {
		return s
	}
	return strconv.Quote(s)
}
