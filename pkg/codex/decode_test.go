package codex

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestDecodePartial(t *testing.T) {
	ref := referencePayload(t)
	full, _ := mustDecode(t, ref)
	ctx := ref[strings.Index(ref, "<CONTEXT>") : strings.Index(ref, "</CONTEXT>")+len("</CONTEXT>")]
	tests := []struct {
		name        string
		payload     string
		sentinel    error
		unavailable []string
		check       func(t *testing.T, st *CognitiveState)
	}{
		{
			name: "missing required block", payload: edit(t, ref, ctx, ""), sentinel: ErrMissingBlock,
			unavailable: []string{BlockContext},
			check: func(t *testing.T, st *CognitiveState) {
				if st.DeveloperProfile.DevDNA != Unknown || st.DeveloperProfile.StackDescriptors.Known() {
					t.Errorf("CONTEXT fields should be UNKNOWN: %#v", st.DeveloperProfile)
				}
				if !reflect.DeepEqual(st.TemporalContext, full.TemporalContext) || !reflect.DeepEqual(st.DecisionContext, full.DecisionContext) {
					t.Errorf("parsed blocks differ from the full decode")
				}
			},
		},
		{
			name: "two blocks missing", payload: edit(t, edit(t, edit(t, ref, ctx, ""), "<DATA>", "<XDATA>"), "</DATA>", "</XDATA>"), sentinel: ErrMissingBlock,
			unavailable: []string{BlockData, BlockContext},
			check:       func(*testing.T, *CognitiveState) {},
		},
		{
			name: "hash violation dropped", payload: edit(t, ref, "hotspots=mod#a913,api#f02c", "hotspots=src/api.ts"),
			sentinel: ErrHashViolation,
			check: func(t *testing.T, st *CognitiveState) {
				if st.TemporalContext.Hotspots.Known() {
					t.Errorf("raw path reached the state: %v", st.TemporalContext.Hotspots)
				}
				if st.TemporalContext.Cycles != "5" {
					t.Errorf("rest of TIMELINE lost")
				}
			},
		},
		{
			name: "raw content dropped", payload: edit(t, ref, "adjust=stabilize-context-cache", `adjust="rm -rf"`),
			sentinel: ErrRawContent,
			check: func(t *testing.T, st *CognitiveState) {
				if st.DecisionContext.Adjustments.Known() {
					t.Errorf("raw content reached the state")
				}
			},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, diags, err := Decode(tc.payload)
			if st != nil || !errors.Is(err, tc.sentinel) {
				t.Fatalf("without partial: state %v, err %v", st != nil, err)
			}
			st, pdiags, err := Decode(tc.payload, WithPartial())
			if st == nil || !errors.Is(err, tc.sentinel) || !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("partial: state %v, err %v", st != nil, err)
			}
			if !HasErrors(pdiags) || len(pdiags) < len(diags) {
				t.Errorf("partial diagnostics %v", diagStrings(pdiags))
			}
			if !reflect.DeepEqual(st.Unavailable, tc.unavailable) {
				t.Errorf("unavailable %v, want %v", st.Unavailable, tc.unavailable)
			}
			tc.check(t, st)
		})
	}
}

func TestDecodePartialCannotHelpUnparseable(t *testing.T) {
	tests := []struct {
		name     string
		payload  string
		sentinel error
	}{
		{"unparseable", "<RL4-CODEX v=\"1.2\"><DATA></RL4-CODEX>", ErrUnparseable},
		{"oversized", strings.Repeat(" ", MaxPayloadBytes+1), ErrSizeExceeded},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, diags, err := Decode(tc.payload, WithPartial(), nil)
			if st != nil || !errors.Is(err, tc.sentinel) || len(diags) != 1 {
				t.Errorf("state %v err %v diags %v", st != nil, err, diagStrings(diags))
			}
		})
	}
}

func TestDecodeBlockEmptyMarksUnavailable(t *testing.T) {
	p := edit(t, referencePayload(t), "adr#c3d1 | drift=plan-micro | anomaly=spotlight-fe\n    integrity=green | adjust=stabilize-context-cache", "")
	st, diags := mustDecode(t, p)
	if !reflect.DeepEqual(diagStrings(diags), []string{"WARN:block-empty:DECISIONS"}) {
		t.Errorf("diagnostics %v", diagStrings(diags))
	}
	if !reflect.DeepEqual(st.Unavailable, []string{BlockDecisions}) || st.DecisionContext.Integrity != IntegrityUnknown ||
		st.DecisionContext.ADRRefs.Known() || st.DecisionContext.Adjustments.Known() {
		t.Errorf("decision context %#v, unavailable %v", st.DecisionContext, st.Unavailable)
	}
}

