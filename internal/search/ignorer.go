package search

import (
	"path"
	"path/filepath"
	"sync"

	"github.com/catbuddy/cb-ls/internal/safefile"
)

// Ignorer answers whether a path of one folder is ignored as the walk
// would decide (.git/info/exclude and every .gitignore from the folder
// down), for a caller that has single paths rather than a tree: the
// change set groups a command's ignored outputs. The rules of each
// directory are read once.
type Ignorer struct {
	root   string
	mu     sync.Mutex
	chains map[string]*ignoreChain // directory → the rules that apply inside it
}

// NewIgnorer returns an Ignorer of the folder root.
func NewIgnorer(root string) *Ignorer {
	return &Ignorer{root: root, chains: map[string]*ignoreChain{}}
}

// Ignored reports whether rel (slash-separated, relative to the folder)
// is ignored.
func (ig *Ignorer) Ignored(rel string, isDir bool) bool {
	dir := path.Dir(rel)
	if dir == "." {
		dir = ""
	}
	ig.mu.Lock()
	defer ig.mu.Unlock()
	return ig.chain(dir).ignored(rel, isDir)
}

// chain returns the rules that apply to the entries of dir. ig.mu is held.
func (ig *Ignorer) chain(dir string) *ignoreChain {
	if c, ok := ig.chains[dir]; ok {
		return c
	}
	root, err := safefile.OpenBeneath(ig.root, ".")
	if err != nil {
		return nil
	}
	defer root.Close()
	return ig.chainIn(root, dir)
}

func (ig *Ignorer) chainIn(root *safefile.Dir, dir string) *ignoreChain {
	if c, ok := ig.chains[dir]; ok {
		return c
	}
	var c *ignoreChain
	if dir == "" {
		c = ancestorIgnores(root, ".")
	} else {
		parent := path.Dir(dir)
		if parent == "." {
			parent = ""
		}
		c = ig.chainIn(root, parent)
	}
	c = c.push(loadIgnore(root, filepath.FromSlash(path.Join(dir, ".gitignore")), dir))
	ig.chains[dir] = c
	return c
}
