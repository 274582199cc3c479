package natstest

import (
	"context"
	"testing"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// StoreEvent publishes e on its subject (into the work stream) under the
// Nats-Msg-Id msgID, which need not be e's id (as an agent may set it),
// and returns its stream sequence. The test fails if e does not encode
// within events.DefaultMaxEventBytes, the publish fails, or the server
// takes it for a duplicate.
func StoreEvent(t testing.TB, ctx context.Context, js jetstream.JetStream, e events.Envelope, msgID string) uint64 {
	t.Helper()
	raw, err := e.Encode(events.DefaultMaxEventBytes)
	if err != nil {
		t.Fatal(err)
	}
	subject, err := e.NATSSubject()
	if err != nil {
		t.Fatal(err)
	}
	m := nats.NewMsg(subject)
	m.Data = raw
	m.Header.Set(events.HeaderMsgID, msgID)
	ack, err := js.PublishMsg(ctx, m)
	if err != nil {
		t.Fatalf("store %s: %v", e.ID, err)
	}
	if ack.Duplicate {
		t.Fatalf("store %s: de-duplicated under %s", e.ID, msgID)
	}
	return ack.Sequence
}

// PurgeArtifactChunks removes the chunks of every object in the
// artifacts bucket and leaves their metas, as the bucket's TTL, an
// operator's purge or a lost write can leave them: each object is then
// stored without its content. The test fails if the purge fails.
func PurgeArtifactChunks(t testing.TB, ctx context.Context, js jetstream.JetStream) {
	t.Helper()
	st, err := js.Stream(ctx, "OBJ_"+events.BucketArtifacts)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.Purge(ctx, jetstream.WithPurgeSubject("$O."+events.BucketArtifacts+".C.>")); err != nil {
		t.Fatalf("purge the artifacts' chunks: %v", err)
	}
}
