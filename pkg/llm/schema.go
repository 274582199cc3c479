package llm

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
)

// ErrSchema: an answer does not satisfy the schema it was asked for.
var ErrSchema = errors.New("answer does not match the schema")

// Schema is the JSON Schema of one phase's answer: the single source of
// truth that is sent to the model server (Ollama `format`, OpenAI
// `response_format`, llama.cpp `grammar`) and used to validate what comes
// back. A Schema is immutable and safe for concurrent use.
type Schema struct {
	name     string
	raw      json.RawMessage
	doc      map[string]any
	compiled *jsonschema.Schema
}

// CompileSchema parses and compiles a JSON Schema (draft 2020-12). name
// identifies it on the wire (OpenAI json_schema.name: letters, digits, '_'
// and '-'). Errors wrap ErrInvalidConfig.
func CompileSchema(name string, raw []byte) (*Schema, error) {
	if name == "" || strings.ContainsFunc(name, func(r rune) bool { return !nameRune(r) }) {
		return nil, fmt.Errorf("%w: schema name %q (want letters, digits, '_' or '-')", ErrInvalidConfig, name)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		return nil, fmt.Errorf("%w: schema %s: %w", ErrInvalidConfig, name, err)
	}
	parsed, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, fmt.Errorf("%w: schema %s: %w", ErrInvalidConfig, name, err)
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	url := "codali:" + name + ".schema.json"
	if err := c.AddResource(url, parsed); err != nil {
		return nil, fmt.Errorf("%w: schema %s: %w", ErrInvalidConfig, name, err)
	}
	compiled, err := c.Compile(url)
	if err != nil {
		return nil, fmt.Errorf("%w: schema %s: %w", ErrInvalidConfig, name, err)
	}
	var buf bytes.Buffer
	if err := json.Compact(&buf, raw); err != nil {
		return nil, fmt.Errorf("%w: schema %s: %w", ErrInvalidConfig, name, err)
	}
	return &Schema{name: name, raw: buf.Bytes(), doc: doc, compiled: compiled}, nil
}

// nameRune reports whether r may appear in a schema name.
func nameRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-'
}

// MustCompileSchema is CompileSchema for schemas built into the program; it
// panics on an error, which is a programming mistake caught by any test.
func MustCompileSchema(name string, raw []byte) *Schema {
	s, err := CompileSchema(name, raw)
	if err != nil {
		panic(err)
	}
	return s
}

// Name is the schema's name.
func (s *Schema) Name() string { return s.name }

// JSON is the schema's compact JSON text.
func (s *Schema) JSON() json.RawMessage { return s.raw }

// SchemaError is an answer that failed its schema: one line per problem,
// each with the JSON pointer of the offending value.
type SchemaError struct {
	// Schema is the schema's name.
	Schema string
	// Problems lists what is wrong, e.g. "/steps/0: missing property 'description'".
	Problems []string
}

// Error lists the problems.
func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s: %s", e.Schema, strings.Join(e.Problems, "; "))
}

// Unwrap returns ErrSchema.
func (e *SchemaError) Unwrap() error { return ErrSchema }

// Validate checks a JSON document against the schema. Members whose value
// is null count as absent (a strict OpenAI schema makes optional members
// nullable, see StrictJSON). It returns a *SchemaError (wrapping ErrSchema)
// listing every problem, or a JSON syntax error wrapping ErrSchema.
func (s *Schema) Validate(doc []byte) error {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return &SchemaError{Schema: s.name, Problems: []string{"not JSON: " + err.Error()}}
	}
	inst = dropNulls(inst)
	err = s.compiled.Validate(inst)
	if err == nil {
		return nil
	}
	var ve *jsonschema.ValidationError
	if !errors.As(err, &ve) {
		return &SchemaError{Schema: s.name, Problems: []string{err.Error()}}
	}
	var problems []string
	collect(ve.BasicOutput(), &problems)
	if len(problems) == 0 {
		problems = []string{strings.Join(strings.Fields(ve.Error()), " ")}
	}
	sort.Strings(problems)
	return &SchemaError{Schema: s.name, Problems: problems}
}

// Normalize returns doc with null members removed, as Validate sees it, so
// that decoders see absent values where a strict server sent null.
func Normalize(doc []byte) []byte {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(doc))
	if err != nil {
		return doc
	}
	out, err := json.Marshal(dropNulls(inst))
	if err != nil {
		return doc
	}
	return out
}

func collect(u *jsonschema.OutputUnit, out *[]string) {
	if u == nil {
		return
	}
	if u.Error != nil {
		loc := u.InstanceLocation
		if loc == "" {
			loc = "/"
		}
		msg := u.Error.String()
		// "validation failed" summarises its children; keep the leaves.
		if len(u.Errors) == 0 || !strings.Contains(msg, "validation failed") {
			*out = append(*out, loc+": "+msg)
		}
	}
	for i := range u.Errors {
		collect(&u.Errors[i], out)
	}
}

func dropNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
				continue
			}
			x[k] = dropNulls(e)
		}
	case []any:
		for i, e := range x {
			x[i] = dropNulls(e)
		}
	}
	return v
}

// StrictJSON is the schema in the form OpenAI's strict structured outputs
// require: every object lists all its properties as required, optional ones
// made nullable, and forbids other members. It reports false when the
// schema cannot be made strict (an object with free-form members, such as
// a tool's arguments); the schema is then sent with strict false.
func (s *Schema) StrictJSON() (json.RawMessage, bool) {
	var doc map[string]any
	if err := json.Unmarshal(s.raw, &doc); err != nil {
		return s.raw, false
	}
	ok := strictify(doc)
	out, err := json.Marshal(doc)
	if err != nil {
		return s.raw, false
	}
	return out, ok
}

func strictify(n map[string]any) bool {
	ok := true
	if props, isObj := n["properties"].(map[string]any); isObj {
		required := map[string]bool{}
		if list, _ := n["required"].([]any); list != nil {
			for _, r := range list {
				if name, _ := r.(string); name != "" {
					required[name] = true
				}
			}
		}
		names := make([]string, 0, len(props))
		for name := range props {
			names = append(names, name)
		}
		sort.Strings(names)
		all := make([]any, 0, len(names))
		for _, name := range names {
			p, _ := props[name].(map[string]any)
			if p == nil {
				return false
			}
			if !strictify(p) {
				ok = false
			}
			if !required[name] {
				props[name] = nullable(p)
			}
			all = append(all, name)
		}
		n["required"] = all
		n["additionalProperties"] = false
	} else if n["type"] == "object" {
		ok = false // free-form object: strict mode cannot express it
	}
	if items, isMap := n["items"].(map[string]any); isMap && !strictify(items) {
		ok = false
	}
	for _, key := range []string{"anyOf", "oneOf", "allOf"} {
		if list, _ := n[key].([]any); list != nil {
			for _, e := range list {
				if m, _ := e.(map[string]any); m != nil && !strictify(m) {
					ok = false
				}
			}
		}
	}
	return ok
}

// nullable makes a property schema also accept null.
func nullable(p map[string]any) map[string]any {
	switch t := p["type"].(type) {
	case string:
		p["type"] = []any{t, "null"}
		if enum, _ := p["enum"].([]any); enum != nil {
			p["enum"] = append(enum, nil)
		}
		return p
	case []any:
		for _, e := range t {
			if e == "null" {
				return p
			}
		}
		p["type"] = append(t, "null")
		return p
	}
	return map[string]any{"anyOf": []any{p, map[string]any{"type": "null"}}}
}
