// Package librarian is phase 1 of the Codali pipeline: it assembles the
// "state of the world" for a run — the repository's files, the windows most
// relevant to the request, and the project's memory and goals — and hands
// it on as the `context` event. It does no reasoning.
package librarian

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"

	"github.com/codali-dev/codali/pkg/app"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/index"
	"github.com/codali-dev/codali/pkg/policy"
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
	run := events.Run{Request: req, Project: ProjectID(req), MaxRetries: cfg.Limits.MaxRetries}
	if req.Options.MaxRetries != nil {
		run.MaxRetries = *req.Options.MaxRetries
	}
	root := req.Repo.Path
	if root != "" {
		if err := s.d.Workspaces.CheckPath(root); err != nil {
			return nil, worker.Permanent(err)
		}
	}
	if req.Repo.URL != "" {
		ws, err := s.d.Workspaces.Prepare(ctx, in.RunID(), in.Attempt, events.ServiceLibrarian, req.Repo)
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
		run.Request.Repo.Ref = ws.Commit
	}
	idx, err := index.Scan(root, index.Limits{MaxFiles: cfg.Librarian.MaxFiles, MaxFileBytes: cfg.Librarian.MaxFileBytes,
		// Files the policy protects never reach a bundle.
		Exclude: func(rel string) bool {
			return s.d.Policy.Evaluate(policy.ToolCall{Tool: policy.ToolReadFile, Paths: []string{rel}}).Blocked
		}})
	if err != nil {
		return nil, worker.Permanent(err)
	}
	bundle := s.bundle(req, idx)
	if state, _, err := s.d.PM.Get(ctx, run.Project); err != nil {
		bundle.Warnings = append(bundle.Warnings, fmt.Sprintf("project state unavailable: %v", err))
	} else {
		bundle.Memory = append(bundle.Memory, state.L1Memory.Entries...)
		goals := append([]cognition.GoalNode(nil), state.GoalTree.UserPartition.Children...)
		sort.SliceStable(goals, func(i, j int) bool { return goals[i].Weight > goals[j].Weight })
		for i, g := range goals {
			if i == maxGoals {
				break
			}
			bundle.Goals = append(bundle.Goals, g.Summary)
		}
	}
	s.addGolden(ctx, run.Project, req.Request, bundle) // golden examples: see golden.go
	inline, ref, err := s.d.Artifacts.StoreBundle(ctx, in.RunID(), in.Attempt, bundle, cfg.Events.ArtifactThresholdBytes)
	if err != nil {
		return nil, err
	}
	data := events.ContextData{
		Run: run, Bundle: inline, BundleRef: ref,
		Summary: fmt.Sprintf("%d files indexed, %d snippets, %d memory entries", bundle.Index.NumFiles, len(bundle.Snippets), len(bundle.Memory)),
	}
	run.Codex, err = runcodex.Encode(runcodex.Facts{RunID: in.RunID(), Project: run.Project, Phase: events.ServiceLibrarian,
		Attempt: in.Attempt, MaxRetries: run.MaxRetries, Actions: []string{"context"}, PolicyHash: s.d.PolicyHash})
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

func (s *Service) bundle(req events.Requested, idx *index.Index) *events.ContextBundle {
	cfg := s.d.Config.Librarian
	terms := index.Terms(req.Request, 8)
	b := &events.ContextBundle{
		Queries: terms,
		Index: events.IndexStats{NumFiles: len(idx.Files), NumBytes: idx.Bytes, Truncated: idx.Truncated,
			LastUpdateMS: s.d.Now().UnixMilli()},
	}
	for _, f := range idx.Files {
		b.Files = append(b.Files, events.FileInfo{Path: f.Path, Bytes: f.Size})
	}
	for _, h := range idx.Search(terms, cfg.MaxSnippets, cfg.SnippetLines) {
		b.Snippets = append(b.Snippets, events.Snippet{Path: h.Path, LineStart: h.LineStart, LineEnd: h.LineEnd,
			Content: s.d.Redactor.String(h.Content)})
	}
	if idx.Truncated {
		b.Warnings = append(b.Warnings, fmt.Sprintf("file list truncated at %d files", cfg.MaxFiles))
	}
	if idx.Skipped > 0 {
		b.Warnings = append(b.Warnings, fmt.Sprintf("%d binary or oversize files not read", idx.Skipped))
	}
	if len(b.Snippets) == 0 {
		b.Warnings = append(b.Warnings, "no file matched the request's terms")
	}
	return b
}

// ProjectID is the run's project: the request's option, or "repo-" and a
// hash of the repository reference, so runs on one repository share state.
func ProjectID(req events.Requested) string {
	if req.Options.Project != "" {
		return req.Options.Project
	}
	sum := sha256.Sum256([]byte(req.Repo.String()))
	return "repo-" + hex.EncodeToString(sum[:8])
}
