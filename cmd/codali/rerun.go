package main

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/rao"
)

// Rerun outcomes.
const (
	rerunIdentical = "identical"
	rerunDrift     = "drift"
	rerunVerdict   = "different-verdict"
)

// rerunResult is the outcome of `codali rao rerun`.
type rerunResult struct {
	RunID   string `json:"run_id"`
	RerunID string `json:"rerun_id"`
	Result  string `json:"result"`
	// Requests is how many model requests the rerun made; Recorded how
	// many the recorded run made.
	Requests int `json:"requests"`
	Recorded int `json:"recorded"`
	// Drift describes the first request that differs.
	Drift           *rerunDriftView `json:"drift,omitempty"`
	RecordedVerdict *audit.Verdict  `json:"recorded_verdict"`
	Verdict         *audit.Verdict  `json:"verdict"`
}

// rerunDriftView is the first differing request.
type rerunDriftView struct {
	Phase    string `json:"phase"`
	Attempt  int    `json:"attempt"`
	Step     int    `json:"step"`
	Field    string `json:"field"`
	Recorded string `json:"recorded"`
	Now      string `json:"now"`
}

// rerunOptions are the knobs of a rerun.
type rerunOptions struct {
	timeout time.Duration
	// policy, when set, is the policy file the rerun's gate enforces.
	policy string
	// wrapProvider wraps the replay provider (tests change prompts with it).
	wrapProvider func(llm.Provider) llm.Provider
}

func (e *raoEnv) rerun(ctx context.Context, pos []string, o rerunOptions) int {
	if len(pos) != 1 {
		e.c.errorf("rao rerun: usage: codali rao rerun RUN [--policy FILE] [--timeout D] [--json]")
		return exitUsage
	}
	if o.timeout <= 0 {
		e.c.errorf("rao rerun: --timeout must be positive")
		return exitUsage
	}
	runID, evs, err := e.history(ctx, pos[0])
	if err != nil {
		e.c.errorf("rao rerun: %v", err)
		return failCode(err)
	}
	// A rerun compares with the recording: one that was altered is no
	// reference.
	if err := e.requireVerified(ctx, runID, evs); err != nil {
		e.c.errorf("rao rerun: %v", err)
		return exitFailure
	}
	st, err := stateOf(runID, evs)
	if err != nil {
		e.c.errorf("rao rerun: %v", err)
		return exitFailure
	}
	if st.Request == nil || !st.Terminal() || st.Verdict == nil {
		e.c.errorf("rao rerun: run %s has not ended with a verdict (status %s): only finished runs can be rerun", runID, st.Status)
		return exitUsage
	}
	refs := exchangeRefs(st)
	if len(refs) == 0 {
		e.c.errorf("rao rerun: run %s has no recorded model exchanges", runID)
		return exitFailure
	}
	store, err := artifacts.Open(ctx, e.cl.js)
	if err != nil {
		e.c.errorf("rao rerun: %v", err)
		return exitFailure
	}
	recs, err := exchange.Load(ctx, store, refs)
	if artifacts.IsLost(err) {
		// Permanent: the run's recording is incomplete for good.
		e.c.errorf("rao rerun: run %s cannot be rerun: a recorded model exchange is gone from the artifact store (expired, purged or deleted): %v", runID, err)
		return exitFailure
	}
	if err != nil {
		e.c.errorf("rao rerun: run %s: %v", runID, err)
		return exitFailure
	}
	seeds, err := projectStateAt(ctx, e.cl.js, st.Project, evs)
	if err != nil {
		e.c.errorf("rao rerun: run %s: %v", runID, err)
		return exitFailure
	}
	for _, seed := range seeds {
		if seed.note != "" {
			fmt.Fprintf(e.c.stderr, "codali: rao rerun: warning: %s\n", seed.note)
		}
	}
	cfg := *e.cfg
	req := *st.Request
	var runPolicy []byte
	switch {
	case o.policy != "":
		// The rerun's pipeline runs under --policy, the run too.
		cfg.Policy, req.Options.Policy = o.policy, nil
	case req.Options.Policy != nil:
		// The run ran under a policy stored for it: the rerun does too.
		if runPolicy, err = policystore.Get(ctx, e.cl.js, runID, *req.Options.Policy); err != nil {
			e.c.errorf("rao rerun: run %s: %v", runID, err)
			return failCode(err)
		}
	}
	if !e.asJSON {
		fmt.Fprintf(e.c.stderr, "rerunning %s on a private pipeline: %d recorded model exchanges\n", runID, len(recs))
	}
	got, err := replayPipeline(ctx, &cfg, e.c.getenv, e.c.stderr, req, runPolicy, recs, st.Approvals, seeds, o.timeout, o.wrapProvider)
	if err != nil {
		e.c.errorf("rao rerun: %v", err)
		return exitFailure
	}
	res := compareRerun(runID, st, recs, got)
	if e.asJSON {
		if code := e.printJSON(res); code != exitOK {
			return code
		}
	} else {
		fmt.Fprint(e.c.stdout, e.redactor.String(res.text()))
	}
	if res.Result != rerunIdentical {
		return exitFailure
	}
	return exitOK
}

