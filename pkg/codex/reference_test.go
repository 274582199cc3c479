package codex

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files")

func TestDecodeReferencePayload(t *testing.T) {
	st, diags := mustDecode(t, referencePayload(t))
	if len(diags) != 0 {
		t.Fatalf("want no diagnostics, got %v", diagStrings(diags))
	}
	tests := []struct {
		name string
		got  any
		want any
	}{
		{"version", st.Version, Value("1.2")},
		{"supported", st.VersionSupported, true},
		{"4-hex project hash", st.ProjectContext.ProjectHash, Value("proj#7fa2")},
		{"mode", st.ProjectContext.Mode, Value("strict")},
		{"phase", st.ProjectContext.Phase, Value("build")},
		{"tasks=3 active", st.ProjectContext.TaskLoad.Active, Value("3")},
		{"tasks=3 total unknown", st.ProjectContext.TaskLoad.Total, Unknown},
		{"kpis", st.ProjectContext.KPIs, List[KPI]{{Name: "velocity", Value: "steady"}}},
		{"cog.health", st.ProjectContext.CogHealth, Value("0.82")},
		{"maturity", st.ProjectContext.Maturity, Value("iter2")},
		{"type", st.ProjectContext.ProjectType, Value("fullstack")},
		{"constraints", st.ProjectContext.Constraints, List[string]{"strict-zero-content"}},
		{"success", st.ProjectContext.SuccessCriteria, List[string]{"ship-mvp"}},
		{"cycles", st.TemporalContext.Cycles, Value("5")},
		{"actions", st.TemporalContext.Actions, List[string]{"edit", "analysis"}},
		{"bursts", st.TemporalContext.Bursts, List[string]{"2"}},
		{"droughts absent", st.TemporalContext.Droughts, List[string](nil)},
		{"hotspots 4-hex", st.TemporalContext.Hotspots, List[string]{"mod#a913", "api#f02c"}},
		{"timeline anomalies", st.TemporalContext.Anomalies, List[string]{"idle-dip"}},
		{"stack hash()", st.DeveloperProfile.StackDescriptors, List[string]{"fe", "api", "llm"}},
		{"devDNA", st.DeveloperProfile.DevDNA, Value("focus/iterative")},
		{"reasoning", st.DeveloperProfile.ReasoningStyle, Value("chain-strict")},
		{"risk", st.DeveloperProfile.RiskProfile, Value("drift-low")},
		{"pattern weight+conf", st.CognitiveSignals.Patterns, List[Insight]{
			{Kind: KindPattern, Label: "handoff-friction", Weight: "0.60", Conf: "0.71", Signal: Unknown}}},
		{"trend conf only", st.CognitiveSignals.Trends, List[Insight]{
			{Kind: KindTrend, Label: "velocity-up", Weight: Unknown, Conf: "0.71", Signal: Unknown}}},
		{"forecast bare", st.CognitiveSignals.Forecasts, List[Insight]{
			{Kind: KindForecast, Label: "phase-shift-ready", Weight: Unknown, Conf: Unknown, Signal: Unknown}}},
		{"no correlations but known", st.CognitiveSignals.Correlations, List[Insight]{}},
		{"adr", st.DecisionContext.ADRRefs, List[string]{"adr#c3d1"}},
		{"drift", st.DecisionContext.DriftSignals, List[string]{"plan-micro"}},
		{"decision anomaly", st.DecisionContext.Anomalies, List[string]{"spotlight-fe"}},
		{"integrity", st.DecisionContext.Integrity, IntegrityGreen},
		{"adjust", st.DecisionContext.Adjustments, List[string]{"stabilize-context-cache"}},
		{"vendor", st.OptionalMetadata.Vendor, Value("reference-kit")},
		{"bare checksum symbol", st.OptionalMetadata.Checksum, Value("checksum#92af")},
		{"session", st.OptionalMetadata.Session, Value("fingerprint#aa71")},
		{"encoder absent", st.OptionalMetadata.Encoder, Unknown},
		{"policy absent", st.OptionalMetadata.Policy, Unknown},
		{"no extensions", st.OptionalMetadata.Extensions, map[string]string{}},
		{"nothing unavailable", st.Unavailable, []string(nil)},
		{"no unknown tokens", st.UnknownTokens, map[string][]string(nil)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if !reflect.DeepEqual(tc.got, tc.want) {
				t.Errorf("got %#v, want %#v", tc.got, tc.want)
			}
		})
	}
	if f, ok := st.CognitiveSignals.Patterns[0].Weight.Float(); !ok || f != 0.6 {
		t.Errorf("weight as number: %v %v", f, ok)
	}
}

// TestReferenceJSONGolden pins the JSON shape of a decoded state, which
// `codali codex decode --json` prints. Run with -update to rewrite.
func TestReferenceJSONGolden(t *testing.T) {
	st, _ := mustDecode(t, referencePayload(t))
	got, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	got = append(got, '\n')
	golden := filepath.Join("testdata", "reference-v1.2.json")
	if *update {
		if err := os.WriteFile(golden, got, 0o644); err != nil {
			t.Fatalf("write golden: %v", err)
		}
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatalf("read golden: %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("JSON differs from %s:\n%s", golden, got)
	}
	var back CognitiveState
	if err := json.Unmarshal(got, &back); err != nil {
		t.Fatalf("unmarshal: %v", err)
	}
	if !reflect.DeepEqual(&back, st) {
		t.Errorf("JSON round trip changed the state:\n%#v\n%#v", back, *st)
	}
}
