package workspace

import (
	"errors"
	"testing"
)

// TestSplitChange: the records and the patch of one `git diff --raw
// --numstat --patch -z` come apart where git puts them, and output that
// does not have that shape is an error, never a wrong change.
func TestSplitChange(t *testing.T) {
	const raw = ":100644 100644 aaaaaaa bbbbbbb M\x00a\nb:x\x00:000000 100644 0000000 ccccccc A\x00n\x00"
	const num = "1\t0\ta\nb:x\x00-\t-\tn\x00"
	const patch = "diff --git a/a b/a\n@@ -1 +1,2 @@\n a\n+b\n"
	stat, p, err := splitChange(raw + num + "\x00" + patch)
	if err != nil || stat != raw+num || p != patch {
		t.Fatalf("split: %q %q %v", stat, p, err)
	}
	files, _, added, removed := parseRawNumstat(stat)
	if len(files) != 2 || files[0].Path != "a\nb:x" || files[1].Op != "add" || added != 1 || removed != 0 {
		t.Fatalf("records: %+v +%d -%d", files, added, removed)
	}
	if stat, p, err := splitChange(""); err != nil || stat != "" || p != "" {
		t.Fatalf("no change: %q %q %v", stat, p, err)
	}
	for name, out := range map[string]string{
		"raw record without path": ":100644 100644 a b M",
		"missing numstat":         raw + "1\t0\ta\x00",
		"records without patch":   raw + num + "\x00",
		"patch without records":   patch,
		"not a patch":             raw + num + "\x00garbage",
	} {
		if _, _, err := splitChange(out); !errors.Is(err, errDiffFormat) {
			t.Errorf("%s: err = %v, want errDiffFormat", name, err)
		}
	}
}
