package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/msgid"
	"github.com/nats-io/nats.go/jetstream"
)

// Topology configures the streams, consumers and buckets Codali uses.
type Topology struct {
	// Replicas is the replication factor of every stream and bucket: 1 on a
	// single server, 3 on a cluster. Default 1.
	Replicas int
	// AckWait is the ack wait of the phase consumers. Default 30s.
	AckWait time.Duration
	// MaxAckPending bounds unacknowledged messages per consumer. Default 256.
	MaxAckPending int
	// WorkMaxAge bounds how long an unconsumed run event is kept. Default 7 days.
	WorkMaxAge time.Duration
	// DeadLetterMaxAge bounds how long dead letters are kept. Default 30 days.
	DeadLetterMaxAge time.Duration
	// RAOMaxAge bounds the audit history's age; 0 keeps it forever.
	RAOMaxAge time.Duration
	// RAOMaxBytes bounds the audit history's size; 0 means unlimited.
	RAOMaxBytes int64
	// MaxMsgSize is the largest message the streams accept. Default 8 MiB.
	MaxMsgSize int32
	// Update makes Provision bring existing streams, consumers and buckets
	// to this configuration. Without it, Provision only creates what is
	// missing and leaves existing resources alone, so services started with
	// different settings never fight over a stream's configuration; the
	// operator's `codali up` updates.
	Update bool
}

func (t *Topology) setDefaults() {
	if t.Replicas == 0 {
		t.Replicas = 1
	}
	if t.AckWait == 0 {
		t.AckWait = 30 * time.Second
	}
	if t.MaxAckPending == 0 {
		t.MaxAckPending = 256
	}
	if t.WorkMaxAge == 0 {
		t.WorkMaxAge = 7 * 24 * time.Hour
	}
	if t.DeadLetterMaxAge == 0 {
		t.DeadLetterMaxAge = 30 * 24 * time.Hour
	}
	if t.MaxMsgSize == 0 {
		t.MaxMsgSize = 8 << 20
	}
}

// Validate reports every problem, each wrapping ErrInvalidConfig.
func (t Topology) Validate() error {
	var errs []error
	if t.Replicas < 1 || t.Replicas > 5 {
		errs = append(errs, fmt.Errorf("%w: replicas %d (allowed 1..5)", ErrInvalidConfig, t.Replicas))
	}
	if t.AckWait < time.Second {
		errs = append(errs, fmt.Errorf("%w: ack wait %s (min 1s)", ErrInvalidConfig, t.AckWait))
	}
	if t.MaxAckPending < 1 {
		errs = append(errs, fmt.Errorf("%w: max ack pending %d", ErrInvalidConfig, t.MaxAckPending))
	}
	if t.RAOMaxAge < 0 || t.RAOMaxBytes < 0 {
		errs = append(errs, fmt.Errorf("%w: negative RAO retention", ErrInvalidConfig))
	}
	return errors.Join(errs...)
}

// DuplicateWindow is every stream's duplicate window: a message published
// again with the same Nats-Msg-Id within it is dropped, and its
// acknowledgement names the message stored first.
const DuplicateWindow = 10 * time.Minute

// WorkStream is the configuration of the run event stream. Interest
// retention: an event is removed once every consumer interested in its
// subject (its phase worker and the recorder) has acknowledged it. Duplicate
// detection covers redelivered handlers that publish again. It sources the
// park deadlines that fire in the timers stream, as
// codali.run.<run_id>.approval_deadline. It allows no direct gets, so a
// message get is answered by the stream's leader: the recorder, the
// approval store and the run claims read a run's earlier events by
// sequence and decide on what they find, which a lagging replica could
// miss.
func (t Topology) WorkStream() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Sources: []*jetstream.StreamSource{{Name: events.StreamTimers, SubjectTransforms: []jetstream.SubjectTransformConfig{{
			Source: events.TimerFireSubject("*"), Destination: events.SubjectRunPrefix + ".{{wildcard(1)}}." + string(events.KindApprovalDeadline)}}}},
		Name:        events.StreamWork,
		Description: "Codali run events",
		Subjects:    []string{events.SubjectWorkAll},
		Retention:   jetstream.InterestPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    t.Replicas,
		MaxAge:      t.WorkMaxAge,
		MaxMsgSize:  t.MaxMsgSize,
		Duplicates:  DuplicateWindow,
		Discard:     jetstream.DiscardOld,
	}
}

