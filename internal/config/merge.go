package config

import (
	"reflect"
	"slices"
)

// Merge returns base with every field set (non-zero) in over replacing
// base's, field by field, nested structs (such as Tools) included, so a
// field added to Config or ToolSettings merges with no code here.
// Custom commands merge by id (over's replace base's of the same id),
// language servers by name.
// Switching to a different provider drops base's URL and model, which
// make no sense with it (naming a provider where base named none keeps
// them: a user file with only a baseUrl still applies).
func Merge(base, over Config) Config {
	if over.Provider != "" && base.Provider != "" && over.Provider != base.Provider {
		base.BaseURL, base.Model = "", ""
	}
	if bi, oi := base.InlineCompletion, over.InlineCompletion; oi.Provider != "" && bi.Provider != "" && oi.Provider != bi.Provider {
		base.InlineCompletion.BaseURL, base.InlineCompletion.Model = "", ""
	}
	cmds := mergeCommands(base.CustomCommands, over.CustomCommands)
	allow, deny := mergeExecRules(base.Tools.Exec, over.Tools.Exec)
	servers := mergeLanguageServers(base.LanguageServers, over.LanguageServers)
	mergeFields(reflect.ValueOf(&base).Elem(), reflect.ValueOf(over))
	base.CustomCommands = cmds
	base.LanguageServers = servers
	base.Tools.Exec.Allow, base.Tools.Exec.Deny = allow, deny
	return base
}

// mergeFields sets each field of dst whose value in over is not zero;
// structs of this package are merged field by field.
func mergeFields(dst, over reflect.Value) {
	pkg := reflect.TypeOf(Config{}).PkgPath()
	for i := range dst.NumField() {
		d, o := dst.Field(i), over.Field(i)
		if !d.CanSet() {
			continue
		}
		if d.Kind() == reflect.Struct && d.Type().PkgPath() == pkg {
			mergeFields(d, o)
			continue
		}
		if o.IsZero() {
			o = d
		}
		if o.Kind() == reflect.Slice && !o.IsNil() {
			// Never share a backing array between configurations.
			c := reflect.MakeSlice(o.Type(), o.Len(), o.Len())
			reflect.Copy(c, o)
			o = c
		}
		d.Set(o)
	}
}

func mergeCommands(base, over []Command) []Command {
	if len(over) == 0 {
		return slices.Clone(base)
	}
	cmds := slices.Clone(base)
next:
	for _, oc := range over {
		for i, bc := range cmds {
			if bc.ID == oc.ID {
				cmds[i] = oc
				continue next
			}
		}
		cmds = append(cmds, oc)
	}
	return cmds
}
