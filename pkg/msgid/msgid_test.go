package msgid_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

func TestForIsKeyedAndDeterministic(t *testing.T) {
	a, err := msgid.NewKey(bytes.Repeat([]byte{1}, msgid.KeySize))
	if err != nil {
		t.Fatal(err)
	}
	a2, _ := msgid.NewKey(bytes.Repeat([]byte{1}, msgid.KeySize))
	b, _ := msgid.NewKey(bytes.Repeat([]byte{2}, msgid.KeySize))
	const id = "run1.built.1"
	ida, err := a.For(id)
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := a2.For(id); again != ida {
		t.Fatalf("the same key gave %q then %q", ida, again)
	}
	if other, _ := b.For(id); other == ida {
		t.Fatalf("two keys gave the same id %q", ida)
	}
	if next, _ := a.For("run1.built.2"); next == ida || !strings.HasPrefix(next, "run1.built.2.") {
		t.Fatalf("the next event's id %q", next)
	}
	if !strings.HasPrefix(ida, id+".") || len(ida) != len(id)+1+msgid.TagLen {
		t.Fatalf("id %q is not the event id and a %d-digit tag", ida, msgid.TagLen)
	}
	if _, err := (msgid.Key{}).For(id); !errors.Is(err, msgid.ErrNoKey) {
		t.Fatalf("zero key: err = %v", err)
	}
	if _, err := msgid.NewKey([]byte("short")); !errors.Is(err, msgid.ErrBadKey) {
		t.Fatalf("short key: err = %v", err)
	}
	for _, s := range []string{a.String(), fmt.Sprintf("%v %+v %#v %s", a, a, a, a)} {
		if strings.Contains(s, "\x01") || strings.Contains(s, "[1 1") || !strings.Contains(s, "msgid.Key(set)") {
			t.Fatalf("a key prints as %q", s)
		}
	}
}

// TestEnsureKeepsTheStoredKey: the key is created once; ensuring again
// (another provisioner, a later `codali up`) keeps it.
func TestEnsureKeepsTheStoredKey(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := bus.MsgIDKey(ctx, js); err == nil {
		t.Fatal("loaded a key from a bucket that does not exist")
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: events.BucketKeys})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := bus.MsgIDKey(ctx, js); !errors.Is(err, jetstream.ErrKeyNotFound) {
		t.Fatalf("missing key: err = %v", err)
	}
	if err := msgid.Ensure(ctx, kv); err != nil {
		t.Fatal(err)
	}
	first, err := bus.MsgIDKey(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	if err := msgid.Ensure(ctx, kv); err != nil {
		t.Fatal(err)
	}
	second, err := bus.MsgIDKey(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	a, _ := first.For("x")
	b, _ := second.For("x")
	if a != b {
		t.Fatal("ensuring again replaced the key")
	}
	if _, err := kv.Put(ctx, msgid.StoreKey, []byte("short")); err != nil {
		t.Fatal(err)
	}
	if _, err := bus.MsgIDKey(ctx, js); !errors.Is(err, msgid.ErrBadKey) {
		t.Fatalf("malformed key: err = %v", err)
	}
	// A bucket that cannot be read is an error, never a new key.
	if err := js.DeleteKeyValue(ctx, events.BucketKeys); err != nil {
		t.Fatal(err)
	}
	if err := msgid.Ensure(ctx, kv); err == nil || !strings.Contains(err.Error(), "could not read the message id key") {
		t.Fatalf("ensure on a deleted bucket: err = %v", err)
	}
}
