package config

import (
	"encoding/json"
	"os"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"
)

// VS Code's settings UI lists what the extension contributes in
// package.json. Every setting the server parses must be there, under
// catbuddy.<key> (nested settings with dots: catbuddy.tools.exec.allow),
// unless it is absent on purpose; every contributed key must be one the
// server parses or one the extension itself uses.
func TestVSCodeContributesEverySetting(t *testing.T) {
	absent := map[string]string{
		"apiKey": "kept in VS Code's SecretStorage (Agent: Set API Key…), never in settings.json",
		// VS Code answers the language tools with its own language
		// features (catbuddy/languageFeature); starting a second copy of
		// a server there would only cost memory.
		"languageServers": "VS Code answers the language tools through its own providers",
		// Only the user's own config.json sets it (UserMaxDiffMB).
		"maxDiffMB": "read from the user's config.json only, never from an editor's settings",
		// Set in cb-ls's config files (docs/context.md); the
		// extension's settings UI does not offer it yet.
		"runViewServers": "read from cb-ls's config files",
	}
	clientOnly := map[string]string{
		"serverPath":     "the binary the extension starts",
		"saveAfterApply": "the extension saves documents after an accepted edit",
		"revealChat":     "the extension's chat view",
	}
	raw, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			Configuration struct {
				Properties map[string]struct {
					Type                any    `json:"type"`
					Description         string `json:"description"`
					MarkdownDescription string `json:"markdownDescription"`
				} `json:"properties"`
			} `json:"configuration"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(raw, &pkg); err != nil {
		t.Fatalf("package.json: %v", err)
	}
	contributed := map[string]bool{}
	for k, p := range pkg.Contributes.Configuration.Properties {
		key, ok := strings.CutPrefix(k, "catbuddy.")
		if !ok {
			t.Errorf("package.json contributes %s outside catbuddy.", k)
			continue
		}
		contributed[key] = true
		if p.Type == nil || p.Description+p.MarkdownDescription == "" {
			t.Errorf("catbuddy.%s has no type or no description", key)
		}
	}
	parsed := append(settingKeys(reflect.TypeOf(Config{}), ""), "apiKey")
	for _, k := range parsed {
		if _, ok := absent[k]; !ok && !contributed[k] {
			t.Errorf("the server parses %q, but VS Code's settings do not offer catbuddy.%s", k, k)
		}
	}
	for k := range contributed {
		if _, ok := clientOnly[k]; !ok && !slices.Contains(parsed, k) {
			t.Errorf("package.json contributes catbuddy.%s, which the server does not parse", k)
		}
	}
}

// settingKeys lists the dotted JSON keys of t's fields, descending into
// nested structs (tools, tools.exec) but not into lists.
func settingKeys(t reflect.Type, prefix string) []string {
	var out []string
	for i := range t.NumField() {
		f := t.Field(i)
		name := jsonName(f)
		if name == "" {
			continue
		}
		if f.Type.Kind() == reflect.Struct {
			out = append(out, settingKeys(f.Type, prefix+name+".")...)
			continue
		}
		out = append(out, prefix+name)
	}
	sort.Strings(out)
	return out
}
