package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

const contextUsage = `codali context export (RUN | --project P) DIR
  Writes the Cognitive Protocol v0.3 .context/ of a run (or of every run of
  a project) into DIR/.context (or into DIR itself when it is named
  .context), projected from the recorded audit history: the builder's
  history entries, the files they fold into, and goals.json from the
  Cortex goal tree the run's last plan recorded (with --project: the
  project's goal tree now). Exporting a run again later gives the same
  files. The target must not hold any .context files
  yet unless --force is given. The result passes the protocol's shape
  checks, or the command fails.`

// cmdContextExport is `codali context export`.
func cmdContextExport(ctx context.Context, c *cli, args []string) int {
	if len(args) == 0 || args[0] != "export" {
		fmt.Fprintln(c.stderr, contextUsage)
		return exitUsage
	}
	var conn bus.ConnectOptions
	fset := c.newFlags("context export", "context export (RUN | --project P) DIR [--force]")
	conn.Bind(fset, c.getenv)
	project := fset.String("project", "", "export every recorded run of this project")
	force := fset.Bool("force", false, "write over existing .context files in the target")
	pos, code, ok := parse(fset, args[1:])
	if !ok {
		return code
	}
	var runID, dir string
	switch {
	case *project == "" && len(pos) == 2:
		runID, dir = pos[0], pos[1]
		if events.ValidateRunID(runID) != nil {
			c.errorf("context export: %q is not a run id", runID)
			return exitUsage
		}
	case *project != "" && len(pos) == 1:
		dir = pos[0]
	default:
		c.errorf("context export: usage: %s", "codali context export (RUN | --project P) DIR [--force]")
		return exitUsage
	}
	target := dir
	if filepath.Base(filepath.Clean(dir)) != afs.Root {
		target = filepath.Join(dir, afs.Root)
	}
	if !*force {
		if err := emptyTarget(target); err != nil {
			c.errorf("context export: %v", err)
			return exitUsage
		}
	}
	cl, err := c.connect(conn)
	if err != nil {
		c.errorf("context export: %v", err)
		return exitUsage
	}
	defer cl.close()
	store, err := raostore.Open(ctx, cl.js)
	if err != nil {
		c.errorf("context export: %v (is the pipeline provisioned?)", err)
		return exitFailure
	}
	var runs []audit.State
	if runID != "" {
		st, err := recordedRun(ctx, store, runID)
		if err != nil {
			c.errorf("context export: %v", err)
			return exitFailure
		}
		runs = append(runs, st)
	} else if runs, err = projectRuns(ctx, store, *project); err != nil {
		c.errorf("context export: %v", err)
		return exitFailure
	}
	var cog *cognition.CognitionState
	if runID != "" {
		// A run's export is a projection of its own events: the Cortex
		// state its last plan recorded, not the project's state now.
		if cog = recordedCortex(runs[0]); cog == nil {
			fmt.Fprintf(c.stderr, "context export: run %s recorded no Cortex state: goals.json is left out\n", runID)
		}
	} else {
		kv, err := cl.js.KeyValue(ctx, events.BucketPMState)
		if err != nil {
			c.errorf("context export: project state: %v", err)
			return exitFailure
		}
		pm, err := pmstate.New(kv)
		if err != nil {
			c.errorf("context export: project state: %v", err)
			return exitFailure
		}
		st, _, err := pm.Get(ctx, *project)
		if err != nil {
			c.errorf("context export: project state: %v", err)
			return exitFailure
		}
		cog = &st
	}
	files, n := projectRunsContext(runs, cog)
	if err := afs.Write(target, files); err != nil {
		c.errorf("context export: %v", err)
		return exitFailure
	}
	if err := afs.Check(target); err != nil {
		c.errorf("context export: the exported files fail the shape checks: %v", err)
		return exitFailure
	}
	fmt.Fprintf(c.stdout, "exported %d history entries of %d run(s) to %s (v0.3 shape checks passed)\n", n, len(runs), target)
	return exitOK
}

// emptyTarget fails when dir already holds a file (anything an export
// could overwrite or mix with).
func emptyTarget(dir string) error {
	found := ""
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			found = p
			return filepath.SkipAll
		}
		return nil
	})
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if found != "" {
		return fmt.Errorf("%s already holds .context files (%s); choose an empty directory or pass --force", dir, found)
	}
	return nil
}

// recordedCortex is the Cortex state the run's last planned attempt
// recorded, or nil when none did (a run recorded before plans carried it).
func recordedCortex(st audit.State) *cognition.CognitionState {
	var out *cognition.CognitionState
	last := 0
	for _, a := range st.Attempts {
		if a.CortexState != nil && a.Attempt >= last {
			out, last = a.CortexState, a.Attempt
		}
	}
	return out
}

// recordedRun replays a run's audit history to its last state.
func recordedRun(ctx context.Context, store *raostore.Store, runID string) (audit.State, error) {
	evs, _, err := store.Load(ctx, runID)
	if err != nil {
		return audit.State{}, err
	}
	if len(evs) == 0 {
		return audit.State{}, fmt.Errorf("run %s has no history", runID)
	}
	doc, err := rao.Replay(evs, 0)
	if err != nil {
		return audit.State{}, err
	}
	return audit.DecodeState(runID, doc)
}

// projectRuns replays every recorded run of a project.
func projectRuns(ctx context.Context, store *raostore.Store, project string) ([]audit.State, error) {
	ids, err := store.Runs(ctx)
	if err != nil {
		return nil, err
	}
	var out []audit.State
	for _, id := range ids {
		st, err := recordedRun(ctx, store, id)
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", id, err)
		}
		if st.Project == project {
			out = append(out, st)
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no recorded run of project %q", project)
	}
	return out, nil
}

// runEntries collects the history entries of runs' attempts, in time
// order (ties keep run and attempt order).
func runEntries(runs []audit.State) []afs.Entry {
	var entries []afs.Entry
	for _, r := range runs {
		for _, a := range r.Attempts {
			if a.Cognition != nil {
				entries = append(entries, a.Cognition.Entries...)
			}
		}
	}
	sort.SliceStable(entries, func(i, j int) bool {
		ti, _ := afs.ParseTime(entries[i].Timestamp)
		tj, _ := afs.ParseTime(entries[j].Timestamp)
		return ti.Before(tj)
	})
	return entries
}

// projectRunsContext projects runs (and the project's Cortex state, when
// known) into .context files; it returns the files and the entry count.
func projectRunsContext(runs []audit.State, cog *cognition.CognitionState) (afs.Files, int) {
	entries := runEntries(runs)
	in := afs.ProjectInput{Producer: afs.Producer{Name: afs.ProducerName, Version: producerVersion(), InstanceID: "codali-cli"},
		Entries: entries, Cognition: cog}
	files, _ := afs.Project(in)
	return files, len(entries)
}

// producerVersion is the CLI's version as a semver-ish string.
func producerVersion() string {
	if version == "dev" {
		return "0.0.0-dev"
	}
	return version
}
