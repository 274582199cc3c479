// Package index is Codali's built-in repository index, used when no
// Docdex daemon is configured (or reachable). A scan lists a repository's
// text files within limits and builds, per file, its symbols (with
// signatures and doc comments), an outline of its syntax tree and its
// imports; over all files it builds a BM25 inverted index and an import
// graph. Indexes are cached per repository commit (see Cache).
package index

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"time"
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
	// Lang is the language the symbol extractor recognised ("go",
	// "python", "javascript", "typescript", "rust", "java"), or "".
	Lang string
	// Symbols are the file's declarations, in source order.
	Symbols []Symbol
	// Outline is the file's syntax tree outline (Go: from go/parser;
	// other languages: the symbols nested by their line ranges).
	Outline []Node
	// Imports are the file's imports as written.
	Imports []string
	// content is kept for search when the file is small enough.
	content []byte
}

// Content returns the file's text (nil when it was not read).
func (f File) Content() []byte { return f.content }

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
	// BuiltAt is when the index was built (not when it was loaded from a
	// cache): the index's last update.
	BuiltAt time.Time
	// Key is the cache key the index was built for ("" when uncached).
	Key string
	// Cached reports that the index came from a cache.
	Cached bool

	bm25   bm25
	byPath map[string]int
	graph  graph
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
	idx := &Index{BuiltAt: time.Now()}
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
	for i := range idx.Files {
		extract(&idx.Files[i])
	}
	idx.finish()
	return idx, nil
}

// finish builds the derived structures (path map, BM25, import graph).
func (idx *Index) finish() {
	idx.byPath = make(map[string]int, len(idx.Files))
	for i, f := range idx.Files {
		idx.byPath[f.Path] = i
	}
	if idx.bm25.postings == nil {
		idx.bm25 = buildBM25(idx.Files)
	}
	idx.graph = buildGraph(idx)
}

// File returns the indexed file at a relative path.
func (idx *Index) File(path string) (File, bool) {
	i, ok := idx.byPath[path]
	if !ok {
		return File{}, false
	}
	return idx.Files[i], true
}

func isBinary(data []byte) bool {
	head := data
	if len(head) > 8000 {
		head = head[:8000]
	}
	return bytes.IndexByte(head, 0) >= 0
}
