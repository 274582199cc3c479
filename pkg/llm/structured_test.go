package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

const testSchemaJSON = `{
  "type": "object",
  "properties": {
    "summary": {"type": "string", "minLength": 1},
    "files": {"type": "array", "items": {"type": "string"}},
    "status": {"type": "string", "enum": ["pass", "fail"]}
  },
  "required": ["summary", "status"],
  "additionalProperties": false
}`

func testSchema(t *testing.T) *Schema {
	t.Helper()
	s, err := CompileSchema("answer", []byte(testSchemaJSON))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestSchemaValidate(t *testing.T) {
	s := testSchema(t)
	tests := []struct {
		doc   string
		wants []string // substrings of the problems; none means valid
	}{
		{`{"summary":"ok","status":"pass"}`, nil},
		{`{"summary":"ok","status":"pass","files":null}`, nil}, // null = absent
		{`{"status":"maybe"}`, []string{"summary", "/status"}},
		{`{"summary":"ok","status":"pass","extra":1}`, []string{"extra"}},
		{`{"summary":"","status":"fail","files":[1]}`, []string{"/summary", "/files/0"}},
		{`not json`, []string{"not JSON"}},
	}
	for _, tt := range tests {
		err := s.Validate([]byte(tt.doc))
		if len(tt.wants) == 0 {
			if err != nil {
				t.Errorf("%s: %v", tt.doc, err)
			}
			continue
		}
		var se *SchemaError
		if !errors.As(err, &se) || !errors.Is(err, ErrSchema) {
			t.Fatalf("%s: got %v, want a *SchemaError", tt.doc, err)
		}
		for _, w := range tt.wants {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %v does not mention %q", tt.doc, err, w)
			}
		}
	}
}

func TestCompileSchemaErrors(t *testing.T) {
	for _, c := range []struct{ name, raw string }{
		{"bad name!", `{}`},
		{"x", `{`},
		{"x", `{"type": 3}`},
	} {
		if _, err := CompileSchema(c.name, []byte(c.raw)); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("CompileSchema(%q, %s) = %v, want ErrInvalidConfig", c.name, c.raw, err)
		}
	}
}

func TestStrictJSON(t *testing.T) {
	got, strict := testSchema(t).StrictJSON()
	if !strict {
		t.Fatal("schema should be strict-capable")
	}
	assertJSONEqual(t, got, `{
	  "type": "object",
	  "properties": {
	    "summary": {"type": "string", "minLength": 1},
	    "files": {"type": ["array", "null"], "items": {"type": "string"}},
	    "status": {"type": "string", "enum": ["pass", "fail"]}
	  },
	  "required": ["files", "status", "summary"],
	  "additionalProperties": false}`)
	free := MustCompileSchema("free", []byte(`{"type":"object","properties":{"args":{"type":"object"}}}`))
	if _, strict := free.StrictJSON(); strict {
		t.Fatal("a free-form object cannot be strict")
	}
}

func TestGBNF(t *testing.T) {
	g, err := testSchema(t).GBNF()
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		`root ::= "{" ws (`,
		`"\"files\"" ws ":" ws root-files-array`, // optional member first
		`"\"status\"" ws ":" ws ("\"pass\"" | "\"fail\"")`,
		`root-rest2 ::= "," ws "\"summary\"" ws ":" ws string`, // required, last
		`root-rest0 ::= ("," ws "\"files\""`,
		`ws ::= `, `string ::= `,
	} {
		if !strings.Contains(g, want) {
			t.Errorf("grammar lacks %q:\n%s", want, g)
		}
	}
	bad := MustCompileSchema("bad", []byte(`{"anyOf":[{"type":"string"},{"type":"number"}]}`))
	if _, err := bad.GBNF(); !errors.Is(err, ErrGrammar) {
		t.Fatalf("anyOf: %v, want ErrGrammar", err)
	}
}

// chatServer is an in-process model server answering each request with
// the next of answers (the last one repeats) and recording the bodies.
type chatServer struct {
	mu     sync.Mutex
	bodies []map[string]any
}

