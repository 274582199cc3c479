package workspace

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// TestApplyTextRandomEdits: the builder's own patches of random line
// edits (several hunks, at the start and the end, files emptied, made
// or left without a last newline) are all applied in this process, and
// exactly as git applies them.
func TestApplyTextRandomEdits(t *testing.T) {
	repo := t.TempDir()
	var lines []string
	for i := range 40 {
		lines = append(lines, "line "+strconv.Itoa(i%7)) // repeated lines
	}
	write(t, filepath.Join(repo, "f.txt"), strings.Join(lines, "\n")+"\n")
	write(t, filepath.Join(repo, "g.txt"), strings.Join(lines[:5], "\n"))
	m := &Manager{Root: t.TempDir()}
	rng := rand.New(rand.NewPCG(1, 2))
	ctx := context.Background()
	for i := range 100 {
		run := "random" + strconv.Itoa(i)
		b := prepareAs(t, m, repo, run, "builder")
		for _, name := range []string{"f.txt", "g.txt"} {
			p := filepath.Join(b.Dir, name)
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			write(t, p, randomEdit(rng, string(data)))
		}
		made, err := b.Change(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if made.Diff == "" {
			continue
		}
		here := prepareAs(t, m, repo, run, "critic")
		git := prepareAs(t, m, repo, run, "verifier")
		git.byGit = true
		if _, ok := here.planText(made.Diff); !ok {
			t.Fatalf("the builder's patch is left to git:\n%s", made.Diff)
		}
		sameAsGit(t, here, git, made.Diff)
		if got, want := treeOf(t, here.Dir), treeOf(t, b.Dir); !reflect.DeepEqual(filesOf(got), filesOf(want)) {
			t.Fatalf("files\n%q\nthe builder's\n%q", got, want)
		}
	}
}

// randomEdit inserts, deletes and replaces a few random lines of s, and
// sometimes empties it or drops or adds its last newline.
func randomEdit(rng *rand.Rand, s string) string {
	switch rng.IntN(12) {
	case 0:
		return ""
	case 1:
		return strings.TrimSuffix(s, "\n")
	case 2:
		return s + "\n"
	}
	lines := strings.SplitAfter(s, "\n")
	for range 1 + rng.IntN(4) {
		at := rng.IntN(len(lines) + 1)
		switch rng.IntN(3) {
		case 0:
			lines = append(lines[:at], append([]string{"new " + strconv.Itoa(rng.IntN(5)) + "\n"}, lines[at:]...)...)
		case 1:
			if at < len(lines) {
				lines = append(lines[:at], lines[at+1:]...)
			}
		default:
			if at < len(lines) {
				lines[at] = "changed\n"
			}
		}
	}
	return strings.Join(lines, "")
}
