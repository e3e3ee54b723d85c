package main

import (
	"maps"
	"slices"
	"strings"

	"github.com/catbuddy/cb-ls/internal/config"
)

// languageServerFlag is the repeatable --language-server flag of run,
// tools run and acp: servers that answer the language tools, laid over
// the config files' languageServers by name.
type languageServerFlag map[string]config.LanguageServer

const languageServerUsage = "a language server for the language tools, EXTENSIONS=COMMAND (repeatable), e.g. .go=gopls"

func (f *languageServerFlag) String() string {
	if f == nil {
		return ""
	}
	var parts []string
	for _, name := range slices.Sorted(maps.Keys(*f)) {
		ls := (*f)[name]
		parts = append(parts, strings.Join(ls.Extensions, ",")+"="+strings.Join(ls.Command, " "))
	}
	return strings.Join(parts, " ")
}

func (f *languageServerFlag) Set(s string) error {
	name, ls, err := config.ParseLanguageServerFlag(s)
	if err != nil {
		return err
	}
	if *f == nil {
		*f = languageServerFlag{}
	}
	(*f)[name] = ls
	return nil
}
