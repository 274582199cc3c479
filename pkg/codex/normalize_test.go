package codex

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"
)

func TestNormalize(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"collapse and trim", "  <A>  x \t y  </A>  ", "<A> x y </A>\n"},
		{"crlf and blank lines", "a\r\n\r\n b\rc", "a\nb\nc\n"},
		{"bom", "\ufeff<X>", "<X>\n"},
		{"empty", "", ""},
		{"only space", " \n\t ", ""},
		{"form feed and vtab", "a\fb\vc", "a b c\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := normalize(tc.in)
			if got != tc.want {
				t.Errorf("normalize(%q) = %q, want %q", tc.in, got, tc.want)
			}
			if again := normalize(got); again != got {
				t.Errorf("not idempotent: %q", again)
			}
		})
	}
}

func TestParseDocumentElements(t *testing.T) {
	doc, msg := parseDocument(normalize(`<RL4-CODEX v='1.1' extra="x">
<DATA>a=b</DATA>  <EMPTY/> <TIMELINE></TIMELINE>
</RL4-CODEX>`))
	if doc == nil {
		t.Fatalf("unparseable: %s", msg)
	}
	if doc.version != "1.1" || !doc.hasVersion {
		t.Errorf("version %q %v", doc.version, doc.hasVersion)
	}
	want := []string{"DATA:a=b", "EMPTY:", "TIMELINE:"}
	if len(doc.elements) != len(want) {
		t.Fatalf("elements %+v", doc.elements)
	}
	for i, e := range doc.elements {
		if got := e.name + ":" + e.content; got != want[i] {
			t.Errorf("element %d = %q, want %q", i, got, want[i])
		}
		if doc.normalized[e.start] != '<' || doc.normalized[e.end-1] != '>' {
			t.Errorf("element %d offsets %d..%d", i, e.start, e.end)
		}
	}
}

func sha256Hex16(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:8])
}
