package artifacts_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// publishMeta stores raw as the meta of the object called name, as the
// latest one (a roll-up), the way the object store writes it.
func publishMeta(t *testing.T, js jetstream.JetStream, name string, raw []byte) {
	t.Helper()
	m := nats.NewMsg("$O." + events.BucketArtifacts + ".M." + base64.URLEncoding.EncodeToString([]byte(name)))
	m.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	m.Data = raw
	if _, err := js.PublishMsg(context.Background(), m); err != nil {
		t.Fatal(err)
	}
}

// metaOf is the meta the object store writes for data stored as name in
// chunks on the subject of id.
func metaOf(t *testing.T, name, id string, data []byte) jetstream.ObjectInfo {
	t.Helper()
	sum := sha256.Sum256(data)
	return jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: 128 << 10}},
		Bucket:     events.BucketArtifacts, NUID: id, Size: uint64(len(data)), Chunks: uint32((len(data) + 128<<10 - 1) / (128 << 10)),
		Digest: "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:]),
	}
}

// marshal is info's JSON.
func marshal(t *testing.T, info jetstream.ObjectInfo) []byte {
	t.Helper()
	raw, err := json.Marshal(info)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// TestGetAndPutOverADamagedMeta: an object whose meta's digest is not its
// content's reads back (the content matches the reference, which is what
// Get checks), and Put stores it again with a right one; a meta that does
// not decode, or whose NUID cannot name a chunk subject (none, or a
// wildcard that would read every object's chunks), is ErrCorrupt,
// permanent, and Put stores the content again over it. One chunk and
// three.
func TestGetAndPutOverADamagedMeta(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10, 300 << 10} {
		data := bytes.Repeat([]byte("d"), n)
		ref, err := s.Put(ctx, "damaged", data)
		if err != nil {
			t.Fatal(err)
		}
		info, err := obj.GetInfo(ctx, ref.Name)
		if err != nil {
			t.Fatal(err)
		}
		wrong := *info
		wrong.Digest = metaOf(t, ref.Name, info.NUID, []byte("other")).Digest
		publishMeta(t, js, ref.Name, marshal(t, wrong))
		if got, err := s.Get(ctx, ref); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("%d bytes, the meta's digest wrong: Get %d bytes, %v", n, len(got), err)
		}
		readable(t, s, "damaged", data)
		if info, err := obj.GetInfo(ctx, ref.Name); err != nil || info.Digest != metaOf(t, "", "", data).Digest {
			t.Fatalf("%d bytes: Put left the wrong digest: %+v %v", n, info, err)
		}

		for what, raw := range map[string][]byte{
			"a meta that does not decode": []byte("not a meta"),
			"a meta without a NUID":       marshal(t, metaOf(t, ref.Name, "", data)),
			"a wildcard NUID":             marshal(t, metaOf(t, ref.Name, ">", data)),
		} {
			publishMeta(t, js, ref.Name, raw)
			gctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			_, err = s.Get(gctx, ref)
			cancel()
			if !errors.Is(err, artifacts.ErrCorrupt) || bus.IsTransient(err) {
				t.Fatalf("%d bytes, %s: Get: %v, want ErrCorrupt", n, what, err)
			}
			readable(t, s, "damaged", data)
		}
	}
}

// TestGetOfAnObjectWhoseChunksAreOtherContent: chunks of the meta's
// count and size, but other bytes (here a meta written over another
// object's chunks), are ErrCorrupt, not returned and not lost.
func TestGetOfAnObjectWhoseChunksAreOtherContent(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []int{10, 300 << 10} {
		data, other := bytes.Repeat([]byte("o"), n), bytes.Repeat([]byte("x"), n)
		ref, err := s.Put(ctx, "swapped", data)
		if err != nil {
			t.Fatal(err)
		}
		oref, err := s.Put(ctx, "swapped", other)
		if err != nil {
			t.Fatal(err)
		}
		oinfo, err := obj.GetInfo(ctx, oref.Name)
		if err != nil {
			t.Fatal(err)
		}
		publishMeta(t, js, ref.Name, marshal(t, metaOf(t, ref.Name, oinfo.NUID, data)))
		if got, err := s.Get(ctx, ref); !errors.Is(err, artifacts.ErrCorrupt) || errors.Is(err, artifacts.ErrLost) {
			t.Fatalf("%d bytes over other content: Get %d bytes, %v; want ErrCorrupt", n, len(got), err)
		}
	}
}

// TestChunkWithoutItsMeta: a chunk no meta names (a put that stopped
// after it) is no object: Get says not found, and Put stores the content.
func TestChunkWithoutItsMeta(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	artifacts.LookAgainFor(s, 0)
	data := []byte("a chunk alone")
	if _, err := js.Publish(ctx, "$O."+events.BucketArtifacts+".C."+nuid.Next(), data); err != nil {
		t.Fatal(err)
	}
	ref := events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "alone/" + refOfData(data), Size: int64(len(data)), SHA256: refOfData(data)}
	if _, err := s.Get(ctx, ref); !errors.Is(err, artifacts.ErrNotFound) {
		t.Fatalf("Get of a chunk without its meta: %v, want ErrNotFound", err)
	}
	readable(t, s, "alone", data)
}

