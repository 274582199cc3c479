package app_test

import (
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/worker"
)

func TestGateFor(t *testing.T) {
	d := apptest.Deps(t, `{}`, apptest.Options{PolicyJSON: `{"commands":{"allow":[["true"]]}}`})
	ctx := apptest.Ctx(t)
	req := events.Requested{Request: "x", Repo: events.RepoRef{Path: "/srv/x"}}
	testF := policy.ToolCall{Tool: policy.ToolRunCommand, Command: []string{"test", "-f", "x"}}

	// No stored policy named: the configured one.
	g, err := d.GateFor(ctx, "run-1", req)
	if err != nil || g.Policy != d.Policy || g.Hash != d.PolicyHash {
		t.Fatalf("configured gate: %+v %v", g, err)
	}

	// A stored one, for this run.
	doc := []byte(`{"commands":{"allow":[["test","-f"]]}}`)
	digest, err := policystore.Put(ctx, d.JS, "run-1", doc)
	if err != nil {
		t.Fatal(err)
	}
	req.Options.Policy = &events.PolicyRef{Digest: digest}
	g, err = d.GateFor(ctx, "run-1", req)
	if err != nil || g.Policy.Evaluate(testF).Blocked || g.Hash == d.PolicyHash || g.Hash != g.Policy.Hash() {
		t.Fatalf("stored gate: %+v %v", g, err)
	}

	// Not stored for this run: a permanent refusal, not the configured
	// policy.
	g, err = d.GateFor(ctx, "run-2", req)
	if !worker.IsPermanent(err) || !errors.Is(err, policystore.ErrMissing) || g.Policy != nil {
		t.Fatalf("another run's digest: %+v %v", g, err)
	}

	// The store unreachable: an error to retry, not a refusal.
	d.JS.Conn().Close()
	if _, err := d.GateFor(ctx, "run-1", req); err == nil || worker.IsPermanent(err) || errors.Is(err, policystore.ErrRefused) {
		t.Fatalf("store unreachable: %v", err)
	}
}
