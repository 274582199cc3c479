package codex

import (
	"reflect"
	"testing"
)

func TestVersionMatrix(t *testing.T) {
	ref := referencePayload(t)
	noOptional := edit(t, ref, "<OPTIONAL>\n    vendor=reference-kit | checksum#92af | session=fingerprint#aa71\n  </OPTIONAL>", "")
	full, _ := mustDecode(t, ref)
	tests := []struct {
		name      string
		payload   string
		supported bool
		version   Value
		warn      bool
		check     func(t *testing.T, st *CognitiveState)
	}{
		{
			name: "1.0 free-form insights and decisions", payload: edit(t, ref, `v="1.2"`, `v="1.0"`),
			supported: true, version: "1.0",
			check: func(t *testing.T, st *CognitiveState) {
				cs, dc := st.CognitiveSignals, st.DecisionContext
				wantIns := List[string]{"pattern:handoff-friction(weight=0.60,conf=0.71)", "trend:velocity-up(conf=0.71)", "forecast:phase-shift-ready"}
				if !reflect.DeepEqual(cs.FreeForm, wantIns) || cs.Patterns.Known() || cs.Trends.Known() {
					t.Errorf("insights %#v", cs)
				}
				wantDec := List[string]{"adr#c3d1", "drift=plan-micro", "anomaly=spotlight-fe", "integrity=green", "adjust=stabilize-context-cache"}
				if !reflect.DeepEqual(dc.FreeForm, wantDec) || dc.Integrity != IntegrityUnknown || dc.ADRRefs.Known() {
					t.Errorf("decisions %#v", dc)
				}
				if !reflect.DeepEqual(st.ProjectContext, full.ProjectContext) || !reflect.DeepEqual(st.TemporalContext, full.TemporalContext) {
					t.Errorf("stable blocks differ from 1.2")
				}
				if st.OptionalMetadata.Vendor != Unknown || st.OptionalMetadata.Extensions["vendor"] != "reference-kit" {
					t.Errorf("optional %#v", st.OptionalMetadata)
				}
			},
		},
		{
			name: "1.1 without OPTIONAL", payload: edit(t, noOptional, `v="1.2"`, `v="1.1"`),
			supported: true, version: "1.1",
			check: func(t *testing.T, st *CognitiveState) {
				want := *full
				want.Version = "1.1"
				want.OptionalMetadata = newCognitiveState().OptionalMetadata
				if !reflect.DeepEqual(*st, want) {
					t.Errorf("got %#v\nwant %#v", *st, want)
				}
			},
		},
		{
			name: "1.1 OPTIONAL kept verbatim", payload: edit(t, ref, `v="1.2"`, `v="1.1"`),
			supported: true, version: "1.1",
			check: func(t *testing.T, st *CognitiveState) {
				want := map[string]string{"vendor": "reference-kit", "checksum#92af": "", "session": "fingerprint#aa71"}
				om := st.OptionalMetadata
				if !reflect.DeepEqual(om.Extensions, want) || om.Session != Unknown || om.Checksum != Unknown {
					t.Errorf("optional %#v", om)
				}
			},
		},
		{
			name: "1.2 full", payload: ref, supported: true, version: "1.2",
			check: func(t *testing.T, st *CognitiveState) {
				if st.OptionalMetadata.Session != "fingerprint#aa71" || st.DecisionContext.Integrity != IntegrityGreen {
					t.Errorf("1.2 fields missing: %#v", st)
				}
			},
		},
		{
			name:    "1.3 best effort, newer fields UNKNOWN and kept",
			payload: edit(t, edit(t, ref, `v="1.2"`, `v="1.3"`), "maturity=iter2", "maturity=iter2 | focus.score=0.9"),
			version: "1.3", warn: true,
			check: func(t *testing.T, st *CognitiveState) {
				if !reflect.DeepEqual(st.UnknownTokens, map[string][]string{BlockData: {"focus.score=0.9"}}) {
					t.Errorf("unknown tokens %#v", st.UnknownTokens)
				}
				st.UnknownTokens, st.Version, st.VersionSupported = nil, full.Version, true
				if !reflect.DeepEqual(st, full) {
					t.Errorf("known fields differ from 1.2 decoding")
				}
			},
		},
		{
			name: "no version", payload: edit(t, ref, ` v="1.2"`, ``), version: Unknown, warn: true,
			check: func(t *testing.T, st *CognitiveState) {
				if st.OptionalMetadata.Session != "fingerprint#aa71" {
					t.Errorf("not decoded as 1.2")
				}
			},
		},
		{
			name: "empty version", payload: edit(t, ref, `v="1.2"`, `v=""`), version: Unknown, warn: true,
			check: func(*testing.T, *CognitiveState) {},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			st, diags := mustDecode(t, tc.payload)
			if st.VersionSupported != tc.supported || st.Version != tc.version {
				t.Errorf("version %q supported %v", st.Version, st.VersionSupported)
			}
			if got := hasDiag(diags, "WARN:unsupported-version"); got != tc.warn {
				t.Errorf("unsupported-version warning %v, want %v (%v)", got, tc.warn, diagStrings(diags))
			}
			tc.check(t, st)
		})
	}
}
