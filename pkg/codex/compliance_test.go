package codex

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

// The compliance suite of the clarifications (spec §12), one case each.

func TestCompliance1ShuffledBlocksRejected(t *testing.T) {
	ref := referencePayload(t)
	timeline := ref[strings.Index(ref, "<TIMELINE>") : strings.Index(ref, "</TIMELINE>")+len("</TIMELINE>")]
	shuffled := edit(t, edit(t, ref, timeline, ""), "<DATA>", timeline+"\n<DATA>")

	if diags := Validate(shuffled); !hasDiag(diags, "ERROR:block-order:DATA") {
		t.Errorf("Validate: want ERROR:block-order:DATA, got %v", diagStrings(diags))
	}
	st, diags, err := Decode(shuffled)
	if st != nil || !errors.Is(err, ErrBlockOrder) || !errors.Is(err, ErrInvalidPayload) {
		t.Fatalf("Decode: state %v, err %v", st != nil, err)
	}
	if !HasErrors(diags) {
		t.Errorf("want an ERROR diagnostic, got %v", diagStrings(diags))
	}
}

func TestCompliance2RawFilenameAsIdentifier(t *testing.T) {
	payload := edit(t, referencePayload(t), "hotspots=mod#a913,api#f02c", "hotspots=src/api.ts")
	const want = "ERROR:hash-violation:hotspots=src/api.ts"
	if diags := Validate(payload); !reflect.DeepEqual(diagStrings(diags), []string{want}) {
		t.Errorf("Validate: got %v, want [%s]", diagStrings(diags), want)
	}
	st, diags, err := Decode(payload)
	if st != nil || !errors.Is(err, ErrHashViolation) {
		t.Fatalf("Decode: state %v, err %v", st != nil, err)
	}
	if !hasDiag(diags, want) {
		t.Errorf("Decode diagnostics %v lack %s", diagStrings(diags), want)
	}
}

func TestCompliance3OversizedPayload(t *testing.T) {
	ref := referencePayload(t)
	pad := func(n int) string { // grow DATA with valid KPI tokens to exactly n bytes
		t.Helper()
		var b strings.Builder
		for i := 0; len(ref)+b.Len() < n-40; i++ {
			b.WriteString(" | kpi:k")
			b.WriteString(strings.Repeat("x", i%7))
			b.WriteString("=v")
		}
		p := edit(t, ref, "maturity=iter2", "maturity=iter2"+b.String())
		return edit(t, p, "</RL4-CODEX>", strings.Repeat(" ", n-len(p))+"</RL4-CODEX>")
	}
	tests := []struct {
		name    string
		size    int
		wantErr bool
	}{
		{name: "at the limit", size: MaxPayloadBytes},
		{name: "one byte over", size: MaxPayloadBytes + 1, wantErr: true},
		{name: "far over", size: 3 * MaxPayloadBytes, wantErr: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := pad(tc.size)
			if len(p) != tc.size {
				t.Fatalf("built %d bytes, want %d", len(p), tc.size)
			}
			diags := Validate(p)
			if got := hasDiag(diags, "ERROR:size-exceeded"); got != tc.wantErr {
				t.Errorf("Validate: size-exceeded %v, want %v (%v)", got, tc.wantErr, diagStrings(diags))
			}
			st, _, err := Decode(p)
			if tc.wantErr != errors.Is(err, ErrSizeExceeded) || tc.wantErr != (st == nil) {
				t.Errorf("Decode: state %v, err %v", st != nil, err)
			}
		})
	}
}

