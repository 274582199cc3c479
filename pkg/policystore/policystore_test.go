package policystore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
)

const doc = `{"never_touch":[".git/**"],"commands":{"allow":[["test","-f"]]},"destructive":"block","max_changed_lines":100}`

func TestPutThenLoad(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	run, other := "run-1", "run-2"
	digest, err := policystore.Put(ctx, js, run, []byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := policy.Parse([]byte(doc), policy.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	ref := events.PolicyRef{Digest: digest}
	if digest != "sha256:"+parsed.Hash() || ref.Validate() != nil || policystore.Hash(ref) != parsed.Hash() {
		t.Fatalf("digest %q, want the policy hash %s", digest, parsed.Hash())
	}
	p, err := policystore.Load(ctx, js, run, ref)
	if err != nil {
		t.Fatal(err)
	}
	if p.Hash() != parsed.Hash() {
		t.Errorf("loaded policy hash %s, stored %s", p.Hash(), parsed.Hash())
	}
	if p.Evaluate(policy.ToolCall{Tool: policy.ToolRunCommand, Command: []string{"test", "-f", "x"}}).Blocked {
		t.Error("the stored policy is not the one loaded")
	}

	// Refusals: another run's document, an unknown digest, a malformed
	// one, an altered document, an invalid one.
	refused := func(name, runID, d string, want error) {
		t.Helper()
		_, err := policystore.Load(ctx, js, runID, events.PolicyRef{Digest: d})
		if !errors.Is(err, want) || !errors.Is(err, policystore.ErrRefused) {
			t.Errorf("%s: err = %v, want %v", name, err, want)
		}
	}
	refused("another run", other, digest, policystore.ErrMissing)
	refused("unknown digest", run, policystore.Digest([]byte("{}")), policystore.ErrMissing)
	refused("malformed digest", run, "md5:abc", policystore.ErrInvalid)
	kv, err := js.KeyValue(ctx, events.BucketPolicies)
	if err != nil {
		t.Fatal(err)
	}
	key := run + "." + strings.TrimPrefix(digest, "sha256:")
	if _, err := kv.Put(ctx, key, []byte(`{"commands":{"allow":[[""]]}}`)); err != nil {
		t.Fatal(err)
	}
	refused("altered document", run, digest, policystore.ErrDigest)
	bad := []byte(`{"no_such_field":true}`)
	badDigest := policystore.Digest(bad)
	if _, err := kv.Put(ctx, run+"."+strings.TrimPrefix(badDigest, "sha256:"), bad); err != nil {
		t.Fatal(err)
	}
	refused("invalid document", run, badDigest, policystore.ErrInvalid)
	// A valid document that is not in canonical form (stored by hand under
	// its bytes' digest) would tag the history with a hash that names
	// another document: refused.
	raw := []byte(doc)
	rawDigest := policystore.Digest(raw)
	if _, err := kv.Put(ctx, run+"."+strings.TrimPrefix(rawDigest, "sha256:"), raw); err != nil {
		t.Fatal(err)
	}
	refused("not canonical", run, rawDigest, policystore.ErrDigest)

	// Put refuses what Load would.
	if _, err := policystore.Put(ctx, js, run, bad); !errors.Is(err, policy.ErrInvalidPolicy) {
		t.Errorf("Put of an invalid policy: %v", err)
	}
	if _, err := policystore.Put(ctx, js, "bad run id!", []byte(doc)); err == nil {
		t.Error("Put with a bad run id succeeded")
	}
	if _, err := policystore.Put(ctx, js, run, []byte(strings.Repeat(" ", policystore.MaxBytes+1))); err == nil {
		t.Error("Put of an oversize document succeeded")
	}
}

// The canonical form a document is stored in reads back as the same
// policy: its hash, and so the digest a request names, is the policy's.
func TestCanonicalFormKeepsThePolicy(t *testing.T) {
	docs := map[string]string{
		"json": doc,
		"yaml, unsorted and repeated lists": `never_touch: ["**/*.pem", ".git/**", ".git/**"]
always_allow:
  tools: [format_file]
  paths: ["docs/**"]
require_approval_for:
  tools: [install_deps]
  paths: ["**/go.mod", "**/go.sum"]
commands:
  allow:
    - [go, vet]
    - [go, test]
  flags:
    go test: [-v, -run, -count]
  network:
    - [go, mod, download]
destructive: warn
max_changed_lines: 2000
`,
		"default": string(policy.Default().StableJSON()),
	}
	for name, d := range docs {
		t.Run(name, func(t *testing.T) {
			p, err := policy.Parse([]byte(d), policy.FormatAuto)
			if err != nil {
				t.Fatal(err)
			}
			again, err := policy.Parse(p.StableJSON(), policy.FormatJSON)
			if err != nil {
				t.Fatalf("the canonical form does not parse: %v\n%s", err, p.StableJSON())
			}
			if again.Hash() != p.Hash() || policystore.Digest(p.StableJSON()) != "sha256:"+p.Hash() {
				t.Fatalf("hash %s after the round trip, %s before", again.Hash(), p.Hash())
			}
		})
	}
}
