package changegate

import (
	"fmt"
	"path"
	"strconv"
	"strings"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/workspace"
)

// FromDiff reads the changed files and line counts out of a unified diff
// in git's format (as Workspace.Change writes it, renames off): one file
// per "diff --git" header, "add" or "delete" from "new file mode" and
// "deleted file mode", and the added and removed lines counted hunk by
// hunk from the hunk headers, so a removed line that starts with "--" is
// not mistaken for a header. It reads the diff itself rather than trusting
// a list that came with it. A header it cannot read is an error.
//
// A binary file (a "GIT binary patch") counts one changed line per
// BinaryBytesPerLine bytes of its literal or delta data, so content that
// git shows as binary (a NUL byte, a -diff attribute) cannot hide its size
// from max_changed_lines.
func FromDiff(diff string) (events.Change, error) {
	p, err := parse(diff)
	return p.change, err
}

// BinaryBytesPerLine is how many bytes of a binary file's data count as
// one changed line.
const BinaryBytesPerLine = 64

// Link is a symbolic link a change adds or modifies: its path and target.
type Link struct {
	Path, Target string
}

// parsed is what a diff says: the change and the links it writes.
type parsed struct {
	change events.Change
	links  []Link
}

func parse(diff string) (parsed, error) {
	var ch events.Change
	var links []Link
	cur := -1
	oldLeft, newLeft := 0, 0
	link := false // the current file's new mode is a symbolic link
	for n, line := range strings.Split(diff, "\n") {
		if oldLeft > 0 || newLeft > 0 {
			switch {
			case strings.HasPrefix(line, "+"):
				ch.Added++
				newLeft--
				if link {
					links = append(links, Link{Path: ch.Files[cur].Path, Target: line[1:]})
				}
			case strings.HasPrefix(line, "-"):
				ch.Removed++
				oldLeft--
			case strings.HasPrefix(line, " "):
				oldLeft--
				newLeft--
			case strings.HasPrefix(line, `\`): // "\ No newline at end of file"
			default:
				return parsed{}, fmt.Errorf("diff line %d: %q inside a hunk", n+1, clipLine(line))
			}
			continue
		}
		switch {
		case strings.HasPrefix(line, "diff --git "):
			p, err := headerPath(strings.TrimPrefix(line, "diff --git "))
			if err != nil {
				return parsed{}, fmt.Errorf("diff line %d: %w", n+1, err)
			}
			ch.Files = append(ch.Files, events.FileChange{Path: p, Op: "modify"})
			cur, link = len(ch.Files)-1, false
		case cur < 0:
		case strings.HasPrefix(line, "new file mode"):
			ch.Files[cur].Op = "add"
			link = strings.HasSuffix(line, " 120000")
		case strings.HasPrefix(line, "new mode"):
			link = strings.HasSuffix(line, " 120000")
		case strings.HasPrefix(line, "deleted file mode"):
			ch.Files[cur].Op = "delete"
		case strings.HasPrefix(line, "literal "), strings.HasPrefix(line, "delta "):
			// The sizes of a "GIT binary patch": the new data, then the
			// reverse data; both count, like added and removed lines.
			_, size, _ := strings.Cut(line, " ")
			v, err := strconv.Atoi(size)
			if err != nil || v < 0 {
				return parsed{}, fmt.Errorf("diff line %d: bad binary size %q", n+1, clipLine(line))
			}
			ch.Added += (v + BinaryBytesPerLine - 1) / BinaryBytesPerLine
		case strings.HasPrefix(line, "@@ "):
			o, nw, err := hunkCounts(line)
			if err != nil {
				return parsed{}, fmt.Errorf("diff line %d: %w", n+1, err)
			}
			oldLeft, newLeft = o, nw
		}
	}
	if oldLeft > 0 || newLeft > 0 {
		return parsed{}, fmt.Errorf("diff ends inside a hunk")
	}
	return parsed{change: ch, links: links}, nil
}

// LeavesTree reports why a link's target is not inside the repository, or
// "" when it is: an absolute target, one that climbs out of the tree, or
// one into git metadata.
func (l Link) LeavesTree() string {
	t := l.Target
	if strings.HasPrefix(t, "/") {
		return "its target is absolute"
	}
	joined := path.Join(path.Dir(l.Path), t)
	if joined == ".." || strings.HasPrefix(joined, "../") {
		return "its target is outside the repository"
	}
	for _, part := range strings.Split(joined, "/") {
		if workspace.IsGitName(part) {
			return "its target is git metadata"
		}
	}
	return ""
}

// headerPath returns the path of "a/P b/P" or `"a/P" "b/P"` (git quotes
// paths with unusual characters, C style).
func headerPath(rest string) (string, error) {
	if strings.HasPrefix(rest, `"`) {
		q, err := strconv.QuotedPrefix(rest)
		if err != nil {
			return "", fmt.Errorf("bad quoted path in %q", clipLine(rest))
		}
		p, err := strconv.Unquote(q)
		if err != nil || !strings.HasPrefix(p, "a/") {
			return "", fmt.Errorf("bad quoted path in %q", clipLine(rest))
		}
		return p[2:], nil
	}
	n := (len(rest) - len("a/ b/")) / 2
	if n <= 0 || !strings.HasPrefix(rest, "a/") || rest[2:2+n] != rest[len(rest)-n:] || rest[2+n:len(rest)-n] != " b/" {
		return "", fmt.Errorf("unreadable header %q", clipLine(rest))
	}
	return rest[2 : 2+n], nil
}

// hunkCounts reads "@@ -a[,b] +c[,d] @@" and returns b and d (1 when
// omitted).
func hunkCounts(line string) (int, int, error) {
	f := strings.Fields(line)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[1], "-") || !strings.HasPrefix(f[2], "+") {
		return 0, 0, fmt.Errorf("bad hunk header %q", clipLine(line))
	}
	count := func(r string) (int, error) {
		_, c, ok := strings.Cut(r[1:], ",")
		if !ok {
			return 1, nil
		}
		v, err := strconv.Atoi(c)
		if err != nil || v < 0 {
			return 0, fmt.Errorf("bad hunk header %q", clipLine(line))
		}
		return v, nil
	}
	o, err := count(f[1])
	if err != nil {
		return 0, 0, err
	}
	nw, err := count(f[2])
	return o, nw, err
}

func clipLine(s string) string {
	if len(s) > 80 {
		return s[:80] + "…"
	}
	return s
}

// Merge returns a change holding every file of a and b (by path; a delete
// or an add wins over a modify) and the larger of their line counts: the
// gate judges the union of what a diff says and what a workspace reports,
// so a list cut short on either side hides nothing.
func Merge(a, b events.Change) events.Change {
	out := events.Change{Diff: a.Diff, DiffRef: a.DiffRef, Added: max(a.Added, b.Added), Removed: max(a.Removed, b.Removed)}
	index := map[string]int{}
	for _, f := range append(append([]events.FileChange(nil), a.Files...), b.Files...) {
		i, ok := index[f.Path]
		if !ok {
			index[f.Path] = len(out.Files)
			out.Files = append(out.Files, f)
			continue
		}
		if out.Files[i].Op == "modify" {
			out.Files[i].Op = f.Op
		}
	}
	return out
}
