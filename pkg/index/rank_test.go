package index_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/index"
)

func scan(t *testing.T, files map[string]string) *index.Index {
	t.Helper()
	dir := t.TempDir()
	for p, c := range files {
		write(t, dir, p, c)
	}
	idx, err := index.Scan(dir, index.Limits{MaxFiles: 1000, MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	return idx
}

func TestRanking(t *testing.T) {
	filler := strings.Repeat("lorem ipsum dolor sit amet consectetur\n", 40)
	idx := scan(t, map[string]string{
		"auth/token.go":      "package auth\n\n// ParseToken parses a bearer token.\nfunc ParseToken(s string) (Token, error) { return Token{}, nil }\n",
		"auth/session.go":    "package auth\n\nfunc NewSession() {}\n// token refresh\n",
		"docs/notes.md":      "token " + filler,
		"util/strings.go":    "package util\n\nfunc Pad(s string) string { return s }\n",
		"api/handler.go":     "package api\n\n// handle calls auth.ParseToken for the request.\nfunc handle() {}\n",
		"config/settings.go": "package config\n\nconst RetryLimit = 3\n",
	})
	cases := []struct {
		name    string
		queries []string
		first   string
		absent  string
	}{
		{"identifier split and symbol weight", []string{"parse token"}, "auth/token.go", "util/strings.go"},
		{"camelCase query matches split tokens", []string{"ParseToken"}, "auth/token.go", ""},
		{"path words weigh more than a long body", []string{"session"}, "auth/session.go", ""},
		{"rare term beats common term", []string{"token retry"}, "config/settings.go", ""},
		{"literal path query", []string{"config/settings.go"}, "config/settings.go", ""},
		{"no match", []string{"kubernetes"}, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			hits := idx.Search(tc.queries, 3, 20)
			if tc.first == "" {
				if len(hits) != 0 {
					t.Fatalf("hits %+v, want none", hits)
				}
				return
			}
			if len(hits) == 0 || hits[0].Path != tc.first {
				t.Fatalf("ranking %v, want %s first", paths(hits), tc.first)
			}
			for _, h := range hits {
				if h.Path == tc.absent {
					t.Errorf("%s should not match", tc.absent)
				}
			}
			for i := 1; i < len(hits); i++ {
				if hits[i].Score > hits[i-1].Score {
					t.Errorf("scores not descending: %v", hits)
				}
			}
		})
	}
	// The window lands where the terms are, not at the top of the file.
	long := scan(t, map[string]string{"big.go": "package big\n" + filler + "func ParseToken() {}\n" + filler})
	h := long.Search([]string{"ParseToken"}, 1, 10)
	if len(h) != 1 || !strings.Contains(h[0].Content, "func ParseToken") || h[0].LineStart < 30 {
		t.Errorf("window %+v", h)
	}
}

func paths(hits []index.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestImportGraph(t *testing.T) {
	idx := scan(t, map[string]string{
		"go.mod":                       "module example.com/shop\n\ngo 1.22\n",
		"cart/cart.go":                 "package cart\n\nimport (\n\t\"fmt\"\n\t\"example.com/shop/price\"\n)\n",
		"cart/cart_test.go":            "package cart\n",
		"price/price.go":               "package price\n\nimport \"example.com/shop/missing\"\n",
		"cmd/main.go":                  "package main\n\nimport \"example.com/shop/cart\"\n",
		"web/app.ts":                   "import { total } from './lib/total';\nimport React from 'react';\nimport x from './nope';\n",
		"web/lib/total.ts":             "export function total() {}\n",
		"py/app/main.py":               "from .models import User\nimport os\n",
		"py/app/models.py":             "class User: pass\n",
		"rs/src/lib.rs":                "mod lexer;\nuse crate::lexer::Token;\n",
		"rs/src/lexer.rs":              "pub struct Token;\n",
		"src/com/acme/Shop.java":       "import com.acme.model.Item;\nimport java.util.List;\n",
		"src/com/acme/model/Item.java": "package com.acme.model;\npublic class Item {}\n",
	})
	cases := []struct {
		file              string
		depth             int
		inbound, outbound []string
		unresolved        []string
	}{
		{"price/price.go", 1, []string{"cart/cart.go"}, nil, []string{"example.com/shop/missing"}},
		{"price/price.go", 2, []string{"cart/cart.go", "cmd/main.go"}, nil, []string{"example.com/shop/missing"}},
		{"cart/cart.go", 1, []string{"cmd/main.go"}, []string{"price/price.go"}, nil},
		{"web/app.ts", 1, nil, []string{"web/lib/total.ts"}, []string{"./nope"}},
		{"py/app/models.py", 1, []string{"py/app/main.py"}, nil, nil},
		{"rs/src/lib.rs", 1, nil, []string{"rs/src/lexer.rs"}, nil},
		{"src/com/acme/model/Item.java", 1, []string{"src/com/acme/Shop.java"}, nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			im, ok := idx.Impact(tc.file, tc.depth, 100)
			if !ok {
				t.Fatal("unknown file")
			}
			if !same(im.Inbound, tc.inbound) || !same(im.Outbound, tc.outbound) || !same(im.Unresolved, tc.unresolved) {
				t.Errorf("impact in=%v out=%v unresolved=%v, want in=%v out=%v unresolved=%v", im.Inbound, im.Outbound, im.Unresolved, tc.inbound, tc.outbound, tc.unresolved)
			}
			if len(im.Edges) != len(im.Inbound)+len(im.Outbound) {
				t.Errorf("edges %v", im.Edges)
			}
		})
	}
	im, _ := idx.Impact("price/price.go", 5, 1)
	if !im.Truncated || len(im.Edges) != 1 {
		t.Errorf("edge limit: %+v", im)
	}
	if _, ok := idx.Impact("nope.go", 1, 1); ok {
		t.Error("impact of an unknown file")
	}
}

func same(a, b []string) bool {
	if len(a) == 0 && len(b) == 0 {
		return true
	}
	return reflect.DeepEqual(a, b)
}

func TestFocusedQueries(t *testing.T) {
	cases := []struct {
		request string
		want    []string
	}{
		{`Make Greet return "Hello, <name>!", and "Hello, world!" when the name is empty.`,
			[]string{"Greet", "Hello, <name>!", "name empty"}},
		{"fix the retry loop in pkg/worker/retry.go so parseRetryAfter honours HTTP dates",
			[]string{"pkg/worker/retry.go parseRetryAfter HTTP", "loop honours dates"}},
		{"Rename max_retries to retry_budget in config.Load()", []string{"max_retries retry_budget config.Load", "rename"}},
		{"please improve the documentation", []string{"please improve documentation"}},
		{"", nil},
	}
	for _, tc := range cases {
		got := index.FocusedQueries(tc.request, 3)
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("FocusedQueries(%q) = %q, want %q", tc.request, got, tc.want)
		}
	}
}

