package cognition

import (
	"slices"
	"testing"
)

func TestApplyGoalTree(t *testing.T) {
	base := func() CognitionState {
		return stateWith(7, nil,
			node("a", 10, node("a1", 1, node("a1x", 0)), node("a2", 2)),
			node("b", -5),
		)
	}
	tests := []struct {
		name      string
		ops       []GoalTreePatchOp
		wantRoot  GoalNode
		wantDiags []string
		wantRev   uint64
	}{
		{
			name:     "no ops keep state and revision",
			wantRoot: base().GoalTree.UserPartition,
			wantRev:  7,
		},
		{
			name: "sprout appends to the user root's children",
			ops:  []GoalTreePatchOp{SproutOp(UserRootID, "c", "c summary", 3)},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0)), node("a2", 2)), node("b", -5), node("c", 3),
			}},
			wantRev: 8,
		},
		{
			name: "sprout appends after existing children of a nested parent",
			ops:  []GoalTreePatchOp{SproutOp("a1", "a1y", "a1y summary", 4)},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0), node("a1y", 4)), node("a2", 2)), node("b", -5),
			}},
			wantRev: 8,
		},
		{
			name:      "sprout of an existing node id is a no-op",
			ops:       []GoalTreePatchOp{SproutOp("b", "a1x", "again", 1)},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:duplicate-node"},
			wantRev:   7,
		},
		{
			name:      "sprout of the user root id is a no-op",
			ops:       []GoalTreePatchOp{SproutOp("a", UserRootID, "again", 1)},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:duplicate-node"},
			wantRev:   7,
		},
		{
			name:      "sprout under a missing parent is a no-op",
			ops:       []GoalTreePatchOp{SproutOp("nope", "c", "c summary", 1)},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:missing-parent"},
			wantRev:   7,
		},
		{
			name: "sprout clamps weights into range",
			ops: []GoalTreePatchOp{
				SproutOp(UserRootID, "c", "c summary", 5000),
				SproutOp(UserRootID, "d", "d summary", -5000),
			},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0)), node("a2", 2)), node("b", -5), node("c", 1000), node("d", -1000),
			}},
			wantRev: 8,
		},
		{
			name: "prune removes a leaf",
			ops:  []GoalTreePatchOp{PruneOp("a2")},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0))), node("b", -5),
			}},
			wantRev: 8,
		},
		{
			name: "prune removes the whole subtree",
			ops: []GoalTreePatchOp{
				PruneOp("a"),
				TiltOp("a1x", 9),
				SproutOp("a1", "z", "z summary", 0),
			},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("b", -5),
			}},
			wantDiags: []string{"goal-tree-patch[1]:missing-node", "goal-tree-patch[2]:missing-parent"},
			wantRev:   8,
		},
		{
			name:      "prune of the user root is a no-op",
			ops:       []GoalTreePatchOp{PruneOp(UserRootID)},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:prune-user-root"},
			wantRev:   7,
		},
		{
			name:      "prune of a missing node is a no-op",
			ops:       []GoalTreePatchOp{PruneOp("nope")},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:missing-node"},
			wantRev:   7,
		},
		{
			name: "tilt sets a nested node's weight",
			ops:  []GoalTreePatchOp{TiltOp("a1x", -42)},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", -42)), node("a2", 2)), node("b", -5),
			}},
			wantRev: 8,
		},
		{
			name:     "tilt of the user root is allowed",
			ops:      []GoalTreePatchOp{TiltOp(UserRootID, 5)},
			wantRoot: func() GoalNode { r := base().GoalTree.UserPartition; r.Weight = 5; return r }(),
			wantRev:  8,
		},
		{
			name: "tilt clamps to the maximum and the minimum",
			ops:  []GoalTreePatchOp{TiltOp("a", 1001), TiltOp("b", -2147483648)},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 1000, node("a1", 1, node("a1x", 0)), node("a2", 2)), node("b", -1000),
			}},
			wantRev: 8,
		},
		{
			name:     "tilt to the current weight is no change",
			ops:      []GoalTreePatchOp{TiltOp("b", -5)},
			wantRoot: base().GoalTree.UserPartition,
			wantRev:  7,
		},
		{
			name:      "tilt of a missing node is a no-op",
			ops:       []GoalTreePatchOp{TiltOp("nope", 1)},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:missing-node"},
			wantRev:   7,
		},
		{
			name: "ops apply in array order",
			ops: []GoalTreePatchOp{
				SproutOp(UserRootID, "c", "c summary", 0),
				SproutOp("c", "c1", "c1 summary", 0),
				TiltOp("c1", 7),
				PruneOp("b"),
				SproutOp("b", "b1", "b1 summary", 0),
			},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0)), node("a2", 2)), node("c", 0, node("c1", 7)),
			}},
			wantDiags: []string{"goal-tree-patch[4]:missing-parent"},
			wantRev:   8,
		},
		{
			name: "failing ops are skipped and the others still apply",
			ops: []GoalTreePatchOp{
				PruneOp(UserRootID),
				TiltOp("b", 6),
				SproutOp("x", "y", "y summary", 0),
			},
			wantRoot: GoalNode{NodeID: UserRootID, Summary: UserRootSummary, Children: []GoalNode{
				node("a", 10, node("a1", 1, node("a1x", 0)), node("a2", 2)), node("b", 6),
			}},
			wantDiags: []string{"goal-tree-patch[0]:prune-user-root", "goal-tree-patch[2]:missing-parent"},
			wantRev:   8,
		},
		{
			name: "ops no decoder produces are invalid",
			ops: []GoalTreePatchOp{
				{Op: "graft", NodeID: "a"},
				SproutOp(UserRootID, "", "empty", 0),
			},
			wantRoot:  base().GoalTree.UserPartition,
			wantDiags: []string{"goal-tree-patch[0]:invalid-op", "goal-tree-patch[1]:invalid-op"},
			wantRev:   7,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, diags := Apply(base(), tt.ops, nil)
			if !next.GoalTree.UserPartition.Equal(tt.wantRoot) {
				t.Errorf("user partition\n got %s\nwant %s", mustJSON(t, next.GoalTree.UserPartition), mustJSON(t, tt.wantRoot))
			}
			if got := diagCodes(diags); !slices.Equal(got, tt.wantDiags) {
				t.Errorf("diagnostics = %v, want %v", got, tt.wantDiags)
			}
			if next.Revision != tt.wantRev {
				t.Errorf("revision = %d, want %d", next.Revision, tt.wantRev)
			}
			if err := Validate(next); err != nil {
				t.Errorf("result fails validation: %v", err)
			}
		})
	}
}

