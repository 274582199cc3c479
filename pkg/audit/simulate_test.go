package audit_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

// strictPolicy is today's policy in the tests below: it never touches PEM
// files, which the recorded (default) policy allowed.
func strictPolicy(t *testing.T) *policy.Policy {
	t.Helper()
	p, err := policy.Parse([]byte(`{"never_touch": [".git/**", "**/*.pem"], "commands": {"allow": [["go", "test"]]}, "destructive": "block"}`), policy.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// simulateRun is the `codali rao replay --simulate` path: load the
// history, rebuild the state after every event, simulate each event.
func simulateRun(t *testing.T, store *raostore.Store, run string, p *policy.Policy) ([]rao.Event, []audit.Simulated) {
	t.Helper()
	h := load(t, store, run)
	states, err := rao.States(h)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]audit.Simulated, len(h))
	for i, e := range h {
		out[i] = audit.Simulate(p, e, states[i].Doc)
	}
	return h, out
}

// recordRun records the whole example run.
func recordRun(t *testing.T, store *raostore.Store, run string, every int) {
	t.Helper()
	rec := newRecorder(t, store, every, 0)
	for _, s := range allSteps(t, runEvents(t, run, policy.Default())) {
		record(t, rec, run, s)
	}
}

// streamStates returns every stream's message count and last sequence.
func streamStates(t *testing.T, srv server) map[string][2]uint64 {
	t.Helper()
	out := map[string][2]uint64{}
	names := srv.js.StreamNames(testCtx(t))
	for n := range names.Name() {
		s, err := srv.js.Stream(testCtx(t), n)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(testCtx(t))
		if err != nil {
			t.Fatal(err)
		}
		out[n] = [2]uint64{info.State.Msgs, info.State.LastSeq}
	}
	if names.Err() != nil {
		t.Fatal(names.Err())
	}
	return out
}

// TestSimulateIsPure: simulating a recorded run appends nothing to the RAO
// stream and changes no bucket (codali-pm, codali-runs).
func TestSimulateIsPure(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	recordRun(t, store, "pure", 3)
	// Give the buckets content, as a live system has.
	kv, err := srv.js.KeyValue(testCtx(t), events.BucketPMState)
	if err != nil {
		t.Fatal(err)
	}
	pm, err := pmstate.New(kv)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pm.Update(testCtx(t), "hello", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
		return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp("lesson")}, nil
	}); err != nil {
		t.Fatal(err)
	}
	runs, err := audit.OpenRuns(testCtx(t), srv.js)
	if err != nil {
		t.Fatal(err)
	}
	if err := runs.Put(testCtx(t), audit.Summary{RunID: "pure", Status: audit.StatusPassed}); err != nil {
		t.Fatal(err)
	}
	_, pmRev, _ := pm.Get(testCtx(t), "hello")
	before := streamStates(t, srv)
	raoSeq := lastSeq(t, store)
	for _, p := range []*policy.Policy{policy.Default(), strictPolicy(t), nil} {
		h, sims := simulateRun(t, store, "pure", p)
		if len(sims) != len(h) {
			t.Fatalf("%d simulations for %d events", len(sims), len(h))
		}
	}
	if got := lastSeq(t, store); got != raoSeq {
		t.Errorf("RAO stream last sequence moved from %d to %d", raoSeq, got)
	}
	after := streamStates(t, srv)
	for _, name := range []string{"RAO", "KV_" + events.BucketPMState, "KV_" + events.BucketRuns, "OBJ_" + events.BucketArtifacts, events.StreamWork} {
		if _, ok := before[name]; !ok {
			t.Errorf("stream %s not found", name)
		}
	}
	for name, st := range before {
		if after[name] != st {
			t.Errorf("stream %s changed from %v to %v (messages, last sequence)", name, st, after[name])
		}
	}
	if _, rev, _ := pm.Get(testCtx(t), "hello"); rev != pmRev {
		t.Errorf("codali-pm revision moved from %d to %d", pmRev, rev)
	}
}

