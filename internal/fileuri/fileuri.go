// Package fileuri turns file paths into file:// URIs and back, the one
// place cb-ls does either. A URI is built with net/url's escaping, as
// gopls builds its own: a space, '#', '%', '?' and every non-ASCII byte
// are escaped, so a path always survives the trip to a client and back.
// Reading accepts any correct escaping (VS Code escapes ':', '@' and
// more; Neovim fewer) and refuses what is not a local file: another
// scheme or host, a query or a fragment, a relative path.
package fileuri

import (
	"fmt"
	"net/url"
	"path/filepath"
	"runtime"
	"strings"

	"go.lsp.dev/uri"
)

// FromPath returns the file URI of path, made absolute first.
func FromPath(path string) uri.URI {
	if path == "" {
		return ""
	}
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	p := filepath.ToSlash(path)
	if isDrivePath(p) {
		// file:///C:/dir: the drive letter after a slash, upper case, as
		// gopls writes it.
		p = "/" + strings.ToUpper(p[:1]) + p[1:]
	}
	return uri.URI((&url.URL{Scheme: "file", Path: p}).String())
}

// ToPath returns the absolute, clean path a file URI names.
func ToPath(u uri.URI) (string, error) {
	s := string(u)
	pu, err := url.Parse(s)
	switch {
	case err != nil:
		return "", fmt.Errorf("%q is not a valid URI: %v", s, err)
	case pu.Scheme != "file":
		return "", fmt.Errorf("%q is not a file URI", s)
	case pu.Host != "" && pu.Host != "localhost":
		return "", fmt.Errorf("%q names a file on another host (%s)", s, pu.Host)
	case pu.RawQuery != "" || pu.ForceQuery || strings.Contains(s, "#"):
		// A '?' or '#' in a file name is escaped (%3F, %23); unescaped it
		// starts a query or fragment, and cutting it off would name
		// another file.
		return "", fmt.Errorf("%q has a query or fragment: a file URI escapes ? and # in a name (%%3F, %%23)", s)
	}
	p := pu.Path
	if strings.HasPrefix(p, "/") && isDrivePath(p[1:]) {
		p = p[1:] // /C:/dir is C:/dir
	}
	p = filepath.FromSlash(p)
	if !filepath.IsAbs(p) {
		return "", fmt.Errorf("%q does not name an absolute path", s)
	}
	return filepath.Clean(p), nil
}

// isDrivePath reports whether p starts with a Windows drive letter and
// a colon ("C:/", "c:\\", "C:"). Elsewhere "C:" is a name like another.
func isDrivePath(p string) bool {
	return runtime.GOOS == "windows" && len(p) >= 2 && p[1] == ':' && ('a' <= p[0] && p[0] <= 'z' || 'A' <= p[0] && p[0] <= 'Z') && (len(p) == 2 || p[2] == '/' || p[2] == '\\')
}
