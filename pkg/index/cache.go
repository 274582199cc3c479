package index

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// cacheVersion changes whenever the cached format or the extractors
// change, so old cache files are rebuilt.
const cacheVersion = 1

// memEntries bounds the indexes a Cache keeps in memory.
const memEntries = 8

// Cache keeps built indexes per repository state: the commit of a clean
// git work tree, otherwise a hash of every file's path and content. A
// second scan of the same state is served from memory or, across
// processes, from Dir. It is safe for concurrent use.
type Cache struct {
	// Dir keeps cached indexes on disk; empty keeps them in memory only.
	Dir string

	mu    sync.Mutex
	mem   map[string]*Index
	order []string
}

// NewCache returns a cache writing to dir ("" for memory only).
func NewCache(dir string) *Cache { return &Cache{Dir: dir, mem: map[string]*Index{}} }

// Load returns the index of root: from the cache when the repository's
// state, the limits and salt (for instance the hash of the policy whose
// Exclude the limits carry) match a cached index, otherwise from a new
// scan, which is then cached. A cached index keeps its BuiltAt and has
// Cached set. Disk cache problems never fail a load: they rebuild.
func (c *Cache) Load(ctx context.Context, root string, lim Limits, salt string) (*Index, error) {
	state, err := RepoState(ctx, root, lim.MaxFileBytes)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(fmt.Appendf(nil, "v%d|%s|%d|%d|%s", cacheVersion, state, lim.MaxFiles, lim.MaxFileBytes, salt))
	key := hex.EncodeToString(sum[:16])
	c.mu.Lock()
	if idx, ok := c.mem[key]; ok {
		c.mu.Unlock()
		return idx, nil
	}
	c.mu.Unlock()
	if idx, err := c.readDisk(key); err == nil {
		c.remember(key, idx)
		return idx, nil
	}
	idx, err := Scan(root, lim)
	if err != nil {
		return nil, err
	}
	idx.Key = key
	_ = c.writeDisk(key, idx) // a cache that cannot be written only costs a re-scan
	c.remember(key, idx)
	// Later loads are cache hits; this caller gets the fresh scan.
	return idx, nil
}

func (c *Cache) remember(key string, idx *Index) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.mem == nil {
		c.mem = map[string]*Index{}
	}
	hit := *idx
	hit.Cached = true
	if _, ok := c.mem[key]; !ok {
		c.order = append(c.order, key)
	}
	c.mem[key] = &hit
	for len(c.order) > memEntries {
		delete(c.mem, c.order[0])
		c.order = c.order[1:]
	}
}

// RepoState identifies the state of the repository at root: "git:" and
// the commit (plus the root's place in the work tree) when root is in a
// clean git work tree, otherwise "sha:" and a hash of every file's path
// and content. Files larger than maxFileBytes (which an index does not
// read) count by path, size and modification time, so a huge file is
// never read.
func RepoState(ctx context.Context, root string, maxFileBytes int64) (string, error) {
	if _, err := exec.LookPath("git"); err == nil {
		if s, ok := gitState(ctx, root); ok {
			return s, nil
		}
	}
	return contentHash(root, maxFileBytes)
}

func gitState(ctx context.Context, root string) (string, bool) {
	if !mayBeInGitWorkTree(root) {
		return "", false // no git process for a directory git cannot know
	}
	run := func(args ...string) (string, bool) {
		cmd := exec.CommandContext(ctx, "git", append([]string{"-C", root, "-c", "core.fsmonitor=false", "-c", "core.hooksPath=/dev/null"}, args...)...)
		cmd.Env = append(os.Environ(), "GIT_OPTIONAL_LOCKS=0", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.Output()
		return string(out), err == nil
	}
	// The repository's own configuration first (reading it runs nothing):
	// one that could make status run a program leaves the state to the
	// content hash.
	if local, ok := run("config", "--local", "--list", "--no-includes"); !ok || !safeGitConfig(local) {
		return "", false
	}
	head, ok := run("rev-parse", "--verify", "HEAD", "--show-prefix")
	if !ok {
		return "", false
	}
	status, ok := run("status", "--porcelain", "--untracked-files=normal", "--", ".")
	if !ok || strings.TrimSpace(status) != "" {
		return "", false // dirty: the content decides
	}
	return "git:" + strings.Join(strings.Fields(head), "|"), true
}

// mayBeInGitWorkTree reports whether git could find a work tree for
// root: GIT_DIR or GIT_WORK_TREE is set, or root or one of its parents
// has a .git entry (directory or gitfile). Without any, git finds none.
func mayBeInGitWorkTree(root string) bool {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" {
		return true
	}
	dir, err := filepath.Abs(root)
	if err != nil {
		return true
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return false
		}
		dir = parent
	}
}

