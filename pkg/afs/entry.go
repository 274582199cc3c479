package afs

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Operation types of history entries (clarifications, history line shape).
const (
	OpToolCall       = "tool_call"
	OpAgentMessage   = "agent_message"
	OpUserInput      = "user_input"
	OpSystemEvent    = "system_event"
	OpCognitiveState = "cognitive_state"
	OpThoughtTrace   = "thought_trace"
)

// StartSuffix ends the name of the entry logged when a tool call starts
// ("<tool>:start"); the entry logged when it ends is named "<tool>".
const StartSuffix = ":start"

// Names of the system events the projection folds in.
const (
	// EventStateSet sets one state.json entry; input is a StateEntry.
	EventStateSet = "state.set"
	// EventStrategySet sets metacognition's current strategy; input is
	// {"strategy": string}.
	EventStrategySet = "strategy.set"
	// EventEpistemicAdd adds an epistemic item; input is an EpistemicItem
	// with its kind.
	EventEpistemicAdd = "epistemic.add"
	// EventSelfCorrection records a self-correction; input is a
	// SelfCorrection without timestamp.
	EventSelfCorrection = "self_correction"
)

// Entry is one line of history/YYYY-MM-DD.jsonl.
type Entry struct {
	ID         string                     `json:"id"`
	Timestamp  string                     `json:"timestamp"`
	SessionID  string                     `json:"session_id"`
	ProjectID  string                     `json:"project_id,omitempty"`
	Operation  Operation                  `json:"operation"`
	Provenance Provenance                 `json:"provenance"`
	Metadata   EntryMetadata              `json:"metadata"`
	Extensions map[string]json.RawMessage `json:"extensions"`
}

// Operation is what an entry records.
type Operation struct {
	Type       string          `json:"type"`
	Name       string          `json:"name"`
	Input      json.RawMessage `json:"input"`
	Output     json.RawMessage `json:"output,omitempty"`
	DurationMS *int64          `json:"duration_ms,omitempty"`
	Success    bool            `json:"success"`
	Error      string          `json:"error,omitempty"`
}

// Provenance says who produced an entry.
type Provenance struct {
	AgentID       string `json:"agent_id,omitempty"`
	ModelID       string `json:"model_id,omitempty"`
	ParentEntryID string `json:"parent_entry_id,omitempty"`
}

// EntryMetadata are an entry's tags, touched files and redaction flag.
type EntryMetadata struct {
	Tags         []string `json:"tags"`
	FilesTouched []string `json:"files_touched"`
	Redacted     bool     `json:"redacted"`
}

// Date is the UTC day of the entry (YYYY-MM-DD), which names its history
// file; "unknown" when the timestamp does not parse.
func (e Entry) Date() string {
	t, ok := ParseTime(e.Timestamp)
	if !ok {
		return "unknown"
	}
	return t.Format("2006-01-02")
}

// normalized fills the collections the line shape requires with empty
// values, so every encoded line has them.
func (e Entry) normalized() Entry {
	if len(e.Operation.Input) == 0 {
		e.Operation.Input = json.RawMessage("{}")
	}
	if e.Metadata.Tags == nil {
		e.Metadata.Tags = []string{}
	}
	if e.Metadata.FilesTouched == nil {
		e.Metadata.FilesTouched = []string{}
	}
	if e.Extensions == nil {
		e.Extensions = map[string]json.RawMessage{}
	}
	return e
}

// MarshalLine encodes an entry as one history line (no newline).
func (e Entry) MarshalLine() ([]byte, error) {
	return json.Marshal(e.normalized())
}

// ParseLine decodes one history line, accepting snake_case and camelCase
// keys, and checks its shape.
func ParseLine(line []byte) (Entry, error) {
	if err := ValidateLine(line); err != nil {
		return Entry{}, err
	}
	e, err := decodeEntry(line)
	if err != nil {
		return Entry{}, fmt.Errorf("%w: history line: %w", ErrShape, err)
	}
	return e.normalized(), nil
}

// rawObject decodes a JSON object keeping its values raw, with the keys
// turned to snake_case (a snake key wins over its camel twin).
func rawObject(data []byte) (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	out := make(map[string]json.RawMessage, len(m))
	for k, v := range m {
		nk := snakeKey(k)
		if _, dup := out[nk]; dup && nk != k {
			continue
		}
		out[nk] = v
	}
	return out, nil
}

// decodeEntry decodes a history line with snake_case or camelCase keys,
// keeping input, output and extension values byte for byte.
func decodeEntry(line []byte) (Entry, error) {
	top, err := rawObject(line)
	if err != nil {
		return Entry{}, err
	}
	var e Entry
	str := func(raw json.RawMessage, dst *string) error {
		if len(raw) == 0 {
			return nil
		}
		return json.Unmarshal(raw, dst)
	}
	op, err := rawObject(top["operation"])
	if err != nil {
		return Entry{}, fmt.Errorf("operation: %w", err)
	}
	errs := []error{str(top["id"], &e.ID), str(top["timestamp"], &e.Timestamp), str(top["session_id"], &e.SessionID),
		str(top["project_id"], &e.ProjectID), str(op["type"], &e.Operation.Type), str(op["name"], &e.Operation.Name),
		str(op["error"], &e.Operation.Error)}
	e.Operation.Input = op["input"]
	if o := op["output"]; len(o) > 0 && string(o) != "null" {
		e.Operation.Output = o
	}
	if d := op["duration_ms"]; len(d) > 0 {
		var n int64
		errs = append(errs, json.Unmarshal(d, &n))
		e.Operation.DurationMS = &n
	}
	if b := op["success"]; len(b) > 0 {
		errs = append(errs, json.Unmarshal(b, &e.Operation.Success))
	}
	if p := top["provenance"]; len(p) > 0 {
		errs = append(errs, decodeLoose(p, &e.Provenance, nil))
	}
	if m := top["metadata"]; len(m) > 0 {
		errs = append(errs, decodeLoose(m, &e.Metadata, nil))
	}
	if x := top["extensions"]; len(x) > 0 {
		errs = append(errs, json.Unmarshal(x, &e.Extensions))
	}
	return e, errors.Join(errs...)
}

