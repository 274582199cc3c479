package artifacts

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go/jetstream"
)

// Get fetches the artifact and checks its size and digest against ref.
// It returns an error wrapping ErrNotFound (no such object, or deleted),
// ErrLost (its meta is stored but its content is gone) or ErrCorrupt
// (what is stored is not what ref describes), which IsLost tells from a
// failure that trying again can cure.
func (s *Store) Get(ctx context.Context, ref events.ArtifactRef) ([]byte, error) {
	if ref.Bucket != s.bucket {
		return nil, fmt.Errorf("%w: bucket %q (want %q)", ErrNotFound, ref.Bucket, s.bucket)
	}
	if ref.Name == "" {
		return nil, fmt.Errorf("%w: a reference without a name", ErrNotFound)
	}
	// A reference is handed on only after its object was stored, so "not
	// found" can also be a replica of a cluster that has not caught up
	// yet (reads may be served by any replica): look again briefly before
	// calling the artifact lost.
	var data []byte
	err := retryBriefly(ctx, s.lookAgain, true, func(err error) bool {
		return errors.Is(err, jetstream.ErrObjectNotFound) || errors.Is(err, errReplaced) || errors.Is(err, errEndedEarly) || bus.IsTransient(err)
	}, func() error {
		var err error
		data, err = s.fetch(ctx, ref)
		return err
	})
	switch {
	case errors.Is(err, jetstream.ErrObjectNotFound):
		return nil, s.notFound(ctx, ref.Name)
	case errors.Is(err, ErrLost), errors.Is(err, ErrCorrupt):
		return nil, err
	case errors.Is(err, jetstream.ErrBadObjectMeta):
		return nil, fmt.Errorf("%w: %s: %w", ErrCorrupt, ref.Name, err)
	case err != nil:
		return nil, fmt.Errorf("could not fetch artifact %s: %w", ref.Name, err)
	}
	sum := sha256.Sum256(data)
	if int64(len(data)) != ref.Size || hex.EncodeToString(sum[:]) != ref.SHA256 {
		return nil, fmt.Errorf("%w: %s", ErrCorrupt, ref.Name)
	}
	return data, nil
}

// fetch reads the object ref names, within an attempt's timeout (see
// timeoutFor). An object of one chunk (all the small ones) is read with
// two direct gets, its meta then its chunk; a larger one through the
// library.
func (s *Store) fetch(ctx context.Context, ref events.ArtifactRef) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, s.timeoutFor(ref.Size))
	defer cancel()
	if ref.Size > chunkSize {
		return s.fetchChunks(ctx, ref.Name)
	}
	info, err := s.obj.GetInfo(ctx, ref.Name)
	switch {
	case err != nil:
		return nil, err
	case !validNUID(info.NUID):
		return nil, jetstream.ErrBadObjectMeta
	case info.Chunks > 1 || (info.Opts != nil && info.Opts.Link != nil):
		return s.fetchChunks(ctx, ref.Name)
	case info.Chunks == 0:
		return nil, nil // Get compares with ref's size
	}
	return s.chunk(ctx, info)
}

// chunk reads the one chunk of the object info describes. The replica
// that answered with the meta has the chunk (stored before it), but the
// direct get may be answered by another that lags: the bucket's leader
// is asked before the chunk is called lost.
func (s *Store) chunk(ctx context.Context, info *jetstream.ObjectInfo) ([]byte, error) {
	subject := chunkSubject(s.bucket, info.NUID)
	m, err := s.stream.GetLastMsgForSubject(ctx, subject)
	if err == nil {
		return m.Data, nil
	}
	if !errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, err
	}
	lm, err := bus.LeaderLastMsg(ctx, s.js, "OBJ_"+s.bucket, subject)
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return nil, s.stillLost(ctx, info, fmt.Errorf("%w: %s: its chunk is not in the bucket", ErrLost, info.Name))
	case err != nil:
		return nil, err
	}
	return lm.Data, nil
}

// fetchChunks reads the object through the library, which subscribes to
// its chunks and waits for them until ctx ends: an object whose chunks
// are gone would wait out the whole attempt and then fail as if the
// server were slow. So a read still going on after stalled (and then
// after ever longer waits) asks the bucket's leader how many of its
// chunks it holds, and one it no longer holds whole is ErrLost at once;
// a read that ends sooner costs no request more. The library's read
// cannot be interrupted: a read given up on ends with ctx's deadline. A
// read whose content does not match the meta's digest asks too (a chunk
// removed, or a meta whose digest is not its content's: Get's
// comparison with the reference then tells).
func (s *Store) fetchChunks(ctx context.Context, name string) ([]byte, error) {
	res, err := s.obj.Get(ctx, name)
	if err != nil {
		return nil, err
	}
	info, err := res.Info()
	if err == nil && !validNUID(info.NUID) {
		err = jetstream.ErrBadObjectMeta // it subscribed to other objects' chunks
	}
	if err != nil {
		_ = res.Close()
		return nil, err
	}
	type read struct {
		data []byte
		err  error
	}
	done := make(chan read, 1)
	go func() {
		data, err := io.ReadAll(res)
		_ = res.Close() // the read is over: nothing to report
		done <- read{data, err}
	}()
	for wait := stalled; ; wait = min(2*wait, bus.RequestTimeout) {
		t := time.NewTimer(wait)
		select {
		case r := <-done:
			t.Stop()
			if errors.Is(r.err, jetstream.ErrDigestMismatch) {
				return r.data, readEnded(r.data, info, s.stillLost(ctx, info, s.chunksStored(ctx, info)))
			}
			return r.data, r.err
		case <-ctx.Done():
			t.Stop()
			return nil, ctx.Err()
		case <-t.C:
		}
		if err := s.chunksStored(ctx, info); errors.Is(err, ErrLost) {
			return nil, s.stillLost(ctx, info, err)
		}
	}
}

