package codex

import (
	"math/rand/v2"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// expectedState is what decoding Encode(s) must give, derived from s by the
// rules of the format (independently of the encoder's code).
func expectedState(s State) *CognitiveState {
	u := Unknown
	val := func(v string) Value {
		v = strings.Join(strings.Fields(v), "-")
		if v == "" {
			return u
		}
		return Value(v)
	}
	num := func(f *float64) Value {
		if f == nil {
			return u
		}
		return Value(strconv.FormatFloat(*f, 'f', -1, 64))
	}
	list := func(items []string) List[string] {
		if len(items) == 0 {
			return nil
		}
		return List[string](slices.Clone(items))
	}
	st := newCognitiveState()
	st.Version, st.VersionSupported = "1.2", true
	pc := &st.ProjectContext
	pc.ProjectHash, pc.Mode, pc.Phase, pc.Maturity = val(s.ProjectHash), val(strings.ToLower(s.Mode)), val(s.Phase), val(s.Maturity)
	if s.Tasks != nil {
		pc.TaskLoad.Active = Value(strconv.Itoa(s.Tasks.Active))
		if s.Tasks.Total != nil {
			pc.TaskLoad.Total = Value(strconv.Itoa(*s.Tasks.Total))
		}
	}
	pc.CogHealth = num(s.CogHealth)
	if len(s.KPIs) > 0 {
		kpis := slices.Clone(s.KPIs)
		sort.Slice(kpis, func(i, j int) bool { return kpis[i].Name+"=" < kpis[j].Name+"=" })
		for _, k := range kpis {
			pc.KPIs = append(pc.KPIs, KPI{Name: k.Name, Value: val(k.Value)})
		}
	}
	pc.Constraints, pc.SuccessCriteria = list(s.Context.Constraints), list(s.Context.Success)
	pc.ProjectType = val(s.Context.Type)

	tc := &st.TemporalContext
	if s.Cycles != nil {
		tc.Cycles = Value(strconv.Itoa(*s.Cycles))
	}
	tc.Actions, tc.Bursts, tc.Droughts = list(s.Actions), list(s.Bursts), list(s.Droughts)
	tc.Hotspots, tc.Anomalies = list(s.Hotspots), list(s.Anomalies)

	dp := &st.DeveloperProfile
	dp.DevDNA, dp.ReasoningStyle, dp.RiskProfile = val(s.Context.DevDNA), val(s.Context.Reasoning), val(s.Context.Risk)
	dp.StackDescriptors = list(s.Context.Stack)

	if len(s.Insights) > 0 {
		cs := &st.CognitiveSignals
		cs.Patterns, cs.Trends, cs.Forecasts, cs.Correlations = List[Insight]{}, List[Insight]{}, List[Insight]{}, List[Insight]{}
		for _, in := range s.Insights {
			ins := Insight{Kind: InsightKind(strings.ToLower(in.Kind)), Label: in.Label, Weight: num(in.Weight), Conf: num(in.Conf), Signal: num(in.Signal)}
			if in.Signal != nil && *in.Signal >= 0 {
				ins.Signal = "+" + ins.Signal
			}
			dst := map[InsightKind]*List[Insight]{KindPattern: &cs.Patterns, KindTrend: &cs.Trends, KindForecast: &cs.Forecasts, KindCorrelation: &cs.Correlations}[ins.Kind]
			*dst = append(*dst, ins)
		}
	}
	dc := &st.DecisionContext
	if len(s.Decisions.ADRs) > 0 {
		dc.ADRRefs = list(s.Decisions.ADRs)
		slices.Sort(dc.ADRRefs)
	}
	dc.DriftSignals, dc.Anomalies, dc.Adjustments = list(s.Decisions.Drift), list(s.Decisions.Anomaly), list(s.Decisions.Adjust)
	if in := Integrity(strings.ToUpper(string(s.Decisions.Integrity))); in != "" {
		dc.Integrity = in
	}
	om := &st.OptionalMetadata
	om.Vendor, om.Encoder, om.Policy, om.Session = val(s.Optional.Vendor), val(s.Optional.Encoder), val(s.Optional.Policy), val(s.Optional.Session)
	for k, v := range s.Optional.Ext {
		om.Extensions["ext."+k] = v
	}
	blocks := []struct {
		name  string
		empty bool
	}{
		{BlockData, pc.ProjectHash == u && pc.Mode == u && pc.Phase == u && pc.Maturity == u && s.Tasks == nil && pc.CogHealth == u && pc.KPIs == nil},
		{BlockTimeline, s.Cycles == nil && tc.Actions == nil && tc.Bursts == nil && tc.Droughts == nil && tc.Hotspots == nil && tc.Anomalies == nil},
		{BlockContext, reflect.DeepEqual(s.Context, StateContext{})},
		{BlockInsights, len(s.Insights) == 0},
		{BlockDecisions, dc.ADRRefs == nil && dc.DriftSignals == nil && dc.Anomalies == nil && dc.Adjustments == nil && dc.Integrity == IntegrityUnknown},
	}
	for _, b := range blocks {
		if b.empty {
			st.Unavailable = append(st.Unavailable, b.name)
		}
	}
	return st
}

// roundTrip encodes s, decodes it and compares with expectedState.
func roundTrip(t *testing.T, s State) {
	t.Helper()
	p, err := Encode(s)
	if err != nil {
		t.Fatalf("Encode: %v\nstate %+v", err, s)
	}
	st, diags := mustDecode(t, p)
	for _, d := range diags {
		if d.Code != CodeBlockEmpty && d.Code != CodeTimelineMissingCycles {
			t.Errorf("unexpected diagnostic %s\n%s", d, p)
		}
	}
	if !isOwnChecksum(string(st.OptionalMetadata.Checksum)) {
		t.Errorf("checksum %q", st.OptionalMetadata.Checksum)
	}
	st.OptionalMetadata.Checksum = Unknown
	if want := expectedState(s); !reflect.DeepEqual(st, want) {
		t.Errorf("round trip mismatch\npayload:\n%s\ngot  %#v\nwant %#v", p, *st, *want)
	}
	for _, ins := range append(append(slices.Clone(st.CognitiveSignals.Patterns), st.CognitiveSignals.Trends...), st.CognitiveSignals.Correlations...) {
		for _, v := range []Value{ins.Weight, ins.Conf, ins.Signal} {
			if _, ok := v.Float(); !v.IsUnknown() && !ok {
				t.Errorf("insight number %q does not parse", v)
			}
		}
	}
}

func TestRoundTripTable(t *testing.T) {
	tests := []struct {
		name  string
		state State
	}{
		{"sample", sampleState()},
		{"empty", State{}},
		{"data only", State{ProjectHash: HashID("proj", "repo"), Tasks: &StateTasks{Active: 0, Total: ptr(0)}}},
		{"timeline without cycles", State{Hotspots: []string{HashID("mod", "a"), HashID("mod", "b"), HashID("api", "c")}}},
		{"single-token blocks use the comma fallback", State{
			Actions: []string{"edit", "test"}, Context: StateContext{Stack: []string{"go", "ts"}},
			Decisions: StateDecisions{Adjust: []string{"z", "a", "m"}}}},
		{"insights of every kind", State{Insights: []StateInsight{
			{Kind: "correlation", Label: "c", Signal: ptr(-0.25), Weight: ptr(1.0), Conf: ptr(0.0)},
			{Kind: "Pattern", Label: "p"}, {Kind: "forecast", Label: "f", Conf: ptr(0.333333333333)},
			{Kind: "trend", Label: "t", Weight: ptr(0.1 + 0.2)}}}},
		{"integrity only", State{Decisions: StateDecisions{Integrity: "amber"}}},
		{"extensions", State{Optional: StateOptional{Encoder: "codali@0.1.0", Policy: "p1", Ext: map[string]string{"run": "r-1", "empty": ""}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			roundTrip(t, tc.state)
		})
	}
}

// TestRoundTripProperty encodes and decodes generated States (fixed seed).
func TestRoundTripProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(20240611, 7))
	for i := 0; i < 400; i++ {
		s := genState(rng)
		t.Run(strconv.Itoa(i), func(t *testing.T) { roundTrip(t, s) })
		if t.Failed() {
			break
		}
	}
}

