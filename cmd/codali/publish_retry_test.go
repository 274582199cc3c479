package main

import (
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestSubmitRetriesAPublishThatFoundNoStream: the request is published
// while the stream cannot take it (as during a leader election: no
// responder, or a timeout); the publish is retried with the same message id
// until the stream answers, and the event is stored once.
func TestSubmitRetriesAPublishThatFoundNoStream(t *testing.T) {
	srv := natstest.Start(t)
	nc, js := natstest.Connect(t, srv)
	cl := &client{nc: nc, js: js}
	env, err := events.New("retried", events.KindRequested, 1, "codali/cli", time.Now(),
		events.Requested{Request: "r", Repo: events.RepoRef{Path: "/repo"}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	done := make(chan error, 1)
	go func() { done <- publishEvent(ctx, cl, env) }()
	// The stream appears only after the first attempts failed.
	eventually(t, "a failed publish attempt", func() bool {
		return srv.Server().NumSubscriptions() > 0 && nc.Stats().OutMsgs >= 2
	})
	if err := bus.Provision(ctx, js, bus.Topology{}, nil); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("publish was not retried: %v", err)
	}
	// Publishing the same event again is de-duplicated.
	if err := publishEvent(ctx, cl, env); err != nil {
		t.Fatal(err)
	}
	s, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	m, err := s.GetLastMsgForSubject(ctx, events.KindRequested.Subject("retried"))
	if err != nil {
		t.Fatal(err)
	}
	if info, _ := s.Info(ctx); info.State.Msgs != 1 || m.Header.Get(events.HeaderMsgID) != env.ID {
		t.Fatalf("%d messages stored, last id %q", info.State.Msgs, m.Header.Get(events.HeaderMsgID))
	}
}
