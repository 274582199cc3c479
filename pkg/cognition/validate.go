package cognition

import (
	"errors"
	"fmt"
)

// Validate checks the invariants of a persisted state: the root partition
// equals the constants, the user root id is UserRootID, every node id is
// non-empty and unique, and every weight lies in [MinWeight, MaxWeight]. It
// returns nil for a valid state, otherwise every problem joined with
// errors.Join, each wrapping ErrInvalidState.
func Validate(s CognitionState) error {
	var errs []error
	if !equalStrings(s.GoalTree.RootPartition, RootPartition()) {
		errs = append(errs, fmt.Errorf("%w: root partition %q differs from the constants", ErrInvalidState, s.GoalTree.RootPartition))
	}
	if id := s.GoalTree.UserPartition.NodeID; id != UserRootID {
		errs = append(errs, fmt.Errorf("%w: user partition root id is %q, want %q", ErrInvalidState, id, UserRootID))
	}
	seen := make(map[string]bool)
	var walk func(n GoalNode, path string)
	walk = func(n GoalNode, path string) {
		switch {
		case n.NodeID == "":
			errs = append(errs, fmt.Errorf("%w: empty node id at %s", ErrInvalidState, path))
		case seen[n.NodeID]:
			errs = append(errs, fmt.Errorf("%w: duplicate node id %q", ErrInvalidState, n.NodeID))
		default:
			seen[n.NodeID] = true
		}
		if n.Weight < MinWeight || n.Weight > MaxWeight {
			errs = append(errs, fmt.Errorf("%w: node %q weight %d outside [%d, %d]", ErrInvalidState, n.NodeID, n.Weight, MinWeight, MaxWeight))
		}
		for i, c := range n.Children {
			walk(c, fmt.Sprintf("%s/%d", path, i))
		}
	}
	walk(s.GoalTree.UserPartition, "user_partition")
	return errors.Join(errs...)
}
