package changegate_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/policy"
)

// FuzzFromDiff: reading any diff never panics; a diff that is read names
// one file per header with non-negative counts, and the gate blocks every
// change whose diff names a .git path.
func FuzzFromDiff(f *testing.F) {
	f.Add("diff --git a/x b/x\n--- a/x\n+++ b/x\n@@ -1,2 +1 @@\n-a\n--- b\n+c\n")
	f.Add("diff --git \"a/.git\\342\\200\\213/config\" \"b/.git\\342\\200\\213/config\"\nnew file mode 100644\n@@ -0,0 +1 @@\n+x\n")
	f.Add("diff --git a/a b/a\ndeleted file mode 100644\n")
	f.Fuzz(func(t *testing.T, diff string) {
		ch, err := changegate.FromDiff(diff)
		if err != nil {
			return
		}
		headers := strings.Count("\n"+diff, "\ndiff --git ")
		if len(ch.Files) > headers || ch.Added < 0 || ch.Removed < 0 {
			t.Fatalf("FromDiff(%q) = %+v", diff, ch)
		}
		for _, file := range ch.Files {
			if strings.HasPrefix(strings.ToLower(file.Path), ".git/") {
				if v := changegate.Violations(changegate.Check(&policy.Policy{}, "", nil, ch)); len(v) == 0 {
					t.Fatalf("change to %q not blocked", file.Path)
				}
			}
		}
	})
}
