package policy

import (
	"encoding/json"
	"reflect"
	"testing"
)

func TestSimulate(t *testing.T) {
	p := testPolicy(t)
	tests := []struct {
		name            string
		recorded        Recorded
		wantSimulated   Decision
		wantDiff        DecisionDiff
		wantUnavailable string
	}{
		{
			name: "identical gives empty diff",
			recorded: Recorded{
				Call:     ToolCall{Tool: ToolEditFile, Paths: []string{"go.mod"}},
				Decision: Decision{Warnings: []string{"requires approval: write to go.mod"}},
			},
			wantSimulated: Decision{Warnings: []string{"requires approval: write to go.mod"}},
		},
		{
			name: "warning added",
			recorded: Recorded{
				Call: ToolCall{Tool: ToolEditFile, Paths: []string{"go.mod"}},
			},
			wantSimulated: Decision{Warnings: []string{"requires approval: write to go.mod"}},
			wantDiff:      DecisionDiff{WarningsAdded: []string{"requires approval: write to go.mod"}},
		},
		{
			name: "warning removed",
			recorded: Recorded{
				Call:     ToolCall{Tool: ToolEditFile, Paths: []string{"main.go"}},
				Decision: Decision{Warnings: []string{"requires approval: write to main.go", "old"}},
			},
			wantDiff: DecisionDiff{WarningsRemoved: []string{"old", "requires approval: write to main.go"}},
		},
		{
			name: "now blocked",
			recorded: Recorded{
				Call: ToolCall{Tool: ToolReadFile, Paths: []string{"secrets/key"}},
			},
			wantSimulated: Decision{Blocked: true, Reasons: []string{"never_touch: secrets/key matches secrets/**"}},
			wantDiff:      DecisionDiff{BlockedFlipped: true, ReasonsAdded: []string{"never_touch: secrets/key matches secrets/**"}},
		},
		{
			name: "now allowed",
			recorded: Recorded{
				Call:     ToolCall{Tool: ToolRunCommand, Command: []string{"go", "vet", "./..."}},
				Decision: Decision{Blocked: true, Reasons: []string{"command not allowed: go vet ./..."}},
			},
			wantDiff: DecisionDiff{BlockedFlipped: true, ReasonsRemoved: []string{"command not allowed: go vet ./..."}},
		},
		{
			name: "still blocked for another reason",
			recorded: Recorded{
				Call:     ToolCall{Tool: ToolReadFile, Paths: []string{"/etc/passwd"}},
				Decision: Decision{Blocked: true, Reasons: []string{"outdated reason"}},
			},
			wantSimulated: Decision{Blocked: true, Reasons: []string{"path escapes workspace: /etc/passwd"}},
			wantDiff: DecisionDiff{
				ReasonsAdded:   []string{"path escapes workspace: /etc/passwd"},
				ReasonsRemoved: []string{"outdated reason"},
			},
		},
		{
			name: "recorded order and duplicates do not count as a change",
			recorded: Recorded{
				Call: ToolCall{Tool: ToolDeleteFile, Paths: []string{"go.mod"}},
				Decision: Decision{
					Blocked:  true,
					Reasons:  []string{"destructive operation: delete_file", "destructive operation: delete_file"},
					Warnings: []string{"requires approval: delete of go.mod"},
				},
			},
			wantSimulated: Decision{
				Blocked:  true,
				Reasons:  []string{"destructive operation: delete_file"},
				Warnings: []string{"requires approval: delete of go.mod"},
			},
		},
		{
			name: "missing tool call is unavailable",
			recorded: Recorded{
				Call:     ToolCall{Paths: []string{"a"}},
				Decision: Decision{Blocked: true, Reasons: []string{"x"}},
			},
			wantUnavailable: UnavailableMissingToolCall,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Simulate(p, []Recorded{tt.recorded})
			if len(got) != 1 {
				t.Fatalf("Simulate returned %d results, want 1", len(got))
			}
			s := got[0]
			if !reflect.DeepEqual(s.Recorded, tt.recorded.Decision) {
				t.Errorf("Recorded = %+v, want %+v", s.Recorded, tt.recorded.Decision)
			}
			if !reflect.DeepEqual(s.Simulated, tt.wantSimulated) {
				t.Errorf("Simulated = %+v, want %+v", s.Simulated, tt.wantSimulated)
			}
			if !reflect.DeepEqual(s.Diff, tt.wantDiff) {
				t.Errorf("Diff = %+v, want %+v", s.Diff, tt.wantDiff)
			}
			if s.Diff.Empty() != reflect.DeepEqual(tt.wantDiff, DecisionDiff{}) {
				t.Errorf("Diff.Empty() = %v for %+v", s.Diff.Empty(), s.Diff)
			}
			if s.Unavailable != tt.wantUnavailable {
				t.Errorf("Unavailable = %q, want %q", s.Unavailable, tt.wantUnavailable)
			}
		})
	}
}

func TestSimulateDeterministicAndPure(t *testing.T) {
	p := testPolicy(t)
	recorded := []Recorded{
		{Call: ToolCall{Tool: ToolWriteFile, Paths: []string{"b", "go.mod", ".github/x"}}, Decision: Decision{Warnings: []string{"z", "a"}}},
		{Call: ToolCall{Tool: ToolRunCommand, Command: []string{"sh", "-c", "rm -rf build"}}},
		{Call: ToolCall{Tool: ToolDeleteFile, Paths: []string{".git/x", "/y"}, TotalChangedLines: 1000}},
		{},
	}
	before, err := json.Marshal(recorded)
	if err != nil {
		t.Fatal(err)
	}
	hash := p.Hash()
	first, err := json.Marshal(Simulate(p, recorded))
	if err != nil {
		t.Fatal(err)
	}
	for range 20 {
		again, err := json.Marshal(Simulate(p, recorded))
		if err != nil {
			t.Fatal(err)
		}
		if string(again) != string(first) {
			t.Fatalf("Simulate is not deterministic:\n%s\n%s", first, again)
		}
	}
	after, err := json.Marshal(recorded)
	if err != nil {
		t.Fatal(err)
	}
	if string(before) != string(after) || p.Hash() != hash {
		t.Errorf("Simulate modified its inputs")
	}
	sims := Simulate(p, recorded)
	sims[0].Recorded.Warnings[0] = "changed"
	if recorded[0].Decision.Warnings[0] != "z" {
		t.Errorf("Simulation shares the recorded slices with the input")
	}
}

func TestSimulateNilPolicyAndEmptyInput(t *testing.T) {
	if got := Simulate(testPolicy(t), nil); len(got) != 0 {
		t.Errorf("Simulate(nil input) = %v, want empty", got)
	}
	got := Simulate(nil, []Recorded{{Call: ToolCall{Tool: ToolReadFile, Paths: []string{"a"}}}})
	want := DecisionDiff{BlockedFlipped: true, ReasonsAdded: []string{ReasonNoPolicy}}
	if !reflect.DeepEqual(got[0].Diff, want) {
		t.Errorf("nil policy diff = %+v, want %+v", got[0].Diff, want)
	}
}

func TestSimulationJSONKeys(t *testing.T) {
	s := Simulation{
		Recorded:  Decision{Blocked: true},
		Simulated: Decision{Warnings: []string{"w"}},
		Diff:      DecisionDiff{WarningsAdded: []string{"w"}, BlockedFlipped: true},
	}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"recorded":{"blocked":true},"simulated":{"blocked":false,"warnings":["w"]},"diff":{"warnings_added":["w"],"blocked_flipped":true}}`
	if string(b) != want {
		t.Errorf("JSON = %s\nwant %s", b, want)
	}
}
