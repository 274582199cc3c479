package codex

import (
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// sampleState mirrors the reference payload with full-length hashes.
func sampleState() State {
	return State{
		ProjectHash: "proj#7fa2c0ffee000001", Mode: "strict", Phase: "build",
		Tasks: &StateTasks{Active: 3}, KPIs: []StateKPI{{Name: "velocity", Value: "steady"}},
		CogHealth: ptr(0.82), Maturity: "iter2",
		Cycles: ptr(5), Actions: []string{"edit", "analysis"}, Bursts: []string{"2"},
		Hotspots: []string{"mod#a913a913a913a913", "api#f02cf02cf02cf02c"}, Anomalies: []string{"idle-dip"},
		Context: StateContext{Type: "fullstack", Stack: []string{"fe", "api", "llm"}, DevDNA: "focus/iterative",
			Constraints: []string{"strict-zero-content"}, Success: []string{"ship-mvp"}, Reasoning: "chain-strict", Risk: "drift-low"},
		Insights: []StateInsight{
			{Kind: "pattern", Label: "handoff-friction", Weight: ptr(0.6), Conf: ptr(0.71)},
			{Kind: "trend", Label: "velocity-up", Conf: ptr(0.71)},
			{Kind: "forecast", Label: "phase-shift-ready"},
			{Kind: "correlation", Label: "tests-vs-focus", Signal: ptr(0.41)},
		},
		Decisions: StateDecisions{ADRs: []string{"adr#c3d1c3d1c3d1c3d1"}, Drift: []string{"plan-micro"},
			Anomaly: []string{"spotlight-fe"}, Integrity: IntegrityGreen, Adjust: []string{"stabilize-context-cache"}},
		Optional: StateOptional{Vendor: "codali", Session: "fingerprint#aa71aa71aa71aa71"},
	}
}

func TestEncodeSample(t *testing.T) {
	got, err := Encode(sampleState())
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	body := `<DATA>cog.health=0.82 | kpi:velocity=steady | maturity=iter2 | mode=strict | phase=build | proj#7fa2c0ffee000001 | tasks=3</DATA>
<TIMELINE>cycles=5 | actions=edit+analysis | bursts=2 | hotspots=mod#a913a913a913a913,api#f02cf02cf02cf02c | anomalies=idle-dip</TIMELINE>
<CONTEXT>constraints=strict-zero-content | devDNA=focus/iterative | reasoning=chain-strict | risk=drift-low | stack=hash(fe,api,llm) | success=ship-mvp | type=fullstack</CONTEXT>
<INSIGHTS>pattern:handoff-friction(weight=0.6,conf=0.71) | trend:velocity-up(conf=0.71) | forecast:phase-shift-ready | correlation:tests-vs-focus(+0.41)</INSIGHTS>
<DECISIONS>adjust=stabilize-context-cache | adr#c3d1c3d1c3d1c3d1 | anomaly=spotlight-fe | drift=plan-micro | integrity=green</DECISIONS>`
	want := "<RL4-CODEX v=\"1.2\">\n" + body + "\n<OPTIONAL>checksum=sum#" + sha256Hex16(body) +
		" | session=fingerprint#aa71aa71aa71aa71 | vendor=codali</OPTIONAL>\n</RL4-CODEX>\n"
	if got != want {
		t.Errorf("payload:\n%s\nwant:\n%s", got, want)
	}
	if normalize(got) != got {
		t.Errorf("encoder output is not normalised")
	}
	if d := Validate(got); len(d) != 0 {
		t.Errorf("Validate: %v", diagStrings(d))
	}
}

func TestEncodeTokenOrder(t *testing.T) {
	s := sampleState()
	s.KPIs = []StateKPI{{Name: "zeta", Value: "1"}, {Name: "alpha", Value: "2"}, {Name: "a.b", Value: "3"}}
	s.Decisions.ADRs = []string{"adr#ffff0000", "adr#0000ffff"}
	s.Insights = []StateInsight{{Kind: "trend", Label: "z"}, {Kind: "pattern", Label: "a"}}
	s.Optional.Ext = map[string]string{"b": "1", "a": "2"}
	p, err := Encode(s)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	doc, msg := parseDocument(p)
	if doc == nil {
		t.Fatalf("unparseable: %s", msg)
	}
	recency := map[string][]string{
		BlockTimeline: {"cycles=5", "actions=edit+analysis", "bursts=2", "hotspots=mod#a913a913a913a913,api#f02cf02cf02cf02c", "anomalies=idle-dip"},
		BlockInsights: {"trend:z", "pattern:a"},
	}
	for _, e := range doc.elements {
		var toks []string
		for _, tk := range tokenize(e.name, e.content) {
			toks = append(toks, tk.text)
		}
		if want, ok := recency[e.name]; ok {
			if !slices.Equal(toks, want) {
				t.Errorf("%s: got %v, want given order %v", e.name, toks, want)
			}
			continue
		}
		if !slices.IsSorted(toks) {
			t.Errorf("%s tokens not sorted: %v", e.name, toks)
		}
	}
	for _, want := range []string{"kpi:a.b=3 | kpi:alpha=2 | kpi:zeta=1", "adr#0000ffff | adr#ffff0000", "ext.a=2 | ext.b=1"} {
		if !strings.Contains(p, want) {
			t.Errorf("payload lacks %q:\n%s", want, p)
		}
	}
}

func TestEncodeDeterministic(t *testing.T) {
	s := sampleState()
	s.Optional.Ext = map[string]string{"a": "1", "b": "2", "c": "3", "d": "4", "e": "5", "f": "6"}
	first, err := Encode(s)
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	for i := 0; i < 20; i++ {
		if again, err := Encode(s); err != nil || again != first {
			t.Fatalf("run %d differs (err %v):\n%s\n%s", i, err, again, first)
		}
	}
}

func TestEncodeNormalisesValues(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(*State)
		want   string
		absent string
	}{
		{"inner whitespace to dash", func(s *State) { s.Phase = "  build   phase " }, "phase=build-phase", ""},
		{"mode lower-cased", func(s *State) { s.Mode = "Exploratory" }, "mode=exploratory", ""},
		{"integrity lower-cased", func(s *State) { s.Decisions.Integrity = "Red" }, "integrity=red", ""},
		{"UNKNOWN scalar omitted", func(s *State) { s.Phase = "UNKNOWN" }, "", "phase="},
		{"UNKNOWN integrity omitted", func(s *State) { s.Decisions.Integrity = IntegrityUnknown }, "", "integrity="},
		{"empty KPI value is UNKNOWN", func(s *State) { s.KPIs = []StateKPI{{Name: "k"}} }, "kpi:k=UNKNOWN", ""},
		{"tasks with total", func(s *State) { s.Tasks = &StateTasks{Active: 1, Total: ptr(4)} }, "tasks=1.active/4.total", ""},
		{"negative zero signal", func(s *State) {
			s.Insights = []StateInsight{{Kind: "correlation", Label: "x", Signal: ptr(math.Copysign(0, -1))}}
		}, "correlation:x(+0)", ""},
		{"negative signal", func(s *State) { s.Insights = []StateInsight{{Kind: "Correlation", Label: "x", Signal: ptr(-1.0)}} }, "correlation:x(-1)", ""},
		{"empty ext value", func(s *State) { s.Optional.Ext = map[string]string{"flag": ""} }, "ext.flag= ", ""},
		{"empty lists omitted", func(s *State) { s.Actions, s.Context.Stack = []string{}, nil }, "", "actions="},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sampleState()
			tc.mutate(&s)
			p, err := Encode(s)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if tc.want != "" && !strings.Contains(p, tc.want) {
				t.Errorf("payload lacks %q:\n%s", tc.want, p)
			}
			if tc.absent != "" && strings.Contains(p, tc.absent) {
				t.Errorf("payload has %q:\n%s", tc.absent, p)
			}
		})
	}
}