// start serves answer on an httptest server closed when the test ends.
func (c *chatServer) start(t *testing.T, answer func(n int, body map[string]any) (int, string)) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		if err := json.Unmarshal(raw, &body); err != nil {
			t.Errorf("request not JSON: %s", raw)
		}
		c.mu.Lock()
		c.bodies = append(c.bodies, body)
		n := len(c.bodies)
		c.mu.Unlock()
		status, out := answer(n, body)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_, _ = io.WriteString(w, out)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func (c *chatServer) body(i int) map[string]any {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.bodies[i]
}

func (c *chatServer) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.bodies)
}

func ollamaAnswer(content string) string {
	raw, _ := json.Marshal(map[string]any{"model": "qwen2.5-coder:7b", "message": map[string]string{"role": "assistant", "content": content},
		"done": true, "prompt_eval_count": 10, "eval_count": 5})
	return string(raw)
}

func openAIAnswer(content string) string {
	raw, _ := json.Marshal(map[string]any{"id": "c1", "object": "chat.completion", "model": "m",
		"choices": []any{map[string]any{"index": 0, "message": map[string]any{"role": "assistant", "content": content}, "finish_reason": "stop"}},
		"usage":   map[string]int{"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}})
	return string(raw)
}

func lastUserMessage(body map[string]any) string {
	msgs, _ := body["messages"].([]any)
	for i := len(msgs) - 1; i >= 0; i-- {
		m, _ := msgs[i].(map[string]any)
		if m["role"] == "user" {
			s, _ := m["content"].(string)
			return s
		}
	}
	return ""
}

func TestOllamaStructured(t *testing.T) {
	schema := testSchema(t)
	req := Request{Model: "qwen2.5-coder:7b", Schema: schema, Messages: []Message{{Role: "user", Content: "judge"}}}
	t.Run("schema sent in format, valid answer", func(t *testing.T) {
		var cs chatServer
		srv := cs.start(t, (func(int, map[string]any) (int, string) {
			return 200, ollamaAnswer(`{"summary":"fine","status":"pass"}`)
		}))
		p, _ := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL})
		out, err := CompleteJSON(t.Context(), p, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		format, _ := json.Marshal(cs.body(0)["format"])
		assertJSONEqual(t, format, testSchemaJSON)
		if string(out.JSON) != `{"status":"pass","summary":"fine"}` || len(out.Calls) != 1 || out.Calls[0].Usage.PromptTokens != 10 {
			t.Fatalf("out = %s %+v", out.JSON, out.Calls)
		}
	})
	t.Run("schema-invalid answer gets one repair turn", func(t *testing.T) {
		var cs chatServer
		srv := cs.start(t, (func(n int, _ map[string]any) (int, string) {
			if n == 1 {
				return 200, ollamaAnswer(`Sure! {"summary":"fine","status":"maybe"}`)
			}
			return 200, ollamaAnswer(`{"summary":"fine","status":"fail"}`)
		}))
		p, _ := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL})
		out, err := CompleteJSON(t.Context(), p, req, nil)
		if err != nil {
			t.Fatal(err)
		}
		if cs.count() != 2 || len(out.Calls) != 2 {
			t.Fatalf("%d requests, %d calls; want 2", cs.count(), len(out.Calls))
		}
		repair := lastUserMessage(cs.body(1))
		if !strings.Contains(repair, "/status") || !strings.Contains(repair, "only the corrected JSON object") {
			t.Fatalf("repair turn does not carry the validation errors: %q", repair)
		}
	})
	t.Run("second invalid answer is a contract failure", func(t *testing.T) {
		var cs chatServer
		srv := cs.start(t, (func(int, map[string]any) (int, string) {
			return 200, ollamaAnswer(`{"summary":"fine"}`)
		}))
		p, _ := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL})
		out, err := CompleteJSON(t.Context(), p, req, nil)
		var ce *ContractError
		if !errors.As(err, &ce) || !errors.Is(err, ErrContract) || !errors.Is(err, ErrRejected) || !errors.Is(err, ErrSchema) {
			t.Fatalf("err = %v, want a contract failure", err)
		}
		if !strings.Contains(err.Error(), "status") || cs.count() != 2 || len(out.Calls) != 2 {
			t.Fatalf("err %v after %d requests", err, cs.count())
		}
	})
	t.Run("check failure is repaired like a schema failure", func(t *testing.T) {
		var cs chatServer
		srv := cs.start(t, (func(n int, _ map[string]any) (int, string) {
			return 200, ollamaAnswer(`{"summary":"fine","status":"pass"}`)
		}))
		p, _ := NewOllama(ProviderConfig{Type: TypeOllama, BaseURL: srv.URL})
		_, err := CompleteJSON(t.Context(), p, req, func([]byte) error { return errors.New("plan: no steps") })
		if !errors.Is(err, ErrContract) || !strings.Contains(lastUserMessage(cs.body(1)), "plan: no steps") {
			t.Fatalf("err = %v; repair %q", err, lastUserMessage(cs.body(1)))
		}
	})
}

