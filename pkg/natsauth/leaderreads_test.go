package natsauth_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/nats-io/nats.go/jetstream"
)

// TestEachIdentityMakesItsLeaderReads: every read a service or the CLI
// makes through a bucket's stream leader (bus.LeaderGet, LeaderLastMsg:
// the message get only the leader answers) is allowed to the identity
// that makes it, and answered: a missing key is not found, not a request
// the server drops for want of permission (which would time out, a
// transient error retried for good). The call sites: run claims (every
// service and submit), run summaries (the CLI's
// approve, budget and rao verify), project state (the phases), parks
// (the builder), policies (the phases), artifacts (whoever reads them).
// Agents (the CLI identity) still cannot read the policies bucket.
func TestEachIdentityMakesItsLeaderReads(t *testing.T) {
	c := start(t)
	prov := c.as(t, natsauth.Provisioner)
	if err := bus.Provision(ctx(t, 30*time.Second), prov.js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	phases := []string{events.ServiceLibrarian, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic}
	reads := map[string][]string{
		events.ServiceRecorder: {events.BucketRequests, events.BucketRuns},
		natsauth.CLI:           {events.BucketRequests, events.BucketRuns},
	}
	for _, p := range phases {
		reads[p] = []string{events.BucketRequests, events.BucketRuns, events.BucketPMState, events.BucketPolicies}
	}
	reads[events.ServiceBuilder] = append(reads[events.ServiceBuilder], events.BucketParks)
	artifactReaders := append([]string{natsauth.CLI}, phases...)
	for name, buckets := range reads {
		id := c.as(t, name)
		for _, b := range buckets {
			if _, err := bus.LeaderGet(ctx(t, 10*time.Second), id.js, b, "run-none"); !errors.Is(err, jetstream.ErrKeyNotFound) {
				t.Errorf("%s reading %s through its leader: %v, want not found (errors %v)", name, b, err, id.errs)
			}
		}
	}
	for _, name := range artifactReaders {
		id := c.as(t, name)
		meta := "$O." + events.BucketArtifacts + ".M.bm9uZQ=="
		if _, err := bus.LeaderLastMsg(ctx(t, 10*time.Second), id.js, "OBJ_"+events.BucketArtifacts, meta); !errors.Is(err, jetstream.ErrMsgNotFound) {
			t.Errorf("%s reading an artifact's metadata through the leader: %v, want not found (errors %v)", name, err, id.errs)
		}
	}
	cli := c.as(t, natsauth.CLI)
	pols := "$JS.API.STREAM.MSG.GET.KV_" + events.BucketPolicies
	cli.check(t, "read a policy through the bucket's leader", pols, func(c context.Context) error {
		_, err := bus.LeaderGet(c, cli.js, events.BucketPolicies, "run1.x")
		return err
	})
}