// stateOf is the state after a run's last recorded event.
func stateOf(runID string, evs []rao.Event) (audit.State, error) {
	states, err := rao.States(evs)
	if err != nil {
		return audit.State{}, err
	}
	st, err := audit.DecodeState(runID, states[len(states)-1].Doc)
	if err != nil {
		return audit.State{}, fmt.Errorf("run %s: could not decode its state: %w", runID, err)
	}
	return st, nil
}

// exchangeRefs lists a run's recorded model exchanges in call order.
func exchangeRefs(st audit.State) []events.ExchangeRef {
	var refs []events.ExchangeRef
	for _, a := range st.Attempts {
		for _, c := range a.ModelCalls {
			refs = append(refs, c.ExchangeRef)
		}
	}
	return refs
}

// compareRerun compares the rerun with the recorded run: the same model
// requests in the same order and the same verdict are identical; the first
// request that was not recorded is drift.
func compareRerun(runID string, recorded audit.State, recs []exchange.Record, got replayRun) rerunResult {
	now := exchangeRefs(got.state)
	res := rerunResult{RunID: runID, RerunID: got.runID, Requests: len(now), Recorded: len(recs),
		RecordedVerdict: recorded.Verdict, Verdict: got.state.Verdict}
	if drifts := got.replayer.Drifts(); len(drifts) > 0 {
		d := drifts[0]
		res.Result = rerunDrift
		res.Drift = &rerunDriftView{Phase: d.Phase, Attempt: d.Attempt, Step: d.Step, Field: d.Field, Recorded: d.Recorded, Now: d.Got}
		return res
	}
	for i := 0; i < len(now) || i < len(recs); i++ {
		switch {
		case i >= len(now):
			r := recs[i]
			res.Result = rerunDrift
			res.Drift = &rerunDriftView{Phase: r.Phase, Attempt: r.Attempt, Step: r.Step, Field: "request",
				Recorded: fmt.Sprintf("request %.12s", r.Hash), Now: "(not asked)"}
			return res
		case i >= len(recs) || now[i].Hash != recs[i].Hash:
			res.Result = rerunDrift
			res.Drift = &rerunDriftView{Phase: "", Field: "request order",
				Recorded: fmt.Sprintf("request %d of %d", i+1, len(recs)), Now: fmt.Sprintf("request %.12s", now[i].Hash)}
			if i < len(recs) {
				res.Drift.Phase, res.Drift.Attempt, res.Drift.Step = recs[i].Phase, recs[i].Attempt, recs[i].Step
			}
			return res
		}
	}
	if !sameVerdict(recorded.Verdict, got.state.Verdict) {
		res.Result = rerunVerdict
		return res
	}
	res.Result = rerunIdentical
	return res
}

func sameVerdict(a, b *audit.Verdict) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Status == b.Status && a.Phase == b.Phase && a.Attempts == b.Attempts && a.Integrity == b.Integrity
}

func verdictText(v *audit.Verdict) string {
	if v == nil {
		return "none"
	}
	return fmt.Sprintf("%s (%s, attempt %d, integrity %s)", v.Status, v.Phase, v.Attempts, v.Integrity)
}

func (r rerunResult) text() string {
	var b strings.Builder
	switch r.Result {
	case rerunIdentical:
		fmt.Fprintf(&b, "identical: run %s reran as %s: the same %d model requests, answered from the recording; verdict %s\n",
			r.RunID, r.RerunID, r.Requests, verdictText(r.Verdict))
	case rerunDrift:
		d := r.Drift
		fmt.Fprintf(&b, "drift: run %s reran as %s: ", r.RunID, r.RerunID)
		if d.Phase != "" {
			fmt.Fprintf(&b, "%s attempt %d step %d: ", d.Phase, d.Attempt, d.Step)
		}
		fmt.Fprintf(&b, "a model request was not recorded; first difference: %s\n  recorded: %q\n  now:      %q\n", d.Field, d.Recorded, d.Now)
		fmt.Fprintf(&b, "verdict: recorded %s, rerun %s\n", verdictText(r.RecordedVerdict), verdictText(r.Verdict))
	default:
		fmt.Fprintf(&b, "different verdict: run %s reran as %s with the same %d model requests: recorded %s, rerun %s\n",
			r.RunID, r.RerunID, r.Requests, verdictText(r.RecordedVerdict), verdictText(r.Verdict))
		if r.Verdict != nil && r.Verdict.Reason != "" {
			fmt.Fprintf(&b, "  rerun reason: %s\n", r.Verdict.Reason)
		}
	}
	return b.String()
}
