package architect_test

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/worker"
)

// A run under a stored policy (options.policy, rao fork --policy) has its
// acts judged under that policy, not the configured one, and its plan is
// tagged with that policy's hash; a digest not stored for the run ends it
// before any model call.
func TestActsFollowTheRunsPolicy(t *testing.T) {
	ir := `<output-ir><acts>[{"act":"add_check","args":{"name":"vet","command":["go","vet","./..."]}},{"act":"add_check","args":{"name":"fmt","command":["true"]}}]</acts><goal-tree-patch>[]</goal-tree-patch><l1-memory-patch>[]</l1-memory-patch></output-ir>`
	d := apptest.Deps(t, `{}`, apptest.Options{Script: script(t, answer{attempt: 1, step: 0, content: planWithIR(t, ir)}),
		PolicyJSON: `{"commands":{"allow":[["go"]]}}`})
	// The configured policy lets `go vet` run but not `true`; the run's
	// stored policy the other way round.
	doc := []byte(`{"commands":{"allow":[["go","test"],["true"]]}}`)
	digest, err := policystore.Put(testCtx(t), d.JS, "run-pol", doc)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := policy.Parse(doc, policy.FormatAuto)
	if err != nil {
		t.Fatal(err)
	}
	in := contextEvent(t, d, "run-pol", true)
	var cd events.ContextData
	if err := events.DecodeData(in, &cd); err != nil {
		t.Fatal(err)
	}
	cd.Run.Request.Options.Policy = &events.PolicyRef{Digest: digest}
	in, err = events.New("run-pol", events.KindContext, 1, "codali/librarian", t0, cd)
	if err != nil {
		t.Fatal(err)
	}
	pd := decodePlan(t, mustHandle(t, handler(t, d), in), "run-pol", 1)
	names := func(v []events.VerifyCommand) (out []string) {
		for _, c := range v {
			out = append(out, c.Name)
		}
		return out
	}
	if got := names(pd.Plan.Verify); slices.Contains(got, "vet") || !slices.Contains(got, "fmt") {
		t.Errorf("checks %v: want fmt (allowed by the run's policy) and not vet (allowed only by the configured one); diagnostics %v", got, pd.Cortex.Diagnostics)
	}
	if !strings.Contains(pd.Run.Codex, codex.HashID("pol", stored.Hash())) || strings.Contains(pd.Run.Codex, codex.HashID("pol", d.PolicyHash)) {
		t.Errorf("the plan's codex is not tagged with the run's policy: %s", pd.Run.Codex)
	}

	// Another run naming the digest: refused, permanently, with no plan.
	cd.Run.Request.Options.Policy = &events.PolicyRef{Digest: digest}
	other, err := events.New("run-other", events.KindContext, 1, "codali/librarian", t0, cd)
	if err != nil {
		t.Fatal(err)
	}
	outs, err := handler(t, d)(testCtx(t), other)
	if !worker.IsPermanent(err) || !errors.Is(err, policystore.ErrMissing) || len(outs) != 0 {
		t.Fatalf("a digest stored for another run: %d events, %v", len(outs), err)
	}
}
