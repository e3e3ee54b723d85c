package tools

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/catbuddy/cb-ls/internal/safefile"
	"github.com/catbuddy/cb-ls/internal/search"
)

// A language server answers from the project it loaded, and a project
// is often smaller than the workspace: a tsconfig.json that includes
// only src/ leaves the tests out, so tsserver says "no references" to a
// function the tests call. Before a question whose answer lists places
// across files (references, implementations, callers, a rename), the
// language tools look for the workspace files of the same language that
// name the symbol:
//   - where the language features can load files into their server (a
//     server cb-ls started), those files are opened for it first, so
//     its answer covers them;
//   - where they cannot (the editor's servers), an answer that leaves
//     such a file out says which files name the symbol and were not
//     listed, so an empty answer is never taken for "unused".

// LanguageFileLoader is implemented by language features that can show
// files to their server before a question.
type LanguageFileLoader interface {
	// SameServer reports whether the server that answers for path also
	// answers for other.
	SameServer(path, other string) bool
	// LoadFiles opens the files (absolute paths) for the server that
	// answers for them.
	LoadFiles(ctx context.Context, paths []string) error
}

// Limits of the scan for files that name a symbol.
const (
	maxScopeLoad  = 40    // files opened for a server before one question
	maxScopeFiles = 20000 // files read at most by one scan
	maxScopeNamed = 8     // files named in a note
)

// mentions are the workspace files of the language of at.Path, other
// than at.Path, that contain name as a whole identifier. cut is true
// when the scan stopped at maxScopeFiles.
func (lt *langTools) mentions(ctx context.Context, at Position, name string) (files []string, cut bool) {
	if lt.tc == nil || lt.tc.Guard == nil || name == "" {
		return nil, false
	}
	loader, _ := lt.lf.(LanguageFileLoader)
	same := func(p string) bool {
		if loader != nil {
			return loader.SameServer(at.Path, p)
		}
		return sameLanguage(at.Path, p)
	}
	var mu sync.Mutex
	read := 0
	lit := []byte(name)
	for _, root := range lt.tc.Guard.Roots() {
		p, err := lt.tc.Resolve(root)
		if err != nil {
			continue
		}
		_, _ = search.Walk(ctx, p, search.Options{SkipDependencies: true}, func(_ int, dir *safefile.Dir, e search.Entry) {
			if e.Type != 0 {
				return
			}
			abs := filepath.Join(p.Root, filepath.FromSlash(e.Rel))
			if abs == at.Path || !same(abs) {
				return
			}
			mu.Lock()
			read++
			over := read > maxScopeFiles
			cut = cut || over
			mu.Unlock()
			if over {
				return
			}
			f, err := dir.OpenFile(e.Name, os.O_RDONLY, 0)
			if err != nil {
				return
			}
			b, err := io.ReadAll(io.LimitReader(f, 4<<20))
			f.Close()
			if err != nil || !bytes.Contains(b, lit) || !mentionsIdentifier(b, name) {
				return
			}
			mu.Lock()
			files = append(files, abs)
			mu.Unlock()
		})
	}
	slices.Sort(files)
	return files, cut
}

// mentionsIdentifier reports whether content names name as a whole
// identifier on some line.
func mentionsIdentifier(content []byte, name string) bool {
	for line := range bytes.Lines(content) {
		if bytes.Contains(line, []byte(name)) && len(identifierMatches(string(line), name)) > 0 {
			return true
		}
	}
	return false
}

// SameLanguage guesses, by extension, whether one language server
// answers for both files: what the editor's servers are taken to do.
func SameLanguage(a, b string) bool { return sameLanguage(a, b) }

// sameLanguage guesses, by extension, whether one language server
// answers for both files; used where the servers are the editor's.
func sameLanguage(a, b string) bool {
	family := func(p string) string {
		ext := strings.ToLower(filepath.Ext(p))
		switch ext {
		case ".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs":
			return "js"
		case ".py", ".pyi":
			return "py"
		case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp":
			return "c"
		}
		return ext
	}
	return family(a) != "" && family(a) == family(b)
}

// widenScope opens for the server the files that name the symbol at
// at, before a question across files. It returns the files it found
// (to check the answer against where they could not be opened) and
// whether they were all opened.
func (lt *langTools) widenScope(ctx context.Context, at Position, name string) (files []string, loaded bool) {
	files, cut := lt.mentions(ctx, at, name)
	loader, ok := lt.lf.(LanguageFileLoader)
	if !ok || len(files) == 0 {
		return files, false
	}
	open := files
	if len(open) > maxScopeLoad {
		open = open[:maxScopeLoad]
	}
	if err := loader.LoadFiles(ctx, open); err != nil {
		return files, false
	}
	if cut {
		NoteLanguageAnswer(ctx, "the workspace is large: only the first files found were scanned for other uses of "+name)
	}
	if len(files) > len(open) {
		return files[len(open):], false
	}
	return nil, true
}

// unlisted names the files that mention the symbol but that an answer
// listing no other file than at's leaves out: the server may not have
// loaded them. An answer that already spans files is taken as the
// server's view of the project: a common name is in many files that do
// not refer to this symbol, and naming them all on every answer would
// cost more than it tells.
func (lt *langTools) unlisted(ctx context.Context, at Position, name string, files []string, listed []Location) {
	seen := map[string]bool{}
	for _, l := range listed {
		if l.Path != at.Path {
			return
		}
		seen[l.Path] = true
	}
	var rel []string
	for _, f := range files {
		if seen[f] {
			continue
		}
		if p, err := lt.tc.Resolve(f); err == nil {
			rel = append(rel, p.Rel)
		} else {
			rel = append(rel, f)
		}
	}
	if len(rel) == 0 {
		return
	}
	more := ""
	if len(rel) > maxScopeNamed {
		more = " and " + strconv.Itoa(len(rel)-maxScopeNamed) + " more"
		rel = rel[:maxScopeNamed]
	}
	NoteLanguageAnswer(ctx, "the language server did not list "+strings.Join(rel, ", ")+more+
		", which also name "+name+" (they may lie outside its project, or name another symbol): check them with grep")
}
