package tools

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/diff"
)

// In Python and YAML indentation is structure: a block moved a column
// or two by a retyped new_string still parses, but nests differently,
// or fails far from the edit. A model rarely means such a shift, and
// the diff hides it among whole-line changes, so the result names it.

// indentLanguages are the file types whose indentation is structure.
var indentLanguages = map[string]string{
	".py": "Python", ".pyi": "Python", ".pyw": "Python",
	".yaml": "YAML", ".yml": "YAML",
}

// indentNoteTools are the tools whose new text the model typed.
var indentNoteTools = map[string]bool{
	"edit_file": true, "multi_edit": true, "apply_patch": true, "write_file": true, "replace_symbol": true,
}

// indentNote says which lines of a Python or YAML change kept their text
// but moved one or two columns, or "" when none did (or the file is of
// another kind).
func indentNote(tool string, c Change) string {
	lang := indentLanguages[strings.ToLower(filepath.Ext(c.Path.Rel))]
	if lang == "" || !indentNoteTools[tool] || c.Delete {
		return ""
	}
	shifts := diff.IndentShifts(c.Base.Content, c.Edits)
	if len(shifts) == 0 {
		return ""
	}
	var parts []string
	for i, s := range shifts {
		if i == 3 {
			parts = append(parts, fmt.Sprintf("and %d more", len(shifts)-3))
			break
		}
		where := diff.LineSpan(s.First, s.Last)
		dir := "right"
		if s.To < s.From {
			dir = "left"
		}
		parts = append(parts, fmt.Sprintf("%s moved %d %s (%d → %d)", where, abs(s.To-s.From), "column"+plural(abs(s.To-s.From))+" "+dir, s.From, s.To))
	}
	return fmt.Sprintf("Indentation: in %s, %s, with the text unchanged. In %s indentation is structure: check that this is meant.",
		c.Path.Rel, strings.Join(parts, "; "), lang)
}
