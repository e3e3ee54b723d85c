package app

import (
	"fmt"
	"log/slog"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
	"github.com/catbuddy/cb-ls/internal/mcp"
)

// ProjectTrust is what a project's .catbuddy files ask to be trusted for:
// what every front end shows before the user trusts it.
type ProjectTrust struct {
	Root    string   `json:"root"`
	Trusted bool     `json:"trusted"`
	Servers []string `json:"servers"` // one line per MCP server: name: command line or URL
	// Settings are the project settings that need trust ("baseUrl =
	// \"http://…\""); Ignored adds those that never apply.
	Settings []string `json:"settings"`
	Ignored  []string `json:"ignored"`
}

// NeedsQuestion reports whether the project asks for anything.
func (p ProjectTrust) NeedsQuestion() bool { return len(p.Servers)+len(p.Settings) > 0 }

// DescribeTrust lists what root's .catbuddy files ask for, with the
// user's settings over (they decide what the project could change);
// trusted is the front end's trust decision for the MCP servers.
func DescribeTrust(root string, over config.Config, trusted func(root string) bool, log *slog.Logger) ProjectTrust {
	p := ProjectTrust{Root: root, Servers: []string{}, Settings: []string{}, Ignored: []string{}}
	loaded, err := config.Load(config.LoadOptions{Root: root, Over: []config.Config{over}})
	if err != nil {
		log.Warn("project configuration", "root", root, "error", err)
	}
	p.Trusted = loaded.Trusted
	for _, ig := range loaded.Ignored {
		if strings.HasPrefix(ig.Reason, config.ReasonNeedsTrust) {
			p.Settings = append(p.Settings, ig.Key+" = "+ig.Value)
		} else {
			p.Ignored = append(p.Ignored, ig.String())
		}
	}
	if !p.Trusted && len(p.Settings) == 0 {
		// Nothing in config.json needs trust; mcp.json may.
		p.Trusted = trusted(root)
	}
	servers, err := mcp.ProjectServers(root)
	if err != nil {
		log.Warn("project MCP configuration", "root", root, "error", err)
	}
	p.Servers = append(p.Servers, servers...)
	return p
}

// Message is the trust question, the same in every front end: exactly
// what trusting the project does.
func (p ProjectTrust) Message() string {
	var b strings.Builder
	fmt.Fprintf(&b, "Trust the project %s?\n", p.Root)
	b.WriteString("Its .catbuddy files ask for more than a project gets by default.\n")
	if len(p.Servers) > 0 {
		b.WriteString("\nMCP servers it would start, as you:\n")
		for _, l := range p.Servers {
			b.WriteString("  • " + l + "\n")
		}
	}
	if len(p.Settings) > 0 {
		b.WriteString("\nSettings it would apply:\n")
		endpoint := false
		for _, l := range p.Settings {
			b.WriteString("  • " + l + "\n")
			endpoint = endpoint || strings.HasPrefix(l, "baseUrl ") || strings.HasPrefix(l, "provider ")
		}
		if endpoint {
			b.WriteString("(Your API key goes to a baseUrl set here.)\n")
		}
	}
	b.WriteString("\nNot now: none of this runs or applies; your own settings are used. " +
		"Change it later with Agent: Trust This Project… (VS Code) or :CatbuddyTrust (Neovim).")
	return b.String()
}
