package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// jsonTextCommandCases are commands split over two members of an object
// in JSON text on one line (a log line, a string holding JSON), which
// the text rules read as JSON's walk reads a document, and their
// redaction.
var jsonTextCommandCases = []struct{ in, want string }{
	{`{"command":["mysql"],"args":["-pS3cret"]}`, `{"command":["mysql"],"args":["-p[REDACTED:password]"]}`},
	{`{"command":["mysql"],"args":"-uroot -pS3cret"}`, `{"command":["mysql"],"args":"-uroot -p[REDACTED:password]"}`},
	{`{"command":["docker","login"],"args":["-p","S3cret"]}`, `{"command":["docker","login"],"args":["-p","[REDACTED:password]"]}`},
	{`{"entrypoint":["mysql"],"command":["-uroot","-pS3cret"]}`, `{"entrypoint":["mysql"],"command":["-uroot","-p[REDACTED:password]"]}`},
	{`{"entrypoint":["docker","login"],"command":["-p","S3cret","ghcr.io"]}`, `{"entrypoint":["docker","login"],"command":["-p","[REDACTED:password]","ghcr.io"]}`},
	{`{"entrypoint":["psql"],"command":["--password","S3cret"]}`, `{"entrypoint":["psql"],"command":["--password","[REDACTED:credential]"]}`},
	{`{"args": [ "-uroot", "-pS3cret" ], "name": "db", "command": [ "mysql" ]}`, `{"args": [ "-uroot", "-p[REDACTED:password]" ], "name": "db", "command": [ "mysql" ]}`},
	{`time=1 msg=started spec={"containers":[{"name":"db","command":["mysql"],"args":["-pS3cret"]}]} ok`,
		`time=1 msg=started spec={"containers":[{"name":"db","command":["mysql"],"args":["-p[REDACTED:password]"]}]} ok`},
	{`{"level":"info","msg":"{\"command\":[\"mysql\"],\"args\":[\"-pS3cret\"]}"}`, `{"level":"info","msg":"{\"command\":[\"mysql\"],\"args\":[\"-p[REDACTED:password]\"]}"}`},
	{`{"msg":"{\"command\":[\"mysql\"],\"args\":[\"-pS3cret\"]}`, `{"msg":"{\"command\":[\"mysql\"],\"args\":[\"-p[REDACTED:password]\"]}`},
	{`{"command":["mysql"],"args":["-pS3cret"]`, `{"command":["mysql"],"args":["-p[REDACTED:password]"]`},
	{`say " {"entrypoint":["mysql"],"command":["-pS3cret"]} 0`, `say " {"entrypoint":["mysql"],"command":["-p[REDACTED:password]"]} 0`},
	{`it's {"command":["mysql"],"args":["-pS3cret"]}`, `it's {"command":["mysql"],"args":["-p[REDACTED:password]"]}`},
	{`{'command': ['mysql'], 'args': ['-pS3cret']}`, `{'command': ['mysql'], 'args': ['-p[REDACTED:password]']}`},
	{`curl -d '{"command":["mysql"],"args":["-uroot","-pS3cret"]}' http://x`, `curl -d '{"command":["mysql"],"args":["-uroot","-p[REDACTED:password]"]}' http://x`},
	{`' {"entrypoint":["mysql"],"command":["-uroot","-pS3cret"]} '`, `' {"entrypoint":["mysql"],"command":["-uroot","-p[REDACTED:password]"]} '`},
	{`["--api-key", "k3y", '--token', 'abc']`, `["--api-key", "[REDACTED:credential]", '--token', '[REDACTED:credential]']`},
	{"command: [\"mysql\"]\nargs:\n  - --password\n  - S3cret\n", "command: [\"mysql\"]\nargs:\n  - --password\n  - [REDACTED:password]\n"},
}

// TestSplitCommandInJSONText: the text rules redact a command split over
// two members in JSON text as JSON's walk does, compact, on a line with
// other text, escaped in a JSON string, cut short, or a Python dict.
func TestSplitCommandInJSONText(t *testing.T) {
	r := &Redactor{}
	for _, c := range jsonTextCommandCases {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%s)\n got %s\nwant %s", c.in, got, c.want)
		}
		if again := r.String(c.want); again != c.want {
			t.Errorf("String(%s) changed the redacted text: %s", c.want, again)
		}
	}
	for _, in := range []string{
		`{"command":["docker"],"args":["run","-p","8080:80"]}`,
		`{"command":["mysql"],"x":{"args":["-pS3cret"]}}`,
		`{"command":["sh"],"args":["-pS3cret"]}`,
		`{"entrypoint":["mysql"],"command":[1,"-pS3cret"]}`,
		`["--password", "--verbose"]`,
		`it's {"command":["ls"],"args":["-p"]}`,
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%s) = %s, want it unchanged", in, got)
		}
	}
}