func TestSimulateRecordedRun(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	recordRun(t, store, "sim", 4)
	cases := []struct {
		name string
		pol  *policy.Policy
		// changed lists the causes whose simulation differs.
		changed map[string]bool
		flipped map[string]bool
	}{
		{"same policy: nothing changes", policy.Default(), nil, nil},
		{"stricter policy blocks the PEM write", strictPolicy(t),
			map[string]bool{"sim.built.1#tool2": true},
			map[string]bool{"sim.built.1#tool2": true}},
		{"laxer policy allows the blocked command", func() *policy.Policy {
			p, err := policy.Parse([]byte(`{"never_touch": [".git/**"], "commands": {"allow": [["go", "test"], ["curl"]]}}`), policy.FormatJSON)
			if err != nil {
				t.Fatal(err)
			}
			return p
		}(), map[string]bool{"sim.built.2#tool3": true}, map[string]bool{"sim.built.2#tool3": true}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h, sims := simulateRun(t, store, "sim", tc.pol)
			audits := 0
			for i, e := range h {
				s := sims[i]
				if s.PolicyHash != tc.pol.Hash() || s.Evaluator != policy.EvaluatorVersion {
					t.Errorf("%s: simulated by %q %q", e.Cause, s.PolicyHash, s.Evaluator)
				}
				if e.Kind != rao.KindAudit {
					if s.Available || s.Reason != "missing tool calls: this run event records no gated tool call" || s.Changed {
						t.Errorf("%s: run event simulated %+v", e.Cause, s)
					}
					continue
				}
				audits++
				if !s.Available || len(s.Calls) != 1 {
					t.Errorf("%s: audit event not simulated: %+v", e.Cause, s)
					continue
				}
				c := s.Calls[0]
				if !strings.HasPrefix(c.Path, "/attempts/") || !strings.Contains(c.Path, "/tool_calls/") || c.Tool == "" {
					t.Errorf("%s: call %+v", e.Cause, c)
				}
				if s.Changed != tc.changed[e.Cause] || c.Diff.BlockedFlipped != tc.flipped[e.Cause] {
					t.Errorf("%s: changed %v flipped %v, want %v %v (%+v)", e.Cause, s.Changed, c.Diff.BlockedFlipped,
						tc.changed[e.Cause], tc.flipped[e.Cause], c.Diff)
				}
				if tc.flipped[e.Cause] && c.Recorded.Blocked == c.Simulated.Blocked {
					t.Errorf("%s: flip %+v", e.Cause, c.Simulation)
				}
			}
			if audits != 5 {
				t.Errorf("%d audit events, want 5 (one per tool call)", audits)
			}
		})
	}
}

func TestSimulateIsDeterministic(t *testing.T) {
	srv := startServer(t)
	cases := []struct {
		name string
		pol  func() *policy.Policy
	}{
		{"default policy", policy.Default},
		{"strict policy", func() *policy.Policy { return strictPolicy(t) }},
	}
	recordRun(t, srv.store(t), "det", 2)
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var outs []string
			for range 3 { // fresh connection, fresh policy value each time
				_, sims := simulateRun(t, srv.store(t), "det", tc.pol())
				raw, err := json.Marshal(sims)
				if err != nil {
					t.Fatal(err)
				}
				outs = append(outs, string(raw))
			}
			if outs[0] != outs[1] || outs[1] != outs[2] {
				t.Errorf("simulation differs between runs:\n%s\n%s", outs[0], outs[1])
			}
		})
	}
}

