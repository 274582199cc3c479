package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/events"
)

// The bundled spinning example: a model repeating a failing call ends its
// attempt early with reason spinning, and the run fails with that reason.
func TestSpinningExampleEndsEarly(t *testing.T) {
	cfg, err := filepath.Abs("../../examples/spinning/codali.config.json")
	if err != nil {
		t.Fatal(err)
	}
	p := startUp(t, cfg)
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--max-retries", "0", "--wait", "--json", "--timeout", "5m", "Fix the greeting")
	if code != exitFailure {
		t.Fatalf("submit exited %d, want 1\nstdout:\n%s\nstderr:\n%s", code, out, errOut)
	}
	env, v := decodeTerminal(t, out)
	if k, _ := env.Kind(); k != events.KindFailed || !strings.Contains(v.Reason, "the builder stopped early (spinning)") ||
		!strings.Contains(v.Reason, "read_file:config.go repeated 5 times") {
		t.Fatalf("terminal %s: %s", env.Type, v.Reason)
	}
	if len(v.Checks) != 0 {
		t.Errorf("checks ran on a spinning attempt: %+v", v.Checks)
	}
	joined := strings.Join(v.Warnings, "\n")
	if !strings.Contains(joined, "help-seeking: the builder had 5 consecutive failed tool calls") {
		t.Errorf("verdict warnings %v", v.Warnings)
	}
	// The run's exported analysis triggers hold what it raised.
	p.recorded(t, "failed")
	dir := t.TempDir()
	if code, out, errOut := p.run(t, "context", "export", env.RunID(), dir); code != exitOK {
		t.Fatalf("context export: %d %s %s", code, out, errOut)
	}
	got, err := afs.ReadDir(filepath.Join(dir, afs.Root))
	if err != nil || got.Triggers == nil {
		t.Fatalf("exported triggers: %v %+v", err, got.Triggers)
	}
	pending := map[string]bool{}
	for _, tr := range got.Triggers.Pending() {
		pending[tr.Kind] = true
	}
	for _, k := range []string{afs.TriggerSpinning, afs.TriggerHelpSeeking, afs.TriggerRepeatedFailure} {
		if !pending[k] {
			t.Errorf("no pending %s trigger: %+v", k, got.Triggers.Triggers)
		}
	}
}
