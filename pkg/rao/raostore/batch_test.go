package raostore

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// sealedEvents builds n events continuing runID's stored history (causes
// prefix-0, prefix-1, ...), without storing them, and the history's last
// stream sequence.
func sealedEvents(t *testing.T, e env, store *Store, runID string, n int, prefix string) ([]rao.Sealed, uint64) {
	t.Helper()
	history, last, err := store.Load(e.ctx, runID)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c, err := rao.Resume(rao.Builder{RunID: runID}, history)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	out := make([]rao.Sealed, n)
	for i, st := range states(len(history) + n)[len(history):] {
		out[i], err = c.NextSealed(st, rao.KindRun, fmt.Sprintf("%s-%d", prefix, i), "step", rao.Meta{PolicyHash: "p"}, t0.Add(time.Duration(len(history)+i)*time.Second))
		if err != nil {
			t.Fatalf("NextSealed: %v", err)
		}
	}
	return out, last
}

func eventsOf(sealed []rao.Sealed) []rao.Event {
	out := make([]rao.Event, len(sealed))
	for i, s := range sealed {
		out[i] = s.Event()
	}
	return out
}

// loadAll fails the test unless runID's stored history is want, in order,
// and verifies; it returns the last stream sequence.
func loadAll(t *testing.T, e env, store *Store, runID string, want []rao.Event) uint64 {
	t.Helper()
	got, last, err := store.Load(e.ctx, runID)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	sameEvents(t, got, want)
	if len(got) > 0 {
		if r := rao.Verify(got); !r.OK() {
			t.Fatalf("stored history: %s", r)
		}
	}
	return last
}

func TestAppendBatchIsAtomic(t *testing.T) {
	e := setup(t)
	// One server: the store appends one by one (see batchesPay); the
	// batch itself works the same there.
	e.store.atomic.Store(true)
	first, last := sealedEvents(t, e, e.store, "run-b", 3, "a")
	seq, err := e.store.AppendBatch(e.ctx, first, last)
	if err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	if got := loadAll(t, e, e.store, "run-b", eventsOf(first)); got != seq {
		t.Fatalf("AppendBatch returned seq %d, the history ends at %d", seq, got)
	}

	t.Run("a stale expected sequence stores nothing", func(t *testing.T) {
		more, _ := sealedEvents(t, e, e.store, "run-b", 3, "stale")
		_, err := e.store.AppendBatch(e.ctx, more, seq-1)
		var ce *ConflictError
		if !errors.As(err, &ce) || !errors.Is(err, ErrConflict) || ce.Actual != seq {
			t.Fatalf("AppendBatch with a stale sequence = %v, want a *ConflictError at %d", err, seq)
		}
		loadAll(t, e, e.store, "run-b", eventsOf(first))
	})

	t.Run("a stored event in the batch stores none of it", func(t *testing.T) {
		// The batch's last event has the cause (and so the message id) of
		// an event already stored: one by one, the first two would be
		// stored before the duplicate; as a batch, none is.
		more, _ := sealedEvents(t, e, e.store, "run-b", 3, "dup")
		evs := eventsOf(more)
		evs[2].Cause = first[0].Event().Cause
		resealed := make([]rao.Sealed, 3)
		for i, ev := range evs {
			if resealed[i], err = rao.Seal(ev); err != nil {
				t.Fatalf("Seal: %v", err)
			}
		}
		_, err := e.store.AppendBatch(e.ctx, resealed, seq)
		if !errors.Is(err, ErrDuplicate) || !errors.Is(err, ErrConflict) {
			t.Fatalf("AppendBatch with a stored message id = %v, want ErrDuplicate and ErrConflict", err)
		}
		loadAll(t, e, e.store, "run-b", eventsOf(first))
	})

	t.Run("more events than one batch holds", func(t *testing.T) {
		n := 2*maxAtomicBatch + 7
		more, last := sealedEvents(t, e, e.store, "run-b", n, "many")
		seq, err := e.store.AppendBatch(e.ctx, more, last)
		if err != nil {
			t.Fatalf("AppendBatch of %d: %v", n, err)
		}
		if got := loadAll(t, e, e.store, "run-b", append(eventsOf(first), eventsOf(more)...)); got != seq {
			t.Fatalf("AppendBatch returned seq %d, the history ends at %d", seq, got)
		}
	})
}

func TestAppendBatchRefusesBadInput(t *testing.T) {
	e := setup(t)
	if _, err := e.store.AppendBatch(e.ctx, nil, 0); !errors.Is(err, rao.ErrInvalidEvent) {
		t.Fatalf("AppendBatch of nothing = %v, want rao.ErrInvalidEvent", err)
	}
	a, _ := sealedEvents(t, e, e.store, "run-x", 1, "a")
	b, _ := sealedEvents(t, e, e.store, "run-y", 1, "b")
	if _, err := e.store.AppendBatch(e.ctx, []rao.Sealed{a[0], b[0]}, 0); !errors.Is(err, rao.ErrInvalidEvent) {
		t.Fatalf("AppendBatch across runs = %v, want rao.ErrInvalidEvent", err)
	}
	if _, err := e.store.AppendBatch(e.ctx, []rao.Sealed{{}}, 0); !errors.Is(err, ErrInvalidRunID) {
		t.Fatalf("AppendBatch of an unsealed event = %v, want ErrInvalidRunID", err)
	}
	loadAll(t, e, e.store, "run-x", nil)
	loadAll(t, e, e.store, "run-y", nil)
}

