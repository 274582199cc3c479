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

// chunkSize is the size of an object's chunks: the object store's
// default, which every server accepts as one message. An object of up to
// one chunk is small (see timeoutFor and fetch).
const chunkSize = 128 << 10

// putObject stores data as a new object named ref.Name, written in the
// object store's own layout (chunk messages on a subject of their own,
// then the meta message that rolls up the name's earlier meta), so the
// library reads it like any other object.
//
// It is what the library's Put does, less what the pipeline does not
// need: Put first looks up an object of the same name (a round trip, to
// purge its chunks afterwards), opens and closes a reply subscription of
// its own (work for every server of the account), and reads through a
// buffer of the full chunk size. If a name is stored twice, the first
// object's chunks are left to the bucket's TTL instead of being purged
// under a reader.
//
// The meta is published only once every chunk is acknowledged, so a
// stored meta always has its chunks: a chunk refused (a full account, a
// size limit) or lost (a leader change) with its meta taken would leave a
// name no reader can read, which Put would then take for stored (the
// library's put publishes the meta without waiting for its chunks, and
// purges them when one is refused). Every publish is a plain request on
// the connection's shared reply subscription, which forgets a request
// when its context ends: an acknowledgement that never comes leaves
// nothing waiting for it (asynchronous publishes on the shared JetStream
// context stay pending until the connection reconnects, and enough of
// them refuse every later one). The chunks are purged when the stream
// refused one of them or the meta; after an outcome that is unknown (the
// context ended) they stay, since the meta may be stored.
func (s *Store) putObject(ctx context.Context, ref events.ArtifactRef, data []byte) error {
	id := nuid.Next()
	chunkSubj := chunkSubject(s.bucket, id)
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: ref.Name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: chunkSize}},
		Bucket:     s.bucket,
		NUID:       id,
		Size:       uint64(len(data)),
		Chunks:     uint32((len(data) + chunkSize - 1) / chunkSize),
		Digest:     digestOf(data),
	}
	meta := nats.NewMsg(metaSubject(s.bucket, ref.Name))
	meta.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	var err error
	if meta.Data, err = json.Marshal(info); err != nil {
		return err
	}
	for i := 0; i < len(data); i += chunkSize {
		if _, err := s.js.PublishMsg(ctx, &nats.Msg{Subject: chunkSubj, Data: data[i:min(i+chunkSize, len(data))]}); err != nil {
			if notStored(err) && i > 0 {
				s.purgeSubject(ctx, chunkSubj)
			}
			return fmt.Errorf("chunk %d of %d: %w", i/chunkSize+1, info.Chunks, err)
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

// purgeSubject removes the messages on subject in the bucket: the chunks
// of an object whose chunk or meta was refused (best effort: the
// bucket's TTL removes them otherwise).
func (s *Store) purgeSubject(ctx context.Context, subject string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bus.RequestTimeout)
	defer cancel()
	_ = s.stream.Purge(ctx, jetstream.WithPurgeSubject(subject))
}
