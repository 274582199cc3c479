package cognition

import "encoding/json"

// The UnmarshalJSON methods of GoalNode, GoalTree and CognitionState read
// each object into a map of raw members and each member with a json.Unmarshal
// of its own, so every byte of a goal tree was checked and decoded again at
// each level above it. decodeFast first tries one json.Unmarshal of the
// whole value into the method-less types below, whose pointers say which
// required members were present. It gives up (and the member-by-member
// decoding runs, with its precise errors) unless that decoding succeeded,
// every required member was present and not null, and every object key is
// plain: encoding/json matches struct fields case-insensitively, the
// members map does not, so a key with an upper-case letter, an escape or a
// non-ASCII byte (which could fold onto a field name) is left to the map.
// When it succeeds, its result is the one the member-by-member decoding
// gives: the same decoder reads the same members into the same Go types
// (FuzzStateDecoding compares them).

type nodeIn struct {
	NodeID   *string  `json:"node_id"`
	Summary  *string  `json:"summary"`
	Weight   *int32   `json:"weight"`
	Children []nodeIn `json:"children"`
}

type treeIn struct {
	RootPartition []string `json:"root_partition"`
	UserPartition *nodeIn  `json:"user_partition"`
}

type memoryIn struct {
	Entries []string `json:"entries"`
}

type stateIn struct {
	Revision *uint64   `json:"revision"`
	GoalTree *treeIn   `json:"goal_tree"`
	L1Memory *memoryIn `json:"l1_memory"`
}

// decodeFast decodes data into W and converts it with conv; ok is false
// when the member-by-member decoding must decide (see above).
func decodeFast[W, T any](data []byte, conv func(W) (T, bool)) (T, bool) {
	var w W
	var zero T
	if json.Unmarshal(data, &w) != nil || !plainKeys(data) {
		return zero, false
	}
	return conv(w)
}

// node converts n; a nil child list stays nil, an empty one empty.
func (n nodeIn) node() (GoalNode, bool) {
	if n.NodeID == nil || n.Summary == nil || n.Weight == nil {
		return GoalNode{}, false
	}
	out := GoalNode{NodeID: *n.NodeID, Summary: *n.Summary, Weight: *n.Weight}
	if n.Children != nil {
		out.Children = make([]GoalNode, len(n.Children))
		for i, c := range n.Children {
			var ok bool
			if out.Children[i], ok = c.node(); !ok {
				return GoalNode{}, false
			}
		}
	}
	return out, true
}

func (t treeIn) tree() (GoalTree, bool) {
	if t.UserPartition == nil {
		return GoalTree{}, false
	}
	root, ok := t.UserPartition.node()
	return GoalTree{RootPartition: t.RootPartition, UserPartition: root}, ok
}

func (s stateIn) state() (CognitionState, bool) {
	if s.Revision == nil || s.GoalTree == nil || s.L1Memory == nil {
		return CognitionState{}, false
	}
	tree, ok := s.GoalTree.tree()
	return CognitionState{Revision: *s.Revision, GoalTree: tree, L1Memory: L1Memory(*s.L1Memory)}, ok
}

// stateKeys are the JSON names of the fields of the types above.
var stateKeys = []string{"node_id", "summary", "weight", "children", "root_partition", "user_partition", "revision", "goal_tree", "l1_memory", "entries"}

// plainKeys reports whether every object key in data, which must be valid
// JSON, is made of ASCII bytes other than upper-case letters and the
// backslash, and no object has one of stateKeys twice: decoding a
// repeated member into a struct field merges the second object or list
// into what the first left there, where the members map keeps only the
// last one.
func plainKeys(data []byte) bool {
	var seen []uint16 // per open object or array, the stateKeys met
	for i := 0; i < len(data); i++ {
		switch data[i] {
		case '{', '[':
			seen = append(seen, 0)
			continue
		case '}', ']':
			seen = seen[:len(seen)-1]
			continue
		case '"':
		default:
			continue
		}
		start := i + 1
		plain := true
		for i++; data[i] != '"'; i++ {
			c := data[i]
			if c == '\\' {
				plain = false
				i++ // the escaped byte, which may be a quote
				continue
			}
			if c >= 0x80 || ('A' <= c && c <= 'Z') {
				plain = false
			}
		}
		key := data[start:i]
		j := i + 1
		for j < len(data) && (data[j] == ' ' || data[j] == '\t' || data[j] == '\n' || data[j] == '\r') {
			j++
		}
		if j >= len(data) || data[j] != ':' {
			continue // a value
		}
		if !plain {
			return false
		}
		for k, name := range stateKeys {
			if string(key) == name {
				if seen[len(seen)-1]&(1<<k) != 0 {
					return false
				}
				seen[len(seen)-1] |= 1 << k
			}
		}
	}
	return true
}
