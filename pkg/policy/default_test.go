package policy

import (
	"errors"
	"testing"
)

func TestDefault(t *testing.T) {
	p := Default()
	if err := p.Validate(); err != nil {
		t.Fatalf("Default is invalid: %v", err)
	}
	tests := []struct {
		name        string
		call        ToolCall
		wantBlocked bool
		wantWarned  bool
	}{
		{name: "read source", call: ToolCall{Tool: ToolReadFile, Paths: []string{"main.go"}}},
		{name: "git internals", call: ToolCall{Tool: ToolReadFile, Paths: []string{".git/config"}}, wantBlocked: true},
		{name: "RAO history", call: ToolCall{Tool: ToolWriteFile, Paths: []string{".context/history/2025-01-01.jsonl"}}, wantBlocked: true},
		{name: "context state is not history", call: ToolCall{Tool: ToolWriteFile, Paths: []string{".context/state.json"}}},
		{name: "go test", call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "test", "./..."}}},
		{name: "go vet", call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "vet", "./..."}}},
		{name: "go build", call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "build", "./..."}}},
		{name: "gofmt", call: ToolCall{Tool: ToolRunCommand, Command: []string{"gofmt", "-l", "."}}},
		{name: "go run", call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "run", "."}}, wantBlocked: true},
		{name: "delete", call: ToolCall{Tool: ToolDeleteFile, Paths: []string{"a.go"}}, wantBlocked: true},
		{name: "go.mod write", call: ToolCall{Tool: ToolEditFile, Paths: []string{"go.mod"}}, wantWarned: true},
		{name: "within line limit", call: ToolCall{Tool: ToolEditFile, Paths: []string{"a.go"}, TotalChangedLines: 2000}},
		{name: "over line limit", call: ToolCall{Tool: ToolEditFile, Paths: []string{"a.go"}, TotalChangedLines: 2001}, wantBlocked: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := p.Evaluate(tt.call)
			if d.Blocked != tt.wantBlocked || (len(d.Warnings) > 0) != tt.wantWarned {
				t.Errorf("Evaluate = %+v, want blocked %v warned %v", d, tt.wantBlocked, tt.wantWarned)
			}
		})
	}
}

func TestDefaultReturnsIndependentCopies(t *testing.T) {
	a, b := Default(), Default()
	a.NeverTouch[0] = "changed"
	a.Commands.Allow[0][0] = "changed"
	if b.NeverTouch[0] == "changed" || b.Commands.Allow[0][0] == "changed" {
		t.Errorf("Default shares slices between calls")
	}
}

func TestFieldError(t *testing.T) {
	cause := errors.New("boom")
	err := error(&FieldError{Field: "never_touch[0]", Err: cause})
	if err.Error() != "never_touch[0]: boom" {
		t.Errorf("Error() = %q", err.Error())
	}
	if !errors.Is(err, ErrInvalidPolicy) || !errors.Is(err, cause) {
		t.Errorf("FieldError does not unwrap to both ErrInvalidPolicy and its cause")
	}
}
