package app

import (
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/syncbuf"
	"github.com/codali-dev/codali/pkg/worker"
)

func idle() Component {
	return Component{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
		return func(context.Context, events.Envelope) ([]events.Envelope, error) { return nil, nil }, nil
	}}
}

func TestMainExitCodes(t *testing.T) {
	badConfig := writeFile(t, "bad.json", `{"limits": {"maxSteps": 0, "bogus": 1}}`)
	invalidConfig := writeFile(t, "invalid.json", `{"rao": {"checkpointEvery": 10, "maxEvents": 5}}`)
	badRedact := writeFile(t, "redact.json", `{"redact": {"patterns": ["(x"]}}`)
	cases := []struct {
		name   string
		args   []string
		env    map[string]string
		code   int
		stderr string
	}{
		{"help", []string{"--help"}, nil, ExitOK, "usage: librarian"},
		{"short help", []string{"-h"}, nil, ExitOK, "-nats string"},
		{"unknown flag", []string{"--bogus"}, nil, ExitUsage, "flag provided but not defined"},
		{"flag without value", []string{"--nats"}, nil, ExitUsage, "flag needs an argument"},
		{"bad replicas", []string{"--replicas", "three"}, nil, ExitUsage, "invalid value"},
		{"unexpected arguments", []string{"extra", "args"}, nil, ExitUsage, "unexpected arguments: extra args"},
		{"bad log level", []string{"--log-level", "loud"}, nil, ExitUsage, `log level "loud"`},
		{"bad log level from the environment", nil, map[string]string{"CODALI_LOG_LEVEL": "verbose"}, ExitUsage, `log level "verbose"`},
		{"missing config file", []string{"--config", "/nonexistent/codali.config.json"}, nil, ExitUsage, "could not read"},
		{"unknown config key", []string{"--config", badConfig}, nil, ExitUsage, "bogus"},
		{"inconsistent config", []string{"--config", invalidConfig}, nil, ExitUsage, "rao.maxEvents"},
		{"bad redact pattern", []string{"--config", badRedact}, nil, ExitUsage, "redact.patterns[0]"},
		{"bad config from the environment", nil, map[string]string{"CODALI_CONFIG": badConfig}, ExitUsage, "bogus"},
		{"NATS URL that is not a URL", []string{"--nats", "localhost"}, nil, ExitUsage, "is not a URL"},
		{"user without password", []string{"--nats", "nats://127.0.0.1:4222", "--user", "u"}, nil, ExitUsage, "user and password go together"},
		{"two auth methods", nil, map[string]string{"NATS_TOKEN": "t", "NATS_CREDS": "/c"}, ExitUsage, "choose one of"},
		{"unreachable NATS", []string{"--nats", "nats://127.0.0.1:1", "--http", "127.0.0.1:0"}, nil, ExitFailure, "could not connect to NATS"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr syncbuf.Buffer
			getenv := func(k string) string { return tc.env[k] }
			code := Main(tc.args, &stdout, &stderr, getenv, idle(), nil)
			if code != tc.code {
				t.Fatalf("exit %d, want %d; stderr:\n%s", code, tc.code, stderr.String())
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr does not mention %q:\n%s", tc.stderr, stderr.String())
			}
		})
	}
}

func freeAddr(t *testing.T) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	return addr
}

func get(addr, path string) (int, string) {
	resp, err := http.Get("http://" + addr + path)
	if err != nil {
		return 0, ""
	}
	body, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return 0, ""
	}
	return resp.StatusCode, string(body)
}

