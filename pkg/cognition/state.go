package cognition

// Root partition goals. They are compile-time constants: the root partition
// of every goal tree is rebuilt from them on construction and on decoding,
// and Validate rejects any other root partition.
const (
	RootGoalContinuity  = "Preserve operational continuity."
	RootGoalTransitions = "Seek advantageous state transitions."
	RootGoalViability   = "Protect long-term viability."
)

// Defaults of the user partition root.
const (
	// UserRootID is the fixed node id of the user partition root. It can be
	// tilted but never pruned.
	UserRootID = "user-root"
	// UserRootSummary is the summary of a freshly created user root.
	UserRootSummary = "user goals"
)

// Weight bounds. Sprout and tilt clamp weights into [MinWeight, MaxWeight];
// Validate rejects weights outside it.
const (
	MinWeight int32 = -1000
	MaxWeight int32 = 1000
)

// RootPartition returns a fresh copy of the root partition constants in their
// canonical order.
func RootPartition() []string {
	return []string{RootGoalContinuity, RootGoalTransitions, RootGoalViability}
}

// GoalNode is one node of the user partition of the goal tree. Its JSON shape
// is {"node_id","summary","weight","children"}; children is always encoded as
// an array and may be omitted or null on input.
type GoalNode struct {
	NodeID   string     `json:"node_id"`
	Summary  string     `json:"summary"`
	Weight   int32      `json:"weight"`
	Children []GoalNode `json:"children"`
}

// GoalTree is the goal tree: the immutable root partition and the user
// partition rooted at UserRootID.
type GoalTree struct {
	RootPartition []string `json:"root_partition"`
	UserPartition GoalNode `json:"user_partition"`
}

// L1Memory is the short-term working memory: an ordered list of strings.
type L1Memory struct {
	Entries []string `json:"entries"`
}

// CognitionState is the whole cognition state of one project. Revision counts
// the applications of patches that changed something.
type CognitionState struct {
	Revision uint64   `json:"revision"`
	GoalTree GoalTree `json:"goal_tree"`
	L1Memory L1Memory `json:"l1_memory"`
}

// NewState returns the default state: revision 0, the constant root
// partition, a user root {user-root, "user goals", 0} without children and an
// empty L1 memory.
func NewState() CognitionState {
	return CognitionState{
		GoalTree: GoalTree{
			RootPartition: RootPartition(),
			UserPartition: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{}},
		},
		L1Memory: L1Memory{Entries: []string{}},
	}
}

// Clone returns a deep copy of n; changing the copy never affects n.
func (n GoalNode) Clone() GoalNode {
	out := n
	if n.Children != nil {
		out.Children = make([]GoalNode, len(n.Children))
		for i, c := range n.Children {
			out.Children[i] = c.Clone()
		}
	}
	return out
}

// Clone returns a deep copy of s; changing the copy never affects s.
func (s CognitionState) Clone() CognitionState {
	out := s
	if s.GoalTree.RootPartition != nil {
		out.GoalTree.RootPartition = append([]string{}, s.GoalTree.RootPartition...)
	}
	out.GoalTree.UserPartition = s.GoalTree.UserPartition.Clone()
	if s.L1Memory.Entries != nil {
		out.L1Memory.Entries = append([]string{}, s.L1Memory.Entries...)
	}
	return out
}

// Equal reports whether n and o describe the same subtree. Nil and empty
// child lists are equal.
func (n GoalNode) Equal(o GoalNode) bool {
	if n.NodeID != o.NodeID || n.Summary != o.Summary || n.Weight != o.Weight || len(n.Children) != len(o.Children) {
		return false
	}
	for i := range n.Children {
		if !n.Children[i].Equal(o.Children[i]) {
			return false
		}
	}
	return true
}

// Equal reports whether s and o are the same state, revision included. Nil
// and empty lists are equal.
func (s CognitionState) Equal(o CognitionState) bool {
	return s.Revision == o.Revision &&
		equalStrings(s.GoalTree.RootPartition, o.GoalTree.RootPartition) &&
		s.GoalTree.UserPartition.Equal(o.GoalTree.UserPartition) &&
		equalStrings(s.L1Memory.Entries, o.L1Memory.Entries)
}

// Find returns the node with the given id in the subtree rooted at n, or
// false when there is none.
func (n GoalNode) Find(nodeID string) (GoalNode, bool) {
	if p := n.find(nodeID); p != nil {
		return *p, true
	}
	return GoalNode{}, false
}

// find returns a pointer into n's tree to the node with the given id, or nil.
func (n *GoalNode) find(nodeID string) *GoalNode {
	if n.NodeID == nodeID {
		return n
	}
	for i := range n.Children {
		if p := n.Children[i].find(nodeID); p != nil {
			return p
		}
	}
	return nil
}

func equalStrings(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