func TestEncodeEmptyState(t *testing.T) {
	p, err := Encode(State{})
	if err != nil {
		t.Fatalf("Encode: %v", err)
	}
	st, diags := mustDecode(t, p)
	want := []string{"WARN:block-empty:DATA", "WARN:block-empty:TIMELINE", "WARN:block-empty:CONTEXT",
		"WARN:block-empty:INSIGHTS", "WARN:block-empty:DECISIONS"}
	if !slices.Equal(diagStrings(diags), want) {
		t.Errorf("diagnostics %v", diagStrings(diags))
	}
	if len(st.Unavailable) != 5 || !isOwnChecksum(string(st.OptionalMetadata.Checksum)) {
		t.Errorf("unavailable %v checksum %q", st.Unavailable, st.OptionalMetadata.Checksum)
	}
}

func TestEncodeRefusesInvalid(t *testing.T) {
	tests := []struct {
		name     string
		mutate   func(*State)
		sentinel error
		field    string // for *FieldError
	}{
		{"raw path as hotspot", func(s *State) { s.Hotspots = []string{"src/api.ts"} }, ErrHashViolation, "Hotspots[0]"},
		{"project not hashed", func(s *State) { s.ProjectHash = "codali" }, ErrHashViolation, "ProjectHash"},
		{"project wrong namespace", func(s *State) { s.ProjectHash = "mod#7fa2" }, ErrHashViolation, "ProjectHash"},
		{"adr wrong namespace", func(s *State) { s.Decisions.ADRs = []string{"dec#1234"} }, ErrHashViolation, "Decisions.ADRs[0]"},
		{"session raw", func(s *State) { s.Optional.Session = "laptop-42" }, ErrHashViolation, "Optional.Session"},
		{"short namespace from HashID", func(s *State) { s.Hotspots = []string{HashID("ab", "x")} }, ErrHashViolation, "Hotspots[0]"},
		{"raw filename as value", func(s *State) { s.Phase = "main.go" }, ErrHashViolation, ""},
		{"hash-like value", func(s *State) { s.Maturity = "iter#2" }, ErrHashViolation, ""},
		{"base64 value", func(s *State) { s.Context.Risk = "U29tZSBsb25nIHNlY3JldCB0ZXh0" }, ErrRawContent, ""},
		{"tiny number makes a long word", func(s *State) { s.CogHealth = ptr(1e-120) }, ErrRawContent, ""},
		{"oversized state", func(s *State) {
			for i := 0; i < 800; i++ {
				s.KPIs = append(s.KPIs, StateKPI{Name: "k" + strings.Repeat("x", i%9) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)), Value: "v"})
			}
		}, ErrSizeExceeded, ""},
		{"optional overflow", func(s *State) { s.Optional.Policy = strings.Repeat("policy-", 60) + "x" }, ErrOptionalOverflow, ""},
		{"bad mode", func(s *State) { s.Mode = "chaotic" }, nil, "Mode"},
		{"separator in value", func(s *State) { s.Phase = "a|b" }, nil, "Phase"},
		{"comma in list item", func(s *State) { s.Actions = []string{"edit,run"} }, nil, "Actions[0]"},
		{"empty list item", func(s *State) { s.Bursts = []string{" "} }, nil, "Bursts[0]"},
		{"non-ascii", func(s *State) { s.Context.Type = "fullstäck" }, nil, "Context.Type"},
		{"cog.health above 1", func(s *State) { s.CogHealth = ptr(1.5) }, nil, "CogHealth"},
		{"cog.health NaN", func(s *State) { s.CogHealth = ptr(math.NaN()) }, nil, "CogHealth"},
		{"negative active", func(s *State) { s.Tasks = &StateTasks{Active: -1} }, nil, "Tasks.Active"},
		{"negative total", func(s *State) { s.Tasks = &StateTasks{Active: 1, Total: ptr(-2)} }, nil, "Tasks.Total"},
		{"negative cycles", func(s *State) { s.Cycles = ptr(-1) }, nil, "Cycles"},
		{"kpi name", func(s *State) { s.KPIs = []StateKPI{{Name: "a=b", Value: "1"}} }, nil, "KPIs[0].Name"},
		{"kpi repeated", func(s *State) { s.KPIs = []StateKPI{{Name: "a", Value: "1"}, {Name: "a", Value: "2"}} }, nil, "KPIs[1].Name"},
		{"kpi value", func(s *State) { s.KPIs = []StateKPI{{Name: "a", Value: "x:y"}} }, nil, "KPIs[0].Value"},
		{"insight kind", func(s *State) { s.Insights = []StateInsight{{Kind: "hunch", Label: "x"}} }, nil, "Insights[0].Kind"},
		{"insight label empty", func(s *State) { s.Insights = []StateInsight{{Kind: "trend"}} }, nil, "Insights[0].Label"},
		{"insight label parens", func(s *State) { s.Insights = []StateInsight{{Kind: "trend", Label: "x(y)"}} }, nil, "Insights[0].Label"},
		{"weight above 1", func(s *State) { s.Insights = []StateInsight{{Kind: "trend", Label: "x", Weight: ptr(1.01)}} }, nil, "Insights[0].Weight"},
		{"conf negative", func(s *State) { s.Insights = []StateInsight{{Kind: "trend", Label: "x", Conf: ptr(-0.1)}} }, nil, "Insights[0].Conf"},
		{"signal below -1", func(s *State) { s.Insights = []StateInsight{{Kind: "trend", Label: "x", Signal: ptr(-1.5)}} }, nil, "Insights[0].Signal"},
		{"integrity", func(s *State) { s.Decisions.Integrity = "purple" }, nil, "Decisions.Integrity"},
		{"ext key", func(s *State) { s.Optional.Ext = map[string]string{"a b": "1"} }, nil, "Optional.Ext[a b]"},
		{"ext value", func(s *State) { s.Optional.Ext = map[string]string{"a": "x=y"} }, nil, "Optional.Ext[a]"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s := sampleState()
			tc.mutate(&s)
			p, err := Encode(s)
			if p != "" || !errors.Is(err, ErrInvalidPayload) {
				t.Fatalf("Encode emitted %d bytes, err %v", len(p), err)
			}
			if tc.sentinel != nil && !errors.Is(err, tc.sentinel) {
				t.Errorf("err %v does not match %v", err, tc.sentinel)
			}
			var fe *FieldError
			if tc.field == "" {
				var pe *PayloadError
				if !errors.As(err, &pe) || !HasErrors(pe.Diagnostics) {
					t.Errorf("want a *PayloadError from validation, got %v", err)
				}
				return
			}
			if !errors.As(err, &fe) || fe.Field != tc.field || !errors.Is(err, ErrInvalidState) {
				t.Errorf("want *FieldError for %s, got %v", tc.field, err)
			}
		})
	}
}

func TestEncodeReportsEveryFieldError(t *testing.T) {
	s := sampleState()
	s.Mode, s.Cycles, s.Optional.Session = "x", ptr(-1), "raw"
	_, err := Encode(s)
	fields := fieldErrors(err)
	if !slices.Equal(fields, []string{"Mode", "Cycles", "Optional.Session"}) {
		t.Errorf("field errors %v (%v)", fields, err)
	}
}

// fieldErrors walks an error tree and returns the Field of every *FieldError.
func fieldErrors(err error) []string {
	var out []string
	if fe, ok := err.(*FieldError); ok {
		out = append(out, fe.Field)
	}
	switch u := err.(type) {
	case interface{ Unwrap() error }:
		out = append(out, fieldErrors(u.Unwrap())...)
	case interface{ Unwrap() []error }:
		for _, e := range u.Unwrap() {
			out = append(out, fieldErrors(e)...)
		}
	}
	return out
}
