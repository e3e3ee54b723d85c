package tools

import (
	"context"
	_ "embed"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

//go:embed lsp.md
var lspDescription string

type lspInput struct {
	Operation  string `json:"operation"`
	Path       string `json:"path,omitempty"`
	Line       int    `json:"line,omitempty"`
	Symbol     string `json:"symbol,omitempty"`
	Occurrence int    `json:"occurrence,omitempty"`
	Query      string `json:"query,omitempty"`
}

// lspOps are the lsp tool's operations, in the order offered.
var lspOps = []LanguageOp{OpDefinition, OpTypeDefinition, OpImplementation, OpReferences, OpHover,
	OpDocumentSymbols, OpWorkspaceSymbols, OpIncomingCalls, OpOutgoingCalls}

// maxHover bounds a hover answer: documentation can be long, the model
// needs the signature and the first paragraphs.
const maxHover = 4000

// lspTool is the read-only lsp tool, offered with the operations the
// language features support; ok is false when there are none.
func (lt *langTools) lspTool() (Tool, bool) {
	var ops []LanguageOp
	for _, op := range lspOps {
		if lt.lf.Supports(op, "") {
			ops = append(ops, op)
		}
	}
	if len(ops) == 0 {
		return Tool{}, false
	}
	t := NewTool("lsp", strings.TrimSpace(lspDescription), func(ctx context.Context, in lspInput) (Result, error) {
		if !slices.Contains(ops, LanguageOp(in.Operation)) {
			return Errorf("operation %q is not available; use one of %s", in.Operation, joinOps(ops)), nil
		}
		ctx, notes := withLanguageNotes(ctx)
		res, err := lt.lsp(ctx, in)
		return notes.apply(res), err
	})
	t.ReadOnly = true
	t.InputSchema = withEnum(t.InputSchema, "operation", ops)
	return t, true
}

func joinOps(ops []LanguageOp) string {
	s := make([]string, len(ops))
	for i, op := range ops {
		s[i] = string(op)
	}
	return strings.Join(s, ", ")
}

// withEnum sets the enum of one property of a schema: the model sees
// exactly the values that can be answered (the lsp tool's operations,
// grep's output modes).
func withEnum[T ~string](schema json.RawMessage, prop string, ops []T) json.RawMessage {
	var m map[string]any
	if err := json.Unmarshal(schema, &m); err != nil {
		panic(err) // our own schema
	}
	props := m["properties"].(map[string]any)
	props[prop].(map[string]any)["enum"] = ops
	out, err := json.Marshal(m)
	if err != nil {
		panic(err)
	}
	return out
}

func (lt *langTools) lsp(ctx context.Context, in lspInput) (Result, error) {
	op := LanguageOp(in.Operation)
	if op == OpWorkspaceSymbols {
		if strings.TrimSpace(in.Query) == "" {
			return Errorf("workspace_symbols needs a query (a symbol name or part of one)"), nil
		}
		syms, err := lt.lf.WorkspaceSymbols(ctx, in.Query)
		if err != nil {
			return Result{}, err
		}
		return Text(lt.formatWorkspaceSymbols(ctx, in.Query, syms)), nil
	}
	if in.Path == "" {
		return Errorf("%s needs a path", op), nil
	}
	if op == OpDocumentSymbols {
		p, doc, err := lt.tc.openDoc(ctx, in.Path)
		if err != nil {
			return docErrorAt(in.Path, p, err), ctx.Err()
		}
		syms, err := lt.lf.DocumentSymbols(ctx, Position{Path: p.Abs, Content: doc.Content})
		if err != nil {
			return Result{}, err
		}
		return Text(formatOutline(p.Rel, syms)), nil
	}
	if in.Line < 1 || in.Symbol == "" {
		return Errorf("%s needs line (1-based, as read_file numbers it) and symbol (as written on that line)", op), nil
	}
	p, at, bad := lt.position(ctx, in.Path, in.Line, in.Symbol, in.Occurrence)
	if bad != nil {
		return *bad, ctx.Err()
	}
	what := fmt.Sprintf("%s (%s:%d)", in.Symbol, p.Rel, in.Line)
	switch op {
	case OpHover:
		text, err := lt.lf.Hover(ctx, at)
		if err != nil {
			return Result{}, err
		}
		text = strings.TrimSpace(text)
		if text == "" {
			return Text("No hover information for " + what + "."), nil
		}
		if len(text) > maxHover {
			text = truncate(text, maxHover) + "\n(hover text cut)"
		}
		return Text(text), nil
	case OpIncomingCalls, OpOutgoingCalls:
		if op == OpIncomingCalls {
			lt.widenScope(ctx, at, in.Symbol)
		}
		calls, err := lt.lf.Calls(ctx, op, at)
		if err != nil {
			return Result{}, err
		}
		return Text(lt.formatCalls(ctx, op, what, calls)), nil
	}
	var unopened []string
	if op == OpReferences || op == OpImplementation {
		unopened, _ = lt.widenScope(ctx, at, in.Symbol)
	}
	locs, err := lt.lf.Locations(ctx, op, at)
	if err != nil {
		return Result{}, err
	}
	lt.unlisted(ctx, at, in.Symbol, unopened, locs)
	if op == OpReferences {
		lt.refs.remember(in.Symbol, uniqueLocations(locs, true))
	}
	return Text(lt.formatLocations(ctx, op, what, locs)), nil
}

// formatLocations answers definition, type_definition, implementation
// and references: one "path:line: text" per line, with the columns of
// each place when a line holds several, so that every place is counted
// as a rename counts it.
func (lt *langTools) formatLocations(ctx context.Context, op LanguageOp, what string, locs []Location) string {
	noun := map[LanguageOp]string{OpDefinition: "definition", OpTypeDefinition: "type definition",
		OpImplementation: "implementation", OpReferences: "reference"}[op]
	locs = uniqueLocations(locs, op == OpReferences || op == OpImplementation)
	if len(locs) == 0 {
		return fmt.Sprintf("The language server found no %s for %s.", noun, what)
	}
	var b strings.Builder
	of, incl := "of", ""
	if op == OpReferences {
		of, incl = "to", ", the declaration included"
	}
	fmt.Fprintf(&b, "%d %s%s %s %s%s:\n", len(locs), noun, plural(len(locs)), of, what, incl)
	l := lt.lineReader(ctx)
	shown := 0
	for i := 0; i < len(locs); {
		j := i + 1
		for j < len(locs) && locs[j].Path == locs[i].Path && locs[j].Line == locs[i].Line {
			j++
		}
		if shown == maxLocations {
			fmt.Fprintf(&b, "… and %d more not shown\n", len(locs)-i)
			break
		}
		b.WriteString(l.cite(locs[i]))
		if j-i > 1 {
			cols := make([]string, 0, j-i)
			for _, loc := range locs[i:j] {
				cols = append(cols, strconv.Itoa(loc.Column))
			}
			fmt.Fprintf(&b, "  [%d on this line, at columns %s]", j-i, strings.Join(cols, ", "))
		}
		b.WriteByte('\n')
		shown++
		i = j
	}
	return strings.TrimRight(b.String(), "\n")
}

// maxOutline bounds the lines of a document outline.
const maxOutline = 300

// formatOutline renders document symbols as an indented outline with
// line ranges.
func formatOutline(rel string, syms []Symbol) string {
	if len(syms) == 0 {
		return "No symbols in " + rel + "."
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Outline of %s:\n", rel)
	n, left := 0, 0
	var walk func(ss []Symbol, depth int)
	walk = func(ss []Symbol, depth int) {
		for _, s := range ss {
			if n == maxOutline {
				left++
				walk(s.Children, depth+1)
				continue
			}
			n++
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat("  ", depth), symbolLine(s))
			walk(s.Children, depth+1)
		}
	}
	walk(syms, 0)
	if left > 0 {
		fmt.Fprintf(&b, "… and %d more symbols not shown\n", left)
	}
	return strings.TrimRight(b.String(), "\n")
}

// symbolLine is "kind Name detail (lines 3-9)".
func symbolLine(s Symbol) string {
	var b strings.Builder
	if s.Kind != "" {
		b.WriteString(s.Kind + " ")
	}
	b.WriteString(s.Name)
	if d := strings.Join(strings.Fields(s.Detail), " "); d != "" {
		b.WriteString(" " + truncate(d, 80))
	}
	if s.Location.EndLine > s.Location.Line {
		fmt.Fprintf(&b, " (lines %d-%d)", s.Location.Line, s.Location.EndLine)
	} else {
		fmt.Fprintf(&b, " (line %d)", s.Location.Line)
	}
	return b.String()
}

func (lt *langTools) formatWorkspaceSymbols(ctx context.Context, query string, syms []Symbol) string {
	if len(syms) == 0 {
		return fmt.Sprintf("No symbols match %q.", query)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d symbol%s match %q:\n", len(syms), plural(len(syms)), query)
	l := lt.lineReader(ctx)
	for i, s := range syms {
		if i == maxLocations {
			fmt.Fprintf(&b, "… and %d more not shown; refine the query\n", len(syms)-i)
			break
		}
		name := s.Name
		if s.Container != "" {
			name += " (in " + s.Container + ")"
		}
		fmt.Fprintf(&b, "%s %s %s\n", s.Kind, name, l.rel(s.Location))
	}
	return strings.TrimRight(b.String(), "\n")
}

func (lt *langTools) formatCalls(ctx context.Context, op LanguageOp, what string, calls []Call) string {
	if len(calls) == 0 {
		if op == OpIncomingCalls {
			return "No callers found for " + what + "."
		}
		return what + " calls nothing the language server knows of."
	}
	var b strings.Builder
	if op == OpIncomingCalls {
		fmt.Fprintf(&b, "%d caller%s of %s:\n", len(calls), plural(len(calls)), what)
	} else {
		fmt.Fprintf(&b, "%s calls %d function%s:\n", what, len(calls), plural(len(calls)))
	}
	l := lt.lineReader(ctx)
	shown := 0
	for i, c := range calls {
		if shown >= maxLocations {
			fmt.Fprintf(&b, "… and %d more not shown\n", len(calls)-i)
			break
		}
		fmt.Fprintf(&b, "%s %s %s\n", c.Symbol.Kind, c.Symbol.Name, l.rel(c.Symbol.Location))
		for _, site := range uniqueLocations(c.Sites, true) {
			fmt.Fprintf(&b, "  call at %s\n", l.cite(site))
			shown++
		}
		shown++
	}
	return strings.TrimRight(b.String(), "\n")
}
