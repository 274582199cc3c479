package critic

import "testing"

// What the line counts do not measure keeps a change off the fast path;
// a text change whose lines merely look like such headers does not.
func TestUnmeasured(t *testing.T) {
	cases := map[string]struct {
		diff string
		want bool
	}{
		"text":                    {"diff --git a/a.go b/a.go\nindex 1111111..2222222 100644\n--- a/a.go\n+++ b/a.go\n@@ -1 +1 @@\n-old mode 100644\n+GIT binary patch\n", false},
		"binary":                  {"diff --git a/x.bin b/x.bin\nnew file mode 100644\nindex 0000000..3333333\nGIT binary patch\nliteral 12\nTcmZ?wbm;x@(=#-\n\nliteral 0\nHcmV?d00001\n\n", true},
		"binary without --binary": {"diff --git a/x.bin b/x.bin\nindex 1111111..2222222 100644\nBinary files a/x.bin and b/x.bin differ\n", true},
		"mode":                    {"diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n", true},
		"symlink added":           {"diff --git a/l b/l\nnew file mode 120000\nindex 0000000..4444444\n--- /dev/null\n+++ b/l\n@@ -0,0 +1 @@\n+../../etc\n\\ No newline at end of file\n", true},
		"symlink retargeted":      {"diff --git a/l b/l\nindex 4444444..5555555 120000\n--- a/l\n+++ b/l\n@@ -1 +1 @@\n-a\n+b\n", true},
		"symlink removed":         {"diff --git a/l b/l\ndeleted file mode 120000\nindex 4444444..0000000\n", true},
		"empty":                   {"", false},
	}
	for name, tc := range cases {
		if got := unmeasured(tc.diff); got != tc.want {
			t.Errorf("%s: unmeasured %v, want %v", name, got, tc.want)
		}
	}
}
