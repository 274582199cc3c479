package rao

import (
	"bytes"
	"compress/flate"
	"encoding/base64"
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"time"
)

// sampleEvent returns a valid checkpoint event.
func sampleEvent(t *testing.T) Event {
	t.Helper()
	return Event{
		ID: "run-1.10", RunID: "run-1", Seq: 10, TS: time.Date(2025, 3, 1, 10, 0, 9, 123456789, time.UTC),
		Kind: KindRun, Base: "run-1.9", Cause: "evt-10", Summary: "architect plan (attempt 2)",
		Delta:      Patch{{Op: OpReplace, Path: "/status", Value: json.RawMessage(`"building"`)}},
		Checkpoint: true, Snapshot: json.RawMessage(`{"plan":{"steps":["a","b"]},"status":"building"}`),
		Meta:     Meta{Schema: SchemaV2, PolicyHash: "ph", ContractHash: "ch", PMRev: "3"},
		PrevHash: strings.Repeat("ab", 32),
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	plain := sampleEvent(t)
	plain.Checkpoint, plain.Snapshot = false, nil
	tests := []struct {
		name string
		ev   Event
	}{
		{name: "checkpoint", ev: sampleEvent(t)},
		{name: "delta only", ev: plain},
		{name: "empty delta", ev: func() Event { e := plain; e.Delta = nil; return e }()},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := Encode(tc.ev)
			if err != nil {
				t.Fatalf("Encode: %v", err)
			}
			if c, err := CanonicalizeJSON(b); err != nil || !bytes.Equal(c, b) {
				t.Fatalf("encoding is not canonical JSON: %s", b)
			}
			if tc.ev.Checkpoint != bytes.Contains(b, []byte(`"snapshot_z":`)) || bytes.Contains(b, []byte(`"snapshot":`)) {
				t.Fatalf("snapshot must travel compressed only: %s", b)
			}
			got, err := Decode(b)
			if err != nil {
				t.Fatalf("Decode: %v", err)
			}
			h1, err1 := Hash(tc.ev)
			h2, err2 := Hash(got)
			if err1 != nil || err2 != nil || h1 != h2 {
				t.Fatalf("hash changed by the round trip: %s %s (%v %v)", h1, h2, err1, err2)
			}
			again, err := Encode(got)
			if err != nil || !bytes.Equal(again, b) {
				t.Fatalf("re-encoding differs:\n%s\n%s", again, b)
			}
			var viaJSON Event
			if err := json.Unmarshal(mustMarshal(t, tc.ev), &viaJSON); err != nil {
				t.Fatalf("json round trip: %v", err)
			}
			if h, _ := Hash(viaJSON); h != h1 {
				t.Fatal("json.Marshal/Unmarshal differ from Encode/Decode")
			}
		})
	}
}

// TestDecodePlainSnapshot checks that an uncompressed "snapshot" member is
// accepted and canonicalized.
func TestDecodePlainSnapshot(t *testing.T) {
	ev := sampleEvent(t)
	b, err := encode(ev, false)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	b = bytes.Replace(b, []byte(`"snapshot":{"plan"`), []byte(`"snapshot": { "plan"`), 1)
	got, err := Decode(b)
	if err != nil {
		t.Fatalf("Decode: %v", err)
	}
	if string(got.Snapshot) != `{"plan":{"steps":["a","b"]},"status":"building"}` {
		t.Fatalf("snapshot %s", got.Snapshot)
	}
}

