package raostore

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/nats-io/nats.go/jetstream"
)

// env is a running server with the RAO stream and a Store over it.
type env struct {
	srv   *bus.Embedded
	js    jetstream.JetStream
	store *Store
	ctx   context.Context
}

func setup(t *testing.T) env {
	t.Helper()
	srv, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatalf("provision: %v", err)
	}
	st, err := Open(ctx, js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	return env{srv: srv, js: js, store: st, ctx: ctx}
}

var t0 = time.Date(2025, 3, 1, 10, 0, 0, 0, time.UTC)

// states returns n small canonical states of a run.
func states(n int) [][]byte {
	out := make([][]byte, n)
	for i := range n {
		calls := ""
		for j := max(0, i-5); j <= i; j++ {
			if calls != "" {
				calls += ","
			}
			calls += fmt.Sprintf(`{"ok":true,"tool":"write_file","n":%d}`, j)
		}
		raw := fmt.Sprintf(`{"calls":[%s],"status":"step-%d"}`, calls, i+1)
		c, err := rao.CanonicalizeJSON([]byte(raw))
		if err != nil {
			panic(err)
		}
		out[i] = c
	}
	return out
}

// record appends the given states to run through store, continuing the
// stored history, and returns the new events.
func record(t *testing.T, e env, store *Store, runID string, sts [][]byte, causePrefix string) []rao.Event {
	t.Helper()
	history, last, err := store.Load(e.ctx, runID)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	c, err := rao.Resume(rao.Builder{RunID: runID}, history)
	if err != nil {
		t.Fatalf("Resume: %v", err)
	}
	var out []rao.Event
	for i, st := range sts {
		ev, err := c.Next(st, rao.KindRun, fmt.Sprintf("%s-%d", causePrefix, i), "step", rao.Meta{PolicyHash: "p"}, t0.Add(time.Duration(len(history)+i)*time.Second))
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		seq, err := store.Append(e.ctx, ev, last)
		if err != nil {
			t.Fatalf("Append %s: %v", ev.ID, err)
		}
		if seq <= last {
			t.Fatalf("Append returned seq %d after %d", seq, last)
		}
		last = seq
		out = append(out, ev)
	}
	return out
}

// sameEvents fails unless got and want hash identically, in order.
func sameEvents(t *testing.T, got, want []rao.Event) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d events, want %d", len(got), len(want))
	}
	for i := range got {
		hg, err1 := rao.Hash(got[i])
		hw, err2 := rao.Hash(want[i])
		if err1 != nil || err2 != nil || hg != hw {
			t.Fatalf("event %d differs: %s vs %s (%v %v)", i, got[i].ID, want[i].ID, err1, err2)
		}
	}
}

func TestAppendLoadRoundTrip(t *testing.T) {
	e := setup(t)
	sts := states(25)
	want := record(t, e, e.store, "run-1", sts, "evt")
	got, last, err := e.store.Load(e.ctx, "run-1")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	sameEvents(t, got, want)
	if last != 25 {
		t.Fatalf("last subject seq %d, want 25", last)
	}
	if r := rao.Verify(got); !r.OK() {
		t.Fatalf("loaded history: %s", r)
	}
	if st, err := rao.Replay(got, 0); err != nil || !bytes.Equal(st, sts[24]) {
		t.Fatalf("Replay: %v", err)
	}
	t.Run("unknown run", func(t *testing.T) {
		evs, last, err := e.store.Load(e.ctx, "run-none")
		if err != nil || len(evs) != 0 || last != 0 {
			t.Fatalf("Load = %d events, %d, %v", len(evs), last, err)
		}
	})
	t.Run("stored bytes are the encoding", func(t *testing.T) {
		msg, err := e.store.st.GetLastMsgForSubject(e.ctx, Subject("run-1"))
		if err != nil {
			t.Fatalf("GetLastMsgForSubject: %v", err)
		}
		enc, _ := rao.Encode(want[24])
		if !bytes.Equal(msg.Data, enc) || msg.Header.Get(jetstream.MsgIDHeader) != "rao.run-1.evt-24" {
			t.Fatalf("stored %s with id %q", msg.Data, msg.Header.Get(jetstream.MsgIDHeader))
		}
	})
}

