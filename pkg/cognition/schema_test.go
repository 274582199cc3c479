package cognition

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// schemaChecker is a deliberately small structural JSON Schema checker that
// understands only the keywords the helper schemas use: $ref (local),
// oneOf, type, const, properties, required, additionalProperties, items,
// minimum, maximum and minLength.
type schemaChecker struct {
	root map[string]any
}

func newSchemaChecker(t *testing.T, schema string) schemaChecker {
	t.Helper()
	var root map[string]any
	if err := json.Unmarshal([]byte(schema), &root); err != nil {
		t.Fatalf("schema is not valid JSON: %v", err)
	}
	return schemaChecker{root: root}
}

func (c schemaChecker) resolve(s map[string]any) (map[string]any, error) {
	ref, ok := s["$ref"].(string)
	if !ok {
		return s, nil
	}
	cur := any(c.root)
	for _, part := range strings.Split(strings.TrimPrefix(ref, "#/"), "/") {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("bad $ref %q", ref)
		}
		if cur, ok = m[part]; !ok {
			return nil, fmt.Errorf("unresolved $ref %q", ref)
		}
	}
	m, ok := cur.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("$ref %q is not a schema", ref)
	}
	return c.resolve(m)
}

func (c schemaChecker) check(s map[string]any, v any) error {
	s, err := c.resolve(s)
	if err != nil {
		return err
	}
	if branches, ok := s["oneOf"].([]any); ok {
		matches := 0
		for _, b := range branches {
			if c.check(b.(map[string]any), v) == nil {
				matches++
			}
		}
		if matches != 1 {
			return fmt.Errorf("value matches %d oneOf branches", matches)
		}
	}
	if want, ok := s["const"]; ok && want != v {
		return fmt.Errorf("value %v is not const %v", v, want)
	}
	if typ, ok := s["type"].(string); ok {
		if err := checkType(typ, v); err != nil {
			return err
		}
	}
	if n, ok := v.(float64); ok {
		if lo, ok := s["minimum"].(float64); ok && n < lo {
			return fmt.Errorf("%v below minimum %v", n, lo)
		}
		if hi, ok := s["maximum"].(float64); ok && n > hi {
			return fmt.Errorf("%v above maximum %v", n, hi)
		}
	}
	if str, ok := v.(string); ok {
		if ml, ok := s["minLength"].(float64); ok && float64(len(str)) < ml {
			return fmt.Errorf("%q shorter than %v", str, ml)
		}
	}
	if arr, ok := v.([]any); ok {
		if items, ok := s["items"].(map[string]any); ok {
			for i, item := range arr {
				if err := c.check(items, item); err != nil {
					return fmt.Errorf("item %d: %w", i, err)
				}
			}
		}
	}
	if obj, ok := v.(map[string]any); ok {
		props, _ := s["properties"].(map[string]any)
		req, _ := s["required"].([]any)
		for _, r := range req {
			if _, ok := obj[r.(string)]; !ok {
				return fmt.Errorf("missing required %q", r)
			}
		}
		for k, val := range obj {
			ps, ok := props[k].(map[string]any)
			if !ok {
				if s["additionalProperties"] == false {
					return fmt.Errorf("additional property %q", k)
				}
				continue
			}
			if err := c.check(ps, val); err != nil {
				return fmt.Errorf("%s: %w", k, err)
			}
		}
	}
	return nil
}

func checkType(typ string, v any) error {
	ok := false
	switch typ {
	case "array":
		_, ok = v.([]any)
	case "object":
		_, ok = v.(map[string]any)
	case "string":
		_, ok = v.(string)
	case "integer":
		n, isNum := v.(float64)
		ok = isNum && n == float64(int64(n))
	}
	if !ok {
		return fmt.Errorf("value %v is not of type %s", v, typ)
	}
	return nil
}

func TestSchemasAreDraft202012Arrays(t *testing.T) {
	for name, schema := range map[string]string{"acts": ActDraftsSchema, "goal": GoalTreePatchSchema, "memory": L1MemoryPatchSchema} {
		t.Run(name, func(t *testing.T) {
			c := newSchemaChecker(t, schema)
			if c.root["$schema"] != "https://json-schema.org/draft/2020-12/schema" {
				t.Errorf("$schema = %v", c.root["$schema"])
			}
			if c.root["type"] != "array" {
				t.Errorf("top-level type = %v, want array (no wrapper object)", c.root["type"])
			}
			if _, ok := c.root["items"].(map[string]any); !ok {
				t.Error("no items schema")
			}
		})
	}
}

