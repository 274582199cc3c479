package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"testing"
)

func TestStableJSON(t *testing.T) {
	tests := []struct {
		name   string
		policy *Policy
		want   string
	}{
		{
			name:   "zero policy has every key and the default mode",
			policy: &Policy{},
			want:   `{"always_allow":{"paths":[],"tools":[]},"commands":{"allow":[],"flags":{}},"destructive":"block","max_changed_lines":0,"never_touch":[],"require_approval_for":{"paths":[],"tools":[]}}`,
		},
		{
			name:   "nil policy renders as zero",
			policy: nil,
			want:   `{"always_allow":{"paths":[],"tools":[]},"commands":{"allow":[],"flags":{}},"destructive":"block","max_changed_lines":0,"never_touch":[],"require_approval_for":{"paths":[],"tools":[]}}`,
		},
		{
			name: "lists sorted and deduplicated, strings escaped",
			policy: &Policy{
				NeverTouch:  []string{"b", "a", "b", `q"<&>\`},
				AlwaysAllow: Scope{Tools: []string{"z", "y"}},
				Commands:    Commands{Allow: [][]string{{"go", "vet"}, {"go"}, {"go", "test"}, {"go"}}, Flags: map[string][]string{"go test": {"-b", "-a", "-b"}}},
				Destructive: DestructiveWarn, MaxChangedLines: 7,
				RequireApprovalFor: Scope{Paths: []string{"tab\there", "nl\n", "cr\r", "bell\x07", "bad\xff"}},
			},
			want: `{"always_allow":{"paths":[],"tools":["y","z"]},"commands":{"allow":[["go"],["go","test"],["go","vet"]],"flags":{"go test":["-a","-b"]}},"destructive":"warn","max_changed_lines":7,"never_touch":["a","b","q\"<&>\\"],"require_approval_for":{"paths":["bad` + "\ufffd" + `","bell\u0007","cr\r","nl\n","tab\there"],"tools":[]}}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := string(tt.policy.StableJSON())
			if got != tt.want {
				t.Errorf("StableJSON =\n%s\nwant\n%s", got, tt.want)
			}
			if !json.Valid([]byte(got)) {
				t.Errorf("StableJSON is not valid JSON")
			}
		})
	}
}

// TestStableJSONCoversEveryField guards against a field added to Policy
// but forgotten in the hand-written canonical form.
func TestStableJSONCoversEveryField(t *testing.T) {
	var decoded map[string]json.RawMessage
	if err := json.Unmarshal(Default().StableJSON(), &decoded); err != nil {
		t.Fatal(err)
	}
	var want []string
	for name := range jsonFields(reflect.TypeFor[Policy]()) {
		want = append(want, name)
	}
	var got []string
	for name := range decoded {
		got = append(got, name)
	}
	slices.Sort(want)
	slices.Sort(got)
	if !slices.Equal(got, want) {
		t.Errorf("stable JSON keys %q, Policy fields %q", got, want)
	}
}

func TestStableJSONRoundTrips(t *testing.T) {
	p := Default()
	p.AlwaysAllow.Tools = []string{"read_file"}
	back, err := Parse(p.StableJSON(), FormatJSON)
	if err != nil {
		t.Fatalf("stable JSON does not parse back: %v", err)
	}
	if back.Hash() != p.Hash() {
		t.Errorf("round trip changed the hash")
	}
}

func TestHash(t *testing.T) {
	base := Default()
	sum := sha256.Sum256(base.StableJSON())
	if got := base.Hash(); got != hex.EncodeToString(sum[:]) {
		t.Errorf("Hash is not the SHA-256 of StableJSON")
	}
	tests := []struct {
		name   string
		mutate func(*Policy)
		same   bool
	}{
		{name: "reordered list", mutate: func(p *Policy) { slices.Reverse(p.NeverTouch) }, same: true},
		{name: "duplicated entry", mutate: func(p *Policy) { p.NeverTouch = append(p.NeverTouch, p.NeverTouch[0]) }, same: true},
		{name: "reordered prefixes", mutate: func(p *Policy) { slices.Reverse(p.Commands.Allow) }, same: true},
		{name: "nil versus empty", mutate: func(p *Policy) { p.AlwaysAllow.Tools = []string{} }, same: true},
		{name: "added glob", mutate: func(p *Policy) { p.NeverTouch = append(p.NeverTouch, "x") }},
		{name: "changed limit", mutate: func(p *Policy) { p.MaxChangedLines++ }},
		{name: "changed mode", mutate: func(p *Policy) { p.Destructive = DestructiveWarn }},
		{name: "prefix split differently", mutate: func(p *Policy) { p.Commands.Allow[0] = []string{"go test"} }},
		{name: "glob moved between lists", mutate: func(p *Policy) { p.AlwaysAllow.Paths, p.RequireApprovalFor.Paths = p.RequireApprovalFor.Paths, nil }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := Default()
			tt.mutate(p)
			if same := p.Hash() == base.Hash(); same != tt.same {
				t.Errorf("hash equal = %v, want %v\n%s\n%s", same, tt.same, p.StableJSON(), base.StableJSON())
			}
		})
	}
}

func TestContractHash(t *testing.T) {
	data := []byte("output contract v1\n")
	sum := sha256.Sum256(data)
	want := hex.EncodeToString(sum[:])
	if got := ContractHash(data); got != want {
		t.Errorf("ContractHash = %s, want %s", got, want)
	}
	if ContractHash([]byte("output contract v1")) == want {
		t.Errorf("ContractHash ignores a byte difference")
	}
	path := filepath.Join(t.TempDir(), "contract.md")
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := ContractHashFile(path)
	if err != nil || got != want {
		t.Errorf("ContractHashFile = %s, %v; want %s", got, err, want)
	}
	if _, err := ContractHashFile(filepath.Join(t.TempDir(), "missing")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("ContractHashFile(missing) error = %v, want fs.ErrNotExist", err)
	}
}
