package changegate_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/changegate"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/codali-dev/codali/pkg/redact"
)

func change(lines int, files ...events.FileChange) events.Change {
	return events.Change{Files: files, Added: lines}
}

func TestCheck(t *testing.T) {
	p := policy.Default()
	p.NeverTouch = append(p.NeverTouch, "secrets/**")
	p.MaxChangedLines = 50
	tests := []struct {
		name     string
		ch       events.Change
		reasons  []string // prefixes that must be among the violations
		warnings []string // prefixes that must be among the warnings
	}{
		{"clean", change(3, events.FileChange{Path: "a.go", Op: "modify"}), nil, nil},
		{"never_touch written by a command", change(1, events.FileChange{Path: "secrets/token", Op: "add"}), []string{"never_touch: secrets/token"}, nil},
		{".GIT spelling", change(1, events.FileChange{Path: ".GIT/config", Op: "modify"}), []string{"never_touch: .GIT/config", "git metadata"}, nil},
		{"workflow", change(1, events.FileChange{Path: ".github/workflows/ci.yml", Op: "add"}), nil, []string{"requires approval: write to .github/workflows/ci.yml"}},
		{"go.mod", change(1, events.FileChange{Path: "go.mod", Op: "modify"}), nil, []string{"requires approval: write to go.mod"}},
		{"5000 lines", change(5000, events.FileChange{Path: "big.txt", Op: "add"}), []string{"max changed lines exceeded: 5000 > 50"}, nil},
		{"delete", change(0, events.FileChange{Path: "a.go", Op: "delete"}), []string{"destructive operation: delete_file"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs := changegate.Check(p, "h", nil, tt.ch)
			v, w := changegate.Violations(recs), changegate.Warnings(recs)
			if len(v) == 0 != (len(tt.reasons) == 0) {
				t.Fatalf("violations %q, want %q", v, tt.reasons)
			}
			for _, want := range tt.reasons {
				if !slices.ContainsFunc(v, func(r string) bool { return strings.HasPrefix(r, want) }) {
					t.Errorf("violations %q lack %q", v, want)
				}
			}
			for _, want := range tt.warnings {
				if !slices.ContainsFunc(w, func(r string) bool { return strings.HasPrefix(r, want) }) {
					t.Errorf("warnings %q lack %q", w, want)
				}
			}
			for _, rec := range recs {
				var call policy.ToolCall
				if rec.Tool != changegate.Tool || rec.Gate.Stage != events.GateStageChange || rec.Gate.PolicyHash != "h" ||
					json.Unmarshal(rec.Call, &call) != nil || rec.Result.OK == rec.Gate.Blocked {
					t.Errorf("record %+v", rec)
				}
				// The recorded call re-evaluates to the recorded decision.
				if d := p.Evaluate(call); d.Blocked != rec.Gate.Blocked {
					t.Errorf("recorded call re-evaluates to %+v, recorded %+v", d, rec.Gate)
				}
			}
		})
	}
}

func TestCheckRedactsReasons(t *testing.T) {
	p := &policy.Policy{NeverTouch: []string{"**/*"}}
	secret := "ghp_" + strings.Repeat("a", 36)
	recs := changegate.Check(p, "", &redact.Redactor{}, change(1, events.FileChange{Path: "x/" + secret, Op: "add"}))
	b, _ := json.Marshal(recs)
	if strings.Contains(string(b), secret) {
		t.Fatalf("secret in records: %s", b)
	}
}