func TestApplyTiltClampedToCurrentWeight(t *testing.T) {
	prev := stateWith(2, nil, node("max", 1000), node("min", -1000))
	next, diags := Apply(prev, []GoalTreePatchOp{TiltOp("max", 3000), TiltOp("min", -3000)}, nil)
	if !next.Equal(prev) || len(diags) != 0 {
		t.Errorf("clamped tilts to the current weight changed the state: %s, diagnostics %v", mustJSON(t, next), diags)
	}
}

func TestApplyL1Memory(t *testing.T) {
	tests := []struct {
		name      string
		entries   []string
		ops       []L1MemoryPatchOp
		want      []string
		wantDiags []string
		wantRev   uint64
	}{
		{name: "append to empty memory", entries: []string{}, ops: []L1MemoryPatchOp{AppendOp("x")}, want: []string{"x"}, wantRev: 4},
		{name: "append always pushes, duplicates too", entries: []string{"x"}, ops: []L1MemoryPatchOp{AppendOp("x"), AppendOp("")}, want: []string{"x", "x", ""}, wantRev: 4},
		{name: "insert at the front", entries: []string{"a", "b"}, ops: []L1MemoryPatchOp{InsertOp(0, "z")}, want: []string{"z", "a", "b"}, wantRev: 4},
		{name: "insert in the middle", entries: []string{"a", "b"}, ops: []L1MemoryPatchOp{InsertOp(1, "z")}, want: []string{"a", "z", "b"}, wantRev: 4},
		{name: "insert at len appends", entries: []string{"a", "b"}, ops: []L1MemoryPatchOp{InsertOp(2, "z")}, want: []string{"a", "b", "z"}, wantRev: 4},
		{name: "insert at len of empty memory appends", entries: []string{}, ops: []L1MemoryPatchOp{InsertOp(0, "z")}, want: []string{"z"}, wantRev: 4},
		{name: "insert past len is a no-op", entries: []string{"a", "b"}, ops: []L1MemoryPatchOp{InsertOp(3, "z")}, want: []string{"a", "b"}, wantDiags: []string{"l1-memory-patch[0]:index-out-of-range"}, wantRev: 3},
		{name: "remove the first entry", entries: []string{"a", "b", "c"}, ops: []L1MemoryPatchOp{RemoveOp(0)}, want: []string{"b", "c"}, wantRev: 4},
		{name: "remove the last entry", entries: []string{"a", "b", "c"}, ops: []L1MemoryPatchOp{RemoveOp(2)}, want: []string{"a", "b"}, wantRev: 4},
		{name: "remove at len is a no-op", entries: []string{"a", "b"}, ops: []L1MemoryPatchOp{RemoveOp(2)}, want: []string{"a", "b"}, wantDiags: []string{"l1-memory-patch[0]:index-out-of-range"}, wantRev: 3},
		{name: "remove past len is a no-op", entries: []string{"a"}, ops: []L1MemoryPatchOp{RemoveOp(9)}, want: []string{"a"}, wantDiags: []string{"l1-memory-patch[0]:index-out-of-range"}, wantRev: 3},
		{name: "remove from empty memory is a no-op", entries: []string{}, ops: []L1MemoryPatchOp{RemoveOp(0)}, want: []string{}, wantDiags: []string{"l1-memory-patch[0]:index-out-of-range"}, wantRev: 3},
		{
			name:      "ops apply in array order against the evolving list",
			entries:   []string{"a"},
			ops:       []L1MemoryPatchOp{AppendOp("b"), RemoveOp(0), InsertOp(1, "c"), RemoveOp(2)},
			want:      []string{"b", "c"},
			wantDiags: []string{"l1-memory-patch[3]:index-out-of-range"},
			wantRev:   4,
		},
		{
			name:      "ops no decoder produces are invalid",
			entries:   []string{"a"},
			ops:       []L1MemoryPatchOp{InsertOp(-1, "x"), RemoveOp(-1), {Op: "pop"}},
			want:      []string{"a"},
			wantDiags: []string{"l1-memory-patch[0]:invalid-op", "l1-memory-patch[1]:invalid-op", "l1-memory-patch[2]:invalid-op"},
			wantRev:   3,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := stateWith(3, tt.entries)
			next, diags := Apply(prev, nil, tt.ops)
			if !slices.Equal(next.L1Memory.Entries, tt.want) {
				t.Errorf("entries = %q, want %q", next.L1Memory.Entries, tt.want)
			}
			if got := diagCodes(diags); !slices.Equal(got, tt.wantDiags) {
				t.Errorf("diagnostics = %v, want %v", got, tt.wantDiags)
			}
			if next.Revision != tt.wantRev {
				t.Errorf("revision = %d, want %d", next.Revision, tt.wantRev)
			}
		})
	}
}

