package redact

import (
	"strings"
	"testing"
)

// TestYAMLAnchoredValues: the value an anchor sets is redacted when an
// alias the rules redact names it, whatever its form: a block scalar, a
// scalar in a flow collection, a plain or quoted scalar over several
// lines, a value on the lines after the anchor; and whatever the alias's
// form: a flow mapping's member, a name/value pair, the line after a
// name.
func TestYAMLAnchoredValues(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		// Block scalars, each header form.
		{"x: &pw |\n  hunter2\npassword: *pw\n", "x: &pw |\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &pw >-\n  hunter2\n\n  more\ny: 1\npassword: *pw\n", "x: &pw >-\n  [REDACTED:credential]\n\n  [REDACTED:credential]\ny: 1\npassword: [REDACTED:credential]\n"},
		{"x: &pw |-\n  a\npassword: *pw\n", "x: &pw |-\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &pw >+ # key\n  a\npassword: *pw\n", "x: &pw >+ # key\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &pw |2\n    a\n  b\npassword: *pw\n", "x: &pw |2\n    [REDACTED:credential]\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &pw !!binary |\n  aGk=\npassword: *pw\n", "x: &pw !!binary |\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"defaults:\n  key: &k |\n    -----\n    body\n  other: 1\nprod:\n  api_key: *k\n",
			"defaults:\n  key: &k |\n    [REDACTED:credential]\n    [REDACTED:credential]\n  other: 1\nprod:\n  api_key: [REDACTED:credential]\n"},
		{"- x: &pw |\n    hunter2\n  y: 1\n- password: *pw\n", "- x: &pw |\n    [REDACTED:credential]\n  y: 1\n- password: [REDACTED:credential]\n"},
		{"- &pw |\n  hunter2\n- b\npassword: *pw\n", "- &pw |\n  [REDACTED:credential]\n- b\npassword: [REDACTED:credential]\n"},
		{"x:\n  &pw |\n  hunter2\npassword: *pw\n", "x:\n  &pw |\n  [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		// Flow collections.
		{"creds: {a: &pw hunter2}\npassword: *pw\n", "creds: {a: &pw [REDACTED:credential]}\npassword: [REDACTED:credential]\n"},
		{"creds: [&pw hunter2, b]\npassword: *pw\n", "creds: [&pw [REDACTED:credential], b]\npassword: [REDACTED:credential]\n"},
		{"c: {a: &pw 'x, y', b: &q z}\ntoken: *pw\n", "c: {a: &pw '[REDACTED:credential]', b: &q z}\ntoken: [REDACTED:credential]\n"},
		{"c: {a: [1, 2], b: &pw hunter2}\ntoken: *pw\n", "c: {a: [1, 2], b: &pw [REDACTED:credential]}\ntoken: [REDACTED:credential]\n"},
		{"c: {a: &pw hun\n  ter2, b: c}\ntoken: *pw\n", "c: {a: &pw [REDACTED:credential]\n  [REDACTED:credential], b: c}\ntoken: [REDACTED:credential]\n"},
		{"x: &pw a,b]\npassword: *pw\n", "x: &pw [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		// Scalars over lines, and on the lines after the anchor.
		{"x: &pw hunter\n  two\ny: 1\npassword: *pw\n", "x: &pw [REDACTED:credential]\n  [REDACTED:credential]\ny: 1\npassword: [REDACTED:credential]\n"},
		{"x: &pw \"hun\n  ter2\"\npassword: *pw\n", "x: &pw \"[REDACTED:credential]\n  [REDACTED:credential]\"\npassword: [REDACTED:credential]\n"},
		{"x: &pw\n  hunter2\n  more\ny: 1\npassword: *pw\n", "x: &pw\n  [REDACTED:credential]\n  [REDACTED:credential]\ny: 1\npassword: [REDACTED:credential]\n"},
		{"x: &pw # shared\n  - a1\n  - a2\npasswords: *pw\n", "x: &pw # shared\n  - [REDACTED:credential]\n  - [REDACTED:credential]\npasswords: [REDACTED:credential]\n"},
		{"x: &pw\n- hunter2\n- two\ny: 1\npasswords: *pw\n", "x: &pw\n- [REDACTED:credential]\n- [REDACTED:credential]\ny: 1\npasswords: [REDACTED:credential]\n"},
		{"x: &db:pass hunter2\npassword: *db:pass\n", "x: &db:pass [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &pw/1 hunter2\npassword: *pw/1\n", "x: &pw/1 [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &clé hunter2\ny: [&p$ s3cr3t]\npassword: *clé\ntoken: *p$\n", "x: &clé [REDACTED:credential]\ny: [&p$ [REDACTED:credential]]\npassword: [REDACTED:credential]\ntoken: [REDACTED:credential]\n"},
		{"---x: &pw hunter2\npassword: *pw\n", "---x: &pw [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"--- &pw hunter2\npassword: *pw\n", "--- &pw [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		// The alias in other forms.
		{"x: &pw hunter2\ndb: {password: *pw, user: app}\n", "x: &pw [REDACTED:credential]\ndb: {password: [REDACTED:credential], user: app}\n"},
		{"x: &pw hunter2\nenv:\n- name: DB_PASSWORD\n  value: *pw\n", "x: &pw [REDACTED:credential]\nenv:\n- name: DB_PASSWORD\n  value: [REDACTED:credential]\n"},
		{"x: &pw hunter2\npassword:\n  *pw\n", "x: &pw [REDACTED:credential]\npassword:\n  [REDACTED:credential]\n"},
		// An anchored alias holds its anchor's secret; a mapping's anchor
		// is read on for anchors inside it.
		{"a: &a hunter2\nb: &b *a\npassword: *b\n", "a: &a [REDACTED:credential]\nb: &b [REDACTED:credential]\npassword: [REDACTED:credential]\n"},
		{"x: &m\n  a: &pw hunter2\npassword: *pw\nother: *m\n", "x: &m\n  a: &pw [REDACTED:credential]\npassword: [REDACTED:credential]\nother: *m\n"},
		{"x: &m\n  a: &pw hunter2\npassword: *pw\ntoken: *m\n", "x: &m\n  a: &pw [REDACTED:credential]\npassword: [REDACTED:credential]\ntoken: [REDACTED:credential]\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	// Kept: no secret alias names the anchor, a document's root, an
	// anchor that is not one, a block that ends.
	for _, in := range []string{
		"x: &pw |\n  hunter2\ny: *pw\n",
		"c: {a: &pw hunter2}\nb: [*pw]\n",
		"--- &pw |\nplain\n",
		"x: &pw |\n  a\ny: keep\npassword: *pw\n",
		"p := &pw\nq := *pw\n",
		"- &pw\n- hunter2\n- x: *pw\n",
	} {
		want := in
		if strings.Contains(in, "password: *pw") {
			want = strings.Replace(strings.Replace(in, "  a\n", "  [REDACTED:credential]\n", 1), "password: *pw", "password: [REDACTED:credential]", 1)
		}
		if got := r.String(in); got != want {
			t.Errorf("String(%q)\n got %q\nwant %q", in, got, want)
		}
	}
}

// TestYAMLAnchorsBounded: many anchors and aliases, nested anchored
// mappings and blocks each read their text a bounded number of times:
// the anchors inside a value are skipped, a mapping's lines are not read
// to their end for each anchor, one line of flow collections is read
// once. (Speed is BenchmarkStringHostile's; this checks the result.)
func TestYAMLAnchorsBounded(t *testing.T) {
	var nested strings.Builder
	for i := range 2000 {
		nested.WriteString(strings.Repeat(" ", i) + "k: &m\n")
	}
	nested.WriteString(strings.Repeat(" ", 2000) + "v: &pw hunter2\npassword: *pw\ntoken: *m\n")
	flow := "c: [" + strings.Repeat("&pw a, ", 5000) + "]\npassword: *pw\n"
	block := "x: &pw |\n" + strings.Repeat("  &pw |\n", 5000) + "password: *pw\n"
	for _, in := range []string{nested.String(), flow, block} {
		out := (&Redactor{}).String(in)
		if strings.Contains(out, "hunter2") || strings.Contains(out, "&pw a,") || strings.Contains(out, "  &pw |\n") {
			t.Errorf("String(%.60q…) left an anchored value: %.200q", in, out)
		}
	}
}
