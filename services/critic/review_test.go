package critic_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/services/critic"
)

func TestAlign(t *testing.T) {
	plan := func(targets, creates []string, stepFiles ...string) events.Plan {
		return events.Plan{TargetFiles: targets, Creates: creates,
			Steps: []events.PlanStep{{Description: "d", Files: stepFiles}}}
	}
	change := func(files ...events.FileChange) events.Change { return events.Change{Files: files} }
	mod := func(p string) events.FileChange { return events.FileChange{Path: p, Op: "modify"} }
	add := func(p string) events.FileChange { return events.FileChange{Path: p, Op: "add"} }
	cases := []struct {
		name      string
		plan      events.Plan
		change    events.Change
		ok        bool
		unrelated []string
		unmatched []string
		reason    string
	}{
		{"target touched", plan([]string{"greet.go"}, nil), change(mod("greet.go")), true, nil, nil, ""},
		{"unrelated file touched", plan([]string{"greet.go"}, nil), change(mod("greet.go"), mod("main.go")), false,
			[]string{"main.go"}, nil, "changed main.go, which the plan neither targets nor declares as created"},
		{"target missed", plan([]string{"greet.go", "greet_test.go"}, nil), change(mod("greet.go")), true,
			nil, []string{"greet_test.go"}, "plan targets left untouched: greet_test.go"},
		{"create declared", plan([]string{"greet.go"}, []string{"docs/NOTES.md"}), change(mod("greet.go"), add("docs/NOTES.md")), true, nil, nil, ""},
		{"create undeclared", plan([]string{"greet.go"}, nil), change(mod("greet.go"), add("new.go")), false,
			[]string{"new.go"}, nil, "created new.go"},
		{"step files count as targets", plan(nil, nil, "a/b.go"), change(mod("./a/b.go")), true, nil, nil, ""},
		{"directory and glob targets", plan([]string{"internal/", "cmd/*.go"}, nil), change(mod("internal/x/y.go"), mod("cmd/main.go"), mod("cmd/sub/z.go")), false,
			[]string{"cmd/sub/z.go"}, nil, "cmd/sub/z.go"},
		{"a plan naming no files covers nothing", plan(nil, nil), change(mod("greet.go")), false, []string{"greet.go"}, nil, "greet.go"},
		{"delete outside the plan", plan([]string{"greet.go"}, nil), change(events.FileChange{Path: "LICENSE", Op: "delete"}), false,
			[]string{"LICENSE"}, []string{"greet.go"}, "deleted LICENSE"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			a := critic.Align(tc.plan, tc.change)
			if a.OK != tc.ok || !slices.Equal(a.Unrelated, tc.unrelated) || !slices.Equal(a.UnmatchedTargets, tc.unmatched) {
				t.Fatalf("alignment %+v", a)
			}
			if tc.reason != "" && !strings.Contains(strings.Join(a.Reasons, "; "), tc.reason) {
				t.Fatalf("reasons %q lack %q", a.Reasons, tc.reason)
			}
			if tc.reason == "" && len(a.Reasons) != 0 {
				t.Fatalf("reasons %q on a clean alignment", a.Reasons)
			}
		})
	}
}