func TestApplyRevision(t *testing.T) {
	tests := []struct {
		name    string
		goalOps []GoalTreePatchOp
		memOps  []L1MemoryPatchOp
		wantRev uint64
	}{
		{name: "nothing to apply", wantRev: 41},
		{name: "only failing ops", goalOps: []GoalTreePatchOp{PruneOp("x")}, memOps: []L1MemoryPatchOp{RemoveOp(5)}, wantRev: 41},
		{name: "only unchanged tilts", goalOps: []GoalTreePatchOp{TiltOp(UserRootID, 0)}, wantRev: 41},
		{name: "one change", memOps: []L1MemoryPatchOp{AppendOp("a")}, wantRev: 42},
		{
			name:    "many changes in both parts still count once",
			goalOps: []GoalTreePatchOp{SproutOp(UserRootID, "a", "a", 1), TiltOp("a", 2), PruneOp("a")},
			memOps:  []L1MemoryPatchOp{AppendOp("a"), AppendOp("b"), RemoveOp(0)},
			wantRev: 42,
		},
		{
			name:    "changes that cancel out still count",
			memOps:  []L1MemoryPatchOp{AppendOp("a"), RemoveOp(0)},
			wantRev: 42,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			next, _ := Apply(stateWith(41, nil), tt.goalOps, tt.memOps)
			if next.Revision != tt.wantRev {
				t.Errorf("revision = %d, want %d", next.Revision, tt.wantRev)
			}
		})
	}
}

func TestApplyGoalOpsBeforeMemoryOps(t *testing.T) {
	next, diags := Apply(NewState(),
		[]GoalTreePatchOp{PruneOp("a"), SproutOp(UserRootID, "a", "a", 0)},
		[]L1MemoryPatchOp{RemoveOp(0), AppendOp("m")},
	)
	want := []string{"goal-tree-patch[0]:missing-node", "l1-memory-patch[0]:index-out-of-range"}
	if got := diagCodes(diags); !slices.Equal(got, want) {
		t.Errorf("diagnostics = %v, want %v", got, want)
	}
	if len(next.GoalTree.UserPartition.Children) != 1 || !slices.Equal(next.L1Memory.Entries, []string{"m"}) {
		t.Errorf("unexpected result %s", mustJSON(t, next))
	}
	if diags[0].Op != "prune" || diags[1].Op != "remove" || diags[0].Detail == "" {
		t.Errorf("diagnostics lack op or detail: %+v", diags)
	}
}

func TestApplyDoesNotMutatePrev(t *testing.T) {
	prev := stateWith(1, []string{"a", "b", "c"},
		node("g", 1, node("g1", 2, node("g11", 3)), node("g2", 4)),
		node("h", 5),
	)
	before := mustJSON(t, prev)
	next, _ := Apply(prev,
		[]GoalTreePatchOp{SproutOp("g11", "new", "new", 1), TiltOp("g1", 99), PruneOp("g2"), TiltOp(UserRootID, 3)},
		[]L1MemoryPatchOp{InsertOp(1, "x"), RemoveOp(0), AppendOp("y")},
	)
	if after := mustJSON(t, prev); after != before {
		t.Fatalf("prev changed\nbefore %s\n after %s", before, after)
	}
	// The result must not share memory with prev either.
	next.GoalTree.UserPartition.Children[1].Weight = 500
	next.GoalTree.UserPartition.Children[0].Children[0].Summary = "changed"
	next.L1Memory.Entries[0] = "changed"
	next.GoalTree.RootPartition[0] = "changed"
	if after := mustJSON(t, prev); after != before {
		t.Fatalf("prev shares memory with next\nbefore %s\n after %s", before, after)
	}
}
