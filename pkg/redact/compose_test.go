package redact

import (
	"encoding/json"
	"strings"
	"testing"
)

// composeDocs are Compose services giving the program in "entrypoint"
// and its arguments in "command", and their redaction.
var composeDocs = []struct{ in, want string }{
	{`{"entrypoint":["mysql"],"command":["-uroot","-pS3cret"]}`, `{"entrypoint":["mysql"],"command":["-uroot","-p[REDACTED:password]"]}`},
	{`{"command":["-uroot","-pS3cret"],"entrypoint":"mysql"}`, `{"command":["-uroot","-p[REDACTED:password]"],"entrypoint":"mysql"}`},
	{`{"entrypoint":"mysql","command":"-uroot -pS3cret db"}`, `{"entrypoint":"mysql","command":"-uroot -p[REDACTED:password] db"}`},
	{`{"services":{"db":{"image":"mysql","entrypoint":["/usr/bin/mysql"],"command":["-pS3cret"]}}}`, `{"services":{"db":{"image":"mysql","entrypoint":["/usr/bin/mysql"],"command":["-p[REDACTED:password]"]}}}`},
	{`{"entrypoint":["docker","login"],"command":["-p","S3cret","ghcr.io"]}`, `{"entrypoint":["docker","login"],"command":["-p","[REDACTED:password]","ghcr.io"]}`},
	// Kept: no program taking a password, a port, no entrypoint.
	{`{"entrypoint":["sh"],"command":["-pS3cret"]}`, `{"entrypoint":["sh"],"command":["-pS3cret"]}`},
	{`{"entrypoint":["docker"],"command":["run","-p","8080:80"]}`, `{"entrypoint":["docker"],"command":["run","-p","8080:80"]}`},
	{`{"image":"mysql","command":["-pS3cret"]}`, `{"image":"mysql","command":["-pS3cret"]}`},
	{`{"entrypoint":1,"command":["-pS3cret"]}`, `{"entrypoint":1,"command":["-pS3cret"]}`},
}

// TestComposeEntrypointAndCommand: a Compose service's entrypoint names
// the program whose arguments its command holds, in JSON (both paths),
// Value and PairedMembers.
func TestComposeEntrypointAndCommand(t *testing.T) {
	r := &Redactor{}
	for _, c := range composeDocs {
		checkJSONAndValue(t, r, c.in, c.want)
		if !strings.Contains(c.in, `"services"`) {
			var m map[string]json.RawMessage
			if err := json.Unmarshal([]byte(c.in), &m); err != nil {
				t.Fatal(err)
			}
			paired := PairedMembers(func(yield func(string, []byte) bool) {
				for k, raw := range m {
					if !yield(k, raw) {
						return
					}
				}
			})
			if want := c.in != c.want; paired != want {
				t.Errorf("PairedMembers(%s) = %v, want %v", c.in, paired, want)
			}
		}
	}
	m := map[string]any{"entrypoint": []string{"mysql"}, "command": []string{"-uroot", "-pS3cret"}}
	if got := r.Value(m).(map[string]any)["command"].([]string); got[1] != "-p[REDACTED:password]" {
		t.Errorf("Value(%v) command = %q", m, got)
	}
}

// TestComposeEntrypointInText: the same in a Compose file: flow lists,
// block lists and the string forms.
func TestComposeEntrypointInText(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"services:\n  db:\n    image: mysql\n    entrypoint: [\"mysql\"]\n    command: [\"-uroot\", \"-pS3cret\"]\n",
			"services:\n  db:\n    image: mysql\n    entrypoint: [\"mysql\"]\n    command: [\"-uroot\", \"-p[REDACTED:password]\"]\n"},
		{"services:\n  db:\n    entrypoint: mysql\n    command: -uroot -pS3cret db\n",
			"services:\n  db:\n    entrypoint: mysql\n    command: -uroot -p[REDACTED:password] db\n"},
		{"services:\n  db:\n    command: \"-uroot -pS3cret\"\n    entrypoint: /usr/bin/mysql\n",
			"services:\n  db:\n    command: \"-uroot -p[REDACTED:password]\"\n    entrypoint: /usr/bin/mysql\n"},
		{"services:\n  db:\n    entrypoint:\n      - mysql\n    command:\n      - -uroot\n      - -pS3cret\n",
			"services:\n  db:\n    entrypoint:\n      - mysql\n    command:\n      - -uroot\n      - -p[REDACTED:password]\n"},
		{"{\n  \"entrypoint\": [\"mysql\"],\n  \"command\": [\"-uroot\", \"-pS3cret\"]\n}",
			"{\n  \"entrypoint\": [\"mysql\"],\n  \"command\": [\"-uroot\", \"-p[REDACTED:password]\"]\n}"},
		{`{"services":{"db":{"entrypoint":"mysql","command":["-uroot","-pS3cret"]}}}`,
			`{"services":{"db":{"entrypoint":"mysql","command":["-uroot","-p[REDACTED:password]"]}}}`},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%q) changed the redacted text: %q", c.want, again)
		}
	}
	for _, in := range []string{
		"services:\n  web:\n    entrypoint: [\"docker\"]\n    command: [\"run\", \"-p\", \"8080:80\"]\n",
		"services:\n  db:\n    entrypoint: mysql\n  web:\n    command: -pS3cret\n",
		"services:\n  web:\n    entrypoint: sh\n    command: -pS3cret\n",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestComposeEntrypointSpellings: only the key entrypoint (any case, also
// spelled with \u escapes) names a Compose program; JSON's scanner, which
// tests a document for the word first, agrees with its reference.
func TestComposeEntrypointSpellings(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"Entrypoint":["mysql"],"command":["-pS3cret"]}`, `{"Entrypoint":["mysql"],"command":["-p[REDACTED:password]"]}`},
		{`{"entrypo\u0069nt":["mysql"],"command":["-pS3cret"]}`, `{"entrypoint":["mysql"],"command":["-p[REDACTED:password]"]}`},
		{`{"entry_point":["mysql"],"command":["-pS3cret"],"output":"a\tb"}`, `{"entry_point":["mysql"],"command":["-pS3cret"],"output":"a\tb"}`},
	} {
		got, err := r.JSON([]byte(c.in))
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != c.want {
			t.Errorf("JSON(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
		checkSameAsReference(t, r, []byte(c.in))
	}
}
