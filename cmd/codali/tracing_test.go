package main

import (
	"encoding/hex"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/codali-dev/codali/pkg/telemetry"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	commonpb "go.opentelemetry.io/proto/otlp/common/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"
)

// otlpReceiver is an in-process OTLP/HTTP trace receiver: it accepts
// protobuf ExportTraceServiceRequests at /v1/traces, as a collector does.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
}

func (r *otlpReceiver) ServeHTTP(w http.ResponseWriter, req *http.Request) {
	if req.URL.Path != "/v1/traces" || req.Method != http.MethodPost || req.Header.Get("Content-Type") != "application/x-protobuf" {
		http.Error(w, "want POST /v1/traces application/x-protobuf", http.StatusBadRequest)
		return
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	var msg coltracepb.ExportTraceServiceRequest
	if err := proto.Unmarshal(body, &msg); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	r.mu.Lock()
	for _, rs := range msg.ResourceSpans {
		for _, ss := range rs.ScopeSpans {
			r.spans = append(r.spans, ss.Spans...)
		}
	}
	r.mu.Unlock()
	out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
	w.Header().Set("Content-Type", "application/x-protobuf")
	_, _ = w.Write(out)
}

func (r *otlpReceiver) all() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

func attr(s *tracepb.Span, key string) *commonpb.AnyValue {
	for _, a := range s.Attributes {
		if a.Key == key {
			return a.Value
		}
	}
	return nil
}

// TestOneTracePerRun: with OTEL_EXPORTER_OTLP_ENDPOINT set, a run is one
// trace: a span per phase handling, each the child of the handling that
// produced its event, with model calls (GenAI conventions), tool calls and
// checks as child spans; the handler-duration metric carries the trace id
// as an exemplar.
func TestOneTracePerRun(t *testing.T) {
	recv := &otlpReceiver{}
	srv := httptest.NewServer(recv)
	defer srv.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", srv.URL)
	t.Setenv("OTEL_BSP_SCHEDULE_DELAY", "50")
	p := startUp(t, fastConfig(t))
	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "5m", "write done.txt")
	if code != exitOK {
		t.Fatalf("submit exited %d\n%s\n%s\n%s", code, out, errOut, p.log.String())
	}
	env, _ := decodeTerminal(t, out)
	traceID := telemetry.RunTraceID(env.RunID())
	phases := []string{"librarian requested", "architect context", "builder plan", "critic built", "architect retry", "builder plan", "critic built"}
	var spans []*tracepb.Span
	eventually(t, "every phase span", func() bool {
		spans = recv.all()
		n := 0
		for _, s := range spans {
			if strings.HasSuffix(s.Name, " built") && strings.HasPrefix(s.Name, "critic") {
				n++
			}
		}
		return n == 2
	})
	byID := map[string]*tracepb.Span{}
	for _, s := range spans {
		if string(s.TraceId) != string(traceID[:]) {
			t.Errorf("span %q is in trace %s, want the run's %s", s.Name, hex.EncodeToString(s.TraceId), traceID)
		}
		id := hex.EncodeToString(s.SpanId)
		if byID[id] != nil {
			t.Errorf("span %s exported twice", s.Name)
		}
		byID[id] = s
	}
	// The phase spans form a chain from the librarian's root span.
	var chain []*tracepb.Span
	for _, s := range spans {
		if len(s.ParentSpanId) == 0 {
			chain = append(chain, s)
		}
	}
	if len(chain) != 1 || chain[0].Name != phases[0] {
		t.Fatalf("root spans: %v", names(chain))
	}
	for len(chain) < len(phases) {
		last := chain[len(chain)-1]
		var next *tracepb.Span
		for _, s := range spans {
			if string(s.ParentSpanId) == string(last.SpanId) && strings.Contains(s.Name, " ") && attr(s, "codali.service") != nil {
				next = s
			}
		}
		if next == nil {
			break
		}
		chain = append(chain, next)
	}
	if got := strings.Join(names(chain), " > "); got != strings.Join(phases, " > ") {
		t.Fatalf("phase chain: %s\nall spans: %v", got, names(spans))
	}
	// Model calls, tool calls and checks are children of their phase span.
	children := func(parent *tracepb.Span, prefix string) []*tracepb.Span {
		var out []*tracepb.Span
		for _, s := range spans {
			if string(s.ParentSpanId) == string(parent.SpanId) && strings.HasPrefix(s.Name, prefix) {
				out = append(out, s)
			}
		}
		return out
	}
	chats := children(chain[1], "chat")
	if len(chats) != 1 {
		t.Fatalf("architect model spans: %v", names(chats))
	}
	c := chats[0]
	for key, want := range map[string]string{"gen_ai.operation.name": "chat", "gen_ai.provider.name": "scripted"} {
		if v := attr(c, key); v == nil || v.GetStringValue() != want {
			t.Errorf("%s = %v, want %q", key, v, want)
		}
	}
	for _, key := range []string{"gen_ai.request.model", "gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"} {
		if attr(c, key) == nil {
			t.Errorf("model span without %s", key)
		}
	}
	if c.Kind != tracepb.Span_SPAN_KIND_CLIENT {
		t.Errorf("model span kind %v", c.Kind)
	}
	if tools := children(chain[2], "execute_tool write_file"); len(tools) != 1 || len(children(chain[2], "chat")) != 2 {
		t.Errorf("builder children: tools %v", names(children(chain[2], "")))
	}
	checks := children(chain[3], "check done")
	if len(checks) != 1 || checks[0].Status.GetCode() != tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("first critic's failing check span: %v", names(children(chain[3], "")))
	}
	if checks := children(chain[6], "check done"); len(checks) != 1 || checks[0].Status.GetCode() == tracepb.Status_STATUS_CODE_ERROR {
		t.Errorf("second critic's passing check span: %v", names(children(chain[6], "")))
	}

	// Prometheus exemplars carry the trace id (OpenMetrics exposition).
	if m := p.openMetrics(t); !strings.Contains(m, `trace_id="`+traceID.String()+`"`) {
		t.Errorf("no exemplar with the run's trace id in /metrics")
	}
}

func names(spans []*tracepb.Span) []string {
	out := make([]string, len(spans))
	for i, s := range spans {
		out[i] = s.Name
	}
	return out
}
