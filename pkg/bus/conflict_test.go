package bus_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// TestIsConflict: lost compare-and-sets are conflicts, other errors are
// not (a replicated bucket's conflict code is covered by the approval
// store's cluster test).
func TestIsConflict(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "c"})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := kv.Create(ctx, "k", []byte("1"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Create(ctx, "k", []byte("2")); !bus.IsConflict(err) {
		t.Errorf("second Create: %v is no conflict", err)
	}
	if _, err := kv.Update(ctx, "k", []byte("2"), rev+7); !bus.IsConflict(err) {
		t.Errorf("Update at another revision: %v is no conflict", err)
	}
	_, err = kv.Get(ctx, "missing")
	for _, e := range []error{nil, err, context.DeadlineExceeded, errors.New("boom")} {
		if bus.IsConflict(e) {
			t.Errorf("%v taken for a conflict", e)
		}
	}
}