func TestAppendConflict(t *testing.T) {
	e := setup(t)
	sts := states(4)
	record(t, e, e.store, "run-1", sts[:2], "evt")
	// Two writers load the same history; the first to append wins.
	history, last, err := e.store.Load(e.ctx, "run-1")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	a, _ := rao.Resume(rao.Builder{}, history)
	b, _ := rao.Resume(rao.Builder{}, history)
	evA, _ := a.Next(sts[2], rao.KindRun, "writer-a", "", rao.Meta{}, t0)
	evB, _ := b.Next(sts[3], rao.KindRun, "writer-b", "", rao.Meta{}, t0)
	if _, err := e.store.Append(e.ctx, evA, last); err != nil {
		t.Fatalf("first writer: %v", err)
	}
	seq, err := e.store.Append(e.ctx, evB, last)
	if !errors.Is(err, ErrConflict) || errors.Is(err, ErrDuplicate) || seq != 0 {
		t.Fatalf("second writer: seq %d, %v; want ErrConflict", seq, err)
	}
	var ce *ConflictError
	if !errors.As(err, &ce) || ce.Expected != last || ce.Actual != last+1 || ce.Error() == "" {
		t.Fatalf("ConflictError = %+v", ce)
	}
	got, _, err := e.store.Load(e.ctx, "run-1")
	if err != nil || len(got) != 3 || got[2].Cause != "writer-a" {
		t.Fatalf("history after conflict: %d events, %v", len(got), err)
	}
	t.Run("stale writer on an empty run", func(t *testing.T) {
		c := rao.NewChain(rao.Builder{RunID: "run-2"})
		ev, _ := c.Next(sts[0], rao.KindRun, "x", "", rao.Meta{}, t0)
		if _, err := e.store.Append(e.ctx, ev, 7); !errors.Is(err, ErrConflict) {
			t.Fatalf("got %v, want ErrConflict", err)
		}
	})
}

func TestAppendDuplicate(t *testing.T) {
	e := setup(t)
	sts := states(3)
	first := record(t, e, e.store, "run-1", sts[:1], "evt")
	history, last, _ := e.store.Load(e.ctx, "run-1")

	t.Run("redelivered cause", func(t *testing.T) {
		// A restarted recorder handles pipeline event evt-0 again and builds
		// a new event for it on top of the current history.
		c, _ := rao.Resume(rao.Builder{}, history)
		again, _ := c.Next(sts[1], rao.KindRun, first[0].Cause, "again", rao.Meta{}, t0.Add(time.Hour))
		seq, err := e.store.Append(e.ctx, again, last)
		if !errors.Is(err, ErrDuplicate) || !errors.Is(err, ErrConflict) {
			t.Fatalf("got %v, want ErrDuplicate (and ErrConflict)", err)
		}
		if seq != last {
			t.Fatalf("duplicate reported seq %d, want the stored message %d", seq, last)
		}
		if got, _, _ := e.store.Load(e.ctx, "run-1"); len(got) != 1 {
			t.Fatalf("duplicate was stored: %d events", len(got))
		}
	})
	t.Run("retry after a lost acknowledgement", func(t *testing.T) {
		c, _ := rao.Resume(rao.Builder{}, history)
		ev, _ := c.Next(sts[1], rao.KindRun, "evt-1", "", rao.Meta{}, t0)
		seq, err := e.store.Append(e.ctx, ev, last)
		if err != nil {
			t.Fatalf("Append: %v", err)
		}
		again, err := e.store.Append(e.ctx, ev, last) // same event, same expectation
		if !errors.Is(err, ErrDuplicate) || again != seq {
			t.Fatalf("retry: seq %d, %v; want ErrDuplicate with seq %d", again, err, seq)
		}
		if got, _, _ := e.store.Load(e.ctx, "run-1"); len(got) != 2 {
			t.Fatalf("history has %d events, want 2", len(got))
		}
	})
}

