package builder_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/worker"
	"github.com/nats-io/nats.go/jetstream"
)

// TestRedeliveredDecisionRepublishesTheNextPark: the decision that
// resumes a run leads to a second park (the model asks for another call
// that needs approval); the builder stores the second park, but its
// approval_requested is not published (the publish failed, or the builder
// stopped before it). The decision is redelivered: the builder must hand
// the second park out again, or nobody learns of it and the run waits
// for its deadline. The park handed out again references the model
// exchanges of the handling that made it, as the lost one did (the
// history keeps the run's exchanges from it; a rerun needs them all).
func TestRedeliveredDecisionRepublishesTheNextPark(t *testing.T) {
	p := newParking(t, "repark", 2)
	first := p.parked(p.handle(p.plan, 1, 1))
	call := first.Calls[0].ID
	dec, err := events.NewKeyed("repark", events.KindApprovalDecided, 1, call, "agent/ci", apptest.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionApprove, By: "alice", At: apptest.Now().Add(time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	col := &exchange.Collector{Deferred: true}
	second := p.parked(p.handleIn(exchange.WithCollector(apptest.Ctx(t), col), dec, 7, 1)) // the outputs are lost: never published
	if second.Park == first.Park {
		t.Fatalf("the resumed run parked on the same call %s", second.Park)
	}
	made, err := col.Wait()
	if err != nil || len(made) != 1 || made[0].Step != 2 {
		t.Fatalf("exchanges of the handling that parked again: %+v (err %v)", made, err)
	}
	if !reflect.DeepEqual(second.Exchanges, made) {
		t.Fatalf("the park references %+v, want the handling's %+v", second.Exchanges, made)
	}
	again := p.parked(p.handleIn(exchange.WithCollector(apptest.Ctx(t), &exchange.Collector{Deferred: true}), dec, 7, 2))
	if again.Park != second.Park {
		t.Fatalf("the redelivered decision parked on %s, want the stored park %s", again.Park, second.Park)
	}
	if !reflect.DeepEqual(again.Exchanges, made) {
		t.Fatalf("the park handed out again references %+v, want %+v", again.Exchanges, made)
	}
}

// answering is a model provider that answers every request.
type answering struct{}

func (answering) Complete(context.Context, llm.Request) (llm.Response, error) {
	return llm.Response{Content: "ok"}, nil
}

// TestParkWaitsForTheExchangeRecords: a park is stored with the
// references of its handling's exchanges, so it waits for their records;
// when one could not be stored the handling fails (transiently: handled
// again) and stores no park that would reference it.
func TestParkWaitsForTheExchangeRecords(t *testing.T) {
	p := newParking(t, "unrecorded", 1)
	col := &exchange.Collector{Deferred: true}
	ctx := exchange.WithCollector(apptest.Ctx(t), col)
	// An exchange of the handling whose record is not stored: a call
	// recorded into an artifact store whose connection is closed.
	broken := apptest.Deps(t, `{}`, apptest.Options{})
	broken.JS.Conn().Close()
	if _, err := exchange.NewRecorder(answering{}, broken.Artifacts, nil, nil).Complete(ctx, llm.Request{Phase: "builder", RunID: "unrecorded", Step: 1}); err != nil {
		t.Fatalf("a deferred call failed for its record: %v", err)
	}
	outs, err := p.handleIn(ctx, p.plan, 1, 1)
	if !errors.Is(err, llm.ErrUnavailable) || worker.IsPermanent(err) || len(outs) != 0 {
		t.Fatalf("parking with an unstored record: %d events, err %v", len(outs), err)
	}
	kv, err := p.d.JS.KeyValue(apptest.Ctx(t), events.BucketParks)
	if err != nil {
		t.Fatal(err)
	}
	if e, err := kv.Get(apptest.Ctx(t), "unrecorded"); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("a park was stored: %v %v", e, err)
	}
	// Handled again with its records stored, the run parks.
	p.parked(p.handleIn(exchange.WithCollector(apptest.Ctx(t), &exchange.Collector{Deferred: true}), p.plan, 1, 2))
}
