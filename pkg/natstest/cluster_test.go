package natstest_test

import (
	"context"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

func TestClusterSurvivesLeaderLoss(t *testing.T) {
	c := natstest.StartCluster(t, 3)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	_, js := c.Connect(t)
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "T", Subjects: []string{"t.>"}, Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "t.1", []byte("a")); err != nil {
		t.Fatal(err)
	}
	leader := c.StreamLeader(ctx, js, "T")
	if leader < 0 {
		t.Fatal("no stream leader")
	}
	c.Stop(leader)
	for {
		pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
		_, err := js.Publish(pctx, "t.2", []byte("b"))
		pcancel()
		if err == nil {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("no publish after the leader stopped: %v", err)
		}
	}
	if now := c.StreamLeader(ctx, js, "T"); now == leader || now < 0 {
		t.Fatalf("leader %d after stopping %d", now, leader)
	}
	c.Restart(t, leader)
	if !c.Running(leader) {
		t.Fatal("not running after restart")
	}
	s, err := js.Stream(ctx, "T")
	if err != nil {
		t.Fatal(err)
	}
	if n := s.CachedInfo().State.Msgs; n != 2 {
		t.Fatalf("%d messages, want 2", n)
	}
}
