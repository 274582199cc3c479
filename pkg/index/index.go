// Package index is Codali's built-in repository index: it lists a
// repository's text files within limits and ranks file windows against the
// terms of a request. The librarian uses it when no Docdex daemon is
// configured.
package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode"
)

// Limits bound a scan.
type Limits struct {
	// MaxFiles stops listing after this many files.
	MaxFiles int
	// MaxFileBytes skips reading larger files.
	MaxFileBytes int64
	// Exclude, when set, leaves out files it returns true for (given the
	// slash-separated relative path): for instance files a policy protects.
	Exclude func(rel string) bool
}

// File is one indexed text file.
type File struct {
	// Path is slash-separated, relative to the root.
	Path string
	// Size is the file's size in bytes.
	Size int64
	// content is kept for search when the file is small enough.
	content []byte
}

// Index is a scanned repository. It is immutable after Scan and safe for
// concurrent use.
type Index struct {
	// Files are sorted by path.
	Files []File
	// Bytes is the total size of the listed files.
	Bytes int64
	// Truncated reports that MaxFiles was reached.
	Truncated bool
	// Skipped counts files skipped as binary or too large.
	Skipped int
	// Excluded counts files left out by Limits.Exclude.
	Excluded int
}

// skipDirs are never descended into.
var skipDirs = map[string]bool{".git": true, "node_modules": true, "vendor": true, ".context": true, ".hg": true, ".svn": true, "__pycache__": true, ".venv": true}

// Scan walks root and indexes its text files. Symlinks are not followed.
func Scan(root string, lim Limits) (*Index, error) {
	if lim.MaxFiles <= 0 || lim.MaxFileBytes <= 0 {
		return nil, errors.New("index: limits must be positive")
	}
	info, err := os.Stat(root)
	if err != nil {
		return nil, fmt.Errorf("could not read repository: %w", err)
	}
	if !info.IsDir() {
		return nil, fmt.Errorf("could not read repository: %s is not a directory", root)
	}
	idx := &Index{}
	errStop := errors.New("stop")
	err = filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
			idx.Skipped++
			return nil
		}
		if d.IsDir() {
			if p != root && skipDirs[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if len(idx.Files) >= lim.MaxFiles {
			idx.Truncated = true
			return errStop
		}
		fi, err := d.Info()
		if err != nil {
			idx.Skipped++
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		if lim.Exclude != nil && lim.Exclude(filepath.ToSlash(rel)) {
			idx.Excluded++
			return nil
		}
		f := File{Path: filepath.ToSlash(rel), Size: fi.Size()}
		if fi.Size() <= lim.MaxFileBytes {
			data, err := os.ReadFile(p)
			if err != nil || isBinary(data) {
				idx.Skipped++
				return nil
			}
			f.content = data
		} else {
			idx.Skipped++
		}
		idx.Files = append(idx.Files, f)
		idx.Bytes += fi.Size()
		return nil
	})
	if err != nil && !errors.Is(err, errStop) {
		return nil, fmt.Errorf("could not scan repository: %w", err)
	}
	sort.Slice(idx.Files, func(i, j int) bool { return idx.Files[i].Path < idx.Files[j].Path })
	return idx, nil
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0
}

// stopwords are ignored when extracting terms.
var stopwords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "make": true, "when": true,
	"from": true, "into": true, "should": true, "return": true, "returns": true, "add": true, "fix": true,
	"use": true, "are": true, "not": true, "but": true, "all": true, "can": true, "its": true, "has": true,
	"have": true, "was": true, "will": true, "them": true, "then": true, "than": true, "there": true, "what": true,
}

// Terms extracts up to max distinct search terms from text: identifier-like
// words of three or more characters, lower-cased, stopwords removed, in
// order of first appearance.
func Terms(text string, max int) []string {
	seen := map[string]bool{}
	var out []string
	words := strings.FieldsFunc(text, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' })
	for _, w := range words {
		lw := strings.ToLower(w)
		if len(lw) < 3 || stopwords[lw] || seen[lw] {
			continue
		}
		seen[lw] = true
		out = append(out, lw)
		if len(out) == max {
			break
		}
	}
	return out
}

// Hit is a ranked file window.
type Hit struct {
	Path      string
	Score     int
	LineStart int
	LineEnd   int
	Content   string
}

// Search ranks files by how often the terms occur in their path (weighted)
// and content, and returns up to max windows of about window lines centred
// on the first matching line. Ties are broken by path, so results are
// deterministic.
func (idx *Index) Search(terms []string, max, windowLines int) []Hit {
	var hits []Hit
	for _, f := range idx.Files {
		if f.content == nil {
			continue
		}
		lowerPath := strings.ToLower(f.Path)
		lower := bytes.ToLower(f.content)
		score, first := 0, -1
		for _, t := range terms {
			if strings.Contains(lowerPath, t) {
				score += 10
			}
			n := bytes.Count(lower, []byte(t))
			score += n
			if n > 0 {
				if i := bytes.Index(lower, []byte(t)); first < 0 || i < first {
					first = i
				}
			}
		}
		if score == 0 {
			continue
		}
		hits = append(hits, window(f, first, windowLines, score))
	}
	sort.SliceStable(hits, func(i, j int) bool {
		if hits[i].Score != hits[j].Score {
			return hits[i].Score > hits[j].Score
		}
		return hits[i].Path < hits[j].Path
	})
	if len(hits) > max {
		hits = hits[:max]
	}
	return hits
}

func window(f File, offset, size, score int) Hit {
	lines := strings.SplitAfter(string(f.content), "\n")
	if len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	center := 0
	if offset > 0 {
		center = bytes.Count(f.content[:offset], []byte("\n"))
	}
	start := center - size/4
	if start < 0 {
		start = 0
	}
	end := start + size
	if end > len(lines) {
		end = len(lines)
	}
	return Hit{Path: f.Path, Score: score, LineStart: start + 1, LineEnd: end, Content: strings.Join(lines[start:end], "")}
}
