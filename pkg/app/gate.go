package app

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/policystore"
	"github.com/codali-dev/codali/pkg/sandbox"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
)

// Gate is the policy a run is judged under and its hash (which tags the
// run's gate decisions and audit events).
type Gate struct {
	Policy *policy.Policy
	Hash   string
}

// GateFor returns the gate of a run: the configured policy, or, when the
// request names a policy an operator stored for the run
// (options.policy, `codali rao fork --policy`), that one, verified
// against its digest. A stored policy that is missing, altered or invalid
// ends the run (a permanent error wrapping policystore.ErrRefused): it is
// never replaced by the configured one.
func (d *Deps) GateFor(ctx context.Context, runID string, req events.Requested) (Gate, error) {
	ref := req.Options.Policy
	if ref == nil {
		return Gate{Policy: d.Policy, Hash: d.PolicyHash}, nil
	}
	p, err := policystore.Load(ctx, d.JS, runID, *ref)
	if errors.Is(err, policystore.ErrRefused) {
		return Gate{}, worker.Permanent(fmt.Errorf("the run's policy (options.policy) cannot be used: %w", err))
	}
	if err != nil {
		return Gate{}, err
	}
	return Gate{Policy: p, Hash: p.Hash()}, nil
}

// CommandRunner runs argv in ws through the sandbox, with the network
// only when the gate's policy grants it to argv (Deps.RunCommand).
func (d *Deps) CommandRunner(g Gate) func(ctx context.Context, ws *workspace.Workspace, argv []string, timeout time.Duration, outputLimit int) (sandbox.Result, error) {
	return func(ctx context.Context, ws *workspace.Workspace, argv []string, timeout time.Duration, outputLimit int) (sandbox.Result, error) {
		return d.runCommand(ctx, g.Policy, ws, argv, timeout, outputLimit)
	}
}
