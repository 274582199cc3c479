// Package librarian is phase 1 of the Codali pipeline: it assembles the
// "state of the world" for a run — the repository's files, the windows most
// relevant to the request, and the project's memory and goals — and hands
// it on as the `context` event. It does no reasoning.
package librarian

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/future"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/runcodex"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/codali-dev/codali/pkg/workspace"
)

// maxGoals bounds the project goals copied into a bundle.
const maxGoals = 10

// Component is the librarian as a hostable component.
func Component() app.Component {
	return app.Component{Name: events.ServiceLibrarian, NewHandler: New}
}

// Service is the librarian.
type Service struct {
	d *app.Deps
}

// New returns the librarian's handler.
func New(_ context.Context, d *app.Deps) (worker.Handler, error) {
	return (&Service{d: d}).Handle, nil
}

// Handle turns a `requested` event into a `context` event. A request that
// does not validate, or a repository that cannot be read, ends the run.
func (s *Service) Handle(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	var req events.Requested
	if err := events.DecodeData(in, &req); err != nil {
		return nil, worker.Permanent(err)
	}
	cfg := s.d.Config
	project, err := cfg.Project(req)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	run := events.Run{Request: req, Project: project, MaxRetries: cfg.Limits.MaxRetries}
	if req.Options.MaxRetries != nil {
		run.MaxRetries = *req.Options.MaxRetries
	}
	// Repositories outside workspace.allowedRoots / allowedHosts (paths
	// and URLs alike) are refused before anything is read.
	if err := s.d.Workspaces.CheckRepo(req.Repo); err != nil {
		return nil, worker.Permanent(err)
	}
	gate, err := s.d.GateFor(ctx, in.RunID(), req)
	if err != nil {
		return nil, err
	}
	root := req.Repo.Path
	if req.Repo.URL != "" {
		wsDone := worker.Step(ctx, worker.StepWorkspace)
		ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceLibrarian, req.Repo)
		wsDone()
		if err != nil {
			err = fmt.Errorf("could not fetch repository: %w", err)
			if errors.Is(err, workspace.ErrClone) {
				return nil, err // perhaps the network: retried with backoff
			}
			return nil, worker.Permanent(err)
		}
		defer s.d.CloseWorkspace(ws)
		root = ws.Dir
		// Every later phase works on the commit indexed here, even if the
		// branch moves during the run.
		run.Commit = ws.Commit
	}
	// The project's state and learning record are read while the
	// repository is indexed (the index needs neither).
	rctx, cancelReads := context.WithCancel(ctx)
	defer cancelReads()
	stateRead := future.Go(func() (cognition.CognitionState, error) {
		st, _, err := s.d.PM.Get(rctx, run.Project)
		return st, err
	})
	learningRead := future.Go(func() (pmstate.Learning, error) { return s.d.PM.Learning(rctx, run.Project) })
	indexDone := worker.Step(ctx, worker.StepIndex)
	asm := NewAssembler(s.d)
	asm.Policy, asm.PolicyHash = gate.Policy, gate.Hash
	res, err := asm.Assemble(ctx, Request{RunID: in.RunID(), Attempt: in.Attempt, Req: req, Root: root})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	indexDone()
	bundle := res.Bundle
	if state, err := stateRead.Wait(); err != nil {
		bundle.Warnings = append(bundle.Warnings, fmt.Sprintf("project state unavailable: %v", err))
	} else {
		for _, e := range state.L1Memory.Entries {
			if cat, content, ok := parsePreferenceEntry(e); ok {
				bundle.Profile = append(bundle.Profile, events.ProfileItem{Content: content, Category: cat, Source: events.MemorySourceProject})
				continue
			}
			bundle.Memory = append(bundle.Memory, events.MemoryItem{Text: e, Source: events.MemorySourceProject})
		}
		goals := append([]cognition.GoalNode(nil), state.GoalTree.UserPartition.Children...)
		sort.SliceStable(goals, func(i, j int) bool { return goals[i].Weight > goals[j].Weight })
		for i, g := range goals {
			if i == maxGoals {
				break
			}
			bundle.Goals = append(bundle.Goals, g.Summary)
		}
	}
	// Preferences Docdex did not store (no daemon) live in the project's
	// memory, like the critic's lessons.
	if err := s.keepPreferences(ctx, run.Project, res.Preferences); err != nil {
		bundle.Warnings = append(bundle.Warnings, fmt.Sprintf("could not keep the request's preferences: %v", err))
	}
	addGolden(learningRead, req.Request, bundle) // golden examples: see golden.go
	inline, ref, err := s.d.Artifacts.StoreBundle(ctx, in.RunID(), in.Attempt, bundle, cfg.Events.ArtifactThresholdBytes)
	if err != nil {
		return nil, err
	}
	run.Spend = run.Spend.With(events.ServiceLibrarian, res.Spend)
	data := events.ContextData{Run: run, Bundle: inline, BundleRef: ref, Summary: bundle.Summary(), Tools: res.Tools}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceLibrarian,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Actions: []string{"context"}, PolicyHash: gate.Hash})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	data.Run = run
	out, err := in.Follow(events.KindContext, in.Attempt, events.SourceFor(events.ServiceLibrarian), s.d.Now(), data)
	if err != nil {
		return nil, worker.Permanent(err)
	}
	if data.Bundle != nil && !out.Fits(cfg.Events.MaxEventBytes) {
		// The bundle is small but the event is not: pass the reference only.
		data.Bundle = nil
		if out, err = in.Follow(events.KindContext, in.Attempt, events.SourceFor(events.ServiceLibrarian), s.d.Now(), data); err != nil {
			return nil, worker.Permanent(err)
		}
	}
	return []events.Envelope{out}, nil
}
