package afs

import (
	"sort"

	"github.com/codali-dev/codali/pkg/cognition"
)

// Goal is one node of the goal hierarchy, flattened with its parent.
type Goal struct {
	ID       string `json:"id"`
	ParentID string `json:"parent_id,omitempty"`
	Summary  string `json:"summary"`
	Weight   int32  `json:"weight"`
	Depth    int    `json:"depth"`
}

// GoalConflict names two goals pulling in opposite directions.
type GoalConflict struct {
	A      string `json:"a"`
	B      string `json:"b"`
	Reason string `json:"reason"`
}

// GoalsFile is scratchpad/goals.json: the Cortex goal tree (root partition
// constants and the user partition, depth first), the focus stack (leaf
// goals with positive weight, heaviest first) and conflicts (sibling goals
// with opposite-sign weights).
type GoalsFile struct {
	Meta
	Revision      uint64         `json:"revision"`
	RootPartition []string       `json:"root_partition"`
	Goals         []Goal         `json:"goals"`
	FocusStack    []string       `json:"focus_stack"`
	Conflicts     []GoalConflict `json:"conflicts"`
}

// GoalsFromCognition projects a Cortex cognition state into goals.json.
func GoalsFromCognition(st cognition.CognitionState) GoalsFile {
	g := GoalsFile{Revision: st.Revision, RootPartition: append([]string{}, st.GoalTree.RootPartition...),
		Goals: []Goal{}, FocusStack: []string{}, Conflicts: []GoalConflict{}}
	var leaves []Goal
	var walk func(n cognition.GoalNode, parent string, depth int)
	walk = func(n cognition.GoalNode, parent string, depth int) {
		node := Goal{ID: n.NodeID, ParentID: parent, Summary: n.Summary, Weight: n.Weight, Depth: depth}
		g.Goals = append(g.Goals, node)
		if len(n.Children) == 0 && n.NodeID != cognition.UserRootID && n.Weight > 0 {
			leaves = append(leaves, node)
		}
		for i, c := range n.Children {
			for _, d := range n.Children[i+1:] {
				if (c.Weight > 0 && d.Weight < 0) || (c.Weight < 0 && d.Weight > 0) {
					g.Conflicts = append(g.Conflicts, GoalConflict{A: c.NodeID, B: d.NodeID, Reason: "sibling goals with opposite weights"})
				}
			}
			walk(c, n.NodeID, depth+1)
		}
	}
	walk(st.GoalTree.UserPartition, "", 0)
	sort.SliceStable(leaves, func(i, j int) bool { return leaves[i].Weight > leaves[j].Weight })
	for _, l := range leaves {
		g.FocusStack = append(g.FocusStack, l.ID)
	}
	return g
}

// Tree rebuilds the Cortex goal tree from the flattened goals. Goals whose
// parent is unknown are skipped.
func (g GoalsFile) Tree() cognition.GoalTree {
	t := cognition.NewState().GoalTree
	nodes := map[string]*cognition.GoalNode{}
	order := []string{}
	for _, goal := range g.Goals {
		if goal.ParentID == "" {
			t.UserPartition.Summary, t.UserPartition.Weight = goal.Summary, goal.Weight
			continue
		}
		nodes[goal.ID] = &cognition.GoalNode{NodeID: goal.ID, Summary: goal.Summary, Weight: goal.Weight, Children: []cognition.GoalNode{}}
		order = append(order, goal.ID)
	}
	parent := map[string]string{}
	for _, goal := range g.Goals {
		parent[goal.ID] = goal.ParentID
	}
	var build func(id string) cognition.GoalNode
	build = func(id string) cognition.GoalNode {
		n := *nodes[id]
		for _, c := range order {
			if parent[c] == id {
				n.Children = append(n.Children, build(c))
			}
		}
		return n
	}
	for _, id := range order {
		if parent[id] == cognition.UserRootID {
			t.UserPartition.Children = append(t.UserPartition.Children, build(id))
		}
	}
	return t
}