func contentHash(root string, maxFileBytes int64) (string, error) {
	h := sha256.New()
	buf := make([]byte, 64<<10)
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == root {
				return err
			}
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
		rel, _ := filepath.Rel(root, p)
		info, err := d.Info()
		if err != nil {
			return nil
		}
		if info.Size() > maxFileBytes {
			fmt.Fprintf(h, "%s\x00size:%d:%d\n", filepath.ToSlash(rel), info.Size(), info.ModTime().UnixNano())
			return nil
		}
		f, err := os.Open(p)
		if err != nil {
			return nil
		}
		fh := sha256.New()
		_, err = io.CopyBuffer(fh, struct{ io.Reader }{f}, buf) // the plain reader keeps buf in use
		_ = f.Close()
		if err != nil {
			return nil
		}
		fmt.Fprintf(h, "%s\x00%x\n", filepath.ToSlash(rel), fh.Sum(nil))
		return nil
	})
	if err != nil {
		return "", fmt.Errorf("could not read repository: %w", err)
	}
	return "sha:" + hex.EncodeToString(h.Sum(nil)), nil
}

// snapshot is the on-disk form of an index.
type snapshot struct {
	Version   int
	BuiltAt   time.Time
	Files     []fileRecord
	Bytes     int64
	Truncated bool
	Skipped   int
	Excluded  int
	Terms     []string
	Postings  [][]posting
	DocLen    []int32
	AvgLen    float64
}

type fileRecord struct {
	Path    string
	Size    int64
	Lang    string
	Symbols []Symbol
	Outline []Node
	Imports []string
	Content []byte
}

func (c *Cache) path(key string) string { return filepath.Join(c.Dir, key+".gob") }

func (c *Cache) writeDisk(key string, idx *Index) error {
	if c.Dir == "" {
		return nil
	}
	s := snapshot{Version: cacheVersion, BuiltAt: idx.BuiltAt, Bytes: idx.Bytes, Truncated: idx.Truncated, Skipped: idx.Skipped,
		Excluded: idx.Excluded, DocLen: idx.bm25.docLen, AvgLen: idx.bm25.avgLen}
	for _, f := range idx.Files {
		s.Files = append(s.Files, fileRecord{f.Path, f.Size, f.Lang, f.Symbols, f.Outline, f.Imports, f.content})
	}
	for t, ps := range idx.bm25.postings {
		s.Terms = append(s.Terms, t)
		s.Postings = append(s.Postings, ps)
	}
	var buf bytes.Buffer
	if err := gob.NewEncoder(&buf).Encode(&s); err != nil {
		return err
	}
	if err := os.MkdirAll(c.Dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(c.Dir, key+".*.tmp")
	if err != nil {
		return err
	}
	if _, err := tmp.Write(buf.Bytes()); err != nil {
		_ = tmp.Close()
		_ = os.Remove(tmp.Name())
		return err
	}
	if err := tmp.Close(); err != nil {
		_ = os.Remove(tmp.Name())
		return err
	}
	return os.Rename(tmp.Name(), c.path(key))
}

func (c *Cache) readDisk(key string) (*Index, error) {
	if c.Dir == "" {
		return nil, errors.New("no cache directory")
	}
	f, err := os.Open(c.path(key))
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }()
	var s snapshot
	if err := gob.NewDecoder(f).Decode(&s); err != nil {
		return nil, err
	}
	if s.Version != cacheVersion || len(s.Terms) != len(s.Postings) || len(s.DocLen) != len(s.Files) {
		return nil, errors.New("cache entry of another version")
	}
	idx := &Index{BuiltAt: s.BuiltAt, Bytes: s.Bytes, Truncated: s.Truncated, Skipped: s.Skipped, Excluded: s.Excluded, Key: key, Cached: true}
	for _, r := range s.Files {
		idx.Files = append(idx.Files, File{Path: r.Path, Size: r.Size, Lang: r.Lang, Symbols: r.Symbols, Outline: r.Outline, Imports: r.Imports, content: r.Content})
	}
	idx.bm25 = bm25{postings: make(map[string][]posting, len(s.Terms)), docLen: s.DocLen, avgLen: s.AvgLen}
	for i, t := range s.Terms {
		idx.bm25.postings[t] = s.Postings[i]
	}
	idx.finish()
	return idx, nil
}
