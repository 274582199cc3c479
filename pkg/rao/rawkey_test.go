package rao

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"time"
)

// TestChainRawInvalidUTF8Keys: a state document whose object keys hold
// invalid UTF-8 (json.Valid accepts it) is written canonically: keys
// sorted and merged as they read once decoded (each bad byte U+FFFD), so
// the chain's hashes are those Verify computes from the stored events.
func TestChainRawInvalidUTF8Keys(t *testing.T) {
	pad := strings.Repeat("p", 300)
	docs := []string{
		fmt.Sprintf(`{"pad":%q,"o":{"`+"\xff"+`":1,"🙂":2,"pad":%q}}`, pad, pad),
		fmt.Sprintf(`{"pad":%q,"o":{"`+"\xfe"+`":0,"`+"\xff"+`":1,"🙂":3,"pad":%q}}`, pad, pad),
	}
	c := NewChain(Builder{RunID: "rawkeys", CheckpointEvery: 1})
	var history []Event
	for i, d := range docs {
		doc := []byte(d)
		want, err := CanonicalizeJSON(doc)
		if err != nil {
			t.Fatal(err)
		}
		s, err := c.NextSealed(doc, KindRun, fmt.Sprintf("e%d", i), "", Meta{}, time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC))
		if err != nil {
			t.Fatal(err)
		}
		if got := c.State(); !bytes.Equal(got, want) {
			t.Errorf("step %d: state\n got %q\nwant %q", i, got, want)
		}
		h, err := Hash(s.Event())
		if err != nil {
			t.Fatal(err)
		}
		if h != s.Hash() {
			t.Errorf("step %d: sealed hash %s, Hash %s", i, s.Hash(), h)
		}
		ev, err := Decode(s.Data())
		if err != nil {
			t.Fatal(err)
		}
		history = append(history, ev)
	}
	if r := Verify(history); !r.OK() {
		t.Errorf("history does not verify: %+v", r)
	}
}
