package cognition

import (
	"slices"
	"testing"
)

func TestBoundMemory(t *testing.T) {
	tests := []struct {
		name       string
		entries    []string
		ops        []L1MemoryPatchOp
		max        int
		wantOps    []L1MemoryPatchOp
		wantMemory []string
	}{
		{
			name:       "no bound",
			entries:    []string{"a", "b", "c"},
			ops:        []L1MemoryPatchOp{AppendOp("d")},
			max:        0,
			wantOps:    []L1MemoryPatchOp{AppendOp("d")},
			wantMemory: []string{"a", "b", "c", "d"},
		},
		{
			name:       "under the bound",
			entries:    []string{"a"},
			ops:        []L1MemoryPatchOp{AppendOp("b")},
			max:        3,
			wantOps:    []L1MemoryPatchOp{AppendOp("b")},
			wantMemory: []string{"a", "b"},
		},
		{
			name:       "appends past the bound drop the oldest",
			entries:    []string{"a", "b"},
			ops:        []L1MemoryPatchOp{AppendOp("c"), AppendOp("d")},
			max:        3,
			wantOps:    []L1MemoryPatchOp{AppendOp("c"), AppendOp("d"), RemoveOp(0)},
			wantMemory: []string{"b", "c", "d"},
		},
		{
			name:       "state already over the bound without ops",
			entries:    []string{"a", "b", "c", "d"},
			max:        2,
			wantOps:    []L1MemoryPatchOp{RemoveOp(0), RemoveOp(0)},
			wantMemory: []string{"c", "d"},
		},
		{
			name:       "removes and skipped ops are accounted for",
			entries:    []string{"a", "b"},
			ops:        []L1MemoryPatchOp{RemoveOp(5), InsertOp(9, "x"), InsertOp(2, "c"), RemoveOp(0), AppendOp("d"), InsertOp(-1, "bad")},
			max:        2,
			wantOps:    []L1MemoryPatchOp{RemoveOp(5), InsertOp(9, "x"), InsertOp(2, "c"), RemoveOp(0), AppendOp("d"), InsertOp(-1, "bad"), RemoveOp(0)},
			wantMemory: []string{"c", "d"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			prev := stateWith(10, tt.entries)
			ops := BoundMemory(prev, tt.ops, tt.max)
			if !slices.Equal(ops, tt.wantOps) {
				t.Fatalf("ops = %+v, want %+v", ops, tt.wantOps)
			}
			next, _ := Apply(prev, nil, ops)
			if !slices.Equal(next.L1Memory.Entries, tt.wantMemory) {
				t.Errorf("memory = %q, want %q", next.L1Memory.Entries, tt.wantMemory)
			}
			if next.Revision != 11 {
				t.Errorf("revision = %d, want 11 (one step)", next.Revision)
			}
		})
	}
}

func TestBoundMemoryDoesNotAliasInput(t *testing.T) {
	in := make([]L1MemoryPatchOp, 1, 4)
	in[0] = AppendOp("a")
	out := BoundMemory(NewState(), in, 0)
	out[0] = AppendOp("changed")
	if in[0].Value != "a" {
		t.Error("BoundMemory returned the caller's slice")
	}
}
