package tools

import (
	"context"
	"errors"
)

// LanguageOp is one question (or change) a language server can answer.
type LanguageOp string

// The operations of the language tools. The first nine are the lsp
// tool's operation argument as the model writes it.
const (
	OpDefinition       LanguageOp = "definition"
	OpTypeDefinition   LanguageOp = "type_definition"
	OpImplementation   LanguageOp = "implementation"
	OpReferences       LanguageOp = "references"
	OpHover            LanguageOp = "hover"
	OpDocumentSymbols  LanguageOp = "document_symbols"
	OpWorkspaceSymbols LanguageOp = "workspace_symbols"
	OpIncomingCalls    LanguageOp = "incoming_calls"
	OpOutgoingCalls    LanguageOp = "outgoing_calls"
	OpPrepareRename    LanguageOp = "prepare_rename"
	OpRename           LanguageOp = "rename"
	OpCodeAction       LanguageOp = "code_action"
)

// LanguageFeatures answers questions about code the way the editor's
// language servers do: where a symbol is defined, who refers to it,
// what a declaration's outline is, how to rename it. The editor bridge
// (the LSP layer asking the editor) and the headless client (cb-ls
// starting language servers itself) implement it. Positions here are
// bytes and lines; the implementations convert them to the language
// server's encoding.
type LanguageFeatures interface {
	// Supports reports whether op can be answered for the file at the
	// absolute path ("" for any file, e.g. workspace symbols).
	Supports(op LanguageOp, path string) bool
	// Locations answers definition, type_definition, implementation and
	// references.
	Locations(ctx context.Context, op LanguageOp, at Position) ([]Location, error)
	// Hover returns the hover text at a position (markdown or plain).
	Hover(ctx context.Context, at Position) (string, error)
	// DocumentSymbols returns the outline of at's document; at.Offset is
	// ignored and the symbols' byte ranges refer to at.Content.
	DocumentSymbols(ctx context.Context, at Position) ([]Symbol, error)
	// WorkspaceSymbols returns the symbols matching query.
	WorkspaceSymbols(ctx context.Context, query string) ([]Symbol, error)
	// Calls answers incoming_calls and outgoing_calls for the callable at
	// a position.
	Calls(ctx context.Context, op LanguageOp, at Position) ([]Call, error)
	// PrepareRename checks that the symbol at a position can be renamed
	// (nil when the server cannot tell beforehand); an error wrapping
	// ErrCannotRename says why not.
	PrepareRename(ctx context.Context, at Position) error
	// Rename computes the edits that rename the symbol at a position.
	// read gives the content of each file to edit, which the edits'
	// byte offsets refer to.
	Rename(ctx context.Context, at Position, newName string, read ReadFunc) ([]FileEdit, error)
	// CodeActions lists the actions for the range [at.Offset, end) of
	// at's document, kind ("" for all) filtering them.
	CodeActions(ctx context.Context, at Position, end int, kind string) ([]CodeAction, error)
}

// ReadFunc returns the content of the file at an absolute path as the
// tool will edit it.
type ReadFunc func(path string) ([]byte, error)

// Position is a place in a document as a tool read it.
type Position struct {
	Path    string // absolute
	Content []byte // the document the tool read (buffer or disk)
	Offset  int    // byte offset in Content
}

// Location is a place a language server pointed to.
type Location struct {
	Path string // absolute
	Line int    // 1-based
	// EndLine is the last line of the range (1-based, ≥ Line).
	EndLine int
	// Column is where the range starts on Line, 1-based, counted as the
	// language server counts (UTF-16 code units unless it said
	// otherwise: the byte column on an ASCII line); 0 when unknown. It
	// tells apart two places on one line.
	Column int
}

// Symbol is one declaration of a document outline or a workspace
// symbol search.
type Symbol struct {
	Name      string
	Detail    string
	Kind      string // "function", "method", "struct", …
	Container string // the enclosing symbol's name, if any
	Location  Location
	// Start and End are the byte range of the whole declaration in the
	// document's content (document symbols only).
	Start, End int
	Children   []Symbol
}

// Call is one caller (incoming) or callee (outgoing) of a callable.
type Call struct {
	Symbol Symbol
	// Sites are the lines of the calls: in the caller's file for
	// incoming calls, in the asked-about function's file for outgoing.
	Sites []Location
}

// FileEdit is a language server's change to one file.
type FileEdit struct {
	Path  string     // absolute
	Edits []TextEdit // byte offsets into the content ReadFunc returned
}

// CodeAction is one action a language server offers.
type CodeAction struct {
	Title     string
	Kind      string
	Preferred bool
	// Disabled, if not empty, is why the action cannot be applied now.
	Disabled string
	// Edit computes the action's change, converted with read (resolving
	// the action first where the server defers its edit); nil for an
	// action that only runs a command.
	Edit func(ctx context.Context, read ReadFunc) ([]FileEdit, error)
	// Command names the command an action runs (instead of or after its
	// edit); cb-ls does not run commands of other servers.
	Command string
}

// ErrCannotRename is wrapped by PrepareRename when the language server
// says the symbol cannot be renamed.
var ErrCannotRename = errors.New("cannot rename this symbol")

// LanguageFormatter is implemented by language features that format a
// file as its language server does, so that an edit the language tools
// make is formatted in the same reviewed change.
type LanguageFormatter interface {
	// Format returns the server's formatting edits of after, the file at
	// path as a change leaves it (before is its content now), with byte
	// offsets into after. changed are the byte ranges of after the
	// change wrote: a server that formats ranges formats those; one that
	// formats only whole files does, if before was formatted (else
	// ErrUnformatted: formatting would rewrite lines the change did not
	// touch). ErrNoFormatter when the server does not format.
	Format(ctx context.Context, path string, before, after []byte, changed [][2]int) ([]TextEdit, error)
}

// ErrNoFormatter is returned by Format when the file's language server
// does not format.
var ErrNoFormatter = errors.New("the language server does not format this file")

// ErrUnformatted is returned by Format when the file was not formatted
// before the change and the server formats only whole files.
var ErrUnformatted = errors.New("the file was not formatted before the change")

// ErrNoLanguageServer is wrapped when no language server answers for a
// file (the editor has none for its language, or none is configured).
var ErrNoLanguageServer = errors.New("no language server answers for this file")
