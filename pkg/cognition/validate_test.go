package cognition

import (
	"errors"
	"testing"
)

func TestValidate(t *testing.T) {
	tests := []struct {
		name      string
		state     func() CognitionState
		wantCount int
	}{
		{name: "default state", state: NewState, wantCount: 0},
		{name: "deep valid tree", state: func() CognitionState {
			return stateWith(5, []string{"m"}, node("a", 1000, node("b", -1000, node("c", 0))), node("d", 1))
		}, wantCount: 0},
		{name: "root partition changed", state: func() CognitionState {
			s := NewState()
			s.GoalTree.RootPartition[2] = "Something else."
			return s
		}, wantCount: 1},
		{name: "root partition missing", state: func() CognitionState {
			s := NewState()
			s.GoalTree.RootPartition = nil
			return s
		}, wantCount: 1},
		{name: "root partition with an extra goal", state: func() CognitionState {
			s := NewState()
			s.GoalTree.RootPartition = append(s.GoalTree.RootPartition, "More.")
			return s
		}, wantCount: 1},
		{name: "wrong user root id", state: func() CognitionState {
			s := NewState()
			s.GoalTree.UserPartition.NodeID = "root"
			return s
		}, wantCount: 1},
		{name: "duplicate sibling ids", state: func() CognitionState {
			return stateWith(0, nil, node("a", 0), node("a", 1))
		}, wantCount: 1},
		{name: "descendant reusing the user root id", state: func() CognitionState {
			return stateWith(0, nil, node("a", 0, node(UserRootID, 0)))
		}, wantCount: 1},
		{name: "empty node id", state: func() CognitionState {
			return stateWith(0, nil, node("", 0))
		}, wantCount: 1},
		{name: "weight above the maximum", state: func() CognitionState {
			return stateWith(0, nil, node("a", 1001))
		}, wantCount: 1},
		{name: "weight below the minimum", state: func() CognitionState {
			s := NewState()
			s.GoalTree.UserPartition.Weight = -1001
			return s
		}, wantCount: 1},
		{name: "every problem is reported", state: func() CognitionState {
			s := stateWith(0, nil, node("a", 5000), node("a", 0), node("", 0))
			s.GoalTree.RootPartition = []string{"x"}
			s.GoalTree.UserPartition.NodeID = "root"
			return s
		}, wantCount: 5},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := Validate(tt.state())
			if tt.wantCount == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidState) {
				t.Fatalf("error %v does not wrap ErrInvalidState", err)
			}
			joined, ok := err.(interface{ Unwrap() []error })
			if !ok {
				t.Fatalf("error %T is not joined", err)
			}
			errs := joined.Unwrap()
			if len(errs) != tt.wantCount {
				t.Fatalf("got %d problems, want %d: %v", len(errs), tt.wantCount, err)
			}
			for _, e := range errs {
				if !errors.Is(e, ErrInvalidState) {
					t.Errorf("problem %v does not wrap ErrInvalidState", e)
				}
			}
		})
	}
}
