package artifacts

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nuid"
)

// smallMax is the largest object putSmall stores: one chunk of the
// object store's default chunk size, which every server accepts as one
// message.
const smallMax = 128 << 10

// putSmall stores data (at most smallMax bytes: its callers check) as a new object named
// ref.Name, written in the object store's own layout (one chunk message
// on a subject of its own, then the meta message that rolls up the
// name's earlier meta), so the library reads it like any other object.
//
// It is what the library's Put does for such an object, less what the
// pipeline does not need for content that is new by construction: Put
// first looks up an object of the same name (a round trip, to purge its
// chunks afterwards), opens and closes a reply subscription of its own
// (work for every server of the account), and reads through a buffer of
// the full chunk size. If a name is stored twice, the first object's
// chunk is left to the bucket's TTL instead of being purged under a
// reader.
//
// The meta is published only once the chunk is acknowledged, so a stored
// meta always has its chunk: a chunk refused (a full account, a size
// limit) or lost (a leader change) with its meta taken would leave a name
// no reader can read, which Put would then take for stored. Both are
// plain requests on the connection's shared reply subscription, which
// forgets a request when its context ends: an acknowledgement that never
// comes leaves nothing waiting for it (asynchronous publishes on the
// shared JetStream context stay pending until the connection reconnects,
// and enough of them refuse every later one). The chunk is purged only
// when the stream refused the meta; a meta whose outcome is unknown (the
// context ended) may be stored, so its chunk stays.
func (s *Store) putSmall(ctx context.Context, ref events.ArtifactRef, data []byte) error {
	id := nuid.Next()
	chunkSubj := chunkSubject(s.bucket, id)
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: ref.Name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: smallMax}},
		Bucket:     s.bucket,
		NUID:       id,
		Size:       uint64(len(data)),
		Digest:     digestOf(data),
	}
	meta := nats.NewMsg(metaSubject(s.bucket, ref.Name))
	meta.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	if len(data) > 0 {
		info.Chunks = 1
	}
	var err error
	if meta.Data, err = json.Marshal(info); err != nil {
		return err
	}
	if len(data) > 0 {
		if _, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: chunkSubj, Data: data}); err != nil {
			return fmt.Errorf("chunk: %w", err)
		}
	}
	if _, err := s.js.PublishMsg(ctx, meta); err != nil {
		if notStored(err) && len(data) > 0 {
			s.purgeSubject(ctx, chunkSubj)
		}
		return fmt.Errorf("meta: %w", err)
	}
	return nil
}

// notStored reports whether err says the stream did not store a message:
// its own refusal, or no stream answering at all.
func notStored(err error) bool {
	var apiErr *jetstream.APIError
	return errors.As(err, &apiErr) || errors.Is(err, jetstream.ErrNoStreamResponse)
}

// purgeSubject removes the messages on subject in the bucket: the chunk
// of an object whose meta was refused, a meta that does not decode (best
// effort: the bucket's TTL removes them otherwise).
func (s *Store) purgeSubject(ctx context.Context, subject string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bus.RequestTimeout)
	defer cancel()
	st, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return
	}
	_ = st.Purge(ctx, jetstream.WithPurgeSubject(subject))
}
