package search

import (
	"io"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// maxIgnoreSize bounds a .gitignore file read into memory.
const maxIgnoreSize = 1 << 20

// loadIgnore parses name in dir as a .gitignore for relDir; nil if it
// cannot be read.
func loadIgnore(dir *safefile.Dir, name, relDir string) *ignoreFile {
	f, err := dir.OpenFile(name, os.O_RDONLY|safefile.NonBlock, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	b, err := io.ReadAll(io.LimitReader(f, maxIgnoreSize))
	if err != nil {
		return nil
	}
	return parseGitignore(relDir, b)
}

// ancestorIgnores loads .git/info/exclude and the .gitignore files from
// the boundary root down to the directory rel, so that a search started
// in a subdirectory obeys the rules written above it.
func ancestorIgnores(root *safefile.Dir, rel string) *ignoreChain {
	var chain *ignoreChain
	chain = chain.push(loadIgnore(root, filepath.Join(".git", "info", "exclude"), ""))
	if rel == "." || rel == "" {
		return chain // the walk reads the root's own .gitignore
	}
	chain = chain.push(loadIgnore(root, ".gitignore", ""))
	dir := ""
	parts := strings.Split(rel, "/")
	for _, p := range parts[:len(parts)-1] {
		dir = RelJoin(dir, p)
		chain = chain.push(loadIgnore(root, filepath.FromSlash(path.Join(dir, ".gitignore")), dir))
	}
	// rel itself is listed by the walk, which reads its .gitignore.
	return chain
}
