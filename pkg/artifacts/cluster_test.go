package artifacts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestGetRightAfterPutOnACluster: a phase stores an artifact and the next
// one, a client of a follower of the artifacts bucket, fetches it at
// once. Get looks again for a few seconds, but a replica catching up
// after a restart can lag longer: with no second look here, a follower
// that has not applied the object yet must not make it lost (the run
// would fail for good); it is a transient error, and the object is there
// when the event is handled again. A hundred rounds on three servers.
func TestGetRightAfterPutOnACluster(t *testing.T) {
	ctx, leader, follower := natstest.StartSplitCluster(t, "OBJ_"+events.BucketArtifacts)
	w, err := artifacts.Open(ctx, leader)
	if err != nil {
		t.Fatal(err)
	}
	r, err := artifacts.Open(ctx, follower)
	if err != nil {
		t.Fatal(err)
	}
	artifacts.LookAgainFor(r, 0)
	var lost []string
	lagged := 0
	for i := range 100 {
		ref, err := w.PutNew(ctx, "lag", fmt.Appendf(nil, "artifact %d", i))
		if err != nil {
			t.Fatal(err)
		}
		_, err = r.Get(ctx, ref)
		if artifacts.IsLost(err) {
			lost = append(lost, fmt.Sprintf("%s: %v", ref.Name, err))
			continue
		}
		if err != nil {
			// Handled again later: the replica has caught up.
			lagged++
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			for err != nil && gctx.Err() == nil {
				_, err = r.Get(gctx, ref)
			}
			cancel()
			if err != nil {
				t.Fatalf("%s: still %v", ref.Name, err)
			}
		}
	}
	t.Logf("%d of 100 artifacts were not on the follower yet", lagged)
	if len(lost) > 0 {
		t.Fatalf("%d of 100 artifacts read right after they were stored were lost: %v", len(lost), lost)
	}
}

// TestGetOfADeletedArtifact: an object deleted from the bucket is lost
// (the leader has its deletion), not a replica that lags.
func TestGetOfADeletedArtifact(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	artifacts.LookAgainFor(s, 0)
	ref, err := s.Put(ctx, "gone", []byte("soon deleted"))
	if err != nil {
		t.Fatal(err)
	}
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	if err := obj.Delete(ctx, ref.Name); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(ctx, ref); !errors.Is(err, artifacts.ErrNotFound) || !strings.Contains(err.Error(), "(deleted)") {
		t.Fatalf("a deleted artifact: %v, want ErrNotFound", err)
	}
}

// TestPutNewAcrossLeaderChanges: artifacts (one in ten of three chunks,
// the others of one) stored while the bucket's stream leader steps down
// again and again, on three servers.
// Every put that succeeded reads back; every one that failed (a write in
// flight at the change times out or finds no leader) is stored by Put of
// the same content (the event handled again) and reads back: no failed
// put leaves a name that cannot be read.
func TestPutNewAcrossLeaderChanges(t *testing.T) {
	ctx, c := natstest.StartProvisionedCluster(t, 3)
	_, js := c.Connect(t)
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	const puts, every = 200, 20
	type result struct {
		data []byte
		ref  events.ArtifactRef
		err  error
	}
	results := make([]result, puts)
	progress := make(chan int)
	go func() {
		defer close(progress)
		for i := range puts {
			data := fmt.Appendf(nil, "exchange %d", i)
			if i%10 == 0 { // a diff of three chunks
				data = bytes.Repeat(data, 300<<10/len(data))
			}
			pctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			ref, err := s.PutNew(pctx, "stepdown", data)
			cancel()
			results[i] = result{data: data, ref: ref, err: err}
			if i%every == every-1 {
				progress <- i
			}
		}
	}()
	for range progress {
		// The leader steps down while the next puts are in flight.
		if _, err := js.Conn().Request("$JS.API.STREAM.LEADER.STEPDOWN.OBJ_"+events.BucketArtifacts, nil, 5*time.Second); err != nil {
			t.Logf("step down: %v", err)
		}
	}
	failed := 0
	for i, r := range results {
		if r.err != nil {
			failed++
			if r.ref, r.err = s.Put(ctx, "stepdown", r.data); r.err != nil {
				t.Fatalf("put %d again: %v", i, r.err)
			}
		}
		if got, err := s.Get(ctx, r.ref); err != nil || string(got) != string(r.data) {
			t.Fatalf("put %d: Get %q, %v", i, got, err)
		}
	}
	t.Logf("%d of %d puts failed during the leader changes and were stored again", failed, puts)
}

// TestPutWhileTheBucketHasNoQuorum: with two of three servers down, the
// bucket's stream has no leader and nothing answers a write; a put made
// then is tried again, attempt after timed-out attempt, and stores its
// artifact once the servers are back and a leader is elected.
func TestPutWhileTheBucketHasNoQuorum(t *testing.T) {
	ctx, c := natstest.StartProvisionedCluster(t, 3)
	_, js := c.ConnectMember(t, 0)
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	artifacts.AttemptTimeoutFor(s, time.Second)
	c.Stop(1)
	c.Stop(2)
	// A write now is not answered.
	pctx, cancel := context.WithTimeout(ctx, time.Second)
	_, err = js.Publish(pctx, "$O."+events.BucketArtifacts+".C.probe", []byte("probe"))
	cancel()
	if err == nil {
		t.Fatal("a write without a quorum was stored")
	}
	t.Logf("a write without a quorum: %v", err)
	type result struct {
		ref events.ArtifactRef
		err error
	}
	done := make(chan result, 2)
	data := map[string][]byte{"small": []byte("no quorum"), "large": bytes.Repeat([]byte("no quorum "), 30<<10)}
	for prefix, d := range data {
		go func() {
			ref, err := s.PutNew(ctx, prefix, d)
			done <- result{ref, err}
		}()
	}
	c.Restart(t, 1)
	c.Restart(t, 2)
	for range data {
		r := <-done
		if r.err != nil {
			t.Fatalf("put across the loss of quorum: %v", r.err)
		}
		if _, err := getSettled(ctx, s, r.ref); err != nil {
			t.Fatalf("Get %s: %v", r.ref.Name, err)
		}
	}
}

// getSettled reads ref, trying again for up to 30 s while the read fails
// transiently: a cluster whose servers just came back may still be
// electing leaders ("JetStream system temporarily unavailable").
func getSettled(ctx context.Context, s *artifacts.Store, ref events.ArtifactRef) ([]byte, error) {
	deadline := time.Now().Add(30 * time.Second)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		got, err := s.Get(ctx, ref)
		if err == nil || !bus.IsTransient(err) || time.Now().After(deadline) {
			return got, err
		}
		select {
		case <-tick.C:
		case <-ctx.Done():
			return got, err
		}
	}
}
