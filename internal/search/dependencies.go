package search

import "strings"

// A project's dependencies are rarely what a search is after, and
// there are far more of them than of the project's own files: a
// node_modules directory holds tens of thousands of files, and one
// lockfile line matches every dependency's name. Projects usually
// .gitignore node_modules but commit their lockfiles; grep and glob
// leave both out unless the model asks (include_ignored, or a path
// inside such a directory).

// dependencyDirs are directories of installed dependencies.
var dependencyDirs = map[string]bool{
	"node_modules": true,
}

// lockfiles are package managers' lockfiles.
var lockfiles = map[string]bool{
	"package-lock.json":   true,
	"npm-shrinkwrap.json": true,
	"yarn.lock":           true,
	"pnpm-lock.yaml":      true,
	"bun.lock":            true,
	"bun.lockb":           true,
	"deno.lock":           true,
	"Cargo.lock":          true,
	"poetry.lock":         true,
	"Pipfile.lock":        true,
	"uv.lock":             true,
	"pdm.lock":            true,
	"composer.lock":       true,
	"Gemfile.lock":        true,
	"mix.lock":            true,
	"pubspec.lock":        true,
	"Podfile.lock":        true,
	"packages.lock.json":  true,
	"flake.lock":          true,
	"go.sum":              true,
	"go.work.sum":         true,
}

// isDependency reports whether the entry name is a dependency directory
// or a lockfile.
func isDependency(name string, isDir bool) bool {
	if isDir {
		return dependencyDirs[name]
	}
	return lockfiles[name]
}

// IsDependency reports whether the entry name is a dependency directory
// (node_modules) or a lockfile.
func IsDependency(name string, isDir bool) bool { return isDependency(name, isDir) }

// DependencyNote is the note a search adds when it left dependencies
// out, so that "no match" is not taken for "absent".
const DependencyNote = "node_modules and lockfiles skipped; include_ignored: true searches them"

// AsksForDependencies reports whether a glob pattern names dependencies
// itself ("node_modules/**", "yarn.lock", "*.lock"): then they are
// searched.
func AsksForDependencies(pattern string) bool {
	if pattern == "" {
		return false
	}
	if strings.Contains(pattern, "node_modules") || strings.Contains(pattern, ".lock") || strings.Contains(pattern, "lock.") {
		return true
	}
	for name := range lockfiles {
		if strings.Contains(pattern, name) {
			return true
		}
	}
	return false
}

// insideDependencies reports whether the slash path rel is in a
// dependency directory: a search started there asked for it.
func insideDependencies(rel string) bool {
	for dir := range dependencyDirs {
		if strings.Contains("/"+rel+"/", "/"+dir+"/") {
			return true
		}
	}
	return false
}
