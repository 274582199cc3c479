package changegate_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
)

// gitDiff makes a repository, lets change edit it, and returns the staged
// diff as the workspace writes it (--binary, renames off).
func gitDiff(t *testing.T, change func(dir string)) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@t", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_NOSYSTEM=1", "GIT_CONFIG_GLOBAL=/dev/null")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
		return string(out)
	}
	run("init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	run("add", "-A")
	run("commit", "-q", "-m", "base")
	change(dir)
	run("add", "-A")
	return run("diff", "--cached", "--binary", "--no-color", "--no-ext-diff", "--full-index", "--no-renames")
}

// A command can make links the tools never could: the finished change is
// refused when a link it writes leaves the repository.
func TestLinksThatLeaveTheTreeAreBlocked(t *testing.T) {
	p := policy.Default()
	cases := []struct {
		name, link, target, want string
	}{
		{"absolute", "keys", "/root/.ssh/authorized_keys", "its target is absolute"},
		{"climbs out", "sub/cron", "../../../etc/cron.d/x", "outside the repository"},
		{"into git metadata", "g", ".git/config", "git metadata"},
		{"inside the tree", "sub/alias", "../a.txt", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			diff := gitDiff(t, func(dir string) {
				l := filepath.Join(dir, tc.link)
				if err := os.MkdirAll(filepath.Dir(l), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.Symlink(tc.target, l); err != nil {
					t.Fatal(err)
				}
			})
			ch, err := changegate.FromDiff(diff)
			if err != nil {
				t.Fatal(err)
			}
			v := changegate.Violations(changegate.CheckDiff(p, p.Hash(), &redact.Redactor{}, ch, diff))
			got := strings.Join(v, "; ")
			if tc.want == "" {
				if got != "" {
					t.Fatalf("an in-tree link was blocked: %s", got)
				}
				return
			}
			if !strings.Contains(got, "symbolic link "+tc.link) || !strings.Contains(got, tc.want) {
				t.Fatalf("violations %q, want the link refused (%s)", got, tc.want)
			}
		})
	}
}

// Content git shows as binary (a NUL byte, or a -diff attribute a command
// can write) still counts against max_changed_lines.
func TestBinaryContentCountsAgainstTheLineLimit(t *testing.T) {
	p := policy.Default()
	p.MaxChangedLines = 50
	big := strings.Repeat("line of text\n", 5000)
	for name, write := range map[string]func(dir string){
		"nul byte": func(dir string) {
			if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte("\x00"+big), 0o644); err != nil {
				t.Fatal(err)
			}
		},
		"-diff attribute": func(dir string) {
			if err := os.WriteFile(filepath.Join(dir, ".gitattributes"), []byte("*.txt -diff\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, "big.txt"), []byte(big), 0o644); err != nil {
				t.Fatal(err)
			}
		},
	} {
		t.Run(name, func(t *testing.T) {
			diff := gitDiff(t, write)
			if !strings.Contains(diff, "GIT binary patch") {
				t.Fatalf("the diff is not binary:\n%.300s", diff)
			}
			v := changegate.Violations(changegate.CheckDiff(p, p.Hash(), &redact.Redactor{}, events.Change{}, diff))
			if !strings.Contains(strings.Join(v, "; "), "max changed lines exceeded") {
				t.Fatalf("violations %q, want the line limit", v)
			}
		})
	}
}