func TestDecodeStrict(t *testing.T) {
	base := sampleEvent(t)
	good, err := encode(base, false)
	if err != nil {
		t.Fatalf("encode: %v", err)
	}
	mutate := func(f func(m map[string]any)) []byte {
		c := map[string]any{}
		if err := json.Unmarshal(good, &c); err != nil {
			t.Fatalf("unmarshal: %v", err)
		}
		f(c)
		return mustMarshal(t, c)
	}
	z := func(raw []byte) string {
		var buf bytes.Buffer
		zw, _ := flate.NewWriter(&buf, flate.BestSpeed)
		_, _ = zw.Write(raw)
		_ = zw.Close()
		return base64.StdEncoding.EncodeToString(buf.Bytes())
	}
	tests := []struct {
		name string
		in   []byte
	}{
		{name: "not JSON", in: []byte(`{`)},
		{name: "trailing data", in: append(append([]byte{}, good...), []byte(` {}`)...)},
		{name: "unknown member", in: mutate(func(m map[string]any) { m["extra"] = 1 })},
		{name: "unknown meta member", in: mutate(func(m map[string]any) { m["meta"].(map[string]any)["x"] = 1 })},
		{name: "unknown op member", in: mutate(func(m map[string]any) { m["delta"].([]any)[0].(map[string]any)["spurious"] = 1 })},
		{name: "unknown kind", in: mutate(func(m map[string]any) { m["kind"] = "note" })},
		{name: "bad schema", in: mutate(func(m map[string]any) { m["meta"].(map[string]any)["schema"] = "rao.v1" })},
		{name: "missing schema", in: mutate(func(m map[string]any) { delete(m["meta"].(map[string]any), "schema") })},
		{name: "missing meta", in: mutate(func(m map[string]any) { delete(m, "meta") })},
		{name: "missing delta", in: mutate(func(m map[string]any) { delete(m, "delta") })},
		{name: "null delta", in: mutate(func(m map[string]any) { m["delta"] = nil })},
		{name: "missing ts", in: mutate(func(m map[string]any) { delete(m, "ts") })},
		{name: "bad ts", in: mutate(func(m map[string]any) { m["ts"] = "yesterday" })},
		{name: "missing id", in: mutate(func(m map[string]any) { delete(m, "id") })},
		{name: "id not run.seq", in: mutate(func(m map[string]any) { m["id"] = "run-1.11" })},
		{name: "seq zero", in: mutate(func(m map[string]any) { m["seq"] = 0; m["id"] = "run-1.0" })},
		{name: "negative seq", in: mutate(func(m map[string]any) { m["seq"] = -1 })},
		{name: "run id with dot", in: mutate(func(m map[string]any) { m["run_id"] = "a.b"; m["id"] = "a.b.10" })},
		{name: "move op in delta", in: mutate(func(m map[string]any) {
			m["delta"] = []any{map[string]any{"op": "move", "from": "/a", "path": "/b"}}
		})},
		{name: "remove with value", in: mutate(func(m map[string]any) {
			m["delta"] = []any{map[string]any{"op": "remove", "path": "/a", "value": 1}}
		})},
		{name: "checkpoint without snapshot", in: mutate(func(m map[string]any) { delete(m, "snapshot") })},
		{name: "snapshot without checkpoint", in: mutate(func(m map[string]any) { delete(m, "checkpoint") })},
		{name: "scalar snapshot", in: mutate(func(m map[string]any) { m["snapshot"] = "x" })},
		{name: "both snapshot forms", in: mutate(func(m map[string]any) { m["snapshot_z"] = z([]byte(`{}`)) })},
		{name: "snapshot_z not base64", in: mutate(func(m map[string]any) { delete(m, "snapshot"); m["snapshot_z"] = "!!!" })},
		{name: "snapshot_z not deflate", in: mutate(func(m map[string]any) {
			delete(m, "snapshot")
			m["snapshot_z"] = base64.StdEncoding.EncodeToString([]byte("plain text"))
		})},
		{name: "snapshot_z not JSON", in: mutate(func(m map[string]any) { delete(m, "snapshot"); m["snapshot_z"] = z([]byte(`{"a":`)) })},
		{name: "bad prev_hash", in: mutate(func(m map[string]any) { m["prev_hash"] = "ABC" })},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := Decode(tc.in); !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("got %v, want ErrInvalidEvent", err)
			}
			// encoding/json rejects syntax errors itself, before calling
			// Event.UnmarshalJSON.
			var e Event
			err := json.Unmarshal(tc.in, &e)
			if json.Valid(tc.in) && !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("json.Unmarshal: got %v, want ErrInvalidEvent", err)
			}
			if err == nil {
				t.Fatal("json.Unmarshal accepted the input")
			}
		})
	}
}

func TestDecompressSnapshotLimit(t *testing.T) {
	big := `{"a":"` + strings.Repeat("x", 1000) + `"}`
	z := compressSnapshot([]byte(big))
	if _, err := decompressSnapshotLimit(z, 100); !errors.Is(err, ErrInvalidEvent) {
		t.Fatalf("got %v, want ErrInvalidEvent for an oversized snapshot", err)
	}
	got, err := decompressSnapshotLimit(z, len(big))
	if err != nil || string(got) != big {
		t.Fatalf("exact limit: %v", err)
	}
}

