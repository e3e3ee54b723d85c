package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"regexp"
	"strings"
)

// mentionRE finds @path mentions in the user's input: an @ at the start
// or after a space or an opening bracket, then a path without spaces.
// Trailing punctuation ("see @calc.go.") is not part of the path.
var mentionRE = regexp.MustCompile(`(?:^|[\s(\[{"'])@([^\s@()\[\]{}"'<>,;]+)`)

// maxMentions bounds the files one input may bring in.
const maxMentions = 10

// mentionedFiles returns the section added to the task for the files the
// input @-mentions: each file's current text (the editor's buffer when
// it is open), read through files (the PathGuard), numbered as read_file
// shows it and cut like the task's own excerpt. A mention that cannot be
// read says why, so the model does not look for it in vain. "" when
// nothing is mentioned or files is nil.
func mentionedFiles(ctx context.Context, files ProjectFiles, input, workRoot string) string {
	if files == nil || !strings.Contains(input, "@") {
		return ""
	}
	var b strings.Builder
	seen := map[string]bool{}
	for _, m := range mentionRE.FindAllStringSubmatch(input, -1) {
		path := strings.TrimRight(m[1], ".:!?")
		if path == "" || seen[path] {
			continue
		}
		seen[path] = true
		if len(seen) > maxMentions {
			fmt.Fprintf(&b, "\n(@%s and later mentions are left out: at most %d files per message; use read_file)\n", path, maxMentions)
			break
		}
		gp, content, err := files.ReadText(ctx, path)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintf(&b, "\n@%s: no such file in the workspace.\n", path)
			} else {
				fmt.Fprintf(&b, "\n@%s: not readable: %v\n", path, err)
			}
			continue
		}
		name := displayPath(gp.Abs, workRoot)
		lang := languageOf(name)
		first, last, whole := excerptRange(Task{Content: content})
		if whole {
			fmt.Fprintf(&b, "\nFile %s (mentioned as @%s), as the user sees it:\n", name, path)
		} else {
			fmt.Fprintf(&b, "\nLines %d-%d of %s (mentioned as @%s; read_file for the rest):\n", first, last, name, path)
		}
		writeNumbered(&b, content, first, last, lang)
	}
	if b.Len() == 0 {
		return ""
	}
	return "\n\n## Mentioned files\n" + b.String()
}

// languageOf names a fence's language from a file name's extension.
func languageOf(name string) string {
	i := strings.LastIndexByte(name, '.')
	if i < 0 || strings.ContainsRune(name[i:], '/') {
		return ""
	}
	return name[i+1:]
}
