package main

import (
	"bufio"
	"bytes"
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/pmstate"
	"github.com/codali-dev/codali/pkg/rao/raostore"
	"github.com/nats-io/nats.go/jetstream"
)

// checkContextExport exports a finished run's .context/ from its audit
// history and checks it: the protocol's shape checks (every history line
// validated), the builder's tool calls logged as start/end pairs with
// durations, its thoughts as thought_trace, and a second export into the
// same place refused.
func checkContextExport(t *testing.T, p *pipeline, runID string) {
	t.Helper()
	dir := t.TempDir()
	code, out, errOut := p.run(t, "context", "export", runID, dir)
	if code != exitOK || !strings.Contains(out, "shape checks passed") {
		t.Fatalf("context export: %d %s %s", code, out, errOut)
	}
	ctxDir := filepath.Join(dir, afs.Root)
	if err := afs.Check(ctxDir); err != nil {
		t.Fatalf("exported .context: %v", err)
	}
	names, _ := filepath.Glob(filepath.Join(ctxDir, "history", "*.jsonl"))
	lines := 0
	for _, n := range names {
		f, err := os.Open(n)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines++
			if err := afs.ValidateLine(sc.Bytes()); err != nil {
				t.Errorf("%s: %v", filepath.Base(n), err)
			}
		}
		_ = f.Close()
	}
	got, err := afs.ReadDir(ctxDir)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, e := range got.History {
		if e.Operation.Type == afs.OpToolCall && !strings.HasSuffix(e.Operation.Name, afs.StartSuffix) {
			kinds["end"]++
			if e.Operation.DurationMS == nil {
				t.Errorf("tool result %s without duration", e.ID)
			}
		} else {
			kinds[e.Operation.Type]++
		}
	}
	if lines == 0 || lines != len(got.History) || kinds["end"] != 4 || kinds[afs.OpCognitiveState] != 4 || kinds[afs.OpThoughtTrace] == 0 {
		t.Errorf("exported history: %d lines, kinds %v (want 4 tool calls)", lines, kinds)
	}
	if got.Goals == nil || got.Metacognition == nil || got.Emotions == nil || got.Epistemic == nil || got.State == nil {
		t.Errorf("exported files missing: %+v", got)
	}
	if code, _, errOut := p.run(t, "context", "export", runID, dir); code != exitUsage || !strings.Contains(errOut, "already holds") {
		t.Errorf("second export into the same place: %d %s", code, errOut)
	}
}