// reviewScript answers the critic's review request.
func reviewScript(t *testing.T, review string) *llm.Script {
	t.Helper()
	s, err := llm.ParseScript([]byte(`{"responses":[{"phase":"critic","content":` + strconvQuote(review) + `}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func strconvQuote(s string) string {
	raw, _ := json.Marshal(s)
	return string(raw)
}

func TestReview(t *testing.T) {
	repo := copyHello(t)
	good := change(t, repo, map[string]string{"greet.go": goodGreet})
	stray := change(t, repo, map[string]string{"greet.go": goodGreet, "main_extra.go": "package hello\n"})
	okCheck := []events.VerifyCommand{verify("greets", "grep", "-q", "Hello, ", "greet.go")}
	cases := []struct {
		name       string
		routed     bool
		review     string
		change     events.Change
		maxRetries int
		kind       events.Kind
		attempt    int
		integrity  string
		retryPhase string
		status     string
		reason     string
	}{
		{name: "no route: skipped, pass", change: good, maxRetries: 3, kind: events.KindPassed, attempt: 1,
			integrity: events.IntegrityGreen, status: events.ReviewSkipped},
		{name: "pass", routed: true, review: `{"status":"pass","reasons":[],"retryable":false,"review_notes":"fine"}`, change: good, maxRetries: 3,
			kind: events.KindPassed, attempt: 1, integrity: events.IntegrityGreen, status: events.ReviewPass, reason: "review: pass"},
		{name: "pass with concerns: amber", routed: true, review: `{"status":"concerns","reasons":["no test for the empty name"],"retryable":false}`,
			change: good, maxRetries: 3, kind: events.KindPassed, attempt: 1, integrity: events.IntegrityAmber, status: events.ReviewConcerns},
		{name: "retry to the builder", routed: true, review: `{"status":"fail","reasons":["greets the wrong person"],"retryable":true,"retry_phase":"builder"}`,
			change: good, maxRetries: 3, kind: events.KindRetry, attempt: 2, retryPhase: events.RetryBuilder, status: events.ReviewFail, reason: "review: greets the wrong person"},
		{name: "retry to the architect", routed: true, review: `{"status":"fail","reasons":["the plan misses the test"],"retryable":true,"retry_phase":"architect"}`,
			change: good, maxRetries: 3, kind: events.KindRetry, attempt: 2, retryPhase: events.RetryArchitect, status: events.ReviewFail},
		{name: "non-retryable: failed at once", routed: true, review: `{"status":"fail","reasons":["the request is unsafe"],"retryable":false}`,
			change: good, maxRetries: 3, kind: events.KindFailed, attempt: 1, integrity: events.IntegrityRed, status: events.ReviewFail, reason: "cannot fix"},
		{name: "alignment failure: retry to the builder, review skipped", routed: true, review: `{"status":"pass","reasons":[],"retryable":false}`,
			change: stray, maxRetries: 3, kind: events.KindRetry, attempt: 2, retryPhase: events.RetryBuilder, status: events.ReviewSkipped, reason: "main_extra.go"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cfg := `{}`
			var script *llm.Script
			if tc.routed {
				cfg = `{"routing":{"critic":{"provider":"scripted","model":"judge"}}}`
				script = reviewScript(t, tc.review)
			}
			d := apptest.Deps(t, cfg, apptest.Options{Getenv: getenv, PolicyJSON: testPolicy, Script: script})
			in := built(t, "rv", 1, repo, tc.maxRetries, tc.change, okCheck, nil)
			raw := output(t, mustHandle(t, handler(t, d), in), in, tc.kind, tc.attempt)
			var got struct {
				events.VerdictData
			}
			if err := json.Unmarshal(raw, &got); err != nil {
				t.Fatal(err)
			}
			if got.Review == nil || got.Review.Status != tc.status || got.Alignment == nil || len(got.Checks) != 1 {
				t.Fatalf("review %+v alignment %+v checks %d", got.Review, got.Alignment, len(got.Checks))
			}
			if tc.status == events.ReviewSkipped && got.Review.Skipped == "" {
				t.Error("a skipped review does not say why")
			}
			if tc.kind != events.KindRetry && got.Integrity != tc.integrity {
				t.Errorf("integrity %s, want %s", got.Integrity, tc.integrity)
			}
			if tc.kind == events.KindRetry {
				var r events.RetryData
				_ = json.Unmarshal(raw, &r)
				if r.RetryPhase != tc.retryPhase || len(r.Reasons) == 0 {
					t.Errorf("retry phase %q reasons %q, want %q", r.RetryPhase, r.Reasons, tc.retryPhase)
				}
				got.Reason = r.Reason
			}
			if !strings.Contains(got.Reason, tc.reason) {
				t.Errorf("reason %q lacks %q", got.Reason, tc.reason)
			}
			reviewed := tc.routed && tc.status != events.ReviewSkipped
			if reviewed != (len(got.Usage) == 1) {
				t.Errorf("usage %+v (reviewed %v)", got.Usage, reviewed)
			}
			if reviewed && (got.Usage[0].Phase != "critic" || got.Usage[0].Provider != "scripted" || got.Usage[0].InputTokens == 0 || got.Review.Provider != "scripted") {
				t.Errorf("usage %+v review %+v", got.Usage, got.Review)
			}
			// The review's tokens count against the run's budget too.
			if reviewed && got.Run.Spend[events.ServiceCritic].Tokens == 0 {
				t.Errorf("spend %+v lacks the critic's review", got.Run.Spend)
			}
			if tc.status == events.ReviewConcerns && !slices.Contains(got.Warnings, "review concern: no test for the empty name") {
				t.Errorf("warnings %q lack the concern", got.Warnings)
			}
		})
	}
}

func TestReviewContractFailure(t *testing.T) {
	repo := copyHello(t)
	d := apptest.Deps(t, `{"routing":{"critic":{"provider":"scripted"}}}`, apptest.Options{Getenv: getenv, PolicyJSON: testPolicy,
		Script: reviewScript(t, `{"status":"fail","reasons":["x"],"retryable":true}`)}) // retry_phase missing
	in := built(t, "rc", 1, repo, 3, change(t, repo, map[string]string{"greet.go": goodGreet}),
		[]events.VerifyCommand{verify("greets", "grep", "-q", "Hello, ", "greet.go")}, nil)
	_, err := handler(t, d)(testCtx(t), in)
	if err == nil || !strings.Contains(err.Error(), "retry_phase") || !strings.Contains(err.Error(), "no valid review") {
		t.Fatalf("err = %v, want a contract failure naming retry_phase", err)
	}
}
