package main

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
	"github.com/codali-dev/codali/pkg/rao/raostore"
)

// TestVerifyHistoryReadsAgainAfterAnAppendInProgress: verify reads a
// run's history, then its summary; an append and its summary landing
// between the two reads leave the history read one event short of the
// summary; verifyHistory reads it again and finds it whole. A history whose last
// event is really gone is reported the second time too.
func TestVerifyHistoryReadsAgainAfterAnAppendInProgress(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, _, js := natstest.StartJS(t)
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	store, err := raostore.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	runs, err := audit.OpenRuns(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	const run = "inflight"
	rec := &audit.Recorder{Store: store, CheckpointEvery: 3}
	record := func(cause string) {
		t.Helper()
		step := audit.Step{Cause: cause, Kind: rao.KindRun, Summary: cause, Mutate: func(s *audit.State) { s.Phase = cause }}
		c, err := rec.RecordChange(ctx, run, []audit.Step{step})
		if err != nil {
			t.Fatal(err)
		}
		if err := runs.Put(ctx, c.Summary()); err != nil {
			t.Fatal(err)
		}
	}
	record("one")
	record("two")
	before, _, err := store.Load(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	record("three") // its summary and its append, after the history was read
	reload := func(ctx context.Context) ([]rao.Event, error) {
		evs, _, err := store.Load(ctx, run)
		return evs, err
	}

	if ok, findings, err := verifyHistory(ctx, runs, run, before, reload); err != nil || !ok {
		t.Fatalf("a history read before an append that then landed: ok %v, findings %v, err %v; want it verified on reading it again", ok, findings, err)
	}
	if ok, findings, _ := verifyHistory(ctx, runs, run, before, nil); ok {
		t.Fatalf("without reading it again, the history one event short verified (findings %v): the test does not test the read", findings)
	}
	removed := func(context.Context) ([]rao.Event, error) { return before, nil }
	ok, findings, err := verifyHistory(ctx, runs, run, before, removed)
	if err != nil || ok || !strings.Contains(strings.Join(findings, "\n"), "removed") {
		t.Fatalf("a history whose last event is gone: ok %v, findings %v, err %v; want it reported removed", ok, findings, err)
	}
}
