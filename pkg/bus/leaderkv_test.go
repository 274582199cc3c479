package bus_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestLeaderGetReadsAsKVGet(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b", History: 4})
	if err != nil {
		t.Fatal(err)
	}
	rev, err := kv.Put(ctx, "k.1", []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	e, err := bus.LeaderGet(ctx, js, "b", "k.1")
	if err != nil {
		t.Fatal(err)
	}
	if string(e.Value()) != "one" || e.Revision() != rev || e.Key() != "k.1" || e.Bucket() != "b" ||
		e.Operation() != jetstream.KeyValuePut || e.Created().IsZero() || e.Delta() != 0 {
		t.Fatalf("entry %q rev %d key %s bucket %s op %v created %v", e.Value(), e.Revision(), e.Key(), e.Bucket(), e.Operation(), e.Created())
	}
	// Through LeaderReads, as kv.Get: a newer revision, then a deleted
	// and a purged key, and one never written, are not found.
	lr := bus.LeaderReads(js, kv)
	if rev, err = kv.Put(ctx, "k.1", []byte("two")); err != nil {
		t.Fatal(err)
	}
	if e, err := lr.Get(ctx, "k.1"); err != nil || string(e.Value()) != "two" || e.Revision() != rev {
		t.Fatalf("after a second put: %v", err)
	}
	if err := kv.Delete(ctx, "k.1"); err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k.2", []byte("x")); err != nil {
		t.Fatal(err)
	}
	if err := kv.Purge(ctx, "k.2"); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"k.1", "k.2", "k.3"} {
		if _, err := lr.Get(ctx, k); !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("%s: %v, want ErrKeyNotFound", k, err)
		}
		if _, err := kv.Get(ctx, k); !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Errorf("kv.Get %s: %v, want ErrKeyNotFound", k, err)
		}
	}
	// A wildcard would read another key's entry: refused as kv.Get does.
	for _, k := range []string{"k.*", "k.>", "", ".k", "k.", "k..1", "a b"} {
		if _, err := bus.LeaderGet(ctx, js, "b", k); !errors.Is(err, jetstream.ErrInvalidKey) {
			t.Errorf("key %q: %v, want ErrInvalidKey", k, err)
		}
	}
	// A bucket that does not exist: the server's error.
	var apiErr *jetstream.APIError
	if _, err := bus.LeaderGet(ctx, js, "none", "k"); !errors.As(err, &apiErr) || apiErr.ErrorCode != jetstream.JSErrCodeStreamNotFound {
		t.Fatalf("missing bucket: %v", err)
	}
}

func TestLeaderGetUsesTheAPIPrefix(t *testing.T) {
	_, nc, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	// The server answers only $JS.API: a client told another prefix
	// sends there, so its request finds no responder.
	for _, o := range []func() (jetstream.JetStream, error){
		func() (jetstream.JetStream, error) { return jetstream.NewWithAPIPrefix(nc, "$JS.API") },
		func() (jetstream.JetStream, error) { return jetstream.NewWithAPIPrefix(nc, "other.API.") },
		func() (jetstream.JetStream, error) { return jetstream.NewWithDomain(nc, "hub") },
	} {
		pjs, err := o()
		if err != nil {
			t.Fatal(err)
		}
		_, err = bus.LeaderGet(ctx, pjs, "b", "k")
		switch prefix := pjs.Options().APIPrefix; {
		case prefix == "$JS.API" && err != nil:
			t.Errorf("prefix %s: %v", prefix, err)
		case prefix != "$JS.API" && !errors.Is(err, nats.ErrNoResponders):
			t.Errorf("prefix %q domain %q: %v, want no responders", prefix, pjs.Options().Domain, err)
		}
	}
}

// TestLeaderGetAfterPutOnACluster: a client of a follower reads a key
// right after another client wrote it. kv.Get may be answered by the
// follower before it applied the write; LeaderGet always sees it.
func TestLeaderGetAfterPutOnACluster(t *testing.T) {
	ctx, cl := natstest.StartProvisionedCluster(t, 3)
	_, js := cl.Connect(t)
	if _, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "lag", Replicas: 3}); err != nil {
		t.Fatal(err)
	}
	cl.WaitDirectGets(t, "KV_lag")
	leader, follower := cl.Split(t, ctx, "KV_lag")
	w, err := leader.KeyValue(ctx, "lag")
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		k := fmt.Sprintf("k%d", i%5)
		rev, err := w.Put(ctx, k, fmt.Appendf(nil, "%d", i))
		if err != nil {
			t.Fatal(err)
		}
		e, err := bus.LeaderGet(ctx, follower, "lag", k)
		if err != nil || e.Revision() != rev {
			t.Fatalf("round %d: %v, want revision %d", i, err, rev)
		}
	}
}