// TestAppendBatchWithoutAtomicPublish: a RAO stream provisioned before it
// allowed atomic publish takes the events one by one.
func TestAppendBatchWithoutAtomicPublish(t *testing.T) {
	e := setup(t)
	cfg := bus.Topology{}.RAOStream()
	if err := e.js.DeleteStream(e.ctx, cfg.Name); err != nil {
		t.Fatalf("DeleteStream: %v", err)
	}
	cfg.AllowAtomicPublish = false
	if _, err := e.js.CreateStream(e.ctx, cfg); err != nil {
		t.Fatalf("CreateStream: %v", err)
	}
	store, err := Open(e.ctx, e.js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	evs, last := sealedEvents(t, e, store, "run-c", 4, "a")
	if _, err := store.AppendBatch(e.ctx, evs, last); err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	loadAll(t, e, store, "run-c", eventsOf(evs))

	t.Run("a store opened before the stream lost atomic publish", func(t *testing.T) {
		store.atomic.Store(true)
		more, last := sealedEvents(t, e, store, "run-c", 3, "b")
		if _, err := store.AppendBatch(e.ctx, more, last); err != nil {
			t.Fatalf("AppendBatch: %v", err)
		}
		if store.atomic.Load() {
			t.Fatal("the store still takes the stream for one with atomic publish")
		}
		loadAll(t, e, store, "run-c", append(eventsOf(evs), eventsOf(more)...))
	})

	t.Run("provisioning with update allows it", func(t *testing.T) {
		if err := bus.Provision(e.ctx, e.js, bus.Topology{Update: true}, []string{}); err != nil {
			t.Fatalf("Provision: %v", err)
		}
		st, err := e.js.Stream(e.ctx, cfg.Name)
		if err != nil {
			t.Fatalf("Stream: %v", err)
		}
		if !st.CachedInfo().Config.AllowAtomicPublish {
			t.Fatal("the updated RAO stream does not allow atomic publish")
		}
	})
}

// TestAppendBatchOverTheServersBatchLimit: a server whose max_batch_size
// is below the batch refuses it; the events go one by one.
func TestAppendBatchOverTheServersBatchLimit(t *testing.T) {
	srv, err := server.NewServer(&server.Options{
		Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
		JetStream: true, StoreDir: t.TempDir(),
		JetStreamLimits: server.JSLimitOpts{MaxBatchSize: 2},
	})
	if err != nil {
		t.Fatalf("NewServer: %v", err)
	}
	srv.Start()
	t.Cleanup(srv.Shutdown)
	if !srv.ReadyForConnections(30 * time.Second) {
		t.Fatal("server not ready")
	}
	nc, err := nats.Connect(srv.ClientURL())
	if err != nil {
		t.Fatalf("Connect: %v", err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatalf("jetstream: %v", err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	store, err := Open(ctx, js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	store.atomic.Store(true)
	e := env{js: js, store: store, ctx: ctx}
	evs, last := sealedEvents(t, e, store, "run-d", 5, "a")
	if _, err := store.AppendBatch(ctx, evs, last); err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	loadAll(t, e, store, "run-d", eventsOf(evs))
}

func TestBatchesPay(t *testing.T) {
	rao := bus.Topology{}.RAOStream()
	for _, tc := range []struct {
		name     string
		replicas int
		atomic   bool
		want     bool
	}{
		{"three replicas", 3, true, true},
		{"one replica: the server stages a batch on disk", 1, true, false},
		{"provisioned without atomic publish", 3, false, false},
	} {
		cfg := rao
		cfg.Replicas, cfg.AllowAtomicPublish = tc.replicas, tc.atomic
		if got := batchesPay(cfg); got != tc.want {
			t.Errorf("%s: batchesPay = %v, want %v", tc.name, got, tc.want)
		}
	}
	if !rao.AllowAtomicPublish {
		t.Error("the RAO stream's configuration does not allow atomic publish")
	}
}

// TestAppendBatchOnACluster: Open on three replicas sends batches, and a
// batch's events are stored in order.
func TestAppendBatchOnACluster(t *testing.T) {
	cl := natstest.StartCluster(t, 3)
	_, js := cl.Connect(t)
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{Replicas: 3}, []string{}); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	store, err := Open(ctx, js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	if !store.atomic.Load() {
		t.Fatal("Open on a replicated RAO stream does not send atomic batches")
	}
	e := env{js: js, store: store, ctx: ctx}
	evs, last := sealedEvents(t, e, store, "run-r3", 5, "a")
	if _, err := store.AppendBatch(ctx, evs, last); err != nil {
		t.Fatalf("AppendBatch: %v", err)
	}
	loadAll(t, e, store, "run-r3", eventsOf(evs))
	if !store.atomic.Load() {
		t.Fatal("the store stopped sending atomic batches")
	}
}

// TestLoadAfterAppendOnACluster: Load's ordered consumer may be placed on
// a follower that has not applied the newest batch yet; Load still returns
// the whole history the leader acknowledged, never a short one. Before
// the fix about one load in twenty-five came back empty, so a hundred
// rounds catch a regression almost surely.
func TestLoadAfterAppendOnACluster(t *testing.T) {
	cl := natstest.StartCluster(t, 3)
	_, js := cl.Connect(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{Replicas: 3}, []string{}); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	store, err := Open(ctx, js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	e := env{js: js, store: store, ctx: ctx}
	for i := range 100 {
		run := fmt.Sprintf("run-lag%d", i)
		evs, last := sealedEvents(t, e, store, run, 3, "a")
		seq, err := store.AppendBatch(ctx, evs, last)
		if err != nil {
			t.Fatalf("AppendBatch: %v", err)
		}
		if got := loadAll(t, e, store, run, eventsOf(evs)); got != seq {
			t.Fatalf("round %d: Load ends at %d, AppendBatch stored up to %d", i, got, seq)
		}
	}
}
