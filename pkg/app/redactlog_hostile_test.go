package app

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/url"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/redact"
)

// panicStringer panics in String, as a method on a nil receiver does.
type panicStringer struct{}

func (panicStringer) String() string { panic("String failed") }

// panicMarshaler panics in MarshalJSON.
type panicMarshaler struct{}

func (panicMarshaler) MarshalJSON() ([]byte, error) { panic("MarshalJSON failed") }

// selfValuer is a slog.LogValuer resolving to itself.
type selfValuer struct{}

func (v selfValuer) LogValue() slog.Value { return slog.AnyValue(v) }

// panicValuer is a slog.LogValuer that panics.
type panicValuer struct{}

func (panicValuer) LogValue() slog.Value { panic("LogValue failed") }

// cycle is a struct that points to itself.
type cycle struct {
	Next *cycle
	Note string
}

// nilErr is an error whose Error method reads its receiver.
type nilErr struct{ msg string }

func (e *nilErr) Error() string { return e.msg }

// TestLogValuesThatFailDoNotCrash: a value whose String, Error or
// MarshalJSON panics (a nil *url.URL, a nil error pointer), a LogValuer
// that panics or resolves to itself, a struct pointing to itself and a
// map holding itself are logged without crashing the service, as the
// standard handlers log them, and a secret beside them is still redacted.
func TestLogValuesThatFailDoNotCrash(t *testing.T) {
	red, err := redact.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	loop := &cycle{Note: "loop"}
	loop.Next = loop
	self := map[string]any{}
	self["self"] = self
	var nilURL *url.URL
	var nilError *nilErr
	for _, handler := range []string{"json", "text"} {
		t.Run(handler, func(t *testing.T) {
			var buf bytes.Buffer
			var h slog.Handler = slog.NewJSONHandler(&buf, nil)
			if handler == "text" {
				h = slog.NewTextHandler(&buf, nil)
			}
			log := redactedLogger(slog.New(h), red)
			log.Info("hostile", "url", nilURL, "err", error(nilError), "stringer", panicStringer{},
				"marshaler", struct{ M panicMarshaler }{}, "self", selfValuer{}, "panics", panicValuer{},
				"cycle", loop, "map", self, "detail", "GITHUB_TOKEN=hunter2-beside")
			out := buf.String()
			if strings.Contains(out, "hunter2-beside") {
				t.Errorf("the log carries the secret:\n%s", out)
			}
			for _, want := range []string{"hostile", "url", "stringer", "marshaler", "cycle", "GITHUB_TOKEN"} {
				if !strings.Contains(out, want) {
					t.Errorf("the log lacks %s:\n%s", want, out)
				}
			}
			if handler == "json" && !json.Valid(bytes.TrimSpace(buf.Bytes())) {
				t.Errorf("the JSON handler wrote invalid JSON:\n%s", out)
			}
		})
	}
}