func TestDecodeTokenForms(t *testing.T) {
	ref := referencePayload(t)
	tests := []struct {
		name  string
		from  string
		to    string
		check func(st *CognitiveState) bool
	}{
		{"tasks active/total", "tasks=3", "tasks=3.active/7.total", func(st *CognitiveState) bool {
			return st.ProjectContext.TaskLoad == TaskLoad{Active: "3", Total: "7"}
		}},
		{"tasks slash", "tasks=3", "tasks=2/9", func(st *CognitiveState) bool {
			return st.ProjectContext.TaskLoad == TaskLoad{Active: "2", Total: "9"}
		}},
		{"proj key form", "proj#7fa2", "proj=proj#beef", func(st *CognitiveState) bool {
			return st.ProjectContext.ProjectHash == "proj#beef"
		}},
		{"mode upper case", "mode=strict", "mode=Exploratory", func(st *CognitiveState) bool {
			return st.ProjectContext.Mode == "exploratory"
		}},
		{"kpi empty value is UNKNOWN", "kpi:velocity=steady", "kpi:velocity=", func(st *CognitiveState) bool {
			return reflect.DeepEqual(st.ProjectContext.KPIs, List[KPI]{{Name: "velocity", Value: Unknown}})
		}},
		{"removed proj is UNKNOWN", "proj#7fa2 | ", "", func(st *CognitiveState) bool {
			return st.ProjectContext.ProjectHash == Unknown
		}},
		{"stack plain list", "stack=hash(fe,api,llm)", "stack=go+ts", func(st *CognitiveState) bool {
			return reflect.DeepEqual(st.DeveloperProfile.StackDescriptors, List[string]{"go", "ts"})
		}},
		{"stack empty hash", "stack=hash(fe,api,llm)", "stack=hash()", func(st *CognitiveState) bool {
			return reflect.DeepEqual(st.DeveloperProfile.StackDescriptors, List[string]{})
		}},
		{"extra constraints map", "risk=drift-low", "risk=drift-low | max.steps=12", func(st *CognitiveState) bool {
			return reflect.DeepEqual(st.ProjectContext.ExtraConstraints, map[string]string{"max.steps": "12"})
		}},
		{"signed correlation", "forecast:phase-shift-ready", "correlation:tests-vs-focus(+0.41)", func(st *CognitiveState) bool {
			return reflect.DeepEqual(st.CognitiveSignals.Correlations, List[Insight]{
				{Kind: KindCorrelation, Label: "tests-vs-focus", Weight: Unknown, Conf: Unknown, Signal: "+0.41"}})
		}},
		{"insight range keeps token, drops value", "weight=0.60", "weight=1.60", func(st *CognitiveState) bool {
			p := st.CognitiveSignals.Patterns
			return len(p) == 1 && p[0].Weight == Unknown && p[0].Conf == "0.71"
		}},
		{"insight empty parens", "forecast:phase-shift-ready", "forecast:phase-shift-ready()", func(st *CognitiveState) bool {
			return len(st.CognitiveSignals.Forecasts) == 1 && st.CognitiveSignals.Forecasts[0].Label == "phase-shift-ready"
		}},
		{"adr list and adjustment order", "adjust=stabilize-context-cache", "adjust=b,a | adr=adr#beef | adjustment=c", func(st *CognitiveState) bool {
			dc := st.DecisionContext
			return reflect.DeepEqual(dc.Adjustments, List[string]{"b", "a", "c"}) && reflect.DeepEqual(dc.ADRRefs, List[string]{"adr#c3d1", "adr#beef"})
		}},
		{"integrity case-insensitive", "integrity=green", "integrity=AMBER", func(st *CognitiveState) bool {
			return st.DecisionContext.Integrity == IntegrityAmber
		}},
		{"optional typed and extensions", "vendor=reference-kit", "vendor=reference-kit | encoder=codali@0.1 | policy=strict-v2 | ext.run=r1 | x:y=z | checksum=sum#1234", func(st *CognitiveState) bool {
			om := st.OptionalMetadata
			return om.Encoder == "codali@0.1" && om.Policy == "strict-v2" && om.Checksum == "sum#1234" &&
				reflect.DeepEqual(om.Extensions, map[string]string{"ext.run": "r1", "x:y": "z"})
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, _, err := Decode(edit(t, ref, tc.from, tc.to))
			if err != nil || st == nil {
				t.Fatalf("Decode: %v", err)
			}
			if !tc.check(st) {
				t.Errorf("unexpected state: %#v", *st)
			}
		})
	}
}

func TestDecodeContextProjectFillsHash(t *testing.T) {
	p := edit(t, edit(t, referencePayload(t), "proj#7fa2 | ", ""), "type=fullstack", "type=fullstack | project=proj#beef")
	st, diags := mustDecode(t, p)
	if st.ProjectContext.ProjectHash != "proj#beef" || len(diags) != 0 {
		t.Errorf("project hash %q, diagnostics %v", st.ProjectContext.ProjectHash, diagStrings(diags))
	}
}

func TestDecodeOptionalTruncation(t *testing.T) {
	var toks []string
	for i := 0; i < 40; i++ {
		toks = append(toks, "ext.key"+string(rune('a'+i%26))+string(rune('a'+i/26))+"=value")
	}
	p := edit(t, referencePayload(t), "vendor=reference-kit | checksum#92af | session=fingerprint#aa71", "vendor=v | "+strings.Join(toks, " | "))
	if !hasDiag(Validate(p), "ERROR:optional-overflow") {
		t.Fatalf("Validate must reject the overflow")
	}
	st, diags := mustDecode(t, p)
	if !hasDiag(diags, "WARN:optional-truncated") {
		t.Fatalf("diagnostics %v", diagStrings(diags))
	}
	size := len("vendor=v")
	for k, v := range st.OptionalMetadata.Extensions {
		size += len(" | ") + len(k) + 1 + len(v)
	}
	if size > MaxOptionalChars || size+len(" | ext.keyzz=value") <= MaxOptionalChars {
		t.Errorf("kept %d chars of OPTIONAL; want the most that fit in %d", size, MaxOptionalChars)
	}
	if st.OptionalMetadata.Vendor != "v" || st.OptionalMetadata.Extensions["ext.keyaa"] != "value" {
		t.Errorf("leading tokens lost: %#v", st.OptionalMetadata)
	}
}
