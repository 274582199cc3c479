package app

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/policy"
	"github.com/nats-io/nats.go/jetstream"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

func testCtx(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }

func noEnv(string) string { return "" }

// provisioned starts a server with Codali's streams, consumers and buckets.
func provisioned(t *testing.T) (*bus.Embedded, jetstream.JetStream) {
	t.Helper()
	srv, _, js := natstest.StartJS(t)
	if err := bus.Provision(testCtx(t), js, bus.Topology{}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	return srv, js
}

func parseConfig(t *testing.T, raw string) *config.Config {
	t.Helper()
	cfg, err := config.Parse([]byte(raw))
	if err != nil {
		t.Fatalf("config: %v", err)
	}
	cfg.Workspace.Root = t.TempDir()
	return cfg
}

func writeFile(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func bundledScript(t *testing.T) *llm.Script {
	t.Helper()
	s, err := llm.ParseScript([]byte(`{"responses": [{"phase": "architect", "content": "{}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestNewDeps(t *testing.T) {
	_, js := provisioned(t)
	policyFile := writeFile(t, "policy.yaml", "never_touch: [\"**/*.pem\"]\ncommands:\n  allow: [[go, test]]\n")
	contract := writeFile(t, "contract.json", `{"output": "diff"}`)
	cases := []struct {
		name  string
		cfg   func(t *testing.T) *config.Config
		check func(t *testing.T, d *Deps)
	}{
		{"defaults", func(t *testing.T) *config.Config { return parseConfig(t, `{}`) }, func(t *testing.T, d *Deps) {
			if d.PolicyHash != policy.Default().Hash() || d.ContractHash != "" {
				t.Errorf("hashes %q %q", d.PolicyHash, d.ContractHash)
			}
			if d.Workspaces == nil || d.Workspaces.Root != d.Config.Workspace.Root || d.Artifacts == nil || d.PM == nil || d.Redactor == nil {
				t.Errorf("deps %+v", d)
			}
			if !d.Now().Equal(t0) {
				t.Error("clock not kept")
			}
		}},
		{"policy and contract files", func(t *testing.T) *config.Config {
			cfg := parseConfig(t, `{}`)
			cfg.Policy, cfg.Contract = policyFile, contract
			return cfg
		}, func(t *testing.T, d *Deps) {
			p, err := policy.Load(policyFile)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := policy.ContractHashFile(contract)
			if d.PolicyHash != p.Hash() || d.PolicyHash == policy.Default().Hash() || d.ContractHash != want || want == "" {
				t.Errorf("policy hash %q (want %q), contract hash %q (want %q)", d.PolicyHash, p.Hash(), d.ContractHash, want)
			}
			if !d.Policy.Evaluate(policy.ToolCall{Tool: "write_file", Paths: []string{"k.pem"}, Writes: true}).Blocked {
				t.Error("the loaded policy is not the one enforced")
			}
		}},
		{"redaction patterns compiled", func(t *testing.T) *config.Config {
			return parseConfig(t, `{"redact": {"patterns": ["internal-[0-9a-f]{8}"]}}`)
		}, func(t *testing.T, d *Deps) {
			if got := d.Redactor.String("id internal-0123abcd"); strings.Contains(got, "0123abcd") {
				t.Errorf("custom pattern not applied: %q", got)
			}
		}},
		{"memory bound applied to the project state", func(t *testing.T) *config.Config {
			return parseConfig(t, `{"memory": {"maxL1Entries": 2}}`)
		}, func(t *testing.T, d *Deps) {
			for i := range 4 {
				if _, err := d.PM.Update(testCtx(t), "p", func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
					return nil, []cognition.L1MemoryPatchOp{cognition.AppendOp(string(rune('a' + i)))}, nil
				}); err != nil {
					t.Fatal(err)
				}
			}
			st, _, _ := d.PM.Get(testCtx(t), "p")
			if len(st.L1Memory.Entries) != 2 {
				t.Errorf("memory %q not bounded to 2", st.L1Memory.Entries)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			d, err := NewDeps(testCtx(t), tc.cfg(t), js, discard(), func() time.Time { return t0 }, noEnv, nil)
			if err != nil {
				t.Fatalf("NewDeps: %v", err)
			}
			tc.check(t, d)
		})
	}
}

func TestNewDepsErrors(t *testing.T) {
	_, js := provisioned(t)
	badPolicy := writeFile(t, "bad.yaml", "never_touch: [\"[\"]\nbogus_key: 1\n")
	cases := []struct {
		name string
		cfg  func(t *testing.T) *config.Config
		js   func(t *testing.T) jetstream.JetStream
		want string
	}{
		{"policy file missing", func(t *testing.T) *config.Config {
			cfg := parseConfig(t, `{}`)
			cfg.Policy = filepath.Join(t.TempDir(), "nope.yaml")
			return cfg
		}, nil, "could not load policy"},
		{"policy file invalid", func(t *testing.T) *config.Config {
			cfg := parseConfig(t, `{}`)
			cfg.Policy = badPolicy
			return cfg
		}, nil, "could not load policy"},
		{"contract file missing", func(t *testing.T) *config.Config {
			cfg := parseConfig(t, `{}`)
			cfg.Contract = filepath.Join(t.TempDir(), "nope.json")
			return cfg
		}, nil, "could not hash contract"},
		{"bad redaction pattern (not validated)", func(t *testing.T) *config.Config {
			cfg := parseConfig(t, `{}`)
			cfg.Redact.Patterns = []string{"(unclosed"}
			return cfg
		}, nil, "could not compile redaction patterns"},
		{"no buckets", func(t *testing.T) *config.Config { return parseConfig(t, `{}`) }, func(t *testing.T) jetstream.JetStream {
			_, _, bare := natstest.StartJS(t)
			return bare
		}, events.BucketArtifacts},
		{"no project-state bucket", func(t *testing.T) *config.Config { return parseConfig(t, `{}`) }, func(t *testing.T) jetstream.JetStream {
			_, js := provisioned(t)
			if err := js.DeleteKeyValue(testCtx(t), events.BucketPMState); err != nil {
				t.Fatal(err)
			}
			return js
		}, events.BucketPMState},
		// A service never publishes without the message id key.
		{"no message id key bucket", func(t *testing.T) *config.Config { return parseConfig(t, `{}`) }, func(t *testing.T) jetstream.JetStream {
			_, js := provisioned(t)
			if err := js.DeleteKeyValue(testCtx(t), events.BucketKeys); err != nil {
				t.Fatal(err)
			}
			return js
		}, events.BucketKeys},
		{"no message id key", func(t *testing.T) *config.Config { return parseConfig(t, `{}`) }, func(t *testing.T) jetstream.JetStream {
			_, js := provisioned(t)
			kv, err := js.KeyValue(testCtx(t), events.BucketKeys)
			if err != nil {
				t.Fatal(err)
			}
			if err := kv.Purge(testCtx(t), msgid.StoreKey); err != nil {
				t.Fatal(err)
			}
			return js
		}, "message id key"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			j := js
			if tc.js != nil {
				j = tc.js(t)
			}
			d, err := NewDeps(testCtx(t), tc.cfg(t), j, discard(), time.Now, noEnv, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("NewDeps = %v, %v: want an error mentioning %q", d, err, tc.want)
			}
		})
	}
}

// TestConfigRejectsBadRedactPattern: a bad pattern in the configuration
// file is reported by validation, before NewDeps.
func TestConfigRejectsBadRedactPattern(t *testing.T) {
	cases := []struct {
		name string
		raw  string
		want string
	}{
		{"unclosed group", `{"redact": {"patterns": ["ok-[0-9]+", "(unclosed"]}}`, "redact.patterns[1]"},
		{"bad repetition", `{"redact": {"patterns": ["*x"]}}`, "redact.patterns[0]"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := config.Parse([]byte(tc.raw))
			if !errors.Is(err, config.ErrInvalid) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want config.ErrInvalid mentioning %q", err, tc.want)
			}
			p := writeFile(t, "codali.config.json", tc.raw)
			if _, err := config.Load(p); !errors.Is(err, config.ErrInvalid) {
				t.Fatalf("Load: %v", err)
			}
		})
	}
}

func TestModel(t *testing.T) {
	_, js := provisioned(t)
	script := writeFile(t, "script.json", `{"responses": [{"phase": "builder", "content": "{\"done\": true}"}]}`)
	cfgJSON := `{
	  "providers": {
	    "local": {"type": "scripted", "script": "` + script + `"},
	    "other": {"type": "scripted", "script": "` + script + `"},
	    "keyless": {"type": "openai", "apiKeyEnv": "CODALI_TEST_NO_KEY"},
	    "lan": {"type": "ollama", "baseUrl": "http://127.0.0.1:1"}
	  },
	  "routing": {
	    "architect": {"provider": "local", "model": "m1", "temperature": 0.5},
	    "builder": {"provider": "local", "model": "m2"},
	    "critic": {"provider": "other"},
	    "librarian": {"provider": "keyless", "model": "gpt"}
	  }
	}`
	newDeps := func(t *testing.T, raw string, getenv func(string) string, bundled *llm.Script) *Deps {
		t.Helper()
		d, err := NewDeps(testCtx(t), parseConfig(t, raw), js, discard(), time.Now, getenv, bundled)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	t.Run("one provider per name, shared by phases", func(t *testing.T) {
		d := newDeps(t, cfgJSON, noEnv, nil)
		a, ra, err := d.Model("architect")
		if err != nil {
			t.Fatal(err)
		}
		b, rb, err := d.Model("builder")
		if err != nil {
			t.Fatal(err)
		}
		c, _, err := d.Model("critic")
		if err != nil {
			t.Fatal(err)
		}
		if a != b {
			t.Error("phases routed to the same provider got different instances")
		}
		if a == c {
			t.Error("different provider names share an instance")
		}
		if ra.Name != "local" || ra.Route.Model != "m1" || ra.Route.Temperature != 0.5 || rb.Route.Model != "m2" {
			t.Errorf("routes %+v %+v", ra, rb)
		}
		again, _, _ := d.Model("architect")
		if again != a {
			t.Error("provider not cached")
		}
		resp, err := b.Complete(testCtx(t), llm.Request{Phase: "builder", Attempt: 1, Step: 1})
		if err != nil || resp.Content != `{"done": true}` {
			t.Errorf("scripted provider from the script file: %q %v", resp.Content, err)
		}
	})
	t.Run("concurrent first use creates one provider", func(t *testing.T) {
		d := newDeps(t, cfgJSON, noEnv, nil)
		var wg sync.WaitGroup
		got := make([]llm.Provider, 16)
		for i := range got {
			wg.Add(1)
			go func() {
				defer wg.Done()
				phase := "architect"
				if i%2 == 1 {
					phase = "builder"
				}
				p, _, err := d.Model(phase)
				if err != nil {
					t.Error(err)
				}
				got[i] = p
			}()
		}
		wg.Wait()
		for _, p := range got {
			if p != got[0] {
				t.Fatal("concurrent Model calls created several providers")
			}
		}
	})
	t.Run("bundled script when nothing is routed", func(t *testing.T) {
		d := newDeps(t, `{}`, noEnv, bundledScript(t))
		p, r, err := d.Model("architect")
		if err != nil || r.Name != llm.TypeScripted {
			t.Fatalf("Model: %v %+v", err, r)
		}
		if resp, err := p.Complete(testCtx(t), llm.Request{Phase: "architect", Attempt: 1}); err != nil || resp.Content != "{}" {
			t.Errorf("bundled answer %q %v", resp.Content, err)
		}
	})
	t.Run("environment fallback", func(t *testing.T) {
		env := map[string]string{"CODALI_PROVIDER": "lan", "CODALI_MODEL": "llama"}
		d := newDeps(t, cfgJSON, func(k string) string { return env[k] }, nil)
		// "lan" is not routed for any phase in this config except through
		// the environment; drop the routing to use it.
		d.Config.Routing = nil
		p, r, err := d.Model("critic")
		if err != nil || p == nil || r.Name != "lan" || r.Route.Model != "llama" || r.Provider.Type != llm.TypeOllama {
			t.Fatalf("Model = %v %+v %v", p, r, err)
		}
	})
	errCases := []struct {
		name    string
		raw     string
		getenv  func(string) string
		bundled *llm.Script
		phase   string
		is      error
		want    string
	}{
		{"unknown provider in the environment", `{}`, func(k string) string {
			if k == "CODALI_PROVIDER" {
				return "nowhere"
			}
			return ""
		}, nil, "architect", config.ErrInvalid, `provider "nowhere"`},
		{"scripted without a script", `{}`, noEnv, nil, "architect", llm.ErrInvalidConfig, "no script"},
		{"missing API key", cfgJSON, noEnv, nil, "librarian", llm.ErrInvalidConfig, "CODALI_TEST_NO_KEY"},
		{"unreadable script file", `{"providers": {"s": {"type": "scripted", "script": "/nonexistent/script.json"}}, "routing": {"architect": {"provider": "s"}}}`,
			noEnv, nil, "architect", llm.ErrInvalidConfig, "could not create model provider \"s\" for architect"},
	}
	for _, tc := range errCases {
		t.Run(tc.name, func(t *testing.T) {
			d := newDeps(t, tc.raw, tc.getenv, tc.bundled)
			for range 2 { // a failure is not cached as a success
				p, _, err := d.Model(tc.phase)
				if p != nil || !errors.Is(err, tc.is) || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("Model = %v, %v: want %v mentioning %q", p, err, tc.is, tc.want)
				}
			}
		})
	}
}
