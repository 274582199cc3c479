package policy

import "testing"

func BenchmarkEvaluate(b *testing.B) {
	p := Default()
	p.NeverTouch = append(p.NeverTouch, "**/*.pem", "secrets/**", "**/.env")
	calls := []struct {
		name string
		call ToolCall
	}{
		{name: "read", call: ToolCall{Tool: ToolReadFile, Paths: []string{"pkg/policy/evaluate.go"}}},
		{name: "write_approval", call: ToolCall{Tool: ToolEditFile, Paths: []string{"services/builder/go.mod"}, ChangedLines: 3, TotalChangedLines: 40}},
		{name: "run_command", call: ToolCall{Tool: ToolRunCommand, Command: []string{"go", "test", "-race", "./pkg/..."}}},
		{name: "blocked_shell", call: ToolCall{Tool: ToolRunCommand, Command: []string{"sh", "-c", "go test ./... && rm -rf /"}}},
	}
	for _, c := range calls {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				p.Evaluate(c.call)
			}
		})
	}
}

func BenchmarkMatchGlob(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		matchGlob("**/secrets/**/*.pem", "a/b/c/secrets/d/e/key.pem")
	}
}
