package config_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/config"
)

func TestDefaults(t *testing.T) {
	c := config.Default()
	if c.Limits.MaxSteps != 12 || c.Limits.MaxToolCalls != 40 || c.Limits.MaxRetries != 3 || c.Limits.TimeoutMS != 300000 {
		t.Fatalf("limits %+v", c.Limits)
	}
	if c.RAO.CheckpointEvery != 10 || c.RAO.MaxEvents != 200 || c.Events.MaxEventBytes != 1<<20 {
		t.Fatalf("rao/events %+v %+v", c.RAO, c.Events)
	}
}

func TestLoadResolvesPathsAndRoutes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "codali.config.json")
	body := `{
	  "providers": {"ollama-remote": {"type": "ollama", "baseUrl": "http://10.0.0.5:11434"},
	                "demo": {"type": "scripted", "script": "script.json"}},
	  "routing": {"architect": {"provider": "ollama-remote", "model": "llama3:instruct", "temperature": 0.4},
	              "builder": {"provider": "demo", "format": "json"}},
	  "limits": {"maxRetries": 2},
	  "policy": "policy.yaml"
	}`
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.MaxRetries != 2 || c.Limits.MaxSteps != 12 {
		t.Fatalf("limits %+v", c.Limits)
	}
	if c.Policy != filepath.Join(dir, "policy.yaml") || c.Providers["demo"].Script != filepath.Join(dir, "script.json") {
		t.Fatalf("paths not resolved: %q %q", c.Policy, c.Providers["demo"].Script)
	}
	env := map[string]string{"CODALI_PROVIDER": "openai", "CODALI_MODEL": "gpt-x"}
	getenv := func(k string) string { return env[k] }
	cases := []struct {
		phase, name, typ, model string
	}{
		{"architect", "ollama-remote", "ollama", "llama3:instruct"},
		{"builder", "demo", "scripted", ""},
		{"critic", "openai", "openai", "gpt-x"},
	}
	for _, tc := range cases {
		r, err := c.Route(tc.phase, getenv)
		if err != nil {
			t.Fatal(err)
		}
		if r.Name != tc.name || r.Provider.Type != tc.typ || r.Route.Model != tc.model {
			t.Errorf("%s: %+v", tc.phase, r)
		}
	}
	r, err := c.Route("librarian", func(string) string { return "" })
	if err != nil || r.Provider.Type != "scripted" {
		t.Fatalf("fallback route %+v %v", r, err)
	}
	if _, err := c.Route("critic", func(k string) string {
		if k == "CODALI_PROVIDER" {
			return "nope"
		}
		return ""
	}); !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("unknown env provider: %v", err)
	}
}

func TestInvalidConfigReportsEverything(t *testing.T) {
	body := `{
	  "providers": {"x": {"type": "gpt5000"}},
	  "routing": {"archtect": {"provider": "x"}, "builder": {"provider": "missing", "format": "xml"}},
	  "limits": {"maxSteps": -1, "maxRetries": 50},
	  "rao": {"checkpointEvery": 10, "maxEvents": 5},
	  "redact": {"patterns": ["("]},
	  "critic": {"fastPathMaxLines": -3}
	}`
	_, err := config.Parse([]byte(body))
	if !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("err = %v", err)
	}
	for _, want := range []string{"providers.x", "routing.archtect", "routing.builder.provider", "routing.builder.format", "limits.maxSteps", "limits.maxRetries", "rao.maxEvents", "redact.patterns[0]", "critic.fastPathMaxLines"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error does not mention %s:\n%v", want, err)
		}
	}
}

func TestParseRejects(t *testing.T) {
	cases := []struct{ name, body string }{
		{"unknown key", `{"limitz": {}}`},
		{"bad json", `{`},
		{"trailing", `{} {}`},
		{"wrong type", `{"limits": {"maxSteps": "many"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := config.Parse([]byte(tc.body)); !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("err = %v", err)
			}
		})
	}
	if _, err := config.Load(filepath.Join(t.TempDir(), "absent.json")); !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("missing file: %v", err)
	}
}

func TestZeroMeansZeroAndPathsResolve(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c.json")
	if err := os.WriteFile(path, []byte(`{"limits":{"maxRetries":0},"workspace":{"root":"ws"}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := config.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	if c.Limits.MaxRetries != 0 || c.Limits.MaxSteps != 12 {
		t.Fatalf("limits %+v: an explicit 0 must stay 0, absent keys get defaults", c.Limits)
	}
	if c.Workspace.Root != filepath.Join(dir, "ws") {
		t.Fatalf("workspace root %q not resolved against the config file", c.Workspace.Root)
	}
	if _, err := config.Parse([]byte(`{"limits":{"maxSteps":0}}`)); !errors.Is(err, config.ErrInvalid) {
		t.Fatalf("explicit maxSteps 0 accepted: %v", err)
	}
}

func TestRedactPatternMatchingEmptyIsRejected(t *testing.T) {
	if _, err := config.Parse([]byte(`{"redact":{"patterns":["x*"]}}`)); !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), "empty string") {
		t.Fatalf("a pattern matching the empty string must fail validation, not start-up: %v", err)
	}
}

// TestAgentTraceContext: an agent's trace context is followed by default
// ("parent"); "link" is the other choice; anything else is refused.
func TestAgentTraceContext(t *testing.T) {
	if c := config.Default(); c.Tracing.AgentTraceContext != config.TraceContextParent {
		t.Fatalf("default %q", c.Tracing.AgentTraceContext)
	}
	c, err := config.Parse([]byte(`{"tracing": {"agentTraceContext": "link"}}`))
	if err != nil || c.Tracing.AgentTraceContext != config.TraceContextLink {
		t.Fatalf("link: %v %+v", err, c)
	}
	_, err = config.Parse([]byte(`{"tracing": {"agentTraceContext": "trust"}}`))
	if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), `tracing.agentTraceContext "trust" (want "parent" or "link")`) {
		t.Fatalf("err = %v", err)
	}
}
