package app

import (
	"bytes"
	"fmt"
	"log/slog"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/redact"
)

// stringer is a fmt.Stringer whose text holds a secret.
type stringer struct{}

func (stringer) String() string { return "key AKIAIOSFODNN7EXAMPLE" }

// valuer is a slog.LogValuer resolving to a struct holding secrets.
type valuer struct{}

func (valuer) LogValue() slog.Value {
	return slog.AnyValue(struct{ DBPassword, Note string }{"hunter2-valuer", "ok"})
}

// TestLogValuesOfAnyKindAreRedacted: attribute values that are neither
// strings nor errors (a struct, a map, a []byte, a fmt.Stringer, a
// slog.LogValuer, a group of them) and values under a secret-like key
// and below a secret-like group are redacted, in the JSON and the text
// handler, bound with With or not;
// numbers, booleans, durations and times are kept.
func TestLogValuesOfAnyKindAreRedacted(t *testing.T) {
	const aws = "AKIAIOSFODNN7EXAMPLE"
	red, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	secrets := []string{aws, "hunter2-struct", "hunter2-map", "hunter2-key", "hunter2-valuer", "hunter2-group", "482913", "hunter2-argv"}
	for _, handler := range []string{"json", "text"} {
		t.Run(handler, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewJSONHandler(&buf, nil)
			if handler == "text" {
				h = slog.NewTextHandler(&buf, nil)
			}
			log := redactedLogger(slog.New(h), red)
			log.With("bound", struct{ Password string }{"hunter2-struct"}).Info("call",
				"struct", struct {
					Token string `json:"token"`
					Cmd   string
				}{"hunter2-struct", "curl -H 'Authorization: Bearer " + aws + "'"},
				"map", map[string]string{"db_password": "hunter2-map", "user": "app"},
				"bytes", []byte("key "+aws),
				"argv", []string{"docker", "login", "-p", "hunter2-argv", "ghcr.io"},
				"stringer", stringer{},
				"valuer", valuer{},
				"password", "hunter2-key",
				"pin_password", 482913,
				slog.Group("g", "inner", map[string]any{"api_key": "hunter2-group"}, "n", 7),
				"count", 3, "ok", true, "took", 1500*time.Millisecond,
				"at", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
				"err", fmt.Errorf("wrapped: %w", fmt.Errorf("key %s", aws)),
			)
			log.WithGroup("credentials").Info("grouped", "v", "hunter2-group")
			out := buf.String()
			for _, s := range secrets {
				if strings.Contains(out, s) {
					t.Errorf("the log keeps %q:\n%s", s, out)
				}
			}
			for _, keep := range []string{"count", "3", "true", "took", "2026-01-02T03:04:05", "user", "app", "[REDACTED:"} {
				if !strings.Contains(out, keep) {
					t.Errorf("the log lost %q:\n%s", keep, out)
				}
			}
		})
	}
}

// TestRedactedLoggerWithoutRedactor: no redactor, the logger as it is.
func TestRedactedLoggerWithoutRedactor(t *testing.T) {
	log := slog.New(slog.NewTextHandler(&bytes.Buffer{}, nil))
	if redactedLogger(log, nil) != log {
		t.Error("a logger without redactor was wrapped")
	}
}
