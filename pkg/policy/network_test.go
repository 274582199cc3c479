package policy_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/policy"
)

func TestNetworkGrant(t *testing.T) {
	p, err := policy.Parse([]byte(`{"commands": {"allow": [["go"]], "network": [["go", "mod", "download"]]}}`), policy.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	for argv, want := range map[string]bool{
		"go mod download":     true,
		"go mod download -x":  true,
		"go test ./...":       false,
		"go mod":              false,
		"curl http://example": false,
	} {
		if got := p.NetworkAllowed(strings.Fields(argv)); got != want {
			t.Errorf("NetworkAllowed(%q) = %v", argv, got)
		}
	}
	if policy.Default().NetworkAllowed([]string{"go", "test"}) {
		t.Fatal("the default policy grants network")
	}
	if p.Hash() == policy.Default().Hash() {
		t.Fatal("hash ignores grants")
	}
	noGrant := *p
	noGrant.Commands.Network = nil
	withEmpty := noGrant
	withEmpty.Commands.Network = [][]string{}
	if noGrant.Hash() != withEmpty.Hash() || noGrant.Hash() == p.Hash() {
		t.Fatal("a policy without grants must hash as before, one with grants differently")
	}
	if _, err := policy.Parse([]byte(`{"commands": {"network": [[]]}}`), policy.FormatJSON); err == nil {
		t.Fatal("an empty grant was accepted")
	}
	var fe *policy.FieldError
	if _, err := policy.Parse([]byte(`{"commands": {"network": [["go", ""]]}}`), policy.FormatJSON); !errors.As(err, &fe) {
		t.Fatalf("empty argument: %v", err)
	}
}