// TestMainServesAndDrains: Main connects, provisions its consumer, serves
// health and metrics, handles events, and exits 0 on SIGTERM.
func TestMainServesAndDrains(t *testing.T) {
	if testing.Short() {
		t.Skip("signals the test process")
	}
	// Keep SIGTERM from ending the test binary whatever happens to Main.
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGTERM)
	defer signal.Stop(sigs)

	srv := natstest.Start(t)
	addr := freeAddr(t)
	var handled sync.WaitGroup
	handled.Add(1)
	var once sync.Once
	comp := Component{Name: events.ServiceLibrarian, NewHandler: func(_ context.Context, d *Deps) (worker.Handler, error) {
		if d.Config.Limits.MaxRetries != 5 {
			t.Errorf("configuration not loaded: max retries %d", d.Config.Limits.MaxRetries)
		}
		return func(context.Context, events.Envelope) ([]events.Envelope, error) {
			once.Do(handled.Done)
			return nil, nil
		}, nil
	}}
	cfg := writeFile(t, "codali.config.json", `{"limits": {"maxRetries": 5}}`)
	var stdout, stderr syncbuf.Buffer
	done := make(chan int, 1)
	go func() {
		done <- Main([]string{"--nats", srv.ClientURL(), "--http", addr, "--config", cfg, "--log-level", "debug"}, &stdout, &stderr, noEnv, comp, nil)
	}()
	awaitReady(t, addr, done, &stderr)
	if code, _ := get(addr, "/healthz"); code != http.StatusOK {
		t.Errorf("/healthz %d", code)
	}
	if code, body := get(addr, "/metrics"); code != http.StatusOK || !strings.Contains(body, "go_goroutines") {
		t.Errorf("/metrics %d", code)
	}
	_, js := natstest.Connect(t, srv)
	publish(t, js, requestedEvent(t, "main1"))
	handled.Wait()
	terminate(t, done, &stderr)
	if !strings.Contains(stderr.String(), `"msg":"starting"`) || !strings.Contains(stderr.String(), `"msg":"drained"`) {
		t.Errorf("log lacks start or drain:\n%s", stderr.String())
	}
}

func TestNewLogger(t *testing.T) {
	cases := []struct {
		level   string
		wantErr bool
		debug   bool
	}{
		{"debug", false, true},
		{"info", false, false},
		{"WARN", false, false},
		{"error", false, false},
		{"trace", true, false},
		{"", true, false},
	}
	for _, tc := range cases {
		t.Run(tc.level, func(t *testing.T) {
			var b bytes.Buffer
			l, err := NewLogger(&b, tc.level)
			if (err != nil) != tc.wantErr {
				t.Fatalf("err = %v", err)
			}
			if err != nil {
				return
			}
			l.Debug("dbg")
			if strings.Contains(b.String(), `"msg":"dbg"`) != tc.debug {
				t.Errorf("debug output %q at level %s", b.String(), tc.level)
			}
		})
	}
}

func TestNewRegistry(t *testing.T) {
	reg, m, err := NewRegistry()
	if err != nil || reg == nil || m == nil {
		t.Fatalf("NewRegistry: %v", err)
	}
	mfs, err := reg.Gather()
	if err != nil || len(mfs) == 0 {
		t.Fatalf("Gather: %d families, %v", len(mfs), err)
	}
}

func TestTopologyFor(t *testing.T) {
	cfg := parseConfig(t, `{"rao": {"maxAgeHours": 48, "maxBytes": 1048576}}`)
	topo := TopologyFor(cfg, 3)
	if topo.Replicas != 3 || topo.RAOMaxAge != 48*time.Hour || topo.RAOMaxBytes != 1<<20 {
		t.Errorf("topology %+v", topo)
	}
}

// terminate sends the test process SIGTERM and waits for Main, started
// with done, to exit ExitOK (stderr is its log, shown on failure).
func terminate(t *testing.T, done <-chan int, stderr *syncbuf.Buffer) {
	t.Helper()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != ExitOK {
			t.Fatalf("exit %d after SIGTERM:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Main did not exit after SIGTERM")
	}
}

// awaitReady waits until Main, started with done and serving HTTP on
// addr, answers /readyz with 200; it fails the test if Main exits first.
func awaitReady(t *testing.T, addr string, done <-chan int, stderr *syncbuf.Buffer) {
	t.Helper()
	eventually(t, "/readyz to answer 200", func() bool {
		select {
		case code := <-done:
			t.Fatalf("Main exited %d:\n%s", code, stderr.String())
		default:
		}
		code, _ := get(addr, "/readyz")
		return code == http.StatusOK
	})
}
