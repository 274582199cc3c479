package app

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/syncbuf"
)

// modelCalls is a handler that makes n model calls through a recorder
// storing in store, then produces one output.
func modelCalls(t *testing.T, store exchange.Putter, n int) func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
	t.Helper()
	script, err := llm.ParseScript([]byte(`{"responses": [{"phase": "builder", "content": "{\"done\": true}"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	model := exchange.NewRecorder(llm.NewScripted(script), store, nil, discard())
	return func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		for step := 1; step <= n; step++ {
			if _, err := model.Complete(ctx, llm.Request{Phase: "builder", RunID: in.RunID(), Attempt: 1, Step: step}); err != nil {
				return nil, err
			}
		}
		out, err := in.Follow(events.KindContext, 1, "codali/librarian", t0, map[string]any{"x": 1})
		return []events.Envelope{out}, err
	}
}

// TestRecordExchangesHandsOnStoredRecords: the outputs reference every
// exchange, in call order, and each reference's record is stored by the
// time the wrapped handler returns.
func TestRecordExchangesHandsOnStoredRecords(t *testing.T) {
	_, js := provisioned(t)
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, discard(), time.Now, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	h := d.recordExchanges("builder", modelCalls(t, d.Artifacts, 3))
	outs, err := h(testCtx(t), requestedEvent(t, "run-x"))
	if err != nil || len(outs) != 1 {
		t.Fatalf("handler: %v, %d outputs", err, len(outs))
	}
	var data struct {
		Exchanges []events.ExchangeRef `json:"exchanges"`
	}
	if err := events.DecodeData(outs[0], &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Exchanges) != 3 {
		t.Fatalf("%d exchanges referenced, want 3", len(data.Exchanges))
	}
	recs, err := exchange.Load(testCtx(t), d.Artifacts, data.Exchanges)
	if err != nil {
		t.Fatalf("a referenced record is not stored: %v", err)
	}
	for i, r := range recs {
		if r.Step != i+1 || data.Exchanges[i].Step != i+1 {
			t.Errorf("exchange %d is step %d (ref step %d), want call order", i, r.Step, data.Exchanges[i].Step)
		}
	}
}

// TestRecordExchangesFailsWhenARecordIsNotStored: a handler whose model
// calls succeeded still fails, transiently and without outputs, when one
// of their records could not be stored.
func TestRecordExchangesFailsWhenARecordIsNotStored(t *testing.T) {
	_, js := provisioned(t)
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, discard(), time.Now, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	srv, _ := provisioned(t)
	nc, bjs := natstest.Connect(t, srv)
	broken, err := artifacts.Open(testCtx(t), bjs)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	h := d.recordExchanges("builder", modelCalls(t, broken, 2))
	outs, err := h(testCtx(t), requestedEvent(t, "run-y"))
	if !errors.Is(err, llm.ErrUnavailable) || len(outs) != 0 {
		t.Fatalf("err %v with %d outputs, want llm.ErrUnavailable and none", err, len(outs))
	}
}

// TestRecordExchangesKeepsAHandlersOwnReferences: an output that already
// references exchanges (the builder's park, stored with them) is handed
// on as it is, not given the handling's references a second time nor
// stripped of its own, and without a warning that its exchanges are
// not referenced.
func TestRecordExchangesKeepsAHandlersOwnReferences(t *testing.T) {
	_, js := provisioned(t)
	var logs syncbuf.Buffer
	d, err := NewDeps(testCtx(t), parseConfig(t, `{}`), js, slog.New(slog.NewTextHandler(&logs, nil)), time.Now, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	own := []events.ExchangeRef{{Hash: "own", Step: 9, Ref: events.ArtifactRef{Bucket: "b", Name: "exchanges/own", Size: 1, SHA256: "own"}}}
	calls := modelCalls(t, d.Artifacts, 2)
	h := d.recordExchanges("builder", func(ctx context.Context, in events.Envelope) ([]events.Envelope, error) {
		outs, err := calls(ctx, in)
		if err != nil {
			return nil, err
		}
		outs[0], err = events.WithExchanges(outs[0], own)
		return outs, err
	})
	outs, err := h(testCtx(t), requestedEvent(t, "run-z"))
	if err != nil || len(outs) != 1 {
		t.Fatalf("handler: %v, %d outputs", err, len(outs))
	}
	var data struct {
		Exchanges []events.ExchangeRef `json:"exchanges"`
	}
	if err := events.DecodeData(outs[0], &data); err != nil {
		t.Fatal(err)
	}
	if len(data.Exchanges) != 1 || data.Exchanges[0].Hash != "own" {
		t.Fatalf("exchanges %+v, want the handler's own", data.Exchanges)
	}
	if strings.Contains(logs.String(), "not referenced") {
		t.Fatalf("warned of exchanges the event references:\n%s", logs.String())
	}
}
