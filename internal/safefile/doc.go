// Package safefile opens, reads and writes files beneath a workspace
// root without ever following a symbolic link.
//
// The PathGuard checks a path's real form, but the disk can change
// between that check and the open: a directory swapped for a symlink to
// .catbuddy/ (inside the root, so os.Root lets it through) would lead a
// read, a write or a walk into cb-ls's own state. Callers therefore open
// what the guard admitted component by component, from the boundary
// root, refusing every symlink on the way (openat2 with
// RESOLVE_BENEATH|RESOLVE_NO_SYMLINKS where the kernel has it, openat
// with O_NOFOLLOW otherwise), and then work through the descriptor of
// the directory they opened (a [Dir]): what is read, written, renamed or
// listed is the object that was checked, whatever the path names a
// moment later. guard.Path.Rel has every symlink resolved already, so a
// symlink met here means the tree changed under the caller
// ([ErrPathChanged]).
//
// On top of [Dir] the package offers what the file tools need to be
// safe with content: [Dir.OpenRegular] (non-blocking, so a FIFO swapped
// in cannot hang a read), [Dir.ReadRegular] and [Dir.Holds] (is the file
// still what was read?), [Dir.WriteTemp] (the first half of an atomic
// replace by rename), and [LooksBinary].
//
// It imports nothing of cb-ls: paths are a root and a slash-separated
// path relative to it, as guard.Path carries them.
package safefile
