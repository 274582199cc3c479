package bus

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// Read-your-writes on a cluster. A bucket nats.go creates allows direct
// gets, and kv.Get is one: any replica of the bucket's stream answers it,
// a follower included (a follower serves them once it has caught up at
// first, and never checks again), from what it has applied. A follower
// applies a write after the leader acknowledged it, so a read right after
// a write, by the writer or by whoever the writer told, can miss it: an
// absent key, or an older revision. Where a decision is taken on such a
// read and never checked again (a refusal, "nothing to do"), read through
// the leader instead: LeaderGet, or a KeyValue from LeaderReads. The
// leader answers only what it has committed, which is everything that was
// acknowledged; it costs a hop to the leader's server, every such read
// lands on that one server, and none is answered while the bucket elects
// a leader (the request times out, a transient error).

// LeaderGet returns the latest entry of key in bucket as the bucket's
// stream leader has it, as kv.Get does (jetstream.ErrKeyNotFound for a
// missing, deleted or purged key, jetstream.ErrInvalidKey for a key
// kv.Get refuses). Other errors are LeaderLastMsg's.
func LeaderGet(ctx context.Context, js jetstream.JetStream, bucket, key string) (jetstream.KeyValueEntry, error) {
	if !validKey(key) {
		return nil, jetstream.ErrInvalidKey
	}
	m, err := LeaderLastMsg(ctx, js, "KV_"+bucket, "$KV."+bucket+"."+key)
	if errors.Is(err, jetstream.ErrMsgNotFound) {
		return nil, jetstream.ErrKeyNotFound
	}
	if err != nil {
		return nil, err
	}
	switch op := m.Header.Get(kvOperation); {
	case op == "DEL", op == "PURGE", m.Header.Get(jetstream.MarkerReasonHeader) != "":
		return nil, jetstream.ErrKeyNotFound
	}
	return leaderEntry{bucket: bucket, key: key, value: m.Data, revision: m.Sequence, created: m.Time}, nil
}

// LeaderLastMsg returns the last message stored on subject (a literal
// subject) in stream, as the stream's leader has it; jetstream's
// ErrMsgNotFound when there is none. Errors of the request wrap the
// server's or the connection's (IsTransient tells a leader election;
// the request may time out then); when the server refused this identity
// the request, the error also wraps ErrPermissionDenied (an identity from
// an older release: the request still waits out its timeout, as the
// server never replies). The request is bounded by
// RequestTimeout, or ctx's deadline when that is sooner: a handler's
// context allows minutes.
func LeaderLastMsg(ctx context.Context, js jetstream.JetStream, stream, subject string) (*jetstream.RawStreamMsg, error) {
	if subject == "" || strings.ContainsAny(subject, "*> \t\r\n") {
		return nil, fmt.Errorf("%w: %q", jetstream.ErrInvalidSubject, subject)
	}
	ctx, cancel := context.WithTimeout(ctx, RequestTimeout)
	defer cancel()
	req, err := json.Marshal(struct {
		LastFor string `json:"last_by_subj"`
	}{subject})
	if err != nil {
		return nil, err
	}
	fail := func(err error) error {
		return fmt.Errorf("could not read the last message on %s from the leader of stream %s: %w", subject, stream, err)
	}
	api := apiPrefix(js.Options()) + "STREAM.MSG.GET." + stream
	watch := watchRefusal(js.Conn())
	reply, err := js.Conn().RequestWithContext(ctx, api, req)
	if err != nil {
		if denied := watch.of(api); denied != nil {
			err = fmt.Errorf("%w: %w", denied, err)
		}
		return nil, fail(err)
	}
	var resp struct {
		Error   *jetstream.APIError `json:"error"`
		Message *struct {
			Subject  string    `json:"subject"`
			Sequence uint64    `json:"seq"`
			Header   []byte    `json:"hdrs"`
			Data     []byte    `json:"data"`
			Time     time.Time `json:"time"`
		} `json:"message"`
	}
	if err := json.Unmarshal(reply.Data, &resp); err != nil {
		return nil, fail(fmt.Errorf("%w: %w", jetstream.ErrInvalidJetStreamResponse, err))
	}
	switch {
	case resp.Error != nil && resp.Error.ErrorCode == jetstream.JSErrCodeMessageNotFound:
		return nil, jetstream.ErrMsgNotFound
	case resp.Error != nil:
		return nil, fail(resp.Error)
	case resp.Message == nil:
		return nil, fail(jetstream.ErrInvalidJetStreamResponse)
	}
	m := resp.Message
	out := &jetstream.RawStreamMsg{Subject: m.Subject, Sequence: m.Sequence, Header: nats.Header{}, Data: m.Data, Time: m.Time}
	if len(m.Header) > 0 {
		if out.Header, err = nats.DecodeHeadersMsg(m.Header); err != nil {
			return nil, fail(err)
		}
	}
	return out, nil
}

// LeaderReads returns kv with Get answered by the bucket's leader
// (LeaderGet); everything else is kv's own.
func LeaderReads(js jetstream.JetStream, kv jetstream.KeyValue) jetstream.KeyValue {
	return leaderKV{KeyValue: kv, js: js}
}

type leaderKV struct {
	jetstream.KeyValue
	js jetstream.JetStream
}

// Get is LeaderGet on the bucket.
func (k leaderKV) Get(ctx context.Context, key string) (jetstream.KeyValueEntry, error) {
	return LeaderGet(ctx, k.js, k.Bucket(), key)
}

// kvOperation is the header marking a KV delete or purge.
const kvOperation = "KV-Operation"

// validKeyRe is what kv.Get accepts as a key: a read by last subject must
// not be given a wildcard.
var validKeyRe = regexp.MustCompile(`^[-/_=\.a-zA-Z0-9]+$`)

func validKey(key string) bool {
	return key != "" && key[0] != '.' && key[len(key)-1] != '.' && !strings.Contains(key, "..") && validKeyRe.MatchString(key)
}

// apiPrefix is the JetStream API prefix o's requests use.
func apiPrefix(o jetstream.JetStreamOptions) string {
	switch {
	case o.APIPrefix != "":
		return strings.TrimSuffix(o.APIPrefix, ".") + "."
	case o.Domain != "":
		return "$JS." + o.Domain + ".API."
	}
	return jetstream.DefaultAPIPrefix
}

// leaderEntry is an entry LeaderGet read.
type leaderEntry struct {
	bucket, key string
	value       []byte
	revision    uint64
	created     time.Time
}

func (e leaderEntry) Bucket() string                  { return e.bucket }
func (e leaderEntry) Key() string                     { return e.key }
func (e leaderEntry) Value() []byte                   { return e.value }
func (e leaderEntry) Revision() uint64                { return e.revision }
func (e leaderEntry) Created() time.Time              { return e.created }
func (e leaderEntry) Delta() uint64                   { return 0 }
func (e leaderEntry) Operation() jetstream.KeyValueOp { return jetstream.KeyValuePut }