// TestLostOnlyUnlessReplaced: an object found without its chunks is lost
// only if the bucket's leader still has the meta that was read; another
// object stored under the name since (its put purged the chunks under
// the read) is read again instead, and an error that is not a loss is
// kept as it is.
func TestLostOnlyUnlessReplaced(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	obj, err := js.ObjectStore(ctx, events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	data := []byte("replaced")
	ref, err := s.Put(ctx, "replaced", data)
	if err != nil {
		t.Fatal(err)
	}
	now, err := obj.GetInfo(ctx, ref.Name)
	if err != nil {
		t.Fatal(err)
	}
	lost := fmt.Errorf("%w: test", artifacts.ErrLost)
	read := metaOf(t, ref.Name, nuid.Next(), data)
	if err := artifacts.StillLost(ctx, s, &read, lost); !errors.Is(err, artifacts.ErrReplaced) {
		t.Fatalf("an object replaced since it was read: %v, want it read again", err)
	}
	if err := artifacts.StillLost(ctx, s, now, lost); err != lost {
		t.Fatalf("the object read: %v, want %v", err, lost)
	}
	never := metaOf(t, "never/stored", nuid.Next(), data)
	if err := artifacts.StillLost(ctx, s, &never, lost); err != lost {
		t.Fatalf("a name without a meta: %v, want %v", err, lost)
	}
	if err := artifacts.StillLost(ctx, s, &read, context.DeadlineExceeded); err != context.DeadlineExceeded {
		t.Fatalf("not a loss: %v", err)
	}
}

// TestReadEndedEarlyIsNotCorrupt: a read of a large object's chunks goes
// through a consumer of one replica, which the server may place on one
// still catching up after a restart: it delivers the chunks it has and
// says none are pending after the last. With every chunk at the bucket's
// leader, that short read is the replica's lag, read again (and then
// ErrNotReplicated, transient), not a corrupt artifact: the run that
// referenced it would otherwise fail for good (seen in
// TestPutWhileTheBucketHasNoQuorum as "does not match its reference").
func TestReadEndedEarlyIsNotCorrupt(t *testing.T) {
	info := &jetstream.ObjectInfo{ObjectMeta: jetstream.ObjectMeta{Name: "large/x"}, Size: 300 << 10, Chunks: 3}
	short := make([]byte, 128<<10)
	err := artifacts.ReadEnded(short, info, nil)
	if !errors.Is(err, artifacts.ErrNotReplicated) || artifacts.IsLost(err) {
		t.Fatalf("a short read with every chunk at the leader: %v, want ErrNotReplicated", err)
	}
	if err := artifacts.ReadEnded(make([]byte, 256<<10), info, nil); !errors.Is(err, artifacts.ErrNotReplicated) {
		t.Fatalf("two whole chunks of three: %v, want ErrNotReplicated", err)
	}
	for _, n := range []int{200 << 10, 128<<10 + 1} {
		if err := artifacts.ReadEnded(make([]byte, n), info, nil); err != nil {
			t.Fatalf("a read of %d bytes, not whole chunks: %v, want it compared with the reference", n, err)
		}
	}
	if err := artifacts.ReadEnded(short, &jetstream.ObjectInfo{Size: 300 << 10, Chunks: 4}, nil); err != nil {
		t.Fatalf("a meta whose chunk count is not its size's: %v, want it compared with the reference", err)
	}
	if err := artifacts.ReadEnded(make([]byte, info.Size), info, nil); err != nil {
		t.Fatalf("a whole read whose digest is not the meta's: %v, want it compared with the reference", err)
	}
	lost := fmt.Errorf("%w: 1 of its 3 chunks", artifacts.ErrLost)
	if err := artifacts.ReadEnded(short, info, lost); err != lost {
		t.Fatalf("a short read with chunks gone: %v, want %v", err, lost)
	}
	if err := artifacts.ReadEnded(short, info, context.DeadlineExceeded); err != context.DeadlineExceeded {
		t.Fatalf("the leader not answering: %v", err)
	}
}

// TestGetOfAnObjectWhoseChunksHoldLessThanItsSize: an object whose
// chunks are all stored, as many as its meta counts, but hold fewer
// bytes than its size (a chunk cut short, or a meta whose size is larger
// than its content) reads short every time; no replica catching up
// explains it (one that lags delivers whole chunks, fewer than counted),
// so it is ErrCorrupt, permanent, not read again and again until the
// event's deliveries run out.
func TestGetOfAnObjectWhoseChunksHoldLessThanItsSize(t *testing.T) {
	ctx := context.Background()
	js, s := openProvisioned(t)
	artifacts.LookAgainFor(s, 200*time.Millisecond)
	data := bytes.Repeat([]byte("s"), 300<<10)
	sum := sha256.Sum256(data)
	ref := events.ArtifactRef{Bucket: events.BucketArtifacts, Name: "short/" + fmt.Sprintf("%x", sum), Size: int64(len(data)), SHA256: fmt.Sprintf("%x", sum)}
	for what, chunks := range map[string][][]byte{
		"the last chunk cut short":   {data[:128<<10], data[128<<10 : 256<<10], data[256<<10 : 260<<10]},
		"the first chunk cut short":  {data[:100<<10], data[128<<10 : 256<<10], data[256<<10:]},
		"every chunk one byte short": {data[:128<<10-1], data[128<<10 : 256<<10-1], data[256<<10 : len(data)-1]},
	} {
		id := nuid.Next()
		for _, c := range chunks {
			if _, err := js.Publish(ctx, "$O."+events.BucketArtifacts+".C."+id, c); err != nil {
				t.Fatal(err)
			}
		}
		publishMeta(t, js, ref.Name, marshal(t, metaOf(t, ref.Name, id, data)))
		gctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		_, err := s.Get(gctx, ref)
		cancel()
		if !errors.Is(err, artifacts.ErrCorrupt) || !artifacts.IsLost(err) {
			t.Fatalf("%s: Get: %v, want ErrCorrupt", what, err)
		}
	}
}