// TimersStream is the configuration of the park deadline stream: limits
// retention, message schedules allowed. The builder stores one schedule
// per park (events.TimerScheduleSubject); the server fires it once, at the
// deadline, on events.TimerFireSubject, even across restarts (schedules
// are stored messages), and removes the schedule.
func (t Topology) TimersStream() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:              events.StreamTimers,
		Description:       "Codali park deadlines",
		Subjects:          []string{events.SubjectTimerAll},
		Retention:         jetstream.LimitsPolicy,
		Storage:           jetstream.FileStorage,
		Replicas:          t.Replicas,
		MaxAge:            events.ParkRetention,
		MaxMsgSize:        t.MaxMsgSize,
		Duplicates:        DuplicateWindow,
		AllowMsgSchedules: true,
		AllowRollup:       true,
	}
}

// DeadLetterStream is the configuration of the dead-letter stream.
func (t Topology) DeadLetterStream() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        events.StreamDeadLetter,
		Description: "Codali messages that could not be processed",
		Subjects:    []string{events.SubjectDeadLetterAll},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    t.Replicas,
		MaxAge:      t.DeadLetterMaxAge,
		MaxMsgSize:  t.MaxMsgSize,
		Duplicates:  DuplicateWindow,
	}
}

// RAOStream is the configuration of the audit history stream: limits
// retention (kept until the configured age or size), purge allowed for the
// recorder's per-run compaction, message deletion denied, atomic batch
// publish allowed (the steps of one run event are stored together, in one
// round trip). Like the work stream it allows no direct gets: a run's
// last event (raostore's LastSeq) is the leader's.
func (t Topology) RAOStream() jetstream.StreamConfig {
	return jetstream.StreamConfig{
		Name:        events.StreamRAO,
		Description: "Codali audit history (RAO)",
		Subjects:    []string{events.SubjectRAOAll},
		Retention:   jetstream.LimitsPolicy,
		Storage:     jetstream.FileStorage,
		Replicas:    t.Replicas,
		MaxAge:      t.RAOMaxAge,
		MaxBytes:    orUnlimited(t.RAOMaxBytes),
		MaxMsgSize:  t.MaxMsgSize,
		Duplicates:  DuplicateWindow,
		DenyDelete:  true,
		// Atomic batches need nats-server 2.12 or later, as the timers
		// stream's message schedules do.
		AllowAtomicPublish: true,
	}
}

func orUnlimited(n int64) int64 {
	if n <= 0 {
		return -1
	}
	return n
}

// ConsumerConfig is the durable pull consumer of a service. MaxDeliver is
// unlimited at the server: the worker runtime counts deliveries itself so a
// message that exhausts them is dead-lettered and its run ended, even when
// the process crashed while handling it.
func (t Topology) ConsumerConfig(service string) jetstream.ConsumerConfig {
	return jetstream.ConsumerConfig{
		Durable:        service,
		Description:    "Codali " + service,
		FilterSubjects: events.InputSubjects(service),
		AckPolicy:      jetstream.AckExplicitPolicy,
		AckWait:        t.AckWait,
		MaxDeliver:     -1,
		MaxAckPending:  t.MaxAckPending,
		DeliverPolicy:  jetstream.DeliverAllPolicy,
	}
}

