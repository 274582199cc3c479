package cognition

// JSON Schemas (draft 2020-12) of the three output helper results. Each is a
// bare array; there is no wrapper object. They describe what the strict
// decoders accept, with two differences: weights outside [-1000, 1000] decode
// (Apply clamps them) while the schema asks for the clamped range, and the
// decoders want integers written without a fraction ("5", not "5.0").
const (
	// ActDraftsSchema is the schema of the acts helper output, ActDraft[].
	ActDraftsSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "ActDraft[]",
  "type": "array",
  "items": {
    "type": "object",
    "properties": {
      "act": {"type": "string", "minLength": 1},
      "args": {"type": "object"}
    },
    "required": ["act"],
    "additionalProperties": false
  }
}`

	// GoalTreePatchSchema is the schema of the goal-tree patch helper output,
	// GoalTreePatchOp[].
	GoalTreePatchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "GoalTreePatchOp[]",
  "type": "array",
  "items": {
    "oneOf": [
      {"$ref": "#/$defs/sprout"},
      {"$ref": "#/$defs/prune"},
      {"$ref": "#/$defs/tilt"}
    ]
  },
  "$defs": {
    "weight": {"type": "integer", "minimum": -1000, "maximum": 1000},
    "node_id": {"type": "string", "minLength": 1},
    "sprout": {
      "type": "object",
      "properties": {
        "op": {"const": "sprout"},
        "parent_node_id": {"$ref": "#/$defs/node_id"},
        "node_id": {"$ref": "#/$defs/node_id"},
        "summary": {"type": "string"},
        "weight": {"$ref": "#/$defs/weight"}
      },
      "required": ["op", "parent_node_id", "node_id", "summary", "weight"],
      "additionalProperties": false
    },
    "prune": {
      "type": "object",
      "properties": {
        "op": {"const": "prune"},
        "node_id": {"$ref": "#/$defs/node_id"}
      },
      "required": ["op", "node_id"],
      "additionalProperties": false
    },
    "tilt": {
      "type": "object",
      "properties": {
        "op": {"const": "tilt"},
        "node_id": {"$ref": "#/$defs/node_id"},
        "weight": {"$ref": "#/$defs/weight"}
      },
      "required": ["op", "node_id", "weight"],
      "additionalProperties": false
    }
  }
}`

	// L1MemoryPatchSchema is the schema of the L1 memory patch helper output,
	// L1MemoryPatchOp[].
	L1MemoryPatchSchema = `{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "title": "L1MemoryPatchOp[]",
  "type": "array",
  "items": {
    "oneOf": [
      {"$ref": "#/$defs/append"},
      {"$ref": "#/$defs/insert"},
      {"$ref": "#/$defs/remove"}
    ]
  },
  "$defs": {
    "index": {"type": "integer", "minimum": 0},
    "append": {
      "type": "object",
      "properties": {
        "op": {"const": "append"},
        "value": {"type": "string"}
      },
      "required": ["op", "value"],
      "additionalProperties": false
    },
    "insert": {
      "type": "object",
      "properties": {
        "op": {"const": "insert"},
        "index": {"$ref": "#/$defs/index"},
        "value": {"type": "string"}
      },
      "required": ["op", "index", "value"],
      "additionalProperties": false
    },
    "remove": {
      "type": "object",
      "properties": {
        "op": {"const": "remove"},
        "index": {"$ref": "#/$defs/index"}
      },
      "required": ["op", "index"],
      "additionalProperties": false
    }
  }
}`
)
