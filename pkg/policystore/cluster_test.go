package policystore_test

import (
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/policystore"
)

// TestLoadRightAfterPutOnACluster: `codali rao fork --policy` stores the
// run's policy and publishes its request at once; the first phase, a
// client of a follower of the policies bucket, loads the policy. It must
// find it: a read answered by a replica that has not applied it yet
// would end the forked run (a missing policy is refused for good). A
// hundred rounds on three servers.
func TestLoadRightAfterPutOnACluster(t *testing.T) {
	ctx, leader, follower := natstest.StartSplitCluster(t, "KV_"+events.BucketPolicies)
	var missing []string
	for i := range 100 {
		run := fmt.Sprintf("run-lag%d", i)
		digest, err := policystore.Put(ctx, leader, run, []byte(doc))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := policystore.Load(ctx, follower, run, events.PolicyRef{Digest: digest}); err != nil {
			missing = append(missing, fmt.Sprintf("%s: %v", run, err))
		}
	}
	if len(missing) > 0 {
		t.Fatalf("right after it was stored, the policy of %d of 100 runs could not be loaded: %v", len(missing), missing)
	}
}