// TestSplitCommandInJSONTextBounded: deep, unbalanced and unclosed
// objects, strings left open and escaped strings nested in strings are
// read in one pass (a bounded number for the nested strings) and still
// give the password where one is.
func TestSplitCommandInJSONTextBounded(t *testing.T) {
	pair := `{"command":["mysql"],"args":["-pS3cret"]}`
	for _, in := range []string{
		strings.Repeat("{", 200000) + pair,
		strings.Repeat("}", 200000) + pair,
		strings.Repeat(`{"a":`, 5000) + pair + strings.Repeat("}", 5000),
		strings.Repeat(`"\"`, 50000) + "\n" + pair,
		strings.Repeat(` '\'`, 50000) + pair,
		`"` + strings.Repeat(`\"`, 50000) + `"x` + pair,
		strings.Repeat(`"a"b`, 50000) + pair,
		`"` + strings.Repeat(`{\"a\":\"{\\\"b\\\":`, 3000) + "\n" + pair,
		strings.Repeat(`{"command":["mysql"],"args":[`, 20000) + "\n" + pair,
	} {
		out := (&Redactor{}).String(in)
		if strings.Contains(out, "S3cret") {
			t.Errorf("String(%.60q…) left the password: …%q", in, out[max(0, len(out)-80):])
		}
	}
}

// TestSecretFlagInArgv: in JSON and Value an argv array's argument after
// a flag naming a secret is redacted whatever the program (the text
// rules read --password SECRET so), and JointElements reports such an
// array; a flag holding its value, a flag after it and a flag that holds
// a command's password are not such a flag's value.
func TestSecretFlagInArgv(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{`{"argv":["psql","--password","S3cret","db"]}`, `{"argv":["psql","--password","[REDACTED:password]","db"]}`},
		{`{"command":["vault","login","-token","S3cret"]}`, `{"command":["vault","login","-token","[REDACTED:password]"]}`},
		{`{"entrypoint":["psql"],"command":["--password","S3cret"]}`, `{"entrypoint":["psql"],"command":["--password","[REDACTED:password]"]}`},
		{`["tool","--api-key","k3y"]`, `["tool","--api-key","[REDACTED:password]"]`},
		{`["tool","--password","--verbose"]`, `["tool","--password","--verbose"]`},
		{`["tool","--password=S3cret"]`, `["tool","--password=[REDACTED:credential]"]`},
		{`["sh","-c","--token"]`, `["sh","-c","--token"]`},
		{`["tool","--max-tokens","4096"]`, `["tool","--max-tokens","4096"]`},
		{`["mysql","-pSECRET","app"]`, `["mysql","-p[REDACTED:password]","app"]`},
	} {
		checkJSONAndValue(t, r, c.in, c.want)
		if got := r.String(c.in); strings.Contains(got, "S3cret") || strings.Contains(got, "k3y") {
			t.Errorf("String(%s) = %s", c.in, got)
		}
	}
	for doc, want := range map[string]bool{`["psql","--password","S3cret"]`: true, `["psql","--password"]`: false} {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(doc), &raw); err != nil {
			t.Fatal(err)
		}
		elems := make([][]byte, len(raw))
		for i, e := range raw {
			elems[i] = e
		}
		if got := JointElements(slices.Values(elems)); got != want {
			t.Errorf("JointElements(%s) = %v, want %v", doc, got, want)
		}
	}
}

// TestQuotedFlagListOverLines: a flag naming a secret and its value as
// two quoted items of a list are redacted when the list is printed one
// item per line (indented JSON, a YAML flow list over lines, CRLF).
func TestQuotedFlagListOverLines(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"{\n  \"command\": [\n    \"psql\",\n    \"--password\",\n    \"S3cret\"\n  ]\n}\n",
			"{\n  \"command\": [\n    \"psql\",\n    \"--password\",\n    \"[REDACTED:credential]\"\n  ]\n}\n"},
		{"args: [\"--token\",\r\n       \"S3cret\"]\r\n", "args: [\"--token\",\r\n       \"[REDACTED:credential]\"]\r\n"},
		{"['--api-key',\n\n 'S3cret']", "['--api-key',\n\n '[REDACTED:credential]']"},
		// A quoted scalar over lines (YAML folds it): the whole of it.
		{"[\"--password\",\n \"a\nb\"]", "[\"--password\",\n \"[REDACTED:password]\"]"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		"[\"--password\",\n \"--verbose\"]",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}

// TestFlagInFlowListUnquoted: a flag naming a secret and its value as
// two items of a YAML flow list, the value unquoted (a word or an
// alias, whose anchor is then redacted too); a value that is another
// flag, and prose without a list, are kept.
func TestFlagInFlowListUnquoted(t *testing.T) {
	r := &Redactor{}
	for _, c := range []struct{ in, want string }{
		{"command: [psql, --password, S3cret]\n", "command: [psql, --password, [REDACTED:credential]]\n"},
		{"args: [\"--token\", S3cret, -v]\n", "args: [\"--token\", [REDACTED:credential], -v]\n"},
		{"args: [app,--api-key,S3cret]", "args: [app,--api-key,[REDACTED:credential]]"},
		{"x: &pw S3cret\nargs: [--password, *pw]\n", "x: &pw [REDACTED:credential]\nargs: [--password, [REDACTED:credential]]\n"},
	} {
		if got := r.String(c.in); got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
		}
	}
	for _, in := range []string{
		"args: [--password, --verbose]\n",
		"Use --verbose, --password, or --token\n",
		"args: [x --password, y]\n",
	} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it unchanged", in, got)
		}
	}
}