func TestCompliance4UnknownTopLevelTag(t *testing.T) {
	ref := referencePayload(t)
	want, _ := mustDecode(t, ref)
	tests := []struct {
		name    string
		payload string
		blocks  []TaggedBlock
	}{
		{
			name:    "between blocks",
			payload: edit(t, ref, "<DECISIONS>", "<FUTURE>signal=on | mod#beef</FUTURE>\n<DECISIONS>"),
			blocks:  []TaggedBlock{{Tag: "FUTURE", Content: "signal=on | mod#beef"}},
		},
		{
			name:    "first and self-closing",
			payload: edit(t, ref, "<DATA>", "<FUTURE/><X-NOTE>a=b</X-NOTE><DATA>"),
			blocks:  []TaggedBlock{{Tag: "FUTURE"}, {Tag: "X-NOTE", Content: "a=b"}},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, diags := mustDecode(t, tc.payload)
			if len(diags) != 0 {
				t.Errorf("want no diagnostics, got %v", diagStrings(diags))
			}
			if !reflect.DeepEqual(got.OptionalMetadata.UnknownBlocks, tc.blocks) {
				t.Errorf("unknown blocks %#v, want %#v", got.OptionalMetadata.UnknownBlocks, tc.blocks)
			}
			got.OptionalMetadata.UnknownBlocks = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("other data changed:\n%#v\nwant\n%#v", *got, *want)
			}
		})
	}
}

func TestCompliance5ChecksumAndSessionInOptional(t *testing.T) {
	ref := referencePayload(t)
	opt := ref[strings.Index(ref, "<OPTIONAL>") : strings.Index(ref, "</OPTIONAL>")+len("</OPTIONAL>")]
	without, _ := mustDecode(t, edit(t, ref, opt, ""))

	span := normalize(ref)
	span = span[strings.Index(span, "<DATA>") : strings.Index(span, "</DECISIONS>")+len("</DECISIONS>")]
	sum := HashID("sum", span)
	with, diags := mustDecode(t, edit(t, ref, opt, "<OPTIONAL>checksum="+sum+" | session=fingerprint#0a1b2c3d</OPTIONAL>"))
	if len(diags) != 0 {
		t.Errorf("want no diagnostics (checksum verified), got %v", diagStrings(diags))
	}
	if with.OptionalMetadata.Checksum != Value(sum) || with.OptionalMetadata.Session != "fingerprint#0a1b2c3d" {
		t.Errorf("metadata: checksum %q session %q", with.OptionalMetadata.Checksum, with.OptionalMetadata.Session)
	}
	with.OptionalMetadata = without.OptionalMetadata
	if !reflect.DeepEqual(with, without) {
		t.Errorf("required blocks affected by OPTIONAL:\n%#v\n%#v", *with, *without)
	}
}

func TestCompliance6NonCriticalDataTokensRemoved(t *testing.T) {
	ref := referencePayload(t)
	want, _ := mustDecode(t, ref)
	payload := edit(t, ref, "proj#7fa2 | mode=strict | phase=build | tasks=3", "proj#7fa2")
	payload = edit(t, payload, "kpi:velocity=steady | cog.health=0.82 | maturity=iter2", "")
	got, diags := mustDecode(t, payload)
	if len(diags) != 0 {
		t.Errorf("want no diagnostics, got %v", diagStrings(diags))
	}
	pc := got.ProjectContext
	for name, v := range map[string]Value{"mode": pc.Mode, "phase": pc.Phase, "cog.health": pc.CogHealth,
		"maturity": pc.Maturity, "tasks.active": pc.TaskLoad.Active, "tasks.total": pc.TaskLoad.Total} {
		if v != Unknown {
			t.Errorf("%s = %q, want UNKNOWN", name, v)
		}
	}
	if pc.KPIs.Known() {
		t.Errorf("KPIs = %v, want UNKNOWN", pc.KPIs)
	}
	if pc.ProjectHash != "proj#7fa2" {
		t.Errorf("project hash %q", pc.ProjectHash)
	}
	want.ProjectContext.Mode, want.ProjectContext.Phase, want.ProjectContext.CogHealth = Unknown, Unknown, Unknown
	want.ProjectContext.Maturity, want.ProjectContext.TaskLoad.Active, want.ProjectContext.KPIs = Unknown, Unknown, nil
	if !reflect.DeepEqual(got, want) {
		t.Errorf("decoding did not go on unchanged:\n%#v\n%#v", *got, *want)
	}
}
