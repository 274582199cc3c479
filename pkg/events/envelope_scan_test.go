package events

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// FuzzDecodeEnvelope: whenever the member-by-member decoding of an
// envelope decides, json.Decoder (and its trailing-data check) accepts
// the message too and decodes the same envelope.
func FuzzDecodeEnvelope(f *testing.F) {
	e, err := New("r1", KindPlan, 2, "codali/architect", time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), map[string]any{"run": map[string]string{"project": "<p>"}})
	if err != nil {
		f.Fatal(err)
	}
	e.TraceParent = "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"
	raw, err := e.Encode(0)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(raw)
	for _, s := range []string{
		`{"specversion":"1.0","id":"a","ID":"b"}`,
		`{"specversion":"1.0","ſource":"x"}`,
		`{"id":"a","id":null,"data":null,"time":null,"attempt":null}`,
		`{"id":"a\u00e9","source":"é\xff","type":"t\"x","data":{ "a" : [1, 2] } ,"extra":{"ID":1}}`,
		`{"attempt":1.5}`, `{"attempt":"1"}`, `{"id":5}`, `{"time":"yesterday"}`, `{"time":"2026-01-02T03:04:05Z","data":"x"}`,
		`{"data":{}}}`, `{"data":{}} ]`, `{"data":{}} x`, `[]`, `null`, `{`, ``,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, msg []byte) {
		got, ok := scanEnvelope(msg)
		if !ok {
			return
		}
		var want Envelope
		dec := json.NewDecoder(bytes.NewReader(msg))
		if err := dec.Decode(&want); err != nil || dec.More() {
			t.Fatalf("%q: scanned, but json.Decoder: %v (more %v)", msg, err, dec.More())
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q:\nscanned %#v\ndecoded %#v", msg, got, want)
		}
	})
}

// TestScanEnvelopeTaken: an event Codali encodes is decoded by the
// member scanner; keys that match a field only after case folding or
// unescaping, and trailing data, are left to json.Decoder.
func TestScanEnvelopeTaken(t *testing.T) {
	e, err := New("r1", KindPlan, 1, "codali/architect", time.Now(), map[string]string{"a": "b"})
	if err != nil {
		t.Fatal(err)
	}
	raw, err := e.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := scanEnvelope(raw); !ok {
		t.Errorf("an encoded event is not scanned: %s", raw)
	}
	for _, s := range []string{`{"ID":"x"}`, `{"i\u0064":"x"}`, `{"id":"x"}}`, `{"id":"x"} x`} {
		if _, ok := scanEnvelope([]byte(s)); ok {
			t.Errorf("scanned %s", s)
		}
	}
}
