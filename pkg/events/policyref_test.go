package events

import (
	"strings"
	"testing"
)

func TestPolicyRefValidate(t *testing.T) {
	good := "sha256:" + strings.Repeat("0a", 32)
	if err := (PolicyRef{Digest: good}).Validate(); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"", "sha256:", "md5:" + strings.Repeat("0a", 32), "sha256:" + strings.Repeat("0A", 32),
		"sha256:" + strings.Repeat("0a", 31), "sha256:" + strings.Repeat("0a", 31) + "..", "sha256:" + strings.Repeat("0a", 32) + "/x"} {
		if err := (PolicyRef{Digest: bad}).Validate(); err == nil {
			t.Errorf("digest %q accepted", bad)
		}
	}
	r := Requested{Request: "x", Repo: RepoRef{Path: "/srv/x"}, Options: RunOptions{Policy: &PolicyRef{Digest: "sha256:../../x"}}}
	if err := r.Validate(); err == nil || !strings.Contains(err.Error(), "options.policy: digest") {
		t.Errorf("request with a bad policy digest: %v", err)
	}
}
