package recorder

import (
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/worker"
)

func TestDeliveredSeqs(t *testing.T) {
	var d deliveredSeqs
	if d.all(1, 2) {
		t.Fatal("nothing delivered yet, but all(1, 2)")
	}
	for _, seq := range []uint64{10, 12, 13, 11, 9} { // 9: before the first, ignored
		d.add(seq)
	}
	for _, c := range []struct {
		from, to uint64
		want     bool
	}{{10, 14, true}, {11, 13, true}, {9, 12, false}, {10, 15, false}, {14, 14, true}} {
		if got := d.all(c.from, c.to); got != c.want {
			t.Errorf("all(%d, %d) = %v, want %v", c.from, c.to, got, c.want)
		}
	}
	// 14 never comes (it went elsewhere): the watermark stays; past
	// maxAboveWater waiting above it, it starts again after the highest.
	for seq := uint64(15); seq <= 15+maxAboveWater; seq++ {
		if !d.all(10, 14) {
			t.Fatalf("all(10, 14) turned false at %d", seq)
		}
		d.add(seq)
		if d.all(10, 16) {
			t.Fatalf("all(10, 16) with 14 never delivered (after %d)", seq)
		}
	}
	if d.all(10, 14) || len(d.above) != 0 {
		t.Fatalf("not started again past %d sequences above the watermark: base %d, water %d, %d above", maxAboveWater, d.base, d.water, len(d.above))
	}
	next := uint64(16 + maxAboveWater)
	d.add(next)
	if !d.all(next, next+1) || d.all(next-1, next+1) {
		t.Fatalf("after starting again: base %d, water %d", d.base, d.water)
	}
}

// lookups counts the recorder's requests for a run's earlier events in
// the work stream (message gets filtered by the run's subjects), per run:
// a lookup is one or more.
func lookups(t *testing.T, c cluster) func(run string) int {
	t.Helper()
	nc, _ := natstest.Connect(t, c.srv)
	sub, err := nc.SubscribeSync("$JS.API.STREAM.MSG.GET." + events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	return func(run string) int {
		t.Helper()
		// A request the server routed before this round trip is in the
		// subscription's queue when it returns.
		if err := nc.Flush(); err != nil {
			t.Fatal(err)
		}
		for {
			if pending, _, err := sub.Pending(); err != nil || pending == 0 {
				break
			}
			m, err := sub.NextMsg(time.Second)
			if err != nil {
				t.Fatal(err)
			}
			var req struct {
				NextBySubj string `json:"next_by_subj"`
			}
			if json.Unmarshal(m.Data, &req) == nil {
				n[req.NextBySubj]++
			}
		}
		return n[events.RunSubjects(run)]
	}
}

// interleaved stores the events of runs in the work stream, taking one
// event of each in turn, and returns them in stream order with their
// sequences.
func interleaved(t *testing.T, c cluster, runs ...string) ([]events.Envelope, []uint64) {
	t.Helper()
	var per [][]events.Envelope
	for _, r := range runs {
		per = append(per, runEvents(t, r))
	}
	var all []events.Envelope
	for i := range per[0] {
		for _, evs := range per {
			all = append(all, evs[i])
		}
	}
	return all, c.publishAll(t, all)
}

func deliverAt(ctx context.Context, h worker.Handler, e events.Envelope, seq uint64) error {
	_, err := h(worker.ContextWithDelivery(ctx, worker.Delivery{StreamSeq: seq, Deliveries: 1}), e)
	return err
}

// TestInterleavedRunsLookUpOnce: with runs interleaved in the work stream
// and every event delivered to one process in stream order, each run's
// earlier events are looked up for its first event only; its histories
// keep stream order.
func TestInterleavedRunsLookUpOnce(t *testing.T) {
	c := newCluster(t, `{}`)
	count := lookups(t, c)
	h, _ := c.process(t)
	all, seqs := interleaved(t, c, "il1", "il2")
	for i, e := range all {
		if err := deliverAt(testCtx(t), h, e, seqs[i]); err != nil {
			t.Fatalf("Handle %s: %v", e.ID, err)
		}
	}
	for _, run := range []string{"il1", "il2"} {
		want := runEvents(t, run)
		hist := c.history(t, run)
		checkRun(t, hist, stepCount(t, want))
		if got := causes(hist); !slices.Equal(got, ids(want)) {
			t.Errorf("run %s: history order %v, want %v", run, got, ids(want))
		}
	}
	// il1's first event is the stream's first: nothing before it to look up.
	if n1, n2 := count("il1"), count("il2"); n1 != 0 || n2 != 1 {
		t.Errorf("lookups of the earlier events: il1 %d, il2 %d; want 0 and 1 (il2's first event only)", n1, n2)
	}
}

// TestUnfoldedOrMissedPredecessorIsLookedUp: a run's event was delivered
// to this process but its handling failed (not folded), or went to
// another process: the run's next event looks its predecessors up and
// folds them first; with neither, it does not look.
func TestUnfoldedOrMissedPredecessorIsLookedUp(t *testing.T) {
	c := newCluster(t, `{}`)
	count := lookups(t, c)
	h, _ := c.process(t)
	other, _ := c.process(t)
	all, seqs := interleaved(t, c, "uf1", "uf2")
	cancelled, cancel := context.WithCancel(testCtx(t))
	cancel()
	// gets delivers all[i] to p and returns the message gets it made for
	// its run.
	gets := func(ctx context.Context, p worker.Handler, i int, fails bool) int {
		t.Helper()
		run := all[i].RunID()
		n := count(run)
		if err := deliverAt(ctx, p, all[i], seqs[i]); (err != nil) != fails {
			t.Fatalf("Handle %s: %v", all[i].ID, err)
		}
		return count(run) - n
	}
	// Both requests, then uf1's context fails here (its handler's context
	// is cancelled): uf1's plan looks it up; uf2's context and plan
	// (every earlier sequence delivered here and folded) do not look.
	gets(testCtx(t), h, 0, false)
	gets(testCtx(t), h, 1, false)
	gets(cancelled, h, 2, true)
	if n := gets(testCtx(t), h, 3, false); n != 0 {
		t.Errorf("uf2's context: %d message gets, want none", n)
	}
	if n := gets(testCtx(t), h, 4, false); n == 0 {
		t.Error("uf1's plan after its failed context: no message get")
	}
	if n := gets(testCtx(t), h, 5, false); n != 0 {
		t.Errorf("uf2's plan: %d message gets, want none", n)
	}
	// uf1's build goes to the other process: uf2's build, after that gap,
	// looks up; so does uf1's next event here.
	gets(testCtx(t), other, 6, false)
	if n := gets(testCtx(t), h, 7, false); n == 0 {
		t.Error("uf2's build after a sequence delivered elsewhere: no message get")
	}
	if n := gets(testCtx(t), h, 8, false); n == 0 {
		t.Error("uf1's retry after its build was delivered elsewhere: no message get")
	}
	for _, run := range []string{"uf1", "uf2"} {
		evs := runEvents(t, run)
		want := ids(evs[:4])
		if run == "uf1" {
			want = ids(evs[:5])
		}
		if got := causes(c.history(t, run)); !slices.Equal(got, want) {
			t.Errorf("run %s: history order %v, want %v", run, got, want)
		}
	}
}

func ids(evs []events.Envelope) []string {
	out := make([]string, len(evs))
	for i, e := range evs {
		out[i] = e.ID
	}
	return out
}