// TestLeaderGetRefusesMalformedAnswers: whatever answers the request (a
// responder on another API prefix here), an answer that is not a stored
// message is an error, never an entry; a limit marker (a key its TTL
// removed) is a missing key.
func TestLeaderGetRefusesMalformedAnswers(t *testing.T) {
	_, nc, _ := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	answers := map[string]string{
		"not json":      `{`,
		"no message":    `{"type":"io.nats.jetstream.api.v1.stream_msg_get_response"}`,
		"bad headers":   `{"message":{"subject":"$KV.b.k","seq":3,"hdrs":"bm90IGhlYWRlcnM=","data":"dg==","time":"2026-11-22T10:00:00Z"}}`,
		"server error":  `{"error":{"code":500,"err_code":10001,"description":"boom"}}`,
		"ttl marker":    `{"message":{"subject":"$KV.b.k","seq":4,"hdrs":"TkFUUy8xLjANCk5hdHMtTWFya2VyLVJlYXNvbjogTWF4QWdlDQoNCg==","time":"2026-11-22T10:00:00Z"}}`,
		"stored, valid": `{"message":{"subject":"$KV.b.k","seq":3,"hdrs":"TkFUUy8xLjANCg0K","data":"dg==","time":"2026-11-22T10:00:00Z"}}`,
	}
	for name, answer := range answers {
		t.Run(name, func(t *testing.T) {
			sub, err := nc.Subscribe("fake.API.STREAM.MSG.GET.KV_b", func(m *nats.Msg) { _ = m.Respond([]byte(answer)) })
			if err != nil {
				t.Fatal(err)
			}
			defer func() { _ = sub.Unsubscribe() }()
			js, err := jetstream.NewWithAPIPrefix(nc, "fake.API")
			if err != nil {
				t.Fatal(err)
			}
			e, err := bus.LeaderGet(ctx, js, "b", "k")
			if name == "ttl marker" {
				if !errors.Is(err, jetstream.ErrKeyNotFound) {
					t.Fatalf("a key removed by its TTL: %v %v, want ErrKeyNotFound", e, err)
				}
				return
			}
			if name == "stored, valid" {
				if err != nil || string(e.Value()) != "v" || e.Revision() != 3 {
					t.Fatalf("%v", err)
				}
				return
			}
			if err == nil || errors.Is(err, jetstream.ErrKeyNotFound) {
				t.Fatalf("answer %s: entry %v, error %v", answer, e, err)
			}
		})
	}
}

func TestLeaderLastMsg(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "S", Subjects: []string{"s.>"}}); err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg("s.a")
	m.Header.Set("X-Test", "1")
	m.Data = []byte("one")
	if _, err := js.PublishMsg(ctx, m); err != nil {
		t.Fatal(err)
	}
	if _, err := js.Publish(ctx, "s.b", []byte("two")); err != nil {
		t.Fatal(err)
	}
	got, err := bus.LeaderLastMsg(ctx, js, "S", "s.a")
	if err != nil || string(got.Data) != "one" || got.Header.Get("X-Test") != "1" || got.Sequence != 1 || got.Subject != "s.a" {
		t.Fatalf("%+v, %v", got, err)
	}
	if got, err := bus.LeaderLastMsg(ctx, js, "S", "s.b"); err != nil || string(got.Data) != "two" || got.Header == nil {
		t.Fatalf("no headers: %+v, %v", got, err)
	}
	if _, err := bus.LeaderLastMsg(ctx, js, "S", "s.c"); !errors.Is(err, jetstream.ErrMsgNotFound) {
		t.Fatalf("nothing stored: %v", err)
	}
	// A wildcard would return another subject's last message.
	for _, subject := range []string{"s.*", "s.>", "", "s. a"} {
		if _, err := bus.LeaderLastMsg(ctx, js, "S", subject); !errors.Is(err, jetstream.ErrInvalidSubject) {
			t.Errorf("%q: %v, want ErrInvalidSubject", subject, err)
		}
	}
}