func TestCompact(t *testing.T) {
	e := setup(t)
	sts := states(50)
	all := record(t, e, e.store, "run-1", sts[:45], "evt")
	first, ok := rao.CompactionPoint(all, 25)
	if !ok || first != 30 {
		t.Fatalf("CompactionPoint = %d, %v", first, ok)
	}
	if err := e.store.Compact(e.ctx, "run-1", first); err != nil {
		t.Fatalf("Compact: %v", err)
	}
	got, _, err := e.store.Load(e.ctx, "run-1")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	sameEvents(t, got, all[29:])
	r := rao.Verify(got)
	if !r.OK() || !r.Has(30, rao.BreakCompacted) {
		t.Fatalf("compacted history: %s", r)
	}
	if st, err := rao.Replay(got, 0); err != nil || !bytes.Equal(st, sts[44]) {
		t.Fatalf("Replay after compaction: %v", err)
	}
	more := record(t, e, e.store, "run-1", sts[45:], "more")
	got, _, err = e.store.Load(e.ctx, "run-1")
	if err != nil || len(got) != 21 || got[20].Seq != 50 || more[4].Seq != 50 {
		t.Fatalf("after appending past compaction: %d events, %v", len(got), err)
	}
	if r := rao.Verify(got); !r.OK() {
		t.Fatalf("continued history: %s", r)
	}

	tests := []struct {
		name string
		seq  uint64
		want error
	}{
		{name: "not a checkpoint", seq: 35, want: ErrNotCheckpoint},
		{name: "compacted away", seq: 20, want: rao.ErrNotFound},
		{name: "past the end", seq: 60, want: rao.ErrNotFound},
		{name: "already first", seq: 30, want: nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := e.store.Compact(e.ctx, "run-1", tc.seq)
			if !errors.Is(err, tc.want) || (tc.want == nil && err != nil) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
			if got, _, _ := e.store.Load(e.ctx, "run-1"); len(got) != 21 {
				t.Fatalf("history changed to %d events", len(got))
			}
		})
	}
}

func TestEnforce(t *testing.T) {
	e := setup(t)
	record(t, e, e.store, "run-1", states(45), "evt")
	first, ok, err := e.store.Enforce(e.ctx, "run-1", rao.Retention{MaxEvents: 25}, t0.Add(time.Hour))
	if err != nil || !ok || first != 30 {
		t.Fatalf("Enforce = %d, %v, %v", first, ok, err)
	}
	if _, ok, err := e.store.Enforce(e.ctx, "run-1", rao.Retention{MaxEvents: 25}, t0.Add(time.Hour)); err != nil || ok {
		t.Fatalf("second Enforce = %v, %v; want nothing to do", ok, err)
	}
	if _, _, err := e.store.Enforce(e.ctx, "run-1", rao.Retention{MaxEvents: -1}, t0); !errors.Is(err, rao.ErrInvalidConfig) {
		t.Fatalf("got %v, want rao.ErrInvalidConfig", err)
	}
	if _, _, err := e.store.Enforce(e.ctx, "bad.id", rao.Retention{}, t0); !errors.Is(err, ErrInvalidRunID) {
		t.Fatalf("got %v, want ErrInvalidRunID", err)
	}
}