func TestOpenAIStructuredFallback(t *testing.T) {
	schema := testSchema(t)
	req := Request{Model: "m", Schema: schema, Messages: []Message{{Role: "system", Content: "be a critic"}, {Role: "user", Content: "judge"}}}
	var cs chatServer
	srv := cs.start(t, (func(_ int, body map[string]any) (int, string) {
		rf, _ := body["response_format"].(map[string]any)
		switch rf["type"] {
		case "json_schema":
			return 400, `{"error":{"message":"Invalid parameter: 'response_format' of type 'json_schema' is not supported with this model.","type":"invalid_request_error","param":"response_format","code":null}}`
		case "json_object":
			return 400, `{"error":{"message":"response_format json_object is not supported","type":"invalid_request_error"}}`
		}
		return 200, openAIAnswer(`{"summary":"fine","status":"pass"}`)
	}))
	var logs bytes.Buffer
	p, err := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1"}, "", WithLogger(slog.New(slog.NewTextHandler(&logs, nil))))
	if err != nil {
		t.Fatal(err)
	}
	out, err := CompleteJSON(t.Context(), p, req, nil)
	if err != nil {
		t.Fatal(err)
	}
	if cs.count() != 3 || len(out.Calls) != 1 {
		t.Fatalf("%d requests, %d calls; want 3 requests (schema, object, prompt) and 1 answer", cs.count(), len(out.Calls))
	}
	rf, _ := json.Marshal(cs.body(0)["response_format"])
	strict, _ := schema.StrictJSON()
	assertJSONEqual(t, rf, `{"type":"json_schema","json_schema":{"name":"answer","strict":true,"schema":`+string(strict)+`}}`)
	if rf, _ := json.Marshal(cs.body(1)["response_format"]); string(rf) != `{"type":"json_object"}` {
		t.Fatalf("second request response_format %s", rf)
	}
	if _, ok := cs.body(2)["response_format"]; ok {
		t.Fatal("prompt-only request still has a response_format")
	}
	sys := cs.body(2)["messages"].([]any)[0].(map[string]any)["content"].(string)
	if !strings.HasPrefix(sys, "be a critic") || !strings.Contains(sys, `"enum":["pass","fail"]`) {
		t.Fatalf("prompt-only system message lacks the schema: %q", sys)
	}
	// Remembered: the next request goes straight to prompt-only, and the
	// fallback was logged once per step.
	if _, err := CompleteJSON(t.Context(), p, req, nil); err != nil {
		t.Fatal(err)
	}
	if cs.count() != 4 {
		t.Fatalf("%d requests; the fallback was not remembered", cs.count())
	}
	if n := strings.Count(logs.String(), "falling back"); n != 2 {
		t.Fatalf("fallback logged %d times, want 2 (json_schema→json_object→prompt-only):\n%s", n, logs.String())
	}
}

func TestOpenAIStructuredOther400IsNotAFallback(t *testing.T) {
	var cs chatServer
	srv := cs.start(t, (func(int, map[string]any) (int, string) {
		return 400, `{"error":{"message":"model 'm' not found","type":"invalid_request_error"}}`
	}))
	p, _ := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1"}, "")
	_, err := CompleteJSON(t.Context(), p, Request{Model: "m", Schema: testSchema(t), Messages: []Message{{Role: "user", Content: "x"}}}, nil)
	if !errors.Is(err, ErrRejected) || errors.Is(err, ErrContract) || cs.count() != 1 {
		t.Fatalf("err %v after %d requests; want one rejected request", err, cs.count())
	}
}

