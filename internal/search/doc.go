// Package search is the engine behind the grep, glob and list_dir
// tools: a parallel directory walk that honours .gitignore, glob
// matching with "**" and braces, and a line-oriented regexp search
// whose results match ripgrep's.
//
// [Walk] is the core. It starts at a directory the PathGuard admitted,
// opens every directory beneath its root without following a symlink
// (internal/safefile), never enters .git/ or .catbuddy/, and skips what
// the .gitignore files from the root down say to skip (and
// .git/info/exclude), with git's rules: the deepest file decides and
// the last matching line in it wins. Entries of one directory come in
// name order, directories in parallel, so callers sort what they keep.
//
// On top of it:
//   - [Grep] searches file contents; matches never span lines; a literal
//     that every match must contain is found with bytes.Index first, so
//     most files never reach the regexp. Its output is the text the
//     model reads: each file's path once, then its lines as line:text
//     (ripgrep's --heading), capped, with what was left out counted.
//   - [Glob] lists the paths that match a pattern.
//   - [List] prints a directory tree, marking what .gitignore ignores.
//
// The package knows nothing of tools or models: inputs are validated
// values, paths are guard.Path values, and how a path is shown is the
// caller's [Display].
package search