// errEndedEarly: a read of an object's chunks ended before its size
// while the bucket's leader holds every one of them. The library reads
// them through a consumer of one replica, placed on any server of the
// bucket's; one still catching up (after a restart) has fewer chunks and
// says none are pending after its last. Transient: Get reads again, and
// a read that still ends early is ErrNotReplicated.
var errEndedEarly = fmt.Errorf("%w: a read of its chunks ended early", ErrNotReplicated)

// readEnded is the outcome of a read of the object info describes whose
// content did not match the meta's digest, given what the bucket's
// leader says of its chunks (stored: nil when it holds them all): their
// loss, or the replica's lag when what came is what a lagging replica
// delivers (laggedRead), or else no error, the content then being
// compared with the reference by Get (a meta whose digest is not its
// content's, or chunks that hold less than its size: corrupt).
func readEnded(data []byte, info *jetstream.ObjectInfo, stored error) error {
	if stored == nil && laggedRead(uint64(len(data)), info) {
		return fmt.Errorf("%s: %d of its %d bytes: %w", info.Name, len(data), info.Size, errEndedEarly)
	}
	return stored
}

// laggedRead reports whether n bytes read of the object info describes
// are what a replica that lags delivers: a prefix of its chunks, so a
// whole number of full chunks, fewer than the meta counts, the meta's
// count being its size's. Other short reads (a chunk cut short, a meta
// whose size is larger than its chunks hold) read the same every time.
func laggedRead(n uint64, info *jetstream.ObjectInfo) bool {
	size := uint64(chunkSize)
	if info.Opts != nil && info.Opts.ChunkSize > 0 {
		size = uint64(info.Opts.ChunkSize)
	}
	return n < info.Size && n%size == 0 && n/size < uint64(info.Chunks) &&
		uint64(info.Chunks) == (info.Size+size-1)/size
}

// stalled is how long a read of an object's chunks goes on before Get
// looks whether they are still stored.
const stalled = 200 * time.Millisecond

// chunksStored fails with ErrLost when the bucket's leader holds fewer
// chunks of the object info describes than its meta counts (at least
// one for content that is not empty), or with the request's error.
func (s *Store) chunksStored(ctx context.Context, info *jetstream.ObjectInfo) error {
	subject := chunkSubject(s.bucket, info.NUID)
	ictx, cancel := context.WithTimeout(ctx, bus.RequestTimeout)
	defer cancel()
	si, err := s.stream.Info(ictx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return err
	}
	want := uint64(info.Chunks)
	if info.Size > 0 {
		want = max(want, 1)
	}
	if have := si.State.Subjects[subject]; have < want {
		return fmt.Errorf("%w: %s: %d of its %d chunks are in the bucket", ErrLost, info.Name, have, want)
	}
	return nil
}

// errReplaced: the object was replaced while it was read (a put of its
// name purged the chunks of the one read); Get reads it again.
var errReplaced = errors.New("object replaced while it was read")

// stillLost returns lost (an error wrapping ErrLost for the object info
// describes, or another error, returned as it is) unless the bucket's
// leader has another object under the name by now (errReplaced), or
// cannot say (its error, transient).
func (s *Store) stillLost(ctx context.Context, info *jetstream.ObjectInfo, lost error) error {
	if !errors.Is(lost, ErrLost) {
		return lost
	}
	m, err := bus.LeaderLastMsg(ctx, s.js, "OBJ_"+s.bucket, metaSubject(s.bucket, info.Name))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return lost
	case err != nil:
		return err
	}
	var now jetstream.ObjectInfo
	if json.Unmarshal(m.Data, &now) == nil && now.NUID != info.NUID && !now.Deleted {
		return errReplaced
	}
	return lost
}

// validNUID reports whether a meta's NUID can name its chunks' subject:
// one token, no wildcard (a meta written by something else than the
// object store could hold one, and read all the bucket's chunks).
func validNUID(id string) bool { return id != "" && !strings.ContainsAny(id, "*>. \t\r\n") }

// chunkSubject is the subject of an object's chunks.
func chunkSubject(bucket, nuid string) string { return "$O." + bucket + ".C." + nuid }

// metaSubject is the subject of an object's meta.
func metaSubject(bucket, name string) string {
	return "$O." + bucket + ".M." + base64.URLEncoding.EncodeToString([]byte(name))
}

// notFound is the error for an object that is still not found after Get
// looked again: a replica catching up (after a restart) can lag longer
// than that, so only the bucket's stream leader says the object is
// missing, or deleted (ErrNotFound, the run cannot go on); stored there,
// it is ErrNotReplicated, and the event is handled again later.
func (s *Store) notFound(ctx context.Context, name string) error {
	m, err := bus.LeaderLastMsg(ctx, s.js, "OBJ_"+s.bucket, metaSubject(s.bucket, name))
	switch {
	case errors.Is(err, jetstream.ErrMsgNotFound):
		return fmt.Errorf("%w: %s", ErrNotFound, name)
	case err != nil:
		return fmt.Errorf("could not fetch artifact %s: %w", name, err)
	}
	var info struct {
		Deleted bool `json:"deleted"`
	}
	if json.Unmarshal(m.Data, &info) == nil && info.Deleted {
		return fmt.Errorf("%w: %s (deleted)", ErrNotFound, name)
	}
	return fmt.Errorf("could not fetch artifact %s: %w", name, ErrNotReplicated)
}
