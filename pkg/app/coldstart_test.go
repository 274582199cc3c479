package app

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/config"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/syncbuf"
)

// waitUntil polls cond for up to limit.
func waitUntil(t *testing.T, what string, limit time.Duration, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s", limit, what)
		}
		time.Sleep(50 * time.Millisecond) // poll interval
	}
}

// TestServeWaitsForAClusterWithoutQuorum: a service starts against a
// cluster that cannot answer (two of three servers down, so JetStream has
// no leader). It does not exit: provisioning is retried, and /readyz says
// why the service is not ready. Once a second server is back it
// provisions, becomes ready, and drains on shutdown.
func TestServeWaitsForAClusterWithoutQuorum(t *testing.T) {
	cl := natstest.StartCluster(t, 3)
	cl.Stop(1)
	cl.Stop(2)
	cfg, err := config.Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	addr := freeAddr(t)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var logs syncbuf.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, log, bus.ConnectOptions{URL: cl.URLs()}, cfg, addr, bus.Topology{Replicas: 3}, true, noEnv, idle(), nil)
	}()
	waitUntil(t, "/readyz to say provisioning is retried", 90*time.Second, func() bool {
		select {
		case err := <-done:
			t.Fatalf("serve returned while the cluster had no quorum: %v\n%s", err, logs.String())
		default:
		}
		code, body := get(addr, "/readyz")
		return code == http.StatusServiceUnavailable && strings.Contains(body, "startup: provisioning streams, consumers and buckets (attempt")
	})
	if !strings.Contains(logs.String(), "provisioning streams, consumers and buckets failed; retrying") {
		t.Errorf("the retry is not logged:\n%s", logs.String())
	}
	cl.Restart(t, 1)
	waitUntil(t, "/readyz to answer 200", 2*time.Minute, func() bool {
		code, _ := get(addr, "/readyz")
		return code == http.StatusOK
	})
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("serve: %v", err)
		}
	case <-time.After(time.Minute):
		t.Fatal("serve did not return after cancel")
	}
}

// TestServicesStartTogetherOnAFreshCluster: every service binary's start
// path runs at the same instant against a fresh cluster, each creating
// the R3 streams, its consumer and the buckets; none gives up.
func TestServicesStartTogetherOnAFreshCluster(t *testing.T) {
	cl := natstest.StartCluster(t, 3)
	cfg, err := config.Parse([]byte(`{}`))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	names := events.Services()
	addrs := make([]string, len(names))
	done := make(chan error, len(names))
	var start sync.WaitGroup
	start.Add(1)
	for i, name := range names {
		addrs[i] = freeAddr(t)
		comp := idle()
		comp.Name = name
		go func() {
			start.Wait()
			done <- serve(ctx, slog.New(slog.DiscardHandler), bus.ConnectOptions{URL: cl.URLs()}, cfg, addrs[i], bus.Topology{Replicas: 3}, true, noEnv, comp, nil)
		}()
	}
	start.Done()
	for i, name := range names {
		waitUntil(t, name+" to be ready", 2*time.Minute, func() bool {
			select {
			case err := <-done:
				t.Fatalf("a service stopped: %v", err)
			default:
			}
			code, _ := get(addrs[i], "/readyz")
			return code == http.StatusOK
		})
	}
	cancel()
	for range names {
		if err := <-done; err != nil {
			t.Errorf("serve: %v", err)
		}
	}
}

func TestStartupReadiness(t *testing.T) {
	var s Startup
	if err := s.Ready(); err == nil || err.Error() != "starting" {
		t.Fatalf("new Startup: %v", err)
	}
	s.Report(errors.New("provisioning (attempt 1): timeout"))
	if err := s.Ready(); err == nil || !strings.Contains(err.Error(), "attempt 1") {
		t.Fatalf("after a failure: %v", err)
	}
	s.Done()
	if err := s.Ready(); err != nil {
		t.Fatalf("after Done: %v", err)
	}
}
