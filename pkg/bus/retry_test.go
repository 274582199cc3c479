package bus

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

func TestIsTransient(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want bool
	}{
		{"nil", nil, false},
		{"timeout", fmt.Errorf("publish: %w", nats.ErrTimeout), true},
		{"deadline", fmt.Errorf("kv get: %w", context.DeadlineExceeded), true},
		{"no responders", nats.ErrNoResponders, true},
		{"no stream response", fmt.Errorf("x: %w", jetstream.ErrNoStreamResponse), true},
		{"no heartbeat", jetstream.ErrNoHeartbeat, true},
		{"reconnecting", nats.ErrConnectionReconnecting, true},
		{"cluster unavailable", &jetstream.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}, true},
		{"not leader", &jetstream.APIError{Code: 500, ErrorCode: 10009}, true},
		{"insufficient resources", &jetstream.APIError{Code: 503, ErrorCode: 10023}, true},
		{"cluster unavailable, legacy API", fmt.Errorf("fetch: %w", &nats.APIError{Code: 503, ErrorCode: 10008, Description: "JetStream system temporarily unavailable"}), true},
		{"not leader, legacy API", &nats.APIError{Code: 500, ErrorCode: 10009}, true},
		{"stream not found, legacy API", nats.ErrStreamNotFound, false},
		{"cancelled", fmt.Errorf("x: %w", context.Canceled), false},
		{"closed", nats.ErrConnectionClosed, false},
		{"stream not found", jetstream.ErrStreamNotFound, false},
		{"wrong last sequence", &jetstream.APIError{Code: 400, ErrorCode: jetstream.JSErrCodeStreamWrongLastSequence}, false},
		{"other", errors.New("boom"), false},
	}
	for _, tc := range cases {
		if got := IsTransient(tc.err); got != tc.want {
			t.Errorf("%s: IsTransient(%v) = %v, want %v", tc.name, tc.err, got, tc.want)
		}
	}
}

// statusLog records what Retry reports.
type statusLog struct {
	mu   sync.Mutex
	last []error
}

func (s *statusLog) report(err error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.last = append(s.last, err)
}

func TestRetryUntilSuccess(t *testing.T) {
	var st statusLog
	calls := 0
	fast := RetryPolicy{Initial: time.Millisecond, Max: 2 * time.Millisecond}
	err := Retry(context.Background(), slog.New(slog.DiscardHandler), "provisioning", fast, st.report, func(context.Context) error {
		calls++
		if calls < 3 {
			return fmt.Errorf("attempt %d: %w", calls, context.DeadlineExceeded)
		}
		return nil
	})
	if err != nil || calls != 3 {
		t.Fatalf("Retry = %v after %d calls, want success on the 3rd", err, calls)
	}
	if len(st.last) != 3 || st.last[2] != nil || !strings.Contains(st.last[0].Error(), "provisioning (attempt 1, retrying in") {
		t.Fatalf("status reports %v", st.last)
	}
}

func TestRetryStopsOnPermanentErrors(t *testing.T) {
	fast := RetryPolicy{Initial: time.Millisecond}
	calls := 0
	err := Retry(context.Background(), slog.New(slog.DiscardHandler), "x", fast, nil, func(context.Context) error {
		calls++
		return fmt.Errorf("%w: replicas 9", ErrInvalidConfig)
	})
	if !errors.Is(err, ErrInvalidConfig) || calls != 1 {
		t.Fatalf("Retry = %v after %d calls", err, calls)
	}
	boom := errors.New("boom")
	fast.Permanent = func(err error) bool { return errors.Is(err, boom) }
	calls = 0
	err = Retry(context.Background(), slog.New(slog.DiscardHandler), "x", fast, nil, func(context.Context) error {
		calls++
		return boom
	})
	if !errors.Is(err, boom) || calls != 1 {
		t.Fatalf("Retry = %v after %d calls", err, calls)
	}
}

func TestRetryGivesUpWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	calls := 0
	err := Retry(ctx, slog.New(slog.DiscardHandler), "provisioning", RetryPolicy{Initial: time.Millisecond}, nil, func(context.Context) error {
		calls++
		if calls == 2 {
			cancel()
		}
		return nats.ErrTimeout
	})
	if !errors.Is(err, nats.ErrTimeout) || !strings.Contains(err.Error(), "gave up after 2 attempts") {
		t.Fatalf("Retry = %v", err)
	}
}
