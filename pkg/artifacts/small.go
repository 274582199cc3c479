package artifacts

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
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

// putSmall stores data of at most smallMax bytes as a new object named
// ref.Name, written in the object store's own layout (one chunk message
// on a subject of its own, then the meta message that rolls up the
// name's earlier meta), so the library reads it like any other object.
//
// It is what the library's Put does for such an object, less what the
// pipeline does not need for content that is new by construction: Put
// first looks up an object of the same name (a round trip, to purge its
// chunks afterwards), opens and closes a reply subscription of its own
// (work for every server of the account), and reads through a buffer of
// the full chunk size. Here both messages are published at once on the
// store's JetStream context and their acknowledgements awaited together.
// If a name is stored twice, the first object's chunk is left to the
// bucket's TTL instead of being purged under a reader.
func (s *Store) putSmall(ctx context.Context, ref events.ArtifactRef, data []byte) error {
	if len(data) > smallMax {
		return fmt.Errorf("artifact %s: %d bytes is over the %d of one chunk", ref.Name, len(data), smallMax)
	}
	id := nuid.Next()
	chunkSubj := "$O." + s.bucket + ".C." + id
	sum := sha256.Sum256(data)
	info := jetstream.ObjectInfo{
		ObjectMeta: jetstream.ObjectMeta{Name: ref.Name, Opts: &jetstream.ObjectMetaOptions{ChunkSize: smallMax}},
		Bucket:     s.bucket,
		NUID:       id,
		Size:       uint64(len(data)),
		Digest:     "SHA-256=" + base64.URLEncoding.EncodeToString(sum[:]),
	}
	var acks []jetstream.PubAckFuture
	if len(data) > 0 {
		info.Chunks = 1
		f, err := s.js.PublishMsgAsync(&nats.Msg{Subject: chunkSubj, Data: data})
		if err != nil {
			return err
		}
		acks = append(acks, f)
	}
	meta := nats.NewMsg("$O." + s.bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(ref.Name)))
	meta.Header.Set(jetstream.MsgRollup, jetstream.MsgRollupSubject)
	var err error
	if meta.Data, err = json.Marshal(info); err != nil {
		return err
	}
	f, err := s.js.PublishMsgAsync(meta)
	if err != nil {
		// The chunk may be stored without its meta: purged below.
		err = errors.Join(err, s.waitAcks(ctx, acks))
		s.purgeChunk(ctx, chunkSubj)
		return err
	}
	if err := s.waitAcks(ctx, append(acks, f)); err != nil {
		s.purgeChunk(ctx, chunkSubj)
		return err
	}
	return nil
}

// waitAcks waits for every acknowledgement and returns the first error.
func (s *Store) waitAcks(ctx context.Context, acks []jetstream.PubAckFuture) error {
	var first error
	for _, f := range acks {
		select {
		case <-f.Ok():
		case err := <-f.Err():
			if first == nil {
				first = err
			}
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return first
}

// purgeChunk removes the chunk of an object whose put failed (best
// effort: the bucket's TTL removes it otherwise).
func (s *Store) purgeChunk(ctx context.Context, subject string) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bus.RequestTimeout)
	defer cancel()
	st, err := s.js.Stream(ctx, "OBJ_"+s.bucket)
	if err != nil {
		return
	}
	_ = st.Purge(ctx, jetstream.WithPurgeSubject(subject))
}