func TestSimulateUnavailable(t *testing.T) {
	call := json.RawMessage(`{"tool":"write_file","paths":["a.pem"],"writes":true}`)
	state := func(calls ...json.RawMessage) []byte {
		var tc []map[string]any
		for _, c := range calls {
			tc = append(tc, map[string]any{"tool": "write_file", "call": c, "gate": map[string]any{"blocked": false}})
		}
		raw, _ := json.Marshal(map[string]any{"attempts": []any{map[string]any{"attempt": 1, "tool_calls": tc}}})
		return raw
	}
	add := func(path string) rao.Patch { return rao.Patch{{Op: "add", Path: path, Value: json.RawMessage(`{}`)}} }
	cases := []struct {
		name      string
		ev        rao.Event
		state     []byte
		available bool
		reason    string
	}{
		{"run event", rao.Event{Kind: rao.KindRun, Delta: add("/phase")}, state(call), false, "missing tool calls: this run event records no gated tool call"},
		{"override event", rao.Event{Kind: rao.KindOverride, Delta: add("/overrides/0")}, state(call), false, "missing tool calls: this override event records no gated tool call"},
		{"audit note without a call", rao.Event{Kind: rao.KindAudit, Delta: add("/notes/0")}, state(call), false, "missing tool calls: this audit event records no gated tool call"},
		{"audit checkpoint without a call delta", rao.Event{Kind: rao.KindAudit, Checkpoint: true}, state(call), false, "missing targets: checkpoint without a tool-call delta"},
		{"removal is not a call", rao.Event{Kind: rao.KindAudit, Delta: rao.Patch{{Op: "remove", Path: "/attempts/0/tool_calls/0"}}}, state(call), false, "missing tool calls"},
		{"unreadable state", rao.Event{Kind: rao.KindAudit, Delta: add("/attempts/0/tool_calls/0")}, []byte("{"), false, "missing metadata: state is unreadable"},
		{"call not in the state", rao.Event{Kind: rao.KindAudit, Delta: add("/attempts/0/tool_calls/3")}, state(call), false, "missing targets: /attempts/0/tool_calls/3 is not in the replayed state"},
		{"attempt not in the state", rao.Event{Kind: rao.KindAudit, Delta: add("/attempts/2/tool_calls/0")}, state(call), false, "missing targets: /attempts/2/tool_calls/0"},
		{"call without gate input", rao.Event{Kind: rao.KindAudit, Delta: add("/attempts/0/tool_calls/0")}, state(json.RawMessage(`{"paths":["a"]}`)), false, "missing tool calls: /attempts/0/tool_calls/0 has no gate input"},
		{"call that is not an object", rao.Event{Kind: rao.KindAudit, Delta: add("/attempts/0/tool_calls/0")}, state(json.RawMessage(`"x"`)), false, "has no gate input"},
		{"replaced call is simulated", rao.Event{Kind: rao.KindAudit, Delta: rao.Patch{{Op: "replace", Path: "/attempts/0/tool_calls/0", Value: json.RawMessage(`{}`)}}}, state(call), true, ""},
		{"several calls in one event, in path order", rao.Event{Kind: rao.KindAudit, Delta: append(add("/attempts/0/tool_calls/1"), add("/attempts/0/tool_calls/0")...)}, state(call, call), true, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			s := audit.Simulate(strictPolicy(t), tc.ev, tc.state)
			if s.Available != tc.available || !strings.Contains(s.Reason, tc.reason) || tc.reason == "" && s.Reason != "" {
				t.Fatalf("available %v reason %q, want %v %q", s.Available, s.Reason, tc.available, tc.reason)
			}
			if !s.Available {
				if len(s.Calls) != 0 && tc.reason != "" || s.Changed {
					t.Errorf("unavailable simulation carries results: %+v", s)
				}
				return
			}
			for i, c := range s.Calls {
				if c.Tool != "write_file" || !c.Simulated.Blocked || !c.Diff.BlockedFlipped {
					t.Errorf("call %d %+v", i, c)
				}
				if i > 0 && s.Calls[i-1].Path >= c.Path {
					t.Errorf("calls not in path order: %s then %s", s.Calls[i-1].Path, c.Path)
				}
			}
			if !s.Changed {
				t.Error("flip not reported as Changed")
			}
		})
	}
}

// TestSimulateCallThatCreatedItsAttempt: when the first tool call of an
// attempt is recorded before the attempt's plan (the recorder got the
// built event first, or the plan was never recorded), the tool call's
// delta adds the whole attempt. The audit event still records a gated
// tool call and should be simulated.
func TestSimulateCallThatCreatedItsAttempt(t *testing.T) {
	srv := startServer(t)
	store := srv.store(t)
	rec := newRecorder(t, store, 10, 0)
	evs := runEvents(t, "early", policy.Default())
	for _, e := range []events.Envelope{evs[0], evs[3]} { // requested, then built without its plan
		steps, err := audit.Fold(e)
		if err != nil {
			t.Fatal(err)
		}
		record(t, rec, "early", steps)
	}
	h, sims := simulateRun(t, store, "early", strictPolicy(t))
	for i, e := range h {
		if e.Kind == rao.KindAudit && !sims[i].Available {
			t.Fatalf("audit event %s (%s) records a gated tool call but simulation is unavailable: %q", e.ID, e.Summary, sims[i].Reason)
		}
	}
}

func TestSimulateSkipsCallsRefusedBeforeTheGate(t *testing.T) {
	state := []byte(`{"attempts":[{"attempt":1,"tool_calls":[
	  {"tool":"edit_file","call":{"tool":"edit_file"},"gate":{"stage":"arguments","blocked":false}},
	  {"tool":"read_file","call":{"tool":"read_file","paths":["/etc/passwd"]},"gate":{"stage":"workspace","blocked":true,"reasons":["path escapes"]}}]}]}`)
	ev := rao.Event{Kind: rao.KindAudit, Delta: rao.Patch{{Op: "add", Path: "/attempts/0/tool_calls/0", Value: json.RawMessage(`{}`)}}}
	s := audit.Simulate(strictPolicy(t), ev, state)
	if s.Available || !strings.Contains(s.Reason, "refused before the policy gate: arguments") || s.Changed {
		t.Fatalf("argument error simulated as a policy decision: %+v", s)
	}
	ev.Delta = rao.Patch{{Op: "add", Path: "/attempts/0/tool_calls/1", Value: json.RawMessage(`{}`)}}
	if s := audit.Simulate(strictPolicy(t), ev, state); s.Available || !strings.Contains(s.Reason, "workspace") {
		t.Fatalf("workspace refusal simulated as a policy decision: %+v", s)
	}
}
