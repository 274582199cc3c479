package answers

import (
	"errors"
	"testing"

	"github.com/codali-dev/codali/pkg/llm"
)

func TestSchemas(t *testing.T) {
	tests := []struct {
		name   string
		schema *llm.Schema
		doc    string
		valid  bool
	}{
		{"plan", Plan(), `{"summary":"s","steps":[{"description":"d","files":["a.go"]}],"target_files":["a.go"],"verify":[{"name":"t","command":["go","test"]}]}`, true},
		{"plan without steps", Plan(), `{"steps":[],"verify":[{"name":"t","command":["go"]}]}`, false},
		{"plan with an unknown member", Plan(), `{"steps":[{"description":"d"}],"verify":[{"name":"t","command":["go"]}],"code":"x"}`, false},
		{"plan with an empty command", Plan(), `{"steps":[{"description":"d"}],"verify":[{"name":"t","command":[]}]}`, false},
		{"turn with tools", Turn(), `{"thought":"t","tool_calls":[{"tool":"read_file","args":{"path":"a"}}],"done":false}`, true},
		{"turn done", Turn(), `{"done":true,"summary":"ok"}`, true},
		{"turn with a nameless tool", Turn(), `{"tool_calls":[{"args":{}}]}`, false},
		{"review pass", Review(), `{"status":"pass","reasons":[],"retryable":false}`, true},
		{"review retry", Review(), `{"status":"fail","reasons":["missed"],"retryable":true,"retry_phase":"builder","review_notes":"n"}`, true},
		{"review bad phase", Review(), `{"status":"fail","reasons":[],"retryable":true,"retry_phase":"librarian"}`, false},
		{"review bad status", Review(), `{"status":"ok","reasons":[],"retryable":true}`, false},
	}
	for _, tt := range tests {
		err := tt.schema.Validate([]byte(tt.doc))
		if (err == nil) != tt.valid || err != nil && !errors.Is(err, llm.ErrSchema) {
			t.Errorf("%s: %v (want valid %v)", tt.name, err, tt.valid)
		}
	}
}

func TestSchemasHaveWireForms(t *testing.T) {
	for _, s := range []*llm.Schema{Plan(), Turn(), Review()} {
		if _, err := s.GBNF(); err != nil {
			t.Errorf("%s: %v", s.Name(), err)
		}
		_, strict := s.StrictJSON()
		if want := s != Turn(); strict != want { // tool args are free-form
			t.Errorf("%s: strict %v, want %v", s.Name(), strict, want)
		}
	}
}
