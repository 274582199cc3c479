package main

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natsauth/natsauthtest"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/runclaim"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
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

// TestSubmitRequestRetryAfterALostAck: the request was stored but its
// acknowledgement lost (a leader died). Sent again, the server refuses it
// as a duplicate: after an attempt without an answer that is our own
// request, and success; on a first attempt, or when the run's subject
// holds another request, the run id is taken.
func TestSubmitRequestRetryAfterALostAck(t *testing.T) {
	srv := natstest.Start(t)
	nc, js := natstest.Connect(t, srv)
	cl := &client{nc: nc, js: js}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	// A librarian consumer keeps requests in the interest stream.
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{events.ServiceLibrarian}); err != nil {
		t.Fatal(err)
	}
	request := func(run, text string) (events.Envelope, *nats.Msg) {
		env, err := events.New(run, events.KindRequested, 1, "codali/cli", time.Now(),
			events.Requested{Request: text, Repo: events.RepoRef{Path: "/repo"}})
		if err != nil {
			t.Fatal(err)
		}
		m, err := requestMsg(env)
		if err != nil {
			t.Fatal(err)
		}
		return env, m
	}
	env, m := request("lostack", "r")
	if _, err := js.PublishMsg(ctx, m); err != nil { // the attempt whose ack was lost
		t.Fatal(err)
	}
	if err := publishRequestOnce(ctx, cl, m, env, false); !errors.Is(err, ErrRunIDTaken) {
		t.Fatalf("first attempt finding the id stored: %v, want ErrRunIDTaken", err)
	}
	if err := publishRequestOnce(ctx, cl, m, env, true); err != nil {
		t.Fatalf("retry after an unanswered attempt: %v", err)
	}
	work, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	claims, err := runclaim.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	// consume stores m, lets the librarian claim the run with it when
	// claim is set, and removes it, as the consumers' acks do.
	consume := func(m *nats.Msg, claim bool) {
		t.Helper()
		ack, err := js.PublishMsg(ctx, m)
		if err != nil {
			t.Fatal(err)
		}
		if claim {
			e, err := events.Decoder{}.Decode(m.Subject, m.Data)
			if err != nil {
				t.Fatal(err)
			}
			if err := claims.Admit(ctx, e); err != nil {
				t.Fatal(err)
			}
		}
		if err := work.DeleteMsg(ctx, ack.Sequence); err != nil {
			t.Fatal(err)
		}
	}
	// Our request was stored, and consumed (removed) before the retry.
	env4, m4 := request("consumed", "r")
	consume(m4, true)
	if err := publishRequestOnce(ctx, cl, m4, env4, true); err != nil {
		t.Fatalf("retry after the stored request was consumed: %v", err)
	}
	// Another request was stored under our message id by someone who saw
	// our attempt go by, and consumed before our retry: the run's claim
	// holds that request, not ours.
	env5, m5 := request("forgedconsumed", "mine")
	_, forged5 := request("forgedconsumed", "forged")
	forged5.Header.Set(events.HeaderMsgID, env5.ID)
	consume(forged5, true)
	if err := publishRequestOnce(ctx, cl, m5, env5, true); !errors.Is(err, ErrRunIDTaken) {
		t.Fatalf("retry after another request under our id was consumed: %v, want ErrRunIDTaken", err)
	}
	// Consumed with no claim: whose it was cannot be told; not success.
	env6, m6 := request("unclaimed", "mine")
	consume(m6, false)
	if err := publishRequestOnce(ctx, cl, m6, env6, true); !errors.Is(err, ErrUnconfirmed) {
		t.Fatalf("retry after an unclaimed request was consumed: %v, want ErrUnconfirmed", err)
	}
	// Another request was stored under our message id (it names our
	// run, but is not what we sent).
	env3, m3 := request("sameid", "mine")
	_, forged := request("sameid", "forged")
	forged.Header.Set(events.HeaderMsgID, env3.ID)
	if _, err := js.PublishMsg(ctx, forged); err != nil {
		t.Fatal(err)
	}
	if err := publishRequestOnce(ctx, cl, m3, env3, true); !errors.Is(err, ErrRunIDTaken) {
		t.Fatalf("retry finding another request under its id: %v, want ErrRunIDTaken", err)
	}
	// Another request holds the run's subject (another message id).
	_, other := request("taken", "someone else's")
	if _, err := js.PublishMsg(ctx, other); err != nil {
		t.Fatal(err)
	}
	env2, m2 := request("taken", "mine")
	if err := publishRequestOnce(ctx, cl, m2, env2, true); !errors.Is(err, ErrRunIDTaken) {
		t.Fatalf("retry finding another request: %v, want ErrRunIDTaken", err)
	}
	if info, _ := work.Info(ctx); info.State.Msgs != 3 {
		t.Fatalf("%d requests stored, want 3", info.State.Msgs)
	}
}

