package events

import (
	"bytes"
	"encoding/json"
	"testing"
	"time"
)

// encodeSeeds are event data compaction leaves as they are or changes.
var encodeSeeds = []string{
	`{"a":"b"}`, `{"a":"<b>"}`, `{"a":"\u003c"}`, "{\"a\":\"\u2028\"}", "{\"a\":\"\xe2\x80\"}", "{\"a\":\"\xe2\x80\xa8\"}", "{\"a\":\"\xe2\x80\xaa\"}",
	`{ "a" : 1 }`, `{"a":" spaced \" string "}`, `{"a":"\\"}`, `[1,2]`, `null`, `"x"`, `1e5`, `{"a":`, `{}}`, ``, `{"a":"x"} `,
	"{\"a\":\"\xff\"}", `{"a":"\"<\""}`,
}

func marshalSeedEvent(data []byte) Envelope {
	return Envelope{SpecVersion: SpecVersion, ID: "r1.plan.1", Source: "codali/<architect>", Type: KindPlan.Type(), Subject: "r1",
		Time: time.Date(2026, 1, 2, 3, 4, 5, 6, time.FixedZone("x", 3600)), DataContentType: ContentTypeJSON, Attempt: 3, TraceParent: "t&p", Data: data}
}

// sameMarshal fails unless marshal gives json.Marshal's bytes and error.
func sameMarshal(t *testing.T, e Envelope) {
	t.Helper()
	got, gotErr := e.marshal()
	want, wantErr := json.Marshal(e)
	if (gotErr == nil) != (wantErr == nil) || !bytes.Equal(got, want) {
		t.Fatalf("data %q:\nmarshal      %s %v\njson.Marshal %s %v", e.Data, got, gotErr, want, wantErr)
	}
}

func TestMarshalAgreesWithJSON(t *testing.T) {
	for _, s := range encodeSeeds {
		sameMarshal(t, marshalSeedEvent([]byte(s)))
	}
	sameMarshal(t, marshalSeedEvent(nil))
	bad := marshalSeedEvent([]byte(`{}`))
	bad.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) // not encodable
	sameMarshal(t, bad)
	if !compactAsIs([]byte(`{"a":"b","c":[1,{"d":null}]}`)) {
		t.Error("compact data is not appended as it is")
	}
}

// FuzzMarshal: marshal agrees with json.Marshal for any data.
func FuzzMarshal(f *testing.F) {
	for _, s := range encodeSeeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		sameMarshal(t, marshalSeedEvent(data))
	})
}
