package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/syncbuf"
)

// specSample is the routing sample of the cognitive architecture spec
// (§7), with its providers declared.
const specSample = `{
  "providers": {"ollama-remote": {"type": "ollama", "baseUrl": "http://gpu-box:11434"}},
  "routing": {
    "librarian": { "provider": "ollama-remote", "model": "gemma2:2b", "temperature": 0.1 },
    "architect": { "provider": "ollama-remote", "model": "llama3:instruct", "temperature": 0.4 },
    "builder": { "provider": "ollama-remote", "model": "deepseek-coder:6.7b", "temperature": 0.2, "format": "json" },
    "critic": { "provider": "ollama-remote", "model": "llama3:instruct", "temperature": 0.1 }
  },
  "limits": { "maxSteps": 12, "maxToolCalls": 40, "maxRetries": 3, "timeoutMs": 300000 }
}`

func writeConfig(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "codali.config.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

func runEnv(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	out, errOut := &syncbuf.Buffer{}, &syncbuf.Buffer{}
	c := &cli{stdin: strings.NewReader(""), stdout: out, stderr: errOut, getenv: func(k string) string { return env[k] }}
	return c.main(context.Background(), args), out.String(), errOut.String()
}

func TestConfigValidate(t *testing.T) {
	cases := []struct {
		name string
		body string
		env  map[string]string
		code int
		want []string
	}{
		{"the spec's sample with its providers declared", specSample, nil, exitOK, []string{"valid"}},
		{"the spec's sample without its providers", strings.Replace(specSample, `"providers": {"ollama-remote": {"type": "ollama", "baseUrl": "http://gpu-box:11434"}},`, "", 1), nil, exitFailure,
			[]string{"4 problem(s)", `routing.librarian.provider "ollama-remote" is neither`, `routing.critic.provider "ollama-remote"`}},
		{"every problem at once", `{"providers": {"lan": {"type": "openai", "baseUrl": "ftp://x"}},
		  "routing": {"architect": {"provider": "nowhere", "model": "m"}, "builder": {"provider": "lan", "model": "m", "format": "xml", "temperature": 3}},
		  "limits": {"maxSteps": 0}}`, nil, exitFailure,
			[]string{`routing.architect.provider "nowhere"`, `routing.builder.format "xml"`, "routing.builder.temperature 3", "baseUrl", "limits.maxSteps 0"}},
		{"a route without a model and an unset API key", `{"providers": {"cloud": {"type": "openai", "apiKeyEnv": "CLOUD_KEY"}},
		  "routing": {"architect": {"provider": "cloud"}, "builder": {"provider": "ollama", "model": "qwen2.5-coder:7b", "format": "gbnf"}}}`, nil, exitFailure,
			[]string{"2 problem(s)", "routing.architect: provider \"cloud\" needs a model", "CLOUD_KEY"}},
		{"roles fall back to CODALI_PROVIDER and CODALI_MODEL", `{"providers": {"lan": {"type": "ollama"}}}`,
			map[string]string{"CODALI_PROVIDER": "lan", "CODALI_MODEL": "llama3"}, exitOK, []string{"valid"}},
		{"fallback to an undeclared provider", `{}`, map[string]string{"CODALI_PROVIDER": "gpu"}, exitFailure,
			[]string{`routing.architect: invalid configuration: provider "gpu" for phase architect is not configured`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runEnv(t, tc.env, "config", "validate", writeConfig(t, tc.body))
			if code != tc.code {
				t.Fatalf("exit %d, want %d\n%s%s", code, tc.code, out, errOut)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
		})
	}
	if code, _, errOut := runEnv(t, nil, "config", "validate", filepath.Join(t.TempDir(), "none.json")); code != exitUsage || !strings.Contains(errOut, "no such file") {
		t.Errorf("missing file: %d %s", code, errOut)
	}
	if code, _, _ := runEnv(t, nil, "config"); code != exitUsage {
		t.Errorf("no subcommand: %d", code)
	}
	if code, out, _ := runEnv(t, map[string]string{"CODALI_CONFIG": writeConfig(t, specSample)}, "config", "validate"); code != exitOK || !strings.Contains(out, "valid") {
		t.Errorf("CODALI_CONFIG: %d %s", code, out)
	}
}

// TestREADMEConfigsValidate: the per-role routing examples of the README
// are valid configurations.
func TestREADMEConfigsValidate(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	for _, heading := range []string{"### A local Ollama, one model per role", "### An OpenAI-compatible server"} {
		i := strings.Index(readme, heading)
		if i < 0 {
			t.Fatalf("README lacks %q", heading)
		}
		rest := readme[i:]
		start := strings.Index(rest, "```json\n")
		end := strings.Index(rest[start+8:], "```")
		if start < 0 || end < 0 {
			t.Fatalf("no JSON block under %q", heading)
		}
		cfg := writeConfig(t, rest[start+8:start+8+end])
		code, out, errOut := runEnv(t, map[string]string{"OPENAI_API_KEY": "sk-test"}, "config", "validate", cfg)
		if code != exitOK {
			t.Errorf("%s: exit %d\n%s%s", heading, code, out, errOut)
		}
	}
}