// TestRestart simulates a recorder restart: a new connection and Store on
// the same server load the history and continue it.
func TestRestart(t *testing.T) {
	e := setup(t)
	sts := states(25)
	record(t, e, e.store, "run-1", sts[:13], "evt")

	_, js2 := natstest.Connect(t, e.srv)
	store2, err := Open(e.ctx, js2)
	if err != nil {
		t.Fatalf("Open after restart: %v", err)
	}
	record(t, e, store2, "run-1", sts[13:], "evt-after")

	got, last, err := e.store.Load(e.ctx, "run-1")
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if len(got) != 25 || last != 25 {
		t.Fatalf("history has %d events, last seq %d", len(got), last)
	}
	for i, ev := range got {
		if ev.Seq != uint64(i+1) {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
	if r := rao.Verify(got); !r.OK() || len(r.Findings) != 0 {
		t.Fatalf("history across the restart: %s", r)
	}
	if st, err := rao.Replay(got, 0); err != nil || !bytes.Equal(st, sts[24]) {
		t.Fatalf("Replay: %v", err)
	}
}

func TestRunsAndStats(t *testing.T) {
	e := setup(t)
	record(t, e, e.store, "run-b", states(12), "evt")
	record(t, e, e.store, "run-a", states(3), "evt")
	runs, err := e.store.Runs(e.ctx)
	if err != nil || fmt.Sprint(runs) != "[run-a run-b]" {
		t.Fatalf("Runs = %v, %v", runs, err)
	}
	stats, err := e.store.AllStats(e.ctx)
	if err != nil {
		t.Fatalf("AllStats: %v", err)
	}
	if len(stats) != 2 || stats["run-a"].Events != 3 || stats["run-b"].Events != 12 || stats["run-b"].BytesStored == 0 {
		t.Fatalf("AllStats = %+v", stats)
	}
	last, err := e.store.LastSequence(e.ctx)
	if err != nil || last != 15 {
		t.Fatalf("LastSequence = %d, %v", last, err)
	}
	t.Run("a corrupt run does not hide the others", func(t *testing.T) {
		if _, err := e.js.Publish(e.ctx, Subject("run-c"), []byte(`not an event`)); err != nil {
			t.Fatalf("Publish: %v", err)
		}
		stats, err := e.store.AllStats(e.ctx)
		if !errors.Is(err, ErrCorruptEvent) || len(stats) != 2 {
			t.Fatalf("AllStats = %d runs, %v", len(stats), err)
		}
	})
	t.Run("a history that does not replay", func(t *testing.T) {
		c := rao.NewChain(rao.Builder{RunID: "run-d"})
		sts := states(2)
		if _, err := c.Next(sts[0], rao.KindRun, "x1", "", rao.Meta{}, t0); err != nil {
			t.Fatalf("Next: %v", err)
		}
		ev2, err := c.Next(sts[1], rao.KindRun, "x2", "", rao.Meta{}, t0)
		if err != nil {
			t.Fatalf("Next: %v", err)
		}
		// Store event 2 without event 1: the history lacks its start.
		if _, err := e.store.Append(e.ctx, ev2, 0); err != nil {
			t.Fatalf("Append: %v", err)
		}
		if _, err := e.store.AllStats(e.ctx); !errors.Is(err, rao.ErrNoBaseline) {
			t.Fatalf("got %v, want rao.ErrNoBaseline among the errors", err)
		}
	})
}

func TestLoadCorrupt(t *testing.T) {
	e := setup(t)
	good := record(t, e, e.store, "run-1", states(2), "evt")
	tests := []struct {
		name string
		run  string
		data []byte
	}{
		{name: "not an event", run: "run-1", data: []byte(`{"hello":"world"}`)},
		{name: "event of another run", run: "run-2", data: func() []byte { b, _ := rao.Encode(good[0]); return b }()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ack, err := e.js.Publish(e.ctx, Subject(tc.run), tc.data)
			if err != nil {
				t.Fatalf("Publish: %v", err)
			}
			_, _, err = e.store.Load(e.ctx, tc.run)
			var ce *CorruptEventError
			if !errors.Is(err, ErrCorruptEvent) || !errors.As(err, &ce) || ce.StreamSeq != ack.Sequence || ce.Error() == "" {
				t.Fatalf("got %v, want a CorruptEventError for stream seq %d", err, ack.Sequence)
			}
		})
	}
}

func TestStoreErrors(t *testing.T) {
	e := setup(t)
	ev := record(t, e, e.store, "run-1", states(1), "evt")[0]
	bad := ev
	bad.Kind = "note"
	tests := []struct {
		name string
		call func() error
		want error
	}{
		{name: "load bad run id", call: func() error { _, _, err := e.store.Load(e.ctx, "a.b"); return err }, want: ErrInvalidRunID},
		{name: "load wildcard run id", call: func() error { _, _, err := e.store.Load(e.ctx, ">"); return err }, want: ErrInvalidRunID},
		{name: "compact bad run id", call: func() error { return e.store.Compact(e.ctx, "", 1) }, want: ErrInvalidRunID},
		{name: "append invalid event", call: func() error { _, err := e.store.Append(e.ctx, bad, 1); return err }, want: rao.ErrInvalidEvent},
		{name: "append bad run id", call: func() error {
			b := ev
			b.RunID = "a*"
			_, err := e.store.Append(e.ctx, b, 1)
			return err
		}, want: ErrInvalidRunID},
		{name: "append unsealed event", call: func() error { _, err := e.store.AppendSealed(e.ctx, rao.Sealed{}, 1); return err }, want: ErrInvalidRunID},
		{name: "canceled context", call: func() error {
			ctx, cancel := context.WithCancel(e.ctx)
			cancel()
			_, _, err := e.store.Load(ctx, "run-1")
			return err
		}, want: context.Canceled},
		{name: "append with canceled context", call: func() error {
			ctx, cancel := context.WithCancel(e.ctx)
			cancel()
			next := ev
			next.Seq, next.ID, next.Cause = 2, "run-1.2", "evt-x"
			_, err := e.store.Append(ctx, next, 1)
			return err
		}, want: context.Canceled},
		{name: "open with canceled context", call: func() error {
			ctx, cancel := context.WithCancel(e.ctx)
			cancel()
			_, err := Open(ctx, e.js)
			return err
		}, want: context.Canceled},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

func TestNoStream(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	if _, err := Open(ctx, js); !errors.Is(err, ErrNoStream) {
		t.Fatalf("Open: got %v, want ErrNoStream", err)
	}
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatalf("provision: %v", err)
	}
	st, err := Open(ctx, js)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	c := rao.NewChain(rao.Builder{RunID: "run-1"})
	ev, _ := c.Next([]byte(`{"a":1}`), rao.KindRun, "x", "", rao.Meta{}, t0)
	if err := js.DeleteStream(ctx, StreamName); err != nil {
		t.Fatalf("DeleteStream: %v", err)
	}
	tests := []struct {
		name string
		call func() error
	}{
		{name: "load", call: func() error { _, _, err := st.Load(ctx, "run-1"); return err }},
		{name: "append", call: func() error { _, err := st.Append(ctx, ev, 0); return err }},
		{name: "runs", call: func() error { _, err := st.Runs(ctx); return err }},
		{name: "all stats", call: func() error { _, err := st.AllStats(ctx); return err }},
		{name: "last sequence", call: func() error { _, err := st.LastSequence(ctx); return err }},
		{name: "compact", call: func() error { return st.Compact(ctx, "run-1", 10) }},
		{name: "enforce", call: func() error { _, _, err := st.Enforce(ctx, "run-1", rao.Retention{}, t0); return err }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if err := tc.call(); !errors.Is(err, ErrNoStream) {
				t.Fatalf("got %v, want ErrNoStream", err)
			}
		})
	}
}

func TestMsgID(t *testing.T) {
	tests := []struct {
		name string
		ev   rao.Event
		want string
	}{
		{name: "cause", ev: rao.Event{RunID: "r1", Seq: 4, Cause: "evt-9"}, want: "rao.r1.evt-9"},
		{name: "no cause", ev: rao.Event{RunID: "r1", Seq: 4}, want: "rao.r1.4"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := MsgID(tc.ev); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
		})
	}
}
