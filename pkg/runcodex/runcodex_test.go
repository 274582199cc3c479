package runcodex_test

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/runcodex"
)

const policyHash = "633952ca2be7cfb59f404f79fd64661e1a1be8aac2070b7052630cc9972a77c5"

// rawPaths are the file paths used below; none may appear in a payload.
var rawPaths = []string{"greet.go", "internal/secret/plan.go", "cmd/app/main.go", "docs/README.md", "a.go", "b.go", "c.go", "d.go", "e.go", "f.go"}

func decode(t *testing.T, payload string) *codex.CognitiveState {
	t.Helper()
	st, diags, err := codex.Decode(payload)
	if err != nil {
		t.Fatalf("Decode: %v\n%s", err, payload)
	}
	for _, d := range diags {
		if d.IsError() {
			t.Fatalf("ERROR diagnostic %s\n%s", d, payload)
		}
	}
	if vd := codex.Validate(payload); codex.HasErrors(vd) {
		t.Fatalf("Validate: %v", vd)
	}
	return st
}

func kpis(st *codex.CognitiveState) map[string]string {
	out := map[string]string{}
	for _, k := range st.ProjectContext.KPIs {
		out[k.Name] = k.Value.String()
	}
	return out
}

// TestEveryCombinationDecodes encodes the cross product of the facts each
// phase can report and checks that every payload decodes without ERROR
// diagnostics and says what the facts say.
func TestEveryCombinationDecodes(t *testing.T) {
	type counts struct{ tools, blocked, warnings int }
	phases := []string{"librarian", "architect", "builder", "critic"}
	attempts := []struct{ attempt, maxRetries int }{{0, 0}, {1, 3}, {4, 3}, {2, 20}}
	failures := []int{0, 1, 5}
	gates := []counts{{0, 0, 0}, {5, 2, 3}, {3, 0, 1}}
	fileSets := [][]string{nil, {"greet.go"}, append(slices.Clone(rawPaths), "greet.go", "a.go")}
	integrities := []string{"", "green", "amber", "red"}
	projects := []string{"", "hello", "repo-0123456789abcdef", "my project/with spaces"}
	actionSets := [][]string{nil, {"context"}, {"context", "plan", "edit", "verify"}, {"context", "plan", "retry"}}
	n := 0
	for pi, phase := range phases {
		for _, at := range attempts {
			for _, fail := range failures {
				for gi, g := range gates {
					for fi, files := range fileSets {
						for _, integ := range integrities {
							f := runcodex.Facts{
								RunID: fmt.Sprintf("run-%d", n), Project: projects[(n+fi)%len(projects)], Phase: phase,
								Attempt: at.attempt, MaxRetries: at.maxRetries, Steps: (gi + fi) % 3,
								Actions: actionSets[(pi+gi)%len(actionSets)], Files: files, Failures: fail,
								ToolCalls: g.tools, Blocked: g.blocked, Warnings: g.warnings,
								ChecksPassed: fi % 2, ChecksTotal: fi, Integrity: integ,
							}
							if n%2 == 0 {
								f.PolicyHash = policyHash
							}
							n++
							name := fmt.Sprintf("%s/a%d-r%d/f%d/g%d/files%d/%q", phase, at.attempt, at.maxRetries, fail, gi, len(files), integ)
							checkFacts(t, name, f)
						}
					}
				}
			}
		}
	}
	if n < 1000 {
		t.Fatalf("only %d combinations", n)
	}
}

