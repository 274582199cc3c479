package audit

import (
	"encoding/json"

	"github.com/codali-dev/codali/pkg/afs"
	"github.com/codali-dev/codali/pkg/rao"
)

// The builder's Cognitive Protocol record holds the run's state.json
// entries as state.set system events whose input is {"section": …, "key":
// …, "value": …}: a plan step's id as the key and its description as the
// value. Read as a name/value pair, a step named hash-password or
// rotate-token would lose its description. Those keys are identifiers
// of Codali's own state, written by the builder (which redacted the value
// already), never a name a secret is filed under; so the encoder redacts
// the members of a state.set input each alone, as they would redact
// outside the pair, and the rest of the state as before. A tool call's
// input, an event's payload or any other object is still read as a pair.

// guide marks where the encoder must walk, whatever the size and depth,
// to reach the state.set inputs.
type guide struct {
	members  map[string]*guide // objects: the guides of members
	elems    *guide            // arrays: the guide of every element
	entry    bool              // a Cognitive Protocol history entry
	unpaired bool              // a state.set input: its members redact alone
}

// stateGuide leads from the state to its attempts' history entries.
var stateGuide = &guide{members: map[string]*guide{
	"attempts": {elems: &guide{members: map[string]*guide{
		"cognition": {members: map[string]*guide{
			"entries": {elems: &guide{entry: true}},
		}},
	}}},
}}

// stateSetOperation leads from a state.set entry's operation to its input.
var stateSetOperation = &guide{members: map[string]*guide{"input": {unpaired: true}}}

// memberGuide returns the guide of a member of an object guided by g
// (nil: none); members are the object's, for an entry.
func (g *guide) memberGuide(key string, members []rao.Member) *guide {
	switch {
	case g == nil:
		return nil
	case g.entry:
		if key == "operation" && isStateSet(members) {
			return stateSetOperation
		}
		return nil
	}
	return g.members[key]
}

// elemGuide returns the guide of an element of an array guided by g.
func (g *guide) elemGuide() *guide {
	if g == nil {
		return nil
	}
	return g.elems
}

// isStateSet reports whether an entry's members hold a state.set system
// event's operation.
func isStateSet(members []rao.Member) bool {
	for _, m := range members {
		if m.Key != "operation" {
			continue
		}
		var op struct {
			Type string `json:"type"`
			Name string `json:"name"`
		}
		return json.Unmarshal(m.Raw, &op) == nil && op.Type == afs.OpSystemEvent && op.Name == afs.EventStateSet
	}
	return false
}