// TestSchemasMatchDecoders checks every example against both the schema and
// the strict Go decoder: both must accept it or both must reject it.
func TestSchemasMatchDecoders(t *testing.T) {
	decodeActs := func(doc string) error { var v []ActDraft; return json.Unmarshal([]byte(doc), &v) }
	decodeGoal := func(doc string) error { var v []GoalTreePatchOp; return json.Unmarshal([]byte(doc), &v) }
	decodeMem := func(doc string) error { var v []L1MemoryPatchOp; return json.Unmarshal([]byte(doc), &v) }
	tests := []struct {
		name   string
		schema string
		decode func(string) error
		doc    string
		valid  bool
	}{
		{name: "acts: empty", schema: ActDraftsSchema, decode: decodeActs, doc: `[]`, valid: true},
		{name: "acts: with and without args", schema: ActDraftsSchema, decode: decodeActs, doc: `[{"act":"a","args":{"x":1}},{"act":"b"}]`, valid: true},
		{name: "acts: missing act", schema: ActDraftsSchema, decode: decodeActs, doc: `[{"args":{}}]`},
		{name: "acts: empty act", schema: ActDraftsSchema, decode: decodeActs, doc: `[{"act":""}]`},
		{name: "acts: args list", schema: ActDraftsSchema, decode: decodeActs, doc: `[{"act":"a","args":[]}]`},
		{name: "acts: extra key", schema: ActDraftsSchema, decode: decodeActs, doc: `[{"act":"a","why":"x"}]`},
		{name: "acts: wrapper object", schema: ActDraftsSchema, decode: decodeActs, doc: `{"acts":[]}`},
		{name: "goal: every op", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"sprout","parent_node_id":"user-root","node_id":"a","summary":"s","weight":5},{"op":"prune","node_id":"a"},{"op":"tilt","node_id":"a","weight":-1000}]`, valid: true},
		{name: "goal: unknown op", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"graft","node_id":"a"}]`},
		{name: "goal: sprout missing summary", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"sprout","parent_node_id":"p","node_id":"a","weight":5}]`},
		{name: "goal: prune with extra key", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"prune","node_id":"a","weight":1}]`},
		{name: "goal: tilt string weight", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"tilt","node_id":"a","weight":"1"}]`},
		{name: "goal: empty node id", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `[{"op":"prune","node_id":""}]`},
		{name: "goal: wrapper object", schema: GoalTreePatchSchema, decode: decodeGoal, doc: `{"patch":[]}`},
		{name: "memory: every op", schema: L1MemoryPatchSchema, decode: decodeMem, doc: `[{"op":"append","value":"v"},{"op":"insert","index":0,"value":"v"},{"op":"remove","index":3}]`, valid: true},
		{name: "memory: negative index", schema: L1MemoryPatchSchema, decode: decodeMem, doc: `[{"op":"remove","index":-1}]`},
		{name: "memory: insert missing value", schema: L1MemoryPatchSchema, decode: decodeMem, doc: `[{"op":"insert","index":0}]`},
		{name: "memory: append with index", schema: L1MemoryPatchSchema, decode: decodeMem, doc: `[{"op":"append","value":"v","index":1}]`},
		{name: "memory: unknown op", schema: L1MemoryPatchSchema, decode: decodeMem, doc: `[{"op":"pop"}]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSchemaChecker(t, tt.schema)
			var doc any
			if err := json.Unmarshal([]byte(tt.doc), &doc); err != nil {
				t.Fatalf("example is not JSON: %v", err)
			}
			schemaErr := c.check(c.root, doc)
			decodeErr := tt.decode(tt.doc)
			if (schemaErr == nil) != tt.valid {
				t.Errorf("schema verdict %v, want valid=%v", schemaErr, tt.valid)
			}
			if (decodeErr == nil) != tt.valid {
				t.Errorf("decoder verdict %v, want valid=%v", decodeErr, tt.valid)
			}
		})
	}
}

func TestSchemaRequiredListsMatchWireShapes(t *testing.T) {
	tests := []struct {
		name   string
		schema string
		def    string
		sample any
	}{
		{name: "sprout", schema: GoalTreePatchSchema, def: "sprout", sample: SproutOp("p", "n", "s", 1)},
		{name: "prune", schema: GoalTreePatchSchema, def: "prune", sample: PruneOp("n")},
		{name: "tilt", schema: GoalTreePatchSchema, def: "tilt", sample: TiltOp("n", 1)},
		{name: "append", schema: L1MemoryPatchSchema, def: "append", sample: AppendOp("v")},
		{name: "insert", schema: L1MemoryPatchSchema, def: "insert", sample: InsertOp(1, "v")},
		{name: "remove", schema: L1MemoryPatchSchema, def: "remove", sample: RemoveOp(1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newSchemaChecker(t, tt.schema)
			def, ok := c.root["$defs"].(map[string]any)[tt.def].(map[string]any)
			if !ok {
				t.Fatalf("no $defs/%s", tt.def)
			}
			var required []string
			for _, r := range def["required"].([]any) {
				required = append(required, r.(string))
			}
			var props []string
			for k := range def["properties"].(map[string]any) {
				props = append(props, k)
			}
			var wire map[string]any
			if err := json.Unmarshal([]byte(mustJSON(t, tt.sample)), &wire); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range wire {
				keys = append(keys, k)
			}
			slices.Sort(required)
			slices.Sort(props)
			slices.Sort(keys)
			if !slices.Equal(required, keys) || !slices.Equal(props, keys) {
				t.Errorf("required %v, properties %v, encoder writes %v", required, props, keys)
			}
		})
	}
}

func TestSchemaCheckerRejectsBadRef(t *testing.T) {
	c := newSchemaChecker(t, `{"$defs":{"x":1},"items":{"$ref":"#/$defs/missing"}}`)
	tests := []struct {
		name string
		ref  string
	}{
		{name: "missing target", ref: "#/$defs/missing"},
		{name: "target not a schema", ref: "#/$defs/x"},
		{name: "path through a scalar", ref: "#/$defs/x/y"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := c.check(map[string]any{"$ref": tt.ref}, 1); err == nil {
				t.Error("bad $ref accepted")
			}
		})
	}
}
