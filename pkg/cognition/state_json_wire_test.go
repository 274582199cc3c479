package cognition

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// The types below encode a state the way GoalNode and GoalTree did before
// they marshalled a method-less copy of the tree in one go (each node
// marshalled its own subtree): the oracle the one-pass encoding must agree
// with byte for byte, since stored histories and their hashes hold it.

type nestedNode struct {
	NodeID   string       `json:"node_id"`
	Summary  string       `json:"summary"`
	Weight   int32        `json:"weight"`
	Children []nestedNode `json:"children"`
}

func (n nestedNode) MarshalJSON() ([]byte, error) {
	type plain nestedNode
	p := plain(n)
	if p.Children == nil {
		p.Children = []nestedNode{}
	}
	return json.Marshal(p)
}

type nestedTree struct {
	RootPartition []string   `json:"root_partition"`
	UserPartition nestedNode `json:"user_partition"`
}

func (t nestedTree) MarshalJSON() ([]byte, error) {
	type plain nestedTree
	p := plain(t)
	if p.RootPartition == nil {
		p.RootPartition = []string{}
	}
	return json.Marshal(p)
}

type nestedState struct {
	Revision uint64     `json:"revision"`
	GoalTree nestedTree `json:"goal_tree"`
	L1Memory L1Memory   `json:"l1_memory"`
}

func nested(n GoalNode) nestedNode {
	out := nestedNode{NodeID: n.NodeID, Summary: n.Summary, Weight: n.Weight}
	if n.Children != nil {
		out.Children = make([]nestedNode, len(n.Children))
		for i, c := range n.Children {
			out.Children[i] = nested(c)
		}
	}
	return out
}

func nestedOf(s CognitionState) nestedState {
	return nestedState{Revision: s.Revision, GoalTree: nestedTree{RootPartition: s.GoalTree.RootPartition, UserPartition: nested(s.GoalTree.UserPartition)}, L1Memory: s.L1Memory}
}

// encodings returns v as json.Marshal and as an Encoder without HTML
// escaping (the audit history's state encoder) write it.
func encodings(t testing.TB, v any) (marshal, noHTML []byte) {
	t.Helper()
	marshal, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal %T: %v", v, err)
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		t.Fatalf("encode %T: %v", v, err)
	}
	return marshal, b.Bytes()
}

// sameEncoding fails unless s, its goal tree and its user root encode as
// the nested oracle does.
func sameEncoding(t testing.TB, s CognitionState) {
	t.Helper()
	pairs := []struct {
		name      string
		got, want any
	}{
		{"state", s, nestedOf(s)},
		{"goal tree", s.GoalTree, nestedOf(s).GoalTree},
		{"user root", s.GoalTree.UserPartition, nested(s.GoalTree.UserPartition)},
	}
	for _, p := range pairs {
		gotM, gotE := encodings(t, p.got)
		wantM, wantE := encodings(t, p.want)
		if !bytes.Equal(gotM, wantM) {
			t.Fatalf("%s: json.Marshal\n got %s\nwant %s", p.name, gotM, wantM)
		}
		if !bytes.Equal(gotE, wantE) {
			t.Fatalf("%s: Encoder without HTML escaping\n got %s\nwant %s", p.name, gotE, wantE)
		}
	}
}

// awkward are strings whose encoding differs between escaping modes or
// that JSON must escape or repair.
var awkward = []string{"", "plain", "<b>&amp;</b>", "line\nbreak\ttab\x01", "quote\" back\\slash", "\u2028\u2029", "bad \xff utf-8 \xc3", "ünïcödé 日本"}

func TestGoalTreeEncodingMatchesNested(t *testing.T) {
	cases := map[string]CognitionState{
		"new":        NewState(),
		"bench":      benchStateOf(),
		"nil lists":  {GoalTree: GoalTree{UserPartition: GoalNode{NodeID: UserRootID, Children: []GoalNode{{NodeID: "a"}, {NodeID: "b", Children: []GoalNode{}}}}}},
		"zero value": {},
	}
	s := NewState()
	for i, a := range awkward {
		deep := GoalNode{NodeID: a, Summary: strings.Repeat(a, 2), Weight: int32(i) - 3}
		for range i {
			deep = GoalNode{NodeID: a + "x", Summary: a, Weight: MinWeight, Children: []GoalNode{deep, {NodeID: a}}}
		}
		s.GoalTree.UserPartition.Children = append(s.GoalTree.UserPartition.Children, deep)
		s.L1Memory.Entries = append(s.L1Memory.Entries, a)
	}
	cases["awkward"] = s
	for name, s := range cases {
		t.Run(name, func(t *testing.T) { sameEncoding(t, s) })
	}
}

func FuzzGoalTreeEncoding(f *testing.F) {
	for i, a := range awkward {
		f.Add(a, awkward[len(awkward)-1-i], uint8(i), int32(i*100-400), i%2 == 0)
	}
	f.Fuzz(func(t *testing.T, id, summary string, depth uint8, weight int32, nilKids bool) {
		leaf := GoalNode{NodeID: id, Summary: summary, Weight: weight}
		if !nilKids {
			leaf.Children = []GoalNode{}
		}
		n := leaf
		for range depth % 8 {
			n = GoalNode{NodeID: summary, Summary: id, Weight: -weight, Children: []GoalNode{n, leaf}}
		}
		s := NewState()
		s.Revision = uint64(depth)
		s.GoalTree.UserPartition.Children = []GoalNode{n}
		s.L1Memory.Entries = []string{id, summary}
		sameEncoding(t, s)
	})
}
