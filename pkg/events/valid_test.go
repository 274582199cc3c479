package events

import (
	"encoding/json"
	"strings"
	"testing"
)

// FuzzValidJSON: validJSON agrees with json.Valid.
func FuzzValidJSON(f *testing.F) {
	for _, s := range memberSeeds(f) {
		f.Add(s)
	}
	for _, s := range []string{
		``, ` `, `-`, `-0`, `01`, `1.`, `1.5e`, `1e+5`, `-1.5E-07`, `.5`, `+1`, `0x1`,
		`"\u00e9\ud800"`, `"\u00g0"`, `"\x"`, "\"\x01\"", "\"\xff\xfe\"", `"\/\b\f\n\r\t"`,
		`tru`, `truex`, `nul`, `[1,]`, `{"a":1,}`, `{"a"}`, `{1:2}`, `[`, `]`, `{}}`, ` [ ] `, "\ufeff{}",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if got, want := validJSON(data), json.Valid(data); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", data, got, want)
		}
	})
}

// TestValidJSONDepth: the nesting limit is encoding/json's.
func TestValidJSONDepth(t *testing.T) {
	for _, depth := range []int{maxJSONDepth, maxJSONDepth + 1} {
		for _, pair := range [][2]string{{"[", "]"}, {`{"a":`, "}"}} {
			data := []byte(strings.Repeat(pair[0], depth) + "1" + strings.Repeat(pair[1], depth))
			if got, want := validJSON(data), json.Valid(data); got != want {
				t.Errorf("depth %d of %s: validJSON %v, json.Valid %v", depth, pair[0], got, want)
			}
		}
	}
}
