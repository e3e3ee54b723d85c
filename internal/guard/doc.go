// Package guard decides what the agent may touch: PathGuard for files,
// and (in their own files) the command guard for exec and the URL guard
// for web_fetch.
//
// Every path is resolved to its real absolute form before it is checked
// against the boundary, so "..", symlinks and odd spellings cannot lead
// out. guard imports nothing else of cb-ls.
package guard