const atomAlphabet = "abcdefghijklmnopqrstuvwxyz0123456789-_"

func genAtom(r *rand.Rand) string {
	n := 1 + r.IntN(10)
	b := make([]byte, n)
	for i := range b {
		b[i] = atomAlphabet[r.IntN(len(atomAlphabet))]
	}
	s := string(b)
	switch r.IntN(8) {
	case 0:
		s += "/" + genAtom(r)[:1]
	case 1:
		s = strings.ToUpper(s[:1]) + s[1:]
	}
	if strings.Trim(s, "-") == "" {
		s = "x" + s
	}
	return s
}

func genList(r *rand.Rand) []string {
	var out []string
	for n := r.IntN(4); n > 0; n-- {
		out = append(out, genAtom(r))
	}
	return out
}

func genIDs(r *rand.Rand, ns string) []string {
	var out []string
	for n := r.IntN(4); n > 0; n-- {
		out = append(out, HashID(ns, genAtom(r)))
	}
	return out
}

func maybe[T any](r *rand.Rand, v T) *T {
	if r.IntN(2) == 0 {
		return nil
	}
	return &v
}

func maybeAtom(r *rand.Rand) string {
	if r.IntN(3) == 0 {
		return ""
	}
	return genAtom(r)
}

func genState(r *rand.Rand) State {
	s := State{
		Mode: []string{"", "strict", "Normal", "flexible", "exploratory"}[r.IntN(5)], Phase: maybeAtom(r), Maturity: maybeAtom(r),
		CogHealth: maybe(r, r.Float64()), Cycles: maybe(r, r.IntN(1000)),
		Actions: genList(r), Bursts: genList(r), Droughts: genList(r), Anomalies: genList(r), Hotspots: genIDs(r, "mod"),
		Context: StateContext{Type: maybeAtom(r), Stack: genList(r), DevDNA: maybeAtom(r), Constraints: genList(r),
			Success: genList(r), Reasoning: maybeAtom(r), Risk: maybeAtom(r)},
		Decisions: StateDecisions{ADRs: genIDs(r, "adr"), Drift: genList(r), Anomaly: genList(r), Adjust: genList(r),
			Integrity: []Integrity{"", "GREEN", "amber", "Red", IntegrityUnknown}[r.IntN(5)]},
		Optional: StateOptional{Vendor: maybeAtom(r), Encoder: maybeAtom(r), Policy: maybeAtom(r)},
	}
	if r.IntN(4) > 0 {
		s.ProjectHash = HashID("proj", genAtom(r))
	}
	if r.IntN(2) == 0 {
		s.Optional.Session = HashID("sess", genAtom(r))
	}
	if r.IntN(2) == 0 {
		s.Tasks = &StateTasks{Active: r.IntN(50), Total: maybe(r, r.IntN(50))}
	}
	for n, seen := r.IntN(4), map[string]bool{}; n > 0; n-- {
		name := genAtom(r)
		if strings.Contains(name, "/") || seen[name] {
			continue
		}
		seen[name] = true
		s.KPIs = append(s.KPIs, StateKPI{Name: name, Value: genAtom(r)})
	}
	for n := r.IntN(5); n > 0; n-- {
		in := StateInsight{Kind: []string{"pattern", "trend", "forecast", "correlation"}[r.IntN(4)], Label: genAtom(r),
			Weight: maybe(r, r.Float64()), Conf: maybe(r, float64(r.IntN(101))/100)}
		if r.IntN(3) == 0 {
			in.Signal = ptr(2*r.Float64() - 1)
		}
		s.Insights = append(s.Insights, in)
	}
	if r.IntN(2) == 0 {
		s.Optional.Ext = map[string]string{}
		for n := 1 + r.IntN(3); n > 0; n-- {
			s.Optional.Ext[strings.ReplaceAll(genAtom(r), "/", "")] = maybeAtom(r)
		}
	}
	return s
}
