package artifacts_test

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

// TestPutNewWritesTheLibrarysLayout: what PutNew, and Put of a name not
// stored yet, write themselves (up to one chunk) read back through the library exactly like an object the
// library's own Put stored: the same size, chunk count and digest, and
// the same bytes. Sizes around the one-chunk bound, and empty content.
func TestPutNewWritesTheLibrarysLayout(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	puts := map[string]func(context.Context, string, []byte) (events.ArtifactRef, error){"PutNew": s.PutNew, "Put": s.Put}
	for _, n := range []int{0, 1, 1000, 128<<10 - 1, 128 << 10, 128<<10 + 1, 300 << 10} {
		for name, put := range puts {
			data := bytes.Repeat([]byte{'a' + byte(n%26)}, n)
			ref, err := put(ctx, name, data)
			if err != nil {
				t.Fatalf("%s, %d bytes: %v", name, n, err)
			}
			got, err := obj.GetBytes(ctx, ref.Name)
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes: library read %d bytes, %v", n, len(got), err)
			}
			ours, err := obj.GetInfo(ctx, ref.Name)
			if err != nil {
				t.Fatal(err)
			}
			theirs, err := obj.PutBytes(ctx, "library/"+ref.Name, data)
			if err != nil {
				t.Fatal(err)
			}
			if ours.Size != theirs.Size || ours.Chunks != theirs.Chunks || ours.Digest != theirs.Digest || ours.Deleted {
				t.Fatalf("%d bytes: stored as %+v, the library stores %+v", n, ours, theirs)
			}
			if got, err := s.Get(ctx, ref); err != nil || !bytes.Equal(got, data) {
				t.Fatalf("%d bytes: Get: %d bytes, %v", n, len(got), err)
			}
		}
	}
}

// TestPutNewTwiceThenPut: a name stored twice by PutNew reads the second
// object; the library's Put of the name afterwards replaces it and
// purges its chunk, and the bucket's listing shows the name once.
func TestPutNewTwiceThenPut(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	data := []byte(`{"exchange":1}`)
	ref, err := s.PutNew(ctx, "twice", data)
	if err != nil {
		t.Fatal(err)
	}
	if again, err := s.PutNew(ctx, "twice", data); err != nil || again != ref {
		t.Fatalf("second put: %+v %v", again, err)
	}
	if same, err := s.Put(ctx, "twice", data); err != nil || same != ref {
		t.Fatalf("Put of the same content: %+v %v", same, err)
	}
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obj.PutBytes(ctx, ref.Name, data); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(ctx, ref); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("get: %q %v", got, err)
	}
	list, err := obj.List(ctx)
	if err != nil || len(list) != 1 || list[0].Name != ref.Name {
		t.Fatalf("listing: %+v %v", list, err)
	}
}

// TestPutNewWithoutItsBucket: with the bucket's stream gone, PutNew says
// it could not store the artifact (after retrying for a while).
func TestPutNewWithoutItsBucket(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	if err := js.DeleteStream(ctx, "OBJ_"+events.BucketArtifacts); err != nil {
		t.Fatal(err)
	}
	pctx, cancel := context.WithTimeout(ctx, 20*time.Second)
	defer cancel()
	_, err := s.PutNew(pctx, "gone", []byte("x"))
	if err == nil || !strings.Contains(err.Error(), "could not store artifact gone/") {
		t.Fatalf("err = %v", err)
	}
}

// openProvisioned is provisioned and a store over it.
func openProvisioned(t testing.TB) (jetstream.JetStream, *artifacts.Store) {
	t.Helper()
	js := provisioned(t)
	s, err := artifacts.Open(context.Background(), js)
	if err != nil {
		t.Fatal(err)
	}
	return js, s
}

// provisioned is a JetStream context on a fresh embedded server with
// Codali's streams and buckets.
func provisioned(t testing.TB) jetstream.JetStream {
	t.Helper()
	_, _, js := natstest.StartJS(t)
	if err := bus.Provision(context.Background(), js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	return js
}

// BenchmarkPutNew stores a 3 KB record (the size of a model exchange's)
// and a 300 KB diff (three chunks) as PutNew does, and as the library's
// Put does.
func BenchmarkPutNew(b *testing.B) {
	ctx := context.Background()
	js := provisioned(b)
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		b.Fatal(err)
	}
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		b.Fatal(err)
	}
	for _, size := range []struct {
		name string
		data []byte
	}{{"3KB", bytes.Repeat([]byte("exchange "), 350)}, {"300KB", bytes.Repeat([]byte("diff "), 60<<10)}} {
		b.Run("codali/"+size.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := s.PutNew(ctx, "bench/"+size.name+"/"+strconv.Itoa(i), size.data); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run("library/"+size.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				if _, err := obj.PutBytes(ctx, "library/"+size.name+"/"+strconv.Itoa(i), size.data); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