func TestEventValidate(t *testing.T) {
	tests := []struct {
		name   string
		mutate func(e *Event)
		errs   int // number of joined problems expected
	}{
		{name: "valid", mutate: func(e *Event) {}, errs: 0},
		{name: "zero ts", mutate: func(e *Event) { e.TS = time.Time{} }, errs: 1},
		{name: "bad kind and schema", mutate: func(e *Event) { e.Kind = "x"; e.Meta.Schema = "" }, errs: 2},
		{name: "bad run id", mutate: func(e *Event) { e.RunID = "a b"; e.ID = "a b.10" }, errs: 1},
		{name: "long run id", mutate: func(e *Event) { e.RunID = strings.Repeat("r", 257); e.ID = e.RunID + ".10" }, errs: 1},
		{name: "invalid delta", mutate: func(e *Event) { e.Delta = Patch{{Op: OpTest, Path: "/a", Value: json.RawMessage(`1`)}} }, errs: 1},
		{name: "snapshot not JSON", mutate: func(e *Event) { e.Snapshot = json.RawMessage(`{`) }, errs: 1},
		{name: "uppercase hash", mutate: func(e *Event) { e.PrevHash = strings.Repeat("AB", 32) }, errs: 1},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := sampleEvent(t)
			tc.mutate(&e)
			err := e.Validate()
			if tc.errs == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			if !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("got %v, want ErrInvalidEvent", err)
			}
			if n := strings.Count(err.Error(), "\n") + 1; n != tc.errs {
				t.Fatalf("got %d problems, want %d: %v", n, tc.errs, err)
			}
			if _, err := Encode(e); !errors.Is(err, ErrInvalidEvent) {
				t.Fatalf("Encode accepted an invalid event: %v", err)
			}
		})
	}
}

func TestHash(t *testing.T) {
	base := sampleEvent(t)
	h0, err := Hash(base)
	if err != nil {
		t.Fatalf("Hash: %v", err)
	}
	if !isHexHash(h0) {
		t.Fatalf("hash %q is not 64 hex digits", h0)
	}
	tests := []struct {
		name   string
		mutate func(e *Event)
	}{
		{name: "ts", mutate: func(e *Event) { e.TS = e.TS.Add(time.Nanosecond) }},
		{name: "kind", mutate: func(e *Event) { e.Kind = KindAudit }},
		{name: "base", mutate: func(e *Event) { e.Base = "run-1.8" }},
		{name: "cause", mutate: func(e *Event) { e.Cause = "other" }},
		{name: "summary", mutate: func(e *Event) { e.Summary = "other" }},
		{name: "delta", mutate: func(e *Event) { e.Delta[0].Value = json.RawMessage(`"done"`) }},
		{name: "checkpoint", mutate: func(e *Event) { e.Checkpoint = false }},
		{name: "snapshot", mutate: func(e *Event) { e.Snapshot = json.RawMessage(`{"status":"x"}`) }},
		{name: "meta", mutate: func(e *Event) { e.Meta.PMRev = "4" }},
		{name: "prev_hash", mutate: func(e *Event) { e.PrevHash = strings.Repeat("cd", 32) }},
		{name: "seq and id", mutate: func(e *Event) { e.Seq, e.ID = 11, "run-1.11" }},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			e := sampleEvent(t)
			e.Delta = append(Patch{}, e.Delta...)
			tc.mutate(&e)
			h, err := Hash(e)
			if err != nil {
				t.Fatalf("Hash: %v", err)
			}
			if h == h0 {
				t.Fatalf("changing %s does not change the hash", tc.name)
			}
		})
	}
	t.Run("whitespace in snapshot does not matter", func(t *testing.T) {
		e := sampleEvent(t)
		e.Snapshot = json.RawMessage(`{ "status":"building", "plan":{"steps":["a","b"]} }`)
		if h, _ := Hash(e); h != h0 {
			t.Fatal("hash depends on snapshot formatting")
		}
	})
	t.Run("unhashable", func(t *testing.T) {
		e := sampleEvent(t)
		e.Snapshot = json.RawMessage(`{`)
		if _, err := Hash(e); !errors.Is(err, ErrInvalidJSON) {
			t.Fatalf("got %v, want ErrInvalidJSON", err)
		}
	})
}

func TestMetaDisplay(t *testing.T) {
	tests := []struct {
		name string
		m    Meta
		want string
	}{
		{name: "all tags", m: Meta{Schema: SchemaV2, PolicyHash: "p", ContractHash: "c", PMRev: "1"}, want: "schema=rao.v2 policy_hash=p contract_hash=c pm_rev=1"},
		{name: "missing tags", m: Meta{Schema: SchemaV2}, want: "schema=rao.v2 policy_hash=unknown contract_hash=unknown pm_rev=unknown"},
		{name: "nothing", m: Meta{}, want: "schema=unknown policy_hash=unknown contract_hash=unknown pm_rev=unknown"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.m.String(); got != tc.want {
				t.Fatalf("got %q, want %q", got, tc.want)
			}
			if d := tc.m.Display(); d.PolicyHash == "" || d.ContractHash == "" || d.PMRev == "" || d.Schema == "" {
				t.Fatalf("Display left a tag empty: %+v", d)
			}
		})
	}
}

func TestKindValid(t *testing.T) {
	for _, k := range []Kind{KindRun, KindAudit, KindOverride} {
		if !k.Valid() {
			t.Fatalf("%q should be valid", k)
		}
	}
	for _, k := range []Kind{"", "Run", "note"} {
		if k.Valid() {
			t.Fatalf("%q should be invalid", k)
		}
	}
}
