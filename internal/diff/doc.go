// Package diff is cb-ls's text diff, hunk and merge code, beneath every
// part that changes a file: the tools' edit results (a unified diff put
// where git would put it, capped for the model), the review of a change
// hunk by hunk (each Edit is a hunk; Landed finds which were kept), and
// the one three-way merge (RebaseEdits, Merge3) that carries an edit over
// the user's typing and an undo over later edits. QuoteName is how every
// front end shows a file name to a person (escaped when it holds control
// characters).
//
// It works on bytes and byte offsets: an Edit replaces [Start, End) of a
// base text. Lines are split at '\n'. It imports nothing of cb-ls.
package diff