// TestPublishEventRefusesAnIDAnotherEventTook: a decision whose id an
// earlier, different event took (a malformed decision an agent published
// on the same call) is dropped by the server as a duplicate; publishEvent
// says so instead of reporting success, also when that event was consumed
// already. The same event published again is still fine.
func TestPublishEventRefusesAnIDAnotherEventTook(t *testing.T) {
	srv := natstest.Start(t)
	nc, js := natstest.Connect(t, srv)
	cl := &client{nc: nc, js: js}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{events.ServiceBuilder}); err != nil {
		t.Fatal(err)
	}
	decision := func(note string) events.Envelope {
		env, err := events.NewKeyed("run-d", events.KindApprovalDecided, 1, "a1-s1-c1", "codali/cli", time.Now(),
			events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice", At: time.Now(), Note: note})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	first := decision("first")
	if err := publishEvent(ctx, cl, first); err != nil {
		t.Fatal(err)
	}
	if err := publishEvent(ctx, cl, first); err != nil {
		t.Fatalf("the same event again: %v", err)
	}
	err := publishEvent(ctx, cl, decision("second"))
	if !errors.Is(err, ErrDuplicateEvent) {
		t.Fatalf("another event with the id: %v, want ErrDuplicateEvent", err)
	}
	s, err := js.Stream(ctx, events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := s.GetLastMsgForSubject(ctx, events.KindApprovalDecided.Subject("run-d"))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteMsg(ctx, stored.Sequence); err != nil {
		t.Fatal(err)
	}
	if err := publishEvent(ctx, cl, decision("third")); !errors.Is(err, ErrDuplicateEvent) {
		t.Fatalf("after the first was consumed: %v, want ErrDuplicateEvent", err)
	}
}

// TestPublishEventChecksDuplicatesAsTheCLIIdentity: with NATS
// authentication, the agents' identity may read the stored event a
// duplicate acknowledgement names, so a republished event is still fine
// and another event's id is still reported (not a permission timeout).
func TestPublishEventChecksDuplicatesAsTheCLIIdentity(t *testing.T) {
	url, pw := natsauthtest.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	admin, err := nats.Connect(url, nats.UserInfo(natsauth.Provisioner, pw[natsauth.Provisioner]),
		nats.CustomInboxPrefix(natsauth.InboxPrefix(natsauth.Provisioner)))
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	adminJS, err := jetstream.New(admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := bus.Provision(ctx, adminJS, bus.Topology{}, []string{events.ServiceBuilder}); err != nil {
		t.Fatal(err)
	}
	nc, err := nats.Connect(url, nats.UserInfo(natsauth.CLI, pw[natsauth.CLI]), nats.CustomInboxPrefix(natsauth.InboxPrefix(natsauth.CLI)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	cl := &client{nc: nc, js: js}
	decision := func(note string) events.Envelope {
		env, err := events.NewKeyed("run-p", events.KindApprovalDecided, 1, "a1-s1-c1", "codali/cli", time.Now(),
			events.ApprovalDecidedData{Call: "a1-s1-c1", Decision: events.DecisionApprove, By: "alice", At: time.Now(), Note: note})
		if err != nil {
			t.Fatal(err)
		}
		return env
	}
	first := decision("first")
	for range 2 {
		if err := publishEvent(ctx, cl, first); err != nil {
			t.Fatalf("publish as %s: %v", natsauth.CLI, err)
		}
	}
	if err := publishEvent(ctx, cl, decision("second")); !errors.Is(err, ErrDuplicateEvent) {
		t.Fatalf("another event with the id as %s: %v, want ErrDuplicateEvent", natsauth.CLI, err)
	}
}
