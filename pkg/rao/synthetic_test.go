package rao

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"
)

// syntheticRun returns n successive state documents shaped like a coding
// run's: request, context summary, plan steps, attempts with growing
// tool_calls, verdicts and status. Deterministic for a seed.
func syntheticRun(tb testing.TB, n int, seed uint64) [][]byte {
	tb.Helper()
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	files := []string{"main.go", "internal/server/handler.go", "internal/server/handler_test.go", "pkg/store/store.go", "README.md", "go.mod"}
	tools := []string{"read_file", "write_file", "run_tests", "search", "list_dir"}
	steps := make([]any, 0, 6)
	for i := range 6 {
		steps = append(steps, map[string]any{
			"id": fmt.Sprintf("s%d", i+1), "title": fmt.Sprintf("Step %d: change the %s layer and keep the tests green", i+1, []string{"api", "store", "cli", "docs", "tests", "build"}[i]),
			"status": "pending", "files": []any{files[i%len(files)], files[(i+2)%len(files)]},
		})
	}
	state := map[string]any{
		"schema": "codali.run.v1",
		"run_id": "run-7f3a9c",
		"request": map[string]any{
			"text":   "Add pagination to the list endpoint of the task service, keep the response format backwards compatible, add tests for empty and last pages, and update the README with an example request.",
			"repo":   "github.com/example/tasks",
			"branch": "feature/pagination",
			"author": "dev@example.com",
		},
		"context": map[string]any{
			"summary": "Go service with a net/http handler layer, a SQL-backed store and table-driven tests. The list endpoint returns all rows; callers are the web UI and the CLI. No pagination helpers exist yet.",
			"files":   []any{files[0], files[1], files[2], files[3]},
			"tokens":  json.Number("18342"),
		},
		"plan":     map[string]any{"revision": json.Number("1"), "steps": steps},
		"attempts": []any{},
		"verdicts": []any{},
		"status":   "planning",
		"warnings": []any{},
	}
	out := make([][]byte, 0, n)
	emit := func() {
		b, err := CanonicalizeJSON(mustJSON(tb, state))
		if err != nil {
			tb.Fatalf("synthetic state: %v", err)
		}
		out = append(out, b)
	}
	attempt := func() map[string]any {
		as := state["attempts"].([]any)
		return as[len(as)-1].(map[string]any)
	}
	newAttempt := func() {
		as := state["attempts"].([]any)
		state["attempts"] = append(as, map[string]any{
			"n": json.Number(fmt.Sprint(len(as) + 1)), "step": fmt.Sprintf("s%d", len(as)%6+1),
			"started_at": time.Date(2025, 3, 1, 10, len(as), 0, 0, time.UTC).Format(time.RFC3339),
			"tool_calls": []any{}, "status": "running",
		})
		state["status"] = "building"
	}
	for i := 0; len(out) < n; i++ {
		switch r := rng.IntN(100); {
		case len(state["attempts"].([]any)) == 0 || r < 6:
			newAttempt()
		case r < 78:
			a := attempt()
			tool := tools[rng.IntN(len(tools))]
			writes := tool == "write_file"
			var warnings []any
			if rng.IntN(10) == 0 {
				warnings = []any{"path outside plan: " + files[rng.IntN(len(files))]}
			} else {
				warnings = []any{}
			}
			a["tool_calls"] = append(a["tool_calls"].([]any), map[string]any{
				"call":   map[string]any{"tool": tool, "paths": []any{files[rng.IntN(len(files))]}, "writes": writes, "changed_lines": json.Number(fmt.Sprint(rng.IntN(40)))},
				"gate":   map[string]any{"blocked": false, "warnings": warnings},
				"result": map[string]any{"ok": rng.IntN(8) != 0, "duration_ms": json.Number(fmt.Sprint(1 + rng.IntN(900)))},
			})
		case r < 86:
			a := attempt()
			ok := rng.IntN(3) != 0
			a["status"] = map[bool]string{true: "passed", false: "failed"}[ok]
			state["verdicts"] = append(state["verdicts"].([]any), map[string]any{
				"attempt": a["n"], "critic": "critic-v2", "ok": ok,
				"notes": []any{"tests: " + map[bool]string{true: "all green", false: "2 failing in handler_test.go"}[ok]},
			})
		case r < 92:
			s := state["plan"].(map[string]any)["steps"].([]any)[rng.IntN(6)].(map[string]any)
			s["status"] = []string{"pending", "active", "done"}[rng.IntN(3)]
		case r < 96:
			c := state["context"].(map[string]any)
			c["tokens"] = json.Number(fmt.Sprint(18000 + rng.IntN(4000)))
		default:
			state["status"] = []string{"building", "reviewing", "blocked", "building"}[rng.IntN(4)]
			if w := state["warnings"].([]any); len(w) > 2 {
				state["warnings"] = w[1:]
			} else {
				state["warnings"] = append(w, fmt.Sprintf("budget at %d%%", 50+rng.IntN(50)))
			}
		}
		emit()
	}
	return out
}

// mustJSON marshals v or fails the test.
func mustJSON(tb testing.TB, v any) []byte {
	tb.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		tb.Fatalf("marshal: %v", err)
	}
	return b
}

// testTime is the timestamp of the first event of built histories.
var testTime = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// buildHistory turns states into a run's events with the given checkpoint
// interval.
func buildHistory(tb testing.TB, runID string, states [][]byte, every int) []Event {
	tb.Helper()
	c := NewChain(Builder{RunID: runID, CheckpointEvery: every})
	events := make([]Event, 0, len(states))
	for i, st := range states {
		ev, err := c.Next(st, KindRun, fmt.Sprintf("evt-%d", i+1), fmt.Sprintf("step %d", i+1),
			Meta{PolicyHash: "p1", ContractHash: "c1", PMRev: "7"}, testTime.Add(time.Duration(i)*time.Second))
		if err != nil {
			tb.Fatalf("build event %d: %v", i+1, err)
		}
		events = append(events, ev)
	}
	return events
}
