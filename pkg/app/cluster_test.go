package app

import (
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/cognition"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/pmstate"
)

// TestProjectStateUpdateRightAfterAWriteOnACluster: the architect adds a
// run's goal to the project state, and the critic, a client of a
// follower of the bucket, prunes it at once if it is there. The update
// must see the goal: read from a replica that has not applied the
// architect's write, it finds nothing to prune and writes nothing (no
// compare-and-set to catch it), and the goal stays in the project for
// good. A hundred rounds on three servers.
func TestProjectStateUpdateRightAfterAWriteOnACluster(t *testing.T) {
	ctx, leader, follower := natstest.StartSplitCluster(t, "KV_"+events.BucketPMState)
	cfg := parseConfig(t, `{}`)
	d, err := NewDeps(ctx, cfg, follower, discard(), time.Now, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	kv, err := leader.KeyValue(ctx, events.BucketPMState)
	if err != nil {
		t.Fatal(err)
	}
	architect, err := pmstate.New(kv)
	if err != nil {
		t.Fatal(err)
	}
	var kept []string
	for i := range 100 {
		project, goal := fmt.Sprintf("p%d", i%10), pmstate.RunGoalID(fmt.Sprintf("run-lag%d", i))
		if _, err := architect.Update(ctx, project, func(cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
			return []cognition.GoalTreePatchOp{cognition.SproutOp(cognition.UserRootID, goal, "run goal", 0)}, nil, nil
		}); err != nil {
			t.Fatal(err)
		}
		res, err := d.PM.Update(ctx, project, func(cur cognition.CognitionState) ([]cognition.GoalTreePatchOp, []cognition.L1MemoryPatchOp, error) {
			if _, ok := cur.GoalTree.UserPartition.Find(goal); !ok {
				return nil, nil, nil
			}
			return []cognition.GoalTreePatchOp{cognition.PruneOp(goal)}, nil, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		if !res.Changed {
			kept = append(kept, goal)
		}
	}
	if len(kept) > 0 {
		t.Fatalf("%d of 100 goals added right before were not pruned: %v", len(kept), kept)
	}
}