// Provision creates or updates every stream, consumer and bucket, so it is
// safe to call from every process at start-up. services limits which
// consumers are created (nil: all). It returns the first error, wrapped.
func Provision(ctx context.Context, js jetstream.JetStream, t Topology, services []string) error {
	t.setDefaults()
	if err := t.Validate(); err != nil {
		return err
	}
	for _, sc := range []jetstream.StreamConfig{t.TimersStream(), t.WorkStream(), t.DeadLetterStream(), t.RAOStream()} {
		if !t.Update {
			if _, err := js.Stream(ctx, sc.Name); err == nil {
				continue
			}
		}
		if _, err := js.CreateOrUpdateStream(ctx, sc); err != nil {
			return fmt.Errorf("could not provision stream %s: %w", sc.Name, err)
		}
	}
	if services == nil {
		services = events.Services()
	}
	for _, s := range services {
		if events.InputSubjects(s) == nil {
			return fmt.Errorf("%w: unknown service %q", ErrInvalidConfig, s)
		}
		if !t.Update {
			if _, err := js.Consumer(ctx, events.StreamWork, s); err == nil {
				continue
			}
		}
		if _, err := js.CreateOrUpdateConsumer(ctx, events.StreamWork, t.ConsumerConfig(s)); err != nil {
			return fmt.Errorf("could not provision consumer %s: %w", s, err)
		}
	}
	for _, b := range t.buckets() {
		if err := t.bucket(ctx, js, b.Bucket, b); err != nil {
			return fmt.Errorf("could not provision bucket %s: %w", b.Bucket, err)
		}
	}
	keys, err := js.KeyValue(ctx, events.BucketKeys)
	if err != nil {
		return fmt.Errorf("could not provision bucket %s: %w", events.BucketKeys, err)
	}
	if err := msgid.Ensure(ctx, keys); err != nil {
		return fmt.Errorf("could not provision bucket %s: %w", events.BucketKeys, err)
	}
	if !t.Update {
		if _, err := js.ObjectStore(ctx, events.BucketArtifacts); err == nil {
			return nil
		}
	}
	if _, err := js.CreateOrUpdateObjectStore(ctx, jetstream.ObjectStoreConfig{
		Bucket: events.BucketArtifacts, Description: "Codali large artifacts", Storage: jetstream.FileStorage,
		Replicas: t.Replicas, TTL: 30 * 24 * time.Hour,
	}); err != nil {
		return fmt.Errorf("could not provision bucket %s: %w", events.BucketArtifacts, err)
	}
	return nil
}

func (t Topology) bucket(ctx context.Context, js jetstream.JetStream, name string, cfg jetstream.KeyValueConfig) error {
	if !t.Update {
		if _, err := js.KeyValue(ctx, name); err == nil {
			return nil
		}
	}
	_, err := js.CreateOrUpdateKeyValue(ctx, cfg)
	return err
}

// buckets are the configurations of Codali's key-value buckets.
func (t Topology) buckets() []jetstream.KeyValueConfig {
	kv := func(name, description string, history uint8, ttl time.Duration) jetstream.KeyValueConfig {
		return jetstream.KeyValueConfig{Bucket: name, Description: description, History: history,
			Storage: jetstream.FileStorage, Replicas: t.Replicas, TTL: ttl}
	}
	const month = 30 * 24 * time.Hour
	return []jetstream.KeyValueConfig{
		kv(events.BucketPMState, "Codali project cognition state", 16, 0),
		kv(events.BucketRuns, "Codali run summaries", 1, month),
		kv(events.BucketRequests, "Codali run ids and the digest of the request that claimed each", 1, month),
		kv(events.BucketPolicies, "Codali policy documents operators stored for forked runs", 1, month),
		kv(events.BucketParks, "Codali parked runs: the current park and its decisions", 1, events.ParkRetention),
		// One key, created once and kept (msgid.Ensure): the services'
		// message id key. Never expires: ids must stay the same.
		kv(events.BucketKeys, "Codali services' message id key (agents may not read it)", 1, 0),
	}
}
