package artifacts_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestConcurrentPutsOfTheSameContent: puts of the same content (so the
// same name) at once, PutNew and Put, one chunk and three, while a
// reader reads it: every put returns the reference, and no read calls
// the artifact lost or corrupt (a put of a larger object replaces it
// and purges the chunks of the one a read may be reading: that read
// reads again).
func TestConcurrentPutsOfTheSameContent(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, s := openProvisioned(t)
	for _, n := range []int{100, 300 << 10} {
		data := bytes.Repeat([]byte("c"), n)
		ref, err := s.Put(ctx, "same", data)
		if err != nil {
			t.Fatal(err)
		}
		var wg sync.WaitGroup
		errs := make(chan error, 100)
		for w := range 8 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range 5 {
					put := s.Put
					if w%2 == 0 {
						put = s.PutNew
					}
					if got, err := put(ctx, "same", data); err != nil || got != ref {
						errs <- fmt.Errorf("put: %+v, %w", got, err)
					}
				}
			}()
		}
		stop := make(chan struct{})
		read := make(chan int)
		go func() {
			reads := 0
			defer func() { read <- reads }()
			for {
				select {
				case <-stop:
					return
				default:
				}
				got, err := s.Get(ctx, ref)
				if artifacts.IsLost(err) || (err == nil && !bytes.Equal(got, data)) {
					errs <- fmt.Errorf("read during the puts: %d bytes, %w", len(got), err)
					return
				}
				reads++
			}
		}()
		wg.Wait()
		close(stop)
		t.Logf("%d bytes: %d reads during the puts", n, <-read)
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		if got, err := s.Get(ctx, ref); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes: Get after the puts: %v", n, err)
		}
	}
}

// TestGetAcrossLeaderChanges: objects of one chunk and of three, read
// again and again while the bucket's stream leader steps down, on three
// servers: a read may fail transiently during an election, but none
// calls an object that is stored lost or corrupt, and each reads back.
func TestGetAcrossLeaderChanges(t *testing.T) {
	ctx, c := natstest.StartProvisionedCluster(t, 3)
	_, js := c.Connect(t)
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	var refs []events.ArtifactRef
	for i := range 10 {
		n := 1000
		if i%2 == 1 {
			n = 300 << 10
		}
		ref, err := s.PutNew(ctx, "elections", bytes.Repeat([]byte{byte('a' + i)}, n))
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	transient := 0
	for round := range 6 {
		if _, err := js.Conn().Request("$JS.API.STREAM.LEADER.STEPDOWN.OBJ_"+events.BucketArtifacts, nil, 5*time.Second); err != nil {
			t.Logf("step down: %v", err)
		}
		for _, ref := range refs {
			gctx, cancel := context.WithTimeout(ctx, 20*time.Second)
			_, err := s.Get(gctx, ref)
			for err != nil && !artifacts.IsLost(err) && gctx.Err() == nil {
				transient++
				_, err = s.Get(gctx, ref)
			}
			cancel()
			if err != nil {
				t.Fatalf("round %d, %s (%d bytes): %v", round, ref.Name, ref.Size, err)
			}
		}
	}
	t.Logf("%d transient read failures", transient)
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		t.Fatal("out of time")
	}
}