var validOps = map[string]bool{OpToolCall: true, OpAgentMessage: true, OpUserInput: true,
	OpSystemEvent: true, OpCognitiveState: true, OpThoughtTrace: true}

// ValidateLine checks one history line against the protocol's line shape:
// a JSON object with id, timestamp, session_id, operation {type (one of the
// six), name, input, success}, provenance, metadata {tags[],
// files_touched[], redacted} and extensions; a finished tool call ("<tool>"
// after "<tool>:start") must carry duration_ms. Keys may be snake_case or
// camelCase. Every problem is reported, each wrapping ErrShape.
func ValidateLine(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	var raw any
	if err := dec.Decode(&raw); err != nil {
		return fmt.Errorf("%w: not JSON: %w", ErrShape, err)
	}
	if dec.More() {
		return fmt.Errorf("%w: more than one JSON value on the line", ErrShape)
	}
	obj, ok := snakeAll(raw, map[string]bool{"extensions": true}).(map[string]any)
	if !ok {
		return fmt.Errorf("%w: line is not a JSON object", ErrShape)
	}
	var probs []string
	need := func(m map[string]any, where, key string, kind string) any {
		v, ok := m[key]
		if !ok {
			probs = append(probs, where+key+" is missing")
			return nil
		}
		if !isKind(v, kind) {
			probs = append(probs, fmt.Sprintf("%s%s is not %s", where, key, kind))
			return nil
		}
		return v
	}
	need(obj, "", "id", "a non-empty string")
	if ts, _ := need(obj, "", "timestamp", "a non-empty string").(string); ts != "" {
		if _, ok := ParseTime(ts); !ok {
			probs = append(probs, "timestamp is not ISO 8601")
		}
	}
	need(obj, "", "session_id", "a non-empty string")
	if v, ok := obj["project_id"]; ok && !isKind(v, "a string") {
		probs = append(probs, "project_id is not a string")
	}
	if op, _ := need(obj, "", "operation", "an object").(map[string]any); op != nil {
		typ, _ := need(op, "operation.", "type", "a non-empty string").(string)
		if typ != "" && !validOps[typ] {
			probs = append(probs, "operation.type "+quote(typ)+" is not a protocol type")
		}
		name, _ := need(op, "operation.", "name", "a non-empty string").(string)
		if _, ok := op["input"]; !ok {
			probs = append(probs, "operation.input is missing")
		}
		need(op, "operation.", "success", "a boolean")
		if d, ok := op["duration_ms"]; ok && !isKind(d, "a non-negative number") {
			probs = append(probs, "operation.duration_ms is not a non-negative number")
		}
		if e, ok := op["error"]; ok && !isKind(e, "a string") {
			probs = append(probs, "operation.error is not a string")
		}
		if typ == OpToolCall && name != "" && !strings.HasSuffix(name, StartSuffix) {
			if _, ok := op["duration_ms"]; !ok {
				probs = append(probs, "operation.duration_ms is missing on a finished tool call")
			}
		}
	}
	if pv, _ := need(obj, "", "provenance", "an object").(map[string]any); pv != nil {
		for _, k := range []string{"agent_id", "model_id", "parent_entry_id"} {
			if v, ok := pv[k]; ok && !isKind(v, "a string") {
				probs = append(probs, "provenance."+k+" is not a string")
			}
		}
	}
	if md, _ := need(obj, "", "metadata", "an object").(map[string]any); md != nil {
		need(md, "metadata.", "tags", "a string array")
		need(md, "metadata.", "files_touched", "a string array")
		need(md, "metadata.", "redacted", "a boolean")
	}
	need(obj, "", "extensions", "an object")
	if len(probs) > 0 {
		return fmt.Errorf("%w: history line: %s", ErrShape, strings.Join(probs, "; "))
	}
	return nil
}

func isKind(v any, kind string) bool {
	switch kind {
	case "a string":
		_, ok := v.(string)
		return ok
	case "a non-empty string":
		s, ok := v.(string)
		return ok && s != ""
	case "an object":
		_, ok := v.(map[string]any)
		return ok
	case "a boolean":
		_, ok := v.(bool)
		return ok
	case "a non-negative number":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		f, err := n.Float64()
		return err == nil && f >= 0
	case "a string array":
		a, ok := v.([]any)
		if !ok {
			return false
		}
		for _, x := range a {
			if _, ok := x.(string); !ok {
				return false
			}
		}
		return true
	}
	return false
}
