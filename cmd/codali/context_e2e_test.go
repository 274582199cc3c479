package main

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/afs"
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