func TestOpenAIStructuredRepairAndContract(t *testing.T) {
	var cs chatServer
	srv := cs.start(t, (func(int, map[string]any) (int, string) {
		return 200, openAIAnswer(`{"summary":"fine","status":"pass","extra":true}`)
	}))
	p, _ := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1"}, "")
	out, err := CompleteJSON(t.Context(), p, Request{Model: "m", Schema: testSchema(t), Messages: []Message{{Role: "user", Content: "x"}}}, nil)
	if !errors.Is(err, ErrContract) || cs.count() != 2 || len(out.Calls) != 2 {
		t.Fatalf("err %v after %d requests", err, cs.count())
	}
	if repair := lastUserMessage(cs.body(1)); !strings.Contains(repair, "extra") {
		t.Fatalf("repair turn %q does not name the problem", repair)
	}
}

func TestLlamaCppGrammar(t *testing.T) {
	var cs chatServer
	srv := cs.start(t, (func(int, map[string]any) (int, string) {
		return 200, openAIAnswer(`{"summary":"fine","status":"pass"}`)
	}))
	p, _ := NewOpenAI(ProviderConfig{Type: TypeOpenAI, BaseURL: srv.URL + "/v1"}, "")
	schema := testSchema(t)
	if _, err := CompleteJSON(t.Context(), p, Request{Model: "m", Format: FormatGBNF, Schema: schema, Messages: []Message{{Role: "user", Content: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	want, _ := schema.GBNF()
	if cs.body(0)["grammar"] != want || cs.body(0)["response_format"] != nil {
		t.Fatalf("request %v: want the generated grammar and no response_format", cs.body(0))
	}
	// A schema without a grammar form goes in llama.cpp's json_schema.
	any := MustCompileSchema("any", []byte(`{"anyOf":[{"type":"object"}]}`))
	if _, err := CompleteJSON(t.Context(), p, Request{Model: "m", Format: FormatGBNF, Schema: any, Messages: []Message{{Role: "user", Content: "x"}}}, nil); err != nil {
		t.Fatal(err)
	}
	if js, _ := json.Marshal(cs.body(1)["json_schema"]); string(js) != `{"anyOf":[{"type":"object"}]}` {
		t.Fatalf("json_schema %s", js)
	}
}

func TestScriptedRepairTurn(t *testing.T) {
	s, err := ParseScript([]byte(`{"responses":[
	  {"phase":"critic","json":{"summary":"x","status":"nope"}},
	  {"phase":"critic","repair":true,"json":{"summary":"x","status":"pass"}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := CompleteJSON(t.Context(), NewScripted(s), Request{Phase: "critic", Schema: testSchema(t), Messages: []Message{{Role: "user", Content: "two words"}}}, nil)
	if err != nil || len(out.Calls) != 2 || out.Calls[0].Usage.PromptTokens != 2 {
		t.Fatalf("out %+v err %v", out, err)
	}
}

func TestScriptedContains(t *testing.T) {
	s, err := ParseScript([]byte(`{"responses":[
	  {"phase":"builder","step":1,"content":"general"},
	  {"phase":"builder","contains":"Request:\nwrite done.txt","content":"done"},
	  {"phase":"builder","contains":"Request:\nfix lib.go","content":"lib"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	p := NewScripted(s)
	for req, want := range map[string]string{"Request:\nwrite done.txt": "done", "Request:\nfix lib.go\n": "lib", "Request:\nother": "general"} {
		got, err := p.Complete(t.Context(), Request{Phase: "builder", Step: 1, Messages: []Message{{Role: "system", Content: "x"}, {Role: "user", Content: req}}})
		if err != nil || got.Content != want {
			t.Errorf("%q: %q %v, want %q", req, got.Content, err, want)
		}
	}
}
