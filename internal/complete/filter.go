package complete

import (
	"path"
	"path/filepath"
	"strings"

	"github.com/catbuddy/cb-ls/internal/search"
)

// secretNames are file names whose content is a credential: such a file
// is never completed nor sent as context, whatever the settings.
var secretNames = []string{
	".netrc", ".git-credentials", ".npmrc", ".pypirc", ".pgpass", ".htpasswd",
	"credentials", "credentials.json", "credentials.yml", "credentials.yaml", "credentials.toml", "credentials.xml",
	".envrc", "secrets.json", "secrets.yml", "secrets.yaml", "secrets.toml",
}

// secretExts are endings of key material and secret stores.
var secretExts = []string{".pem", ".key", ".p12", ".pfx", ".jks", ".keystore", ".kdbx", ".asc", ".gpg", ".credentials"}

// secretKeyPrefixes are the private keys ssh-keygen writes (id_rsa,
// id_ed25519, … and their .pub): "id_" alone would catch id_test.go.
var secretKeyPrefixes = []string{"id_rsa", "id_dsa", "id_ecdsa", "id_ed25519"}

// secretDirs are directories that hold credentials.
var secretDirs = []string{".ssh", ".aws", ".gnupg", ".kube", ".azure", ".password-store", ".docker"}

// IsSecret reports whether path names a file that holds secrets: .env
// files (.env, .env.local, …, but not .env.example and its kind, which
// are committed on purpose), keys and certificates, credentials files,
// and anything under ~/.ssh-like directories.
func IsSecret(p string) bool {
	p = filepath.ToSlash(p)
	base := strings.ToLower(path.Base(p))
	if base == ".env" || strings.HasPrefix(base, ".env.") && !isEnvTemplate(base) {
		return true
	}
	for _, n := range secretNames {
		if base == n {
			return true
		}
	}
	for _, e := range secretExts {
		if strings.HasSuffix(base, e) {
			return true
		}
	}
	for _, k := range secretKeyPrefixes {
		if strings.HasPrefix(base, k) {
			return true
		}
	}
	for _, d := range strings.Split(path.Dir(p), "/") {
		for _, s := range secretDirs {
			if d == s {
				return true
			}
		}
	}
	return false
}

func isEnvTemplate(base string) bool {
	for _, s := range []string{".example", ".sample", ".template", ".dist"} {
		if strings.HasSuffix(base, s) {
			return true
		}
	}
	return false
}

// Filter decides which files completions may read: never a secret,
// never a file git ignores. Make one per request: it reads each
// directory's .gitignore once, so an edited .gitignore applies to the
// next request.
type Filter struct {
	roots    []string
	ignorers map[string]*search.Ignorer
}

// NewFilter returns the filter of the workspace folders roots (real
// absolute paths).
func NewFilter(roots []string) *Filter {
	return &Filter{roots: roots, ignorers: map[string]*search.Ignorer{}}
}

// Completes reports whether the file at path (real, absolute) may be
// completed: not a secret and not ignored in its workspace folder. A
// file outside every folder may be completed (the user types there) but
// never lends context (Shares).
func (f *Filter) Completes(p string) bool {
	if IsSecret(p) {
		return false
	}
	root, rel, ok := f.within(p)
	return !ok || !f.ignored(root, rel)
}

// Shares reports whether the file at path may be sent as context for
// another file: inside a workspace folder, not a secret, not ignored.
func (f *Filter) Shares(p string) bool {
	if IsSecret(p) {
		return false
	}
	root, rel, ok := f.within(p)
	return ok && !f.ignored(root, rel)
}

// within returns the folder holding p and p relative to it.
func (f *Filter) within(p string) (root, rel string, ok bool) {
	for _, r := range f.roots {
		if rel, err := filepath.Rel(r, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return r, filepath.ToSlash(rel), true
		}
	}
	return "", "", false
}

// ignored checks rel and each directory above it, as git does: a file
// in an ignored directory is ignored.
func (f *Filter) ignored(root, rel string) bool {
	ig := f.ignorers[root]
	if ig == nil {
		ig = search.NewIgnorer(root)
		f.ignorers[root] = ig
	}
	parts := strings.Split(rel, "/")
	for i := 1; i < len(parts); i++ {
		if parts[i-1] == ".git" || ig.Ignored(strings.Join(parts[:i], "/"), true) {
			return true
		}
	}
	return ig.Ignored(rel, false)
}

// display is p as the model sees it: relative to its workspace folder,
// or its base name outside every folder (the model needs no user's
// home directory layout).
func (f *Filter) display(p string) string {
	if _, rel, ok := f.within(p); ok {
		return rel
	}
	return filepath.Base(p)
}
