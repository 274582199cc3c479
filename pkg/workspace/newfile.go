package workspace

import (
	"bytes"
	"crypto/sha1" //nolint:gosec // git's object ids, not a security measure
	"encoding/hex"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
)

// maxNewFileBytes bounds a new file whose patch is written here rather
// than by git (larger ones take the staging path).
const maxNewFileBytes = 1 << 20

// binaryProbeBytes is how much of a file git looks at for a NUL byte to
// call it binary.
const binaryProbeBytes = 8000

// newFilePatch is the patch git writes for one new file, with its line
// count.
type newFilePatch struct {
	path  string
	patch string
	lines int
}

// newFilePatches writes, for each new file in rels (slash paths, sorted),
// exactly the patch `git diff --cached --patch --binary --full-index`
// gives for it once staged. It only does so for what it can write
// exactly: regular text files (no NUL in git's probe) of at most
// maxNewFileBytes whose names need no quoting and pass through no git
// metadata (.git in any spelling), in a tree without
// .gitattributes (which could change how git reads content), together
// at most the diff's bound (Limits.MaxDiffBytes). For anything else it
// returns false, and the caller stages and asks git.
func (w *Workspace) newFilePatches(rels []string) ([]newFilePatch, bool) {
	if len(rels) == 0 {
		return nil, true
	}
	if w.trackedAttributes {
		return nil, false
	}
	out := make([]newFilePatch, 0, len(rels))
	// What is read in all: past the diff's bound the change is too large,
	// and the staging way finds that out without this process holding
	// every new file at once.
	var read int64
	for _, rel := range rels {
		// git never stages a path through its metadata (.git in any
		// spelling): staging leaves it out, or refuses it, as git does.
		if path.Base(rel) == ".gitattributes" || !plainName(rel) || inGit(rel) {
			return nil, false
		}
		abs := filepath.Join(w.Dir, filepath.FromSlash(rel))
		info, err := os.Lstat(abs)
		if err != nil || !info.Mode().IsRegular() || info.Size() > maxNewFileBytes {
			return nil, false
		}
		if read += info.Size(); read > w.lim.MaxDiffBytes {
			return nil, false
		}
		data, err := os.ReadFile(abs)
		if err != nil || int64(len(data)) > maxNewFileBytes || bytes.IndexByte(data[:min(len(data), binaryProbeBytes)], 0) >= 0 {
			return nil, false
		}
		mode := "100644"
		if info.Mode()&0o100 != 0 {
			mode = "100755"
		}
		out = append(out, newTextPatch(rel, mode, data))
	}
	return out, true
}

// plainName reports whether git writes the slash path p in a patch as it
// is: no control, quote, backslash or non-ASCII bytes (core.quotePath).
func plainName(p string) bool {
	if p == "" {
		return false
	}
	for i := 0; i < len(p); i++ {
		c := p[i]
		if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// newTextPatch is git's patch creating the text file rel with data.
func newTextPatch(rel, mode string, data []byte) newFilePatch {
	h := sha1.New() //nolint:gosec // git's object ids
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var b strings.Builder
	b.WriteString("diff --git a/" + rel + " b/" + rel + "\n")
	b.WriteString("new file mode " + mode + "\n")
	b.WriteString("index 0000000000000000000000000000000000000000.." + hex.EncodeToString(h.Sum(nil)) + "\n")
	if len(data) == 0 {
		return newFilePatch{path: rel, patch: b.String()}
	}
	tab := ""
	if strings.Contains(rel, " ") {
		tab = "\t" // git ends a name with a space this way
	}
	lines := bytes.Count(data, []byte{'\n'})
	if data[len(data)-1] != '\n' {
		lines++
	}
	b.WriteString("--- /dev/null\n+++ b/" + rel + tab + "\n")
	if lines == 1 {
		b.WriteString("@@ -0,0 +1 @@\n")
	} else {
		b.WriteString("@@ -0,0 +1," + strconv.Itoa(lines) + " @@\n")
	}
	for rest := data; len(rest) > 0; {
		i := bytes.IndexByte(rest, '\n')
		b.WriteByte('+')
		if i < 0 {
			b.Write(rest)
			b.WriteString("\n\\ No newline at end of file\n")
			break
		}
		b.Write(rest[:i+1])
		rest = rest[i+1:]
	}
	return newFilePatch{path: rel, patch: b.String(), lines: lines}
}

// withNewFiles merges the patches of new files into ch (the change of the
// tracked files) in git's order: by path, byte by byte, as the index
// sorts. ch's patch is split at its per-file headers; a path changed in
// type has two of them, both under its one file record.
func withNewFiles(ch events.Change, kinds []string, news []newFilePatch) (events.Change, bool) {
	if len(news) == 0 {
		return ch, true
	}
	chunks := splitPatch(ch.Diff)
	// The chunks of each tracked file, in order.
	per := make([][]string, len(ch.Files))
	next := 0
	for i := range ch.Files {
		n := 1
		if kinds[i] == "T" {
			n = 2
		}
		if next+n > len(chunks) {
			return ch, false
		}
		per[i] = chunks[next : next+n]
		next += n
	}
	if next != len(chunks) {
		return ch, false
	}
	sort.Slice(news, func(i, j int) bool { return news[i].path < news[j].path })
	out := events.Change{Added: ch.Added, Removed: ch.Removed}
	var diff strings.Builder
	i, j := 0, 0
	for i < len(ch.Files) || j < len(news) {
		if j == len(news) || (i < len(ch.Files) && ch.Files[i].Path < news[j].path) {
			out.Files = append(out.Files, ch.Files[i])
			for _, c := range per[i] {
				diff.WriteString(c)
			}
			i++
			continue
		}
		out.Files = append(out.Files, events.FileChange{Path: news[j].path, Op: "add"})
		diff.WriteString(news[j].patch)
		out.Added += news[j].lines
		j++
	}
	out.Diff = diff.String()
	return out, true
}

// splitPatch splits a patch at each "diff --git " that starts a line (in a
// patch no content line does: they start with ' ', '+', '-', '\' or, in a
// binary patch, a base85 length character; names with line breaks are
// quoted).
func splitPatch(p string) []string {
	var out []string
	for p != "" {
		i := strings.Index(p[1:], "\ndiff --git ")
		if i < 0 {
			out = append(out, p)
			break
		}
		out = append(out, p[:i+2])
		p = p[i+2:]
	}
	return out
}
