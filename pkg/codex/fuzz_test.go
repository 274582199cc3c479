package codex

import (
	"slices"
	"strings"
	"testing"
)

// FuzzDecode checks that Decode never panics, that a failed decode always
// carries an ERROR diagnostic, that success means no ERROR, and that
// decoding is deterministic.
func FuzzDecode(f *testing.F) {
	ref := referencePayload(f)
	encoded, err := Encode(sampleState())
	if err != nil {
		f.Fatalf("Encode: %v", err)
	}
	seeds := []string{
		ref, encoded, "", "<RL4-CODEX", `<RL4-CODEX v="1.2"></RL4-CODEX>`,
		ref[:len(ref)/2], strings.Replace(ref, "</DATA>", "", 1), strings.Replace(ref, "<DATA>", "<DATA><DATA>", 1),
		strings.Replace(ref, `v="1.2"`, `v="9.9"`, 1), strings.Replace(ref, "hotspots=mod#a913", "hotspots=src/a.ts", 1),
		strings.ReplaceAll(ref, "|", ","), strings.ReplaceAll(ref, "(", "(("), strings.ReplaceAll(ref, ")", ""),
		strings.Replace(ref, "<OPTIONAL>", "<OPTIONAL>"+strings.Repeat("ext.a=b | ", 60), 1),
		strings.ReplaceAll(ref, "\n", "\r"), strings.Replace(ref, "<FUTURE/>", "", 1) + "<X>",
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, payload string) {
		for _, opts := range [][]DecodeOption{nil, {WithPartial()}} {
			st, diags, err := Decode(payload, opts...)
			if err != nil && !HasErrors(diags) {
				t.Fatalf("error %v without an ERROR diagnostic: %v", err, diagStrings(diags))
			}
			if err == nil && (st == nil || HasErrors(diags)) {
				t.Fatalf("success with state %v and diagnostics %v", st != nil, diagStrings(diags))
			}
			for _, d := range diags {
				if !strings.HasPrefix(d.String(), "ERROR:") && !strings.HasPrefix(d.String(), "WARN:") {
					t.Fatalf("diagnostic %q has no level prefix", d)
				}
			}
			_, again, _ := Decode(payload, opts...)
			if !slices.Equal(diagStrings(diags), diagStrings(again)) {
				t.Fatalf("non-deterministic diagnostics")
			}
		}
		if vd := Validate(payload); HasErrors(vd) {
			if _, _, err := Decode(payload); err == nil && !hasDiag(vd, "ERROR:optional-overflow") {
				t.Fatalf("Validate rejects (%v) what Decode accepts", diagStrings(vd))
			}
		}
	})
}