func checkFacts(t *testing.T, name string, f runcodex.Facts) {
	t.Helper()
	payload, err := runcodex.Encode(f)
	if err != nil {
		t.Fatalf("%s: Encode: %v", name, err)
	}
	st := decode(t, payload)
	fail := func(format string, args ...any) {
		t.Helper()
		t.Fatalf("%s: "+format+"\n%s", append([]any{name}, append(args, payload)...)...)
	}
	for _, p := range f.Files {
		if strings.Contains(payload, p) {
			fail("raw path %q in the payload", p)
		}
	}
	if f.Project != "" && strings.Contains(payload, f.Project) {
		fail("raw project %q in the payload", f.Project)
	}
	if strings.Contains(payload, f.RunID) {
		fail("raw run id %q in the payload", f.RunID)
	}
	if got := st.ProjectContext.Phase.String(); got != f.Phase {
		fail("phase %q", got)
	}
	if got := st.ProjectContext.ProjectHash.String(); got != codex.HashID("proj", f.Project) {
		fail("project hash %q", got)
	}
	attempt := max(f.Attempt, 1)
	k := kpis(st)
	want := map[string]string{"attempt": strconv.Itoa(attempt), "retries.max": strconv.Itoa(f.MaxRetries), "tools": strconv.Itoa(f.ToolCalls),
		"blocked": strconv.Itoa(f.Blocked), "checks.passed": strconv.Itoa(f.ChecksPassed), "checks.total": strconv.Itoa(f.ChecksTotal)}
	for key, v := range want {
		if k[key] != v {
			fail("kpi %s = %q, want %q", key, k[key], v)
		}
	}
	if got := st.ProjectContext.Maturity.String(); got != "attempt"+strconv.Itoa(attempt) {
		fail("maturity %q", got)
	}
	if got, _ := st.TemporalContext.Cycles.Int(); got != int64(attempt) {
		fail("cycles %d", got)
	}
	if f.Steps > 0 {
		if got, _ := st.ProjectContext.TaskLoad.Active.Int(); got != int64(f.Steps) {
			fail("tasks %d, want %d", got, f.Steps)
		}
	} else if !st.ProjectContext.TaskLoad.Active.IsUnknown() {
		fail("tasks %q without steps", st.ProjectContext.TaskLoad.Active)
	}
	if len(f.Actions) > 0 && !slices.Equal([]string(st.TemporalContext.Actions), f.Actions) {
		fail("actions %v, want %v", st.TemporalContext.Actions, f.Actions)
	}
	distinct := map[string]bool{}
	for _, p := range f.Files {
		distinct[p] = true
	}
	hs := st.TemporalContext.Hotspots
	if len(hs) != min(len(distinct), 8) || !slices.IsSorted([]string(hs)) {
		fail("hotspots %v for %d distinct files", hs, len(distinct))
	}
	for _, h := range hs {
		if !codex.IsHashID(h) || !strings.HasPrefix(h, "mod#") {
			fail("hotspot %q is not a mod# hash", h)
		}
	}
	wantAnomalies := []string{}
	if f.Failures > 0 {
		wantAnomalies = append(wantAnomalies, "verify-failure")
	}
	if f.Blocked > 0 {
		wantAnomalies = append(wantAnomalies, "policy-block")
	}
	if got := []string(st.TemporalContext.Anomalies); len(wantAnomalies) > 0 && !slices.Equal(got, wantAnomalies) {
		fail("anomalies %v, want %v", got, wantAnomalies)
	}
	wantIntegrity := map[string]codex.Integrity{"": codex.IntegrityUnknown, "green": codex.IntegrityGreen, "amber": codex.IntegrityAmber, "red": codex.IntegrityRed}[f.Integrity]
	if st.DecisionContext.Integrity != wantIntegrity {
		fail("integrity %s, want %s", st.DecisionContext.Integrity, wantIntegrity)
	}
	risk := "low"
	switch {
	case f.Blocked > 0 || f.Failures > 0 && f.Failures >= f.MaxRetries:
		risk = "high"
	case f.Failures > 0 || f.Warnings > 0:
		risk = "medium"
	}
	if got := st.DeveloperProfile.RiskProfile.String(); got != risk {
		fail("risk %q, want %q", got, risk)
	}
	if f.Failures > 0 {
		if len(st.CognitiveSignals.Patterns) != 1 || st.CognitiveSignals.Patterns[0].Label != "verify-retry" {
			fail("patterns %+v", st.CognitiveSignals.Patterns)
		}
		w, ok := st.CognitiveSignals.Patterns[0].Weight.Float()
		want := min(float64(f.Failures)/float64(f.MaxRetries+1), 1)
		if !ok || w < want-0.01 || w > want+0.01 {
			fail("verify-retry weight %v, want %v", w, want)
		}
		if !slices.Contains([]string(st.DecisionContext.Adjustments), "replan-with-feedback") {
			fail("adjustments %v", st.DecisionContext.Adjustments)
		}
	}
	if f.Warnings > 0 && (len(st.CognitiveSignals.Trends) != 1 || st.CognitiveSignals.Trends[0].Label != "approval-warnings") {
		fail("trends %+v", st.CognitiveSignals.Trends)
	}
	if got := st.OptionalMetadata.Encoder.String(); got != runcodex.Encoder {
		fail("encoder %q", got)
	}
	if got := st.OptionalMetadata.Session.String(); got != codex.HashID("run", f.RunID) {
		fail("session %q", got)
	}
	wantPolicy := "UNKNOWN"
	if f.PolicyHash != "" {
		wantPolicy = codex.HashID("pol", f.PolicyHash)
	}
	if got := st.OptionalMetadata.Policy.String(); got != wantPolicy {
		fail("policy %q, want %q", got, wantPolicy)
	}
}

