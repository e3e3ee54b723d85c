package complete

// Doc is one document the editor has open.
type Doc struct {
	// Key identifies it (the editor's URI); edits are recorded by it.
	Key string
	// Path is its real absolute path.
	Path       string
	LanguageID string
	// Size is its length in bytes.
	Size int
}

// Source is the editor's open buffers as completions read them: never
// whole (a buffer may be 10 MB), only the bytes a prompt needs.
// internal/lsp implements it over its overlay. Safe for concurrent use.
type Source interface {
	// Docs lists the open documents.
	Docs() []Doc
	// Head returns up to n bytes from the start of the document, cut on
	// a rune boundary; false if it is not open.
	Head(key string, n int) ([]byte, bool)
	// Line returns the text of line (0-based) without its line end;
	// false if the document is not open or has no such line.
	Line(key string, line int) (string, bool)
}

// Request is one completion: where the cursor is and the text around
// it, as read from the buffer at one version.
type Request struct {
	Doc Doc
	// Line is the cursor's line, 0-based.
	Line int
	// Prefix is the text before the cursor, at most PrefixBytes of it,
	// and PrefixStart where it starts in the document (0: at the top).
	Prefix      string
	PrefixStart int
	// Suffix is the text after the cursor, at most SuffixBytes of it;
	// SuffixCut says the document goes on after it.
	Suffix    string
	SuffixCut bool
}

// The window around the cursor a Request carries, and the lines of it
// the prompt keeps. About 2,000 tokens with the context: a small local
// model reads it in a fraction of a second.
const (
	PrefixBytes   = 6000
	SuffixBytes   = 2000
	maxPrefixLine = 150
	maxSuffixLine = 50
)