func TestCacheHitOnSecondRun(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n\nfunc Alpha() {}\n")
	cacheDir := t.TempDir()
	lim := index.Limits{MaxFiles: 100, MaxFileBytes: 1 << 20}
	ctx := context.Background()

	first, err := index.NewCache(cacheDir).Load(ctx, dir, lim, "policy-1")
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached {
		t.Fatal("first load reported cached")
	}
	// A second process (a new Cache on the same directory) does not
	// re-scan: the index carries the first build's time.
	write(t, filepath.Join(cacheDir, "..", "unrelated"), "x", "")
	c2 := index.NewCache(cacheDir)
	second, err := c2.Load(ctx, dir, lim, "policy-1")
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || !second.BuiltAt.Equal(first.BuiltAt) || second.Key != first.Key {
		t.Fatalf("second load cached=%v built %v (first %v)", second.Cached, second.BuiltAt, first.BuiltAt)
	}
	if f, ok := second.File("a.go"); !ok || len(f.Symbols) != 1 || len(second.Search([]string{"Alpha"}, 1, 5)) != 1 {
		t.Fatalf("cached index lost data: %+v", second.Files)
	}
	// In memory too.
	third, _ := c2.Load(ctx, dir, lim, "policy-1")
	if !third.Cached || !third.BuiltAt.Equal(first.BuiltAt) {
		t.Fatal("memory cache missed")
	}
	// Another policy, or changed content, is another index.
	other, _ := c2.Load(ctx, dir, lim, "policy-2")
	if other.Cached {
		t.Error("another salt hit the cache")
	}
	write(t, dir, "a.go", "package a\n\nfunc Alpha() {}\nfunc B() {}\n")
	changed, _ := c2.Load(ctx, dir, lim, "policy-1")
	if changed.Cached || !changed.BuiltAt.After(first.BuiltAt) && !changed.BuiltAt.Equal(first.BuiltAt) {
		t.Errorf("changed content hit the cache")
	}
	// A corrupt cache file is rebuilt, not an error.
	entries, _ := os.ReadDir(cacheDir)
	for _, e := range entries {
		_ = os.WriteFile(filepath.Join(cacheDir, e.Name()), []byte("garbage"), 0o600)
	}
	if idx, err := index.NewCache(cacheDir).Load(ctx, dir, lim, "policy-1"); err != nil || idx.Cached {
		t.Errorf("corrupt cache: %v cached=%v", err, idx != nil && idx.Cached)
	}
}

func TestRepoStateUsesTheCommitOfACleanTree(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	write(t, dir, "a.go", "package a\n")
	env := append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
	for _, args := range [][]string{{"init", "-q", "-b", "main"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "-m", "i"}} {
		cmd := exec.Command("git", args...)
		cmd.Dir, cmd.Env = dir, env
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	clean, err := index.RepoState(ctx, dir, 1<<20)
	if err != nil || !strings.HasPrefix(clean, "git:") {
		t.Fatalf("clean tree state %q, %v", clean, err)
	}
	write(t, dir, "a.go", "package a\n// dirty\n")
	dirty, err := index.RepoState(ctx, dir, 1<<20)
	if err != nil || !strings.HasPrefix(dirty, "sha:") {
		t.Fatalf("dirty tree state %q, %v", dirty, err)
	}
}