func TestIntegrityMapping(t *testing.T) {
	cases := []struct {
		integrity string
		want      codex.Integrity
		wantErr   bool
	}{
		{"", codex.IntegrityUnknown, false},
		{"green", codex.IntegrityGreen, false},
		{"amber", codex.IntegrityAmber, false},
		{"red", codex.IntegrityRed, false},
		{"GREEN", "", true},
		{"yellow", "", true},
		{"unknown", "", true},
		{" green", "", true},
	}
	for _, tc := range cases {
		t.Run(fmt.Sprintf("%q", tc.integrity), func(t *testing.T) {
			payload, err := runcodex.Encode(runcodex.Facts{RunID: "r", Project: "p", Phase: "critic", Attempt: 1, Integrity: tc.integrity})
			if tc.wantErr {
				if err == nil || !errors.Is(err, codex.ErrInvalidPayload) || payload != "" {
					t.Fatalf("Encode = %q, %v: want an error wrapping codex.ErrInvalidPayload", payload, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := decode(t, payload).DecisionContext.Integrity; got != tc.want {
				t.Errorf("integrity %s, want %s", got, tc.want)
			}
		})
	}
}

func TestDeterministicAndOrderIndependent(t *testing.T) {
	base := runcodex.Facts{RunID: "01m81dne254gs73h6fgjnsfx5s", Project: "hello", Phase: "critic", Attempt: 2, MaxRetries: 3, Steps: 2,
		Actions: []string{"context", "plan", "edit", "verify"}, Files: []string{"greet.go", "greet_test.go", "go.mod"}, Failures: 1,
		ToolCalls: 4, Warnings: 1, ChecksPassed: 2, ChecksTotal: 2, Integrity: "green", PolicyHash: policyHash}
	first, err := runcodex.Encode(base)
	if err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		mut  func(f *runcodex.Facts)
		same bool
	}{
		{"same facts", func(*runcodex.Facts) {}, true},
		{"files reordered", func(f *runcodex.Facts) { f.Files = []string{"go.mod", "greet.go", "greet_test.go"} }, true},
		{"files repeated", func(f *runcodex.Facts) { f.Files = append(f.Files, "greet.go", "go.mod") }, true},
		{"another file", func(f *runcodex.Facts) { f.Files = []string{"greet.go", "greet_test.go", "go.sum"} }, false},
		{"another run", func(f *runcodex.Facts) { f.RunID = "other" }, false},
		{"another project", func(f *runcodex.Facts) { f.Project = "other" }, false},
		{"another policy", func(f *runcodex.Facts) { f.PolicyHash = strings.Repeat("0", 64) }, false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			f := base
			f.Files = slices.Clone(base.Files)
			tc.mut(&f)
			got, err := runcodex.Encode(f)
			if err != nil {
				t.Fatal(err)
			}
			if (got == first) != tc.same {
				t.Errorf("payload equal = %v, want %v:\n%s\n%s", got == first, tc.same, first, got)
			}
		})
	}
}

// TestHotspotsHashed: at most eight hotspots, each the mod# hash of a
// path, never the path.
func TestHotspotsHashed(t *testing.T) {
	cases := []struct {
		name  string
		files []string
		want  int
	}{
		{"none", nil, 0},
		{"one", []string{"internal/secret/plan.go"}, 1},
		{"duplicates", []string{"a.go", "a.go", "b.go"}, 2},
		{"more than eight", rawPaths, 8},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			payload, err := runcodex.Encode(runcodex.Facts{RunID: "r", Project: "p", Phase: "builder", Attempt: 1, Files: tc.files})
			if err != nil {
				t.Fatal(err)
			}
			hs := decode(t, payload).TemporalContext.Hotspots
			if len(hs) != tc.want {
				t.Fatalf("%d hotspots, want %d: %v", len(hs), tc.want, hs)
			}
			all := map[string]bool{}
			for _, p := range tc.files {
				all[codex.HashID("mod", p)] = true
				if strings.Contains(payload, p) {
					t.Errorf("raw path %q in %s", p, payload)
				}
			}
			for _, h := range hs {
				if !all[h] {
					t.Errorf("hotspot %q is not the hash of a given path", h)
				}
			}
		})
	}
}
