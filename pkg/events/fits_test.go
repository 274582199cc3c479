package events

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// TestFitsAgreesWithEncode: Fits, which answers without encoding when
// encodedBound shows the event is small enough, says what Encode says, for
// every limit around the bound and the encoded size, with strings and
// data that escaping makes longer.
func TestFitsAgreesWithEncode(t *testing.T) {
	awkward := strings.Repeat("<&>\u2028\xff\x01\"", 20)
	data, err := json.Marshal(map[string]string{"a": awkward})
	if err != nil {
		t.Fatal(err)
	}
	spaced := []byte("{ \"a\" : \"<<<>>>&&&\u2028\" ,\n \"b\" : [ 1 , 2 ] }")
	for _, d := range [][]byte{data, spaced, []byte(`{}`), nil, []byte(`{"a":`)} {
		e := Envelope{SpecVersion: SpecVersion, ID: "r1.plan.1", Source: awkward, Type: KindPlan.Type(), Subject: "r1", Time: time.Now(),
			DataContentType: ContentTypeJSON, Attempt: 1 << 40, TraceParent: awkward, Data: d}
		raw, _ := json.Marshal(e)
		bound := e.encodedBound()
		if len(raw) > bound {
			t.Fatalf("encoded %d bytes, bound %d", len(raw), bound)
		}
		for _, limit := range []int{-1, 0, 1, len(raw) - 1, len(raw), len(raw) + 1, bound - 1, bound, bound + 1} {
			_, err := e.Encode(limit)
			if want := !errors.Is(err, ErrTooLarge); e.Fits(limit) != want {
				t.Errorf("data %q limit %d (encoded %d, bound %d): Fits %v, Encode %v", d, limit, len(raw), bound, !want, err)
			}
		}
	}
}
