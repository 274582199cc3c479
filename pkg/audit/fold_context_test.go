package audit_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
)

func TestFoldContextRecordsTheLibrariansCalls(t *testing.T) {
	pol := policy.Default()
	health := gatedCall(t, pol, 1, policy.ToolCall{Tool: "docdex_health"})
	health.Result.DurationMS = 3
	open := gatedCall(t, pol, 2, policy.ToolCall{Tool: "docdex_open", Paths: []string{".git/config"}})
	ref := &events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "r/1/context_bundle.json/ab", Size: 10, SHA256: "ab"}
	e := envelope(t, "r", events.KindContext, 1, "codali/librarian", events.ContextData{Run: testRun("hello"), BundleRef: ref,
		Summary: "docdex index", Tools: []events.ToolExecution{health, open}})
	steps, err := audit.Fold(e)
	if err != nil {
		t.Fatal(err)
	}
	if len(steps) != 3 || steps[0].Kind != rao.KindAudit || steps[1].Kind != rao.KindAudit || steps[2].Kind != rao.KindRun {
		t.Fatalf("steps %+v: want two audit steps then the context", steps)
	}
	if !strings.Contains(steps[0].Summary, "docdex_health allowed, ok in 3 ms") || !strings.Contains(steps[1].Summary, "docdex_open BLOCKED") ||
		steps[0].Cause != "r.context.1#tool1" || steps[0].PolicyHash != pol.Hash() {
		t.Errorf("summaries %q / %q cause %q", steps[0].Summary, steps[1].Summary, steps[0].Cause)
	}
	var st audit.State
	for _, s := range steps {
		s.Mutate(&st)
	}
	if st.Context == nil || len(st.Context.ToolCalls) != 2 || st.Context.ToolCalls[0].Tool != "docdex_health" || st.Context.Summary != "docdex index" {
		t.Errorf("context %+v", st.Context)
	}
}
