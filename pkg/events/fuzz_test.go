package events_test

import (
	"encoding/json"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

// FuzzDecode feeds arbitrary subjects and messages to the envelope
// decoder: it never panics, every failure is a *DecodeError, and every
// accepted envelope encodes and decodes back to itself.
func FuzzDecode(f *testing.F) {
	ok, err := events.New("r1", events.KindRequested, 1, "codali/cli", time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
		map[string]any{"request": "x", "repo": map[string]string{"path": "/r"}})
	if err != nil {
		f.Fatal(err)
	}
	raw, err := ok.Encode(0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add("codali.run.r1.requested", raw)
	f.Add("codali.run.r1.requested", []byte(`{"specversion":"1.0"}`))
	f.Add("codali.run.r1.built", []byte(`{}`))
	f.Add("x", []byte(`[`))
	f.Fuzz(func(t *testing.T, subject string, msg []byte) {
		d := events.Decoder{MaxBytes: 1 << 20}
		e, err := d.Decode(subject, msg)
		if err != nil {
			var de *events.DecodeError
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *DecodeError", err)
			}
			return
		}
		enc, err := e.Encode(0)
		if err != nil {
			t.Fatalf("accepted envelope does not encode: %v", err)
		}
		back, err := d.Decode(subject, enc)
		if err != nil {
			t.Fatalf("re-encoded envelope rejected: %v\n%s", err, enc)
		}
		a, _ := json.Marshal(e)
		b, _ := json.Marshal(back)
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("round trip changed the envelope:\n%s\n%s", a, b)
		}
	})
}
