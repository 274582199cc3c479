package raostore

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

func TestEnsureStream(t *testing.T) {
	_, _, js := natstest.StartJS(t)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)

	s, err := EnsureStream(ctx, js, StreamConfig{})
	if err != nil {
		t.Fatalf("EnsureStream: %v", err)
	}
	cfg := s.CachedInfo().Config
	if cfg.Name != "RAO" || len(cfg.Subjects) != 1 || cfg.Subjects[0] != "rao.>" ||
		cfg.Storage != jetstream.FileStorage || cfg.Discard != jetstream.DiscardOld ||
		!cfg.DenyDelete || cfg.DenyPurge || cfg.Replicas != 1 || cfg.MaxMsgsPerSubject != -1 ||
		cfg.Duplicates != 10*time.Minute || cfg.MaxMsgSize != 8<<20 || cfg.MaxBytes != -1 {
		t.Fatalf("stream config: %+v", cfg)
	}

	t.Run("idempotent", func(t *testing.T) {
		again, err := EnsureStream(ctx, js, StreamConfig{})
		if err != nil {
			t.Fatalf("second EnsureStream: %v", err)
		}
		if again.CachedInfo().Created != s.CachedInfo().Created {
			t.Fatal("stream was recreated")
		}
	})
	t.Run("update limits", func(t *testing.T) {
		up, err := EnsureStream(ctx, js, StreamConfig{MaxAge: time.Minute, MaxBytes: 1 << 20})
		if err != nil {
			t.Fatalf("update: %v", err)
		}
		c := up.CachedInfo().Config
		if c.MaxAge != time.Minute || c.MaxBytes != 1<<20 || c.Duplicates != time.Minute {
			t.Fatalf("updated config: %+v", c)
		}
	})
	t.Run("storage cannot change", func(t *testing.T) {
		if _, err := EnsureStream(ctx, js, StreamConfig{Storage: jetstream.MemoryStorage}); err == nil {
			t.Fatal("changing the storage type was accepted")
		}
	})
}

func TestStreamConfigValidate(t *testing.T) {
	tests := []struct {
		name string
		cfg  StreamConfig
		ok   bool
	}{
		{name: "zero", cfg: StreamConfig{}, ok: true},
		{name: "cluster", cfg: StreamConfig{Replicas: 3, MaxAge: time.Hour, MaxBytes: 1 << 30, Storage: jetstream.MemoryStorage}, ok: true},
		{name: "too many replicas", cfg: StreamConfig{Replicas: 6}},
		{name: "negative replicas", cfg: StreamConfig{Replicas: -1}},
		{name: "negative age", cfg: StreamConfig{MaxAge: -time.Second}},
		{name: "negative bytes", cfg: StreamConfig{MaxBytes: -1}},
		{name: "negative window", cfg: StreamConfig{Duplicates: -time.Second}},
		{name: "negative message size", cfg: StreamConfig{MaxMsgSize: -1}},
		{name: "unknown storage", cfg: StreamConfig{Storage: 7}},
	}
	_, _, js := natstest.StartJS(t)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if tc.ok != (err == nil) {
				t.Fatalf("Validate = %v, want ok=%v", err, tc.ok)
			}
			if !tc.ok {
				if !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("got %v, want ErrInvalidConfig", err)
				}
				if _, err := EnsureStream(context.Background(), js, tc.cfg); !errors.Is(err, ErrInvalidConfig) {
					t.Fatalf("EnsureStream: got %v, want ErrInvalidConfig", err)
				}
			}
		})
	}
}