// checkPromotion promotes a finished run's learnings to a configured user
// scope: refused without a reason or an unconfigured scope; with both, the
// approval is an override event of the run's (still verifiable) history
// and every promoted entry carries it.
func checkPromotion(t *testing.T, p *pipeline, runID string) {
	t.Helper()
	dir := t.TempDir()
	user := filepath.Join(dir, "user-context")
	cfg := filepath.Join(dir, "codali.config.json")
	if err := os.WriteFile(cfg, []byte(`{"context":{"userDir":"user-context"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, errOut := p.run(t, "rao", "override", "promote", runID, "--config", cfg, "--to", "user"); code != exitUsage || !strings.Contains(errOut, "usage") {
		t.Errorf("promote without a reason: %d %s", code, errOut)
	}
	if code, _, errOut := p.run(t, "rao", "override", "promote", runID, "--config", cfg, "--to", "global", "--reason", "r"); code != exitUsage || !strings.Contains(errOut, "not configured") {
		t.Errorf("promote to an unconfigured scope: %d %s", code, errOut)
	}
	code, out, errOut := p.run(t, "rao", "override", "promote", runID, "--config", cfg, "--to", "user", "--reason", "greeting lessons are general", "--by", "alice")
	if code != exitOK || !strings.Contains(out, "promoted") {
		t.Fatalf("promote: %d %s %s", code, out, errOut)
	}
	got, err := afs.ReadDir(user)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Hivemind) == 0 {
		t.Fatal("nothing promoted")
	}
	for name, raw := range got.Hivemind {
		if !strings.Contains(string(raw), `"by": "alice"`) || !strings.Contains(string(raw), "override.promote."+runID) {
			t.Errorf("%s lacks the approval:\n%s", name, raw)
		}
	}
	code, out, _ = p.run(t, "rao", "replay", runID)
	if code != exitOK || !strings.Contains(out, "override") || !strings.Contains(out, "promoted to the user scope by alice") {
		t.Errorf("the approval is not in the history:\n%s", out)
	}
	if code, out, _ := p.run(t, "rao", "verify", runID); code != exitOK || !strings.Contains(out, "ok") {
		t.Errorf("rao verify after the override: %d %s", code, out)
	}
}

// checkExportStable shows a run's export is a projection of its own
// events: after another run of the same project changed the goal tree,
// exporting the first run again gives the same bytes, while --project
// exports the project's goal tree as it is now.
func checkExportStable(t *testing.T, p *pipeline, runID, repo string) {
	t.Helper()
	export := func(args ...string) map[string][]byte {
		t.Helper()
		dir := t.TempDir()
		if code, out, errOut := p.run(t, append(append([]string{"context", "export"}, args...), dir)...); code != exitOK {
			t.Fatalf("context export %v: %d %s %s", args, code, out, errOut)
		}
		files := map[string][]byte{}
		root := filepath.Join(dir, afs.Root)
		err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			rel, _ := filepath.Rel(root, path)
			files[rel], err = os.ReadFile(path)
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return files
	}
	before := export(runID)
	if _, ok := before[filepath.FromSlash(afs.PathGoals)]; !ok {
		t.Fatalf("the run's export has no goals.json: %v", keys(before))
	}
	// Another run of the same project: its plan sprouts its own goal.
	code, out, errOut := p.run(t, "submit", "--repo", repo, "--wait", "--json", "--max-retries", "0", "--timeout", "5m", "--fast", "Make greet.go greet politely")
	env, _ := decodeTerminal(t, out)
	if k, _ := env.Kind(); k != events.KindPassed && k != events.KindFailed {
		t.Fatalf("second run: %d %s %s", code, out, errOut)
	}
	after := export(runID)
	if !reflect.DeepEqual(keys(after), keys(before)) {
		t.Fatalf("files %v, then %v", keys(before), keys(after))
	}
	for name, b := range before {
		if !bytes.Equal(after[name], b) {
			t.Errorf("%s changed after another run:\n%s\nthen\n%s", name, b, after[name])
		}
	}
	// The run's goals.json is the goal tree its plan left (with the run's
	// own goal); --project exports the tree now (that goal pruned on pass).
	goal, goals := pmstate.RunGoalID(runID), filepath.FromSlash(afs.PathGoals)
	project := export("--project", config.DerivedProject(events.RepoRef{Path: repo}))
	if !strings.Contains(string(before[goals]), goal) || strings.Contains(string(project[goals]), goal) {
		t.Errorf("run goals.json:\n%s\n--project goals.json:\n%s", before[goals], project[goals])
	}
}

func keys(m map[string][]byte) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// checkHistoryLines validates every Cognitive Protocol history line of
// every run recorded on the pipeline at url (afs.ValidateLine). A pipeline
// a test has already taken down is only logged.
func checkHistoryLines(t *testing.T, url string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	nc, err := bus.Connect(bus.ConnectOptions{URL: url, Name: "history-lines"})
	if err != nil {
		t.Logf("history lines not checked: %v", err)
		return
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Logf("history lines not checked: %v", err)
		return
	}
	store, err := raostore.Open(ctx, js)
	if err != nil {
		t.Logf("history lines not checked: %v", err)
		return
	}
	ids, err := store.Runs(ctx)
	if err != nil {
		t.Logf("history lines not checked: %v", err)
		return
	}
	for _, id := range ids {
		st, err := recordedRun(ctx, store, id)
		if err != nil {
			t.Logf("run %s: history lines not checked: %v", id, err)
			continue
		}
		for _, a := range st.Attempts {
			if a.Cognition == nil {
				continue
			}
			for _, e := range a.Cognition.Entries {
				line, err := e.MarshalLine()
				if err == nil {
					err = afs.ValidateLine(line)
				}
				if err != nil {
					t.Errorf("run %s attempt %d: history line %s: %v", id, a.Attempt, e.ID, err)
				}
			}
		}
	}
}
