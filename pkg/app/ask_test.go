package app

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/answers"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/testutil"
)

// TestAskHonoursTheRoute: the route's model, temperature and format reach
// an OpenAI-compatible (llama.cpp) server, usage is returned and counted
// in the model metrics of the registry.
func TestAskHonoursTheRoute(t *testing.T) {
	var mu sync.Mutex
	var bodies []map[string]any
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		mu.Lock()
		bodies = append(bodies, body)
		mu.Unlock()
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, `{"id":"c","object":"chat.completion","model":"coder-7b","choices":[{"index":0,"message":{"role":"assistant","content":"{\"done\":true,\"summary\":\"ok\"}"},"finish_reason":"stop"}],"usage":{"prompt_tokens":40,"completion_tokens":8,"total_tokens":48}}`)
	}))
	t.Cleanup(srv.Close)
	_, js := provisioned(t)
	cfg := parseConfig(t, `{"providers":{"llama":{"type":"openai","baseUrl":"`+srv.URL+`/v1"}},
	  "routing":{"builder":{"provider":"llama","model":"coder-7b","temperature":0.3,"format":"gbnf"}}}`)
	d, err := NewDeps(testCtx(t), cfg, js, discard(), func() time.Time { return t0 }, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	reg := prometheus.NewRegistry()
	d.Registerer = reg
	for range 2 {
		a, err := d.Ask(testCtx(t), llm.Request{Phase: "builder", RunID: "r", Attempt: 1, Step: 1, Messages: []llm.Message{{Role: "user", Content: "go"}}}, answers.Turn(), nil)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Usage) != 1 || a.Usage[0].Provider != "llama" || a.Usage[0].Model != "coder-7b" || a.Usage[0].InputTokens != 40 || a.Route.Name != "llama" {
			t.Fatalf("usage %+v", a.Usage)
		}
	}
	mu.Lock()
	body := bodies[0]
	mu.Unlock()
	grammar, _ := answers.Turn().GBNF()
	if body["model"] != "coder-7b" || body["temperature"] != 0.3 || body["grammar"] != grammar {
		t.Fatalf("request %v", body)
	}
	want := `
# HELP codali_model_tokens_total Model tokens by phase, provider, model and direction (input, output), as the servers reported them.
# TYPE codali_model_tokens_total counter
codali_model_tokens_total{direction="input",model="coder-7b",phase="builder",provider="llama"} 80
codali_model_tokens_total{direction="output",model="coder-7b",phase="builder",provider="llama"} 16
`
	if err := testutil.GatherAndCompare(reg, strings.NewReader(want), "codali_model_tokens_total"); err != nil {
		t.Fatal(err)
	}
	if n := testutil.CollectAndCount(reg, "codali_model_request_duration_seconds"); n != 1 {
		t.Fatalf("%d duration series", n)
	}
}
