package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/rao"
)

// fork starts a new run from the state recorded at a history event: the
// recorded request (or --request), and — when the request is unchanged
// and a plan was recorded by then — that plan, which the new run builds
// instead of planning again. The child's request names its parent and the
// parent's history records the child, so the two are linked both ways.
// With --policy the parent's recorded tool calls up to the event are
// evaluated under that policy first (nothing is executed), and the child
// runs under it: the document is stored for the child in the
// codali-policies bucket (which needs the operator identity) and the
// child's request names it by digest (options.policy). Without --policy
// the child runs under the pipeline's configured policy, even when the
// parent ran under a stored one.
func (e *raoEnv) fork(ctx context.Context, pos []string, request, policyPath, by string) int {
	if len(pos) != 1 {
		e.c.errorf("rao fork: usage: codali rao fork EVENT [--policy FILE] [--request TEXT]")
		return exitUsage
	}
	id := pos[0]
	parent, seq, err := parseEventID(id)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return failCode(err)
	}
	_, evs, err := e.history(ctx, parent)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return failCode(err)
	}
	// A fork starts from what the history says the run did: an altered
	// history is no ground to start from, and nothing is created
	// (no run, no stored policy, no link in the parent's history).
	if err := e.requireVerified(ctx, parent, evs); err != nil {
		e.c.errorf("rao fork: %v", err)
		return exitFailure
	}
	_, _, after, err := eventIn(evs, id, seq)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return failCode(err)
	}
	st, err := audit.DecodeState(parent, after)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return exitFailure
	}
	if st.Request == nil {
		e.c.errorf("rao fork: no request is recorded at %s", id)
		return exitFailure
	}
	req := *st.Request
	req.Options.Fork = &events.ForkOf{Run: parent, Event: id}
	req.Options.Policy = nil
	if strings.TrimSpace(request) != "" {
		req.Request = request
	} else {
		for i := len(st.Attempts) - 1; i >= 0; i-- {
			if p := st.Attempts[i].Plan; p != nil {
				req.Options.Fork.Plan = p
				break
			}
		}
	}
	if err := req.Validate(); err != nil {
		e.c.errorf("rao fork: the recorded request cannot start a run: %v", err)
		return exitFailure
	}
	if policyPath != "" {
		e.simulateState(after, req.Options.Fork.Plan)
	}
	child, err := events.NewRunID(time.Now(), nil)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return exitFailure
	}
	if policyPath != "" {
		doc, err := os.ReadFile(policyPath)
		if err != nil {
			e.c.errorf("rao fork: --policy: %v", err)
			return exitUsage
		}
		digest, err := policystore.Put(ctx, e.cl.js, child, doc)
		if err != nil {
			e.c.errorf("rao fork: --policy: %v", err)
			return failCode(err)
		}
		req.Options.Policy = &events.PolicyRef{Digest: digest}
		fmt.Fprintf(e.c.stderr, "run %s runs under the policy %s (%s)\n", child, digest, abbrev(e.policy.Hash()))
	}
	env, err := events.New(child, events.KindRequested, 1, "codali/cli", time.Now(), req)
	if err != nil {
		e.c.errorf("rao fork: %v", err)
		return exitFailure
	}
	if err := publishRequested(ctx, e.cl, env); err != nil {
		e.c.errorf("rao fork: %v", err)
		return failCode(err)
	}
	now := time.Now().UTC()
	link := audit.ForkLink{Run: child, Event: id, By: orDash(by), TS: now.Format(time.RFC3339)}
	step := audit.Step{
		Cause: "fork." + child, Kind: rao.KindAudit,
		Summary: fmt.Sprintf("forked as run %s from event %s by %s", child, id, orDash(by)),
		Mutate:  func(s *audit.State) { s.Forks = append(s.Forks, link) },
	}
	if err := e.recordWithRetry(ctx, parent, step); err != nil {
		e.c.errorf("rao fork: run %s started, but the link could not be recorded in %s's history: %v", child, parent, err)
		return exitFailure
	}
	what := "re-plans"
	if req.Options.Fork.Plan != nil {
		what = "builds the recorded plan"
	}
	fmt.Fprintf(e.c.stderr, "run %s forked from %s; it %s\n", child, id, what)
	fmt.Fprintln(e.c.stdout, child)
	return exitOK
}

// simulateState prints what e.policy decides for every tool call recorded
// in a state document and for the checks of the plan the fork builds.
func (e *raoEnv) simulateState(doc []byte, plan *events.Plan) {
	var st struct {
		Attempts []struct {
			Attempt   int `json:"attempt"`
			ToolCalls []struct {
				Tool string          `json:"tool"`
				Call json.RawMessage `json:"call"`
			} `json:"tool_calls"`
		} `json:"attempts"`
	}
	if json.Unmarshal(doc, &st) != nil {
		return
	}
	var b strings.Builder
	for _, a := range st.Attempts {
		for _, tc := range a.ToolCalls {
			var call policy.ToolCall
			if json.Unmarshal(tc.Call, &call) != nil || call.Tool == "" {
				continue
			}
			d := e.policy.Evaluate(call)
			verdict := decisionText(d)
			if d.RequiresApproval() {
				verdict += ", would wait for approval"
			}
			fmt.Fprintf(&b, "under %s: attempt %d %s %s: %s\n", abbrev(e.policy.Hash()), a.Attempt, call.Tool, strings.Join(append(call.Paths, call.Command...), " "), verdict)
		}
	}
	if plan != nil {
		for _, v := range plan.Verify {
			d := e.policy.Evaluate(policy.ToolCall{Tool: policy.ToolRunCommand, Command: v.Command})
			fmt.Fprintf(&b, "under %s: check %s (%s): %s\n", abbrev(e.policy.Hash()), v.Name, strings.Join(v.Command, " "), decisionText(d))
		}
	}
	if b.Len() == 0 {
		fmt.Fprintf(&b, "under %s: nothing recorded to simulate\n", abbrev(e.policy.Hash()))
	}
	fmt.Fprint(e.c.stderr, e.redactor.String(b.String()))
}
