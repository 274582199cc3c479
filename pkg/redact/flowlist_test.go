package redact

import (
	"strings"
	"testing"
)

// flowListCases are flow lists written over several lines holding a
// command's password or a secret flag's value.
var flowListCases = []string{
	"command: [mysql,\n  -pS3cret]",
	"command: [mysql,\n  -uroot,\n  -pS3cret]",
	"command: [mysql,\t-uroot,\n\t-pS3cret]",
	"command: [mysql,\r\n  -pS3cret]\r\n",
	"command: [\"mysql\",\n  \"-pS3cret\"]",
	"command: ['mysql',\n  '-pS3cret']",
	"command: [ mysql , # the client\n  -pS3cret ]",
	"command: [mysql,\n  -uroot]\nargs: [-h, db,\n  -pS3cret]",
	"containers:\n- name: db\n  command: [mysql,\n    -uroot]\n  args: [-pS3cret]",
	"- [mysql,\n   -pS3cret]",
	"x: [[mysql,\n  -pS3cret]]",
	"command: [sh, -c, mysql -uroot\n  -pS3cret]",
	"command: [sh, -c, \"mysql -uroot\n  -pS3cret\"]",
	"command: [docker, login, -p,\n  S3cret]",
	"args: [--password,\n  S3cret]",
	"args: [--password,\n\n  S3cret]",
	"args: [--password, # db\n  S3cret]",
	"args: [\"--password\",\n  S3cret]",
	"args: [--password\n  , S3cret]",
	"args: [--token,\n  \"S3cret d\"]",
	"args: [--api-key,\n  'S3cret']",
	"args: [--auth,\n  -S3cret]",
	"args: [\n  --password,\n  S3cret\n]",
	"args: [--password,\n  S3cret]  # trailing",
	"args: [--password,\nS3cret]",
	"{\"argv\": [\n  \"psql\", \"--password\",\n  \"S3cret\"]}",
	"cmd = [\"psql\", \"--password\",\n       pw_S3cret]",
	"run: foo [--password,\n  S3cret]",
	"args: [--pass\\u0077ord,\n  S3cret]",
	"{\"log\":\"args: [--password,\\n  S3cret]\"}",
	"  [\ncommand: [sh, -c, mysql -uroot\n  -pS3cret]",
	"  x: [\n command: [mysql,\n   -pS3cret]]",
	"[mysql, x:\n-pS3cret]",
	"- [mysql, x:\n  -pS3cret]",
}

// TestFlowListOverLines: a flow list written over several lines is read
// as an argv, as on one line: a command's password and the value after a
// flag naming a secret are redacted, whatever the quoting, comments,
// CRLF, tabs, nesting or the key holding it.
func TestFlowListOverLines(t *testing.T) {
	r := &Redactor{}
	for _, in := range flowListCases {
		if got := r.String(in); strings.Contains(got, "S3cret") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	wantRedacted(t, r, []struct{ in, want string }{
		{"command: [mysql,\n  -pS3cret]", "command: [mysql,\n  -p[REDACTED:password]]"},
		{"args: [--password,\n  S3cret, --host, db]", "args: [--password,\n  [REDACTED:password], --host, db]"},
	})
	wantKept(t, r, []string{
		"args: [--password,\n  --verbose]",
		"ports: [8080,\n  -p3306]",
		"See [the docs,\nmysql\n-pages]",
		"x = a[i,\n  j]",
	})
}

// TestFlowListBounded: unclosed, nested and stray lists and quotes are
// read once (each byte by one list) and still give the secret.
func TestFlowListBounded(t *testing.T) {
	for _, in := range []string{
		strings.Repeat("[", 100000) + "\n  mysql,\n  -pS3cret]",
		strings.Repeat("x: [a,\n  '", 20000) + "\nargs: [--password,\n  S3cret]",
		strings.Repeat("[\"a\n", 20000) + "\nargs: [--password,\n  S3cret]",
		"[" + strings.Repeat("a,\n ", 50000) + "--password,\n S3cret]",
	} {
		if out := (&Redactor{}).String(in); strings.Contains(out, "S3cret") {
			t.Errorf("String(%.40q…) kept the secret: …%q", in, out[max(0, len(out)-60):])
		}
	}
}

// TestFlowListAfterUnclosedQuote: a quote running over lines, never
// closed or closed far on (of either kind, before a list, at the text's
// start or in the middle, in a list or in a nested one) does not hide the
// lists on the lines after it: read again as ending at its line's end,
// the lines after it are read as lists. Read as running over lines, a
// quote whose closing quote was lost (a text cut short) still gives the
// command line it holds, and a quoted scalar over lines keeps its quotes.
func TestFlowListAfterUnclosedQuote(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"[' \nargs: [--password,\n  S3cret]\n '",
		"x: [\"a\ncommand: [mysql,\n  -pS3cret]\n\"]",
		"\"[' \ncommand: [mysql,\n  -uroot,\n  -pS3cret]\n x'",
		"[\"a\n['b\nargs: [--password,\n  S3cret]\n\"\n'",
		"x: [sh, -c, \"mysql -uroot\n-pS3cret",
		"x: [sh, -c, 'mysql -uroot\n-pS3cret\n",
		"[\" \ncommand: [mysql,\n  -uroot,\n  -pS3cret]\n 0",
		"[' \ncommand: [mysql,\n  -uroot,\n  -pS3cret]\n 0",
		"x: 1\n[\"a\ncommand: [mysql,\n  -pS3cret]\n 0",
		"x: [a, 'b\n  command: [mysql,\n    -pS3cret]\n  c]",
		"x: [[\"a\n  args: [--password,\n    S3cret]]\n 0",
		"x: [a, \"b\\\"\nargs: [[--password,\n  S3cret]]\n 0",
		"x: ['it''s\n args: [--password,\n  S3cret]\n 0",
		"command: [mysql, \"-uroot\n  -pS3cret]\n 0",
		"[\"\ncommand: [\"mysql\",\n  \"-pS3cret\"]\n",
		"['\ncommand: ['mysql',\n  '-pS3cret']\n",
		"[\"\nargs: [\"--password\",\n  S3cret]\n",
		"x: [a, '\n  command: ['mysql', '-uroot',\n    -pS3cret]\n",
	} {
		if got := r.String(in); strings.Contains(got, "S3cret") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	wantRedacted(t, r, []struct{ in, want string }{
		{"command: [sh, -c, \"mysql -uroot\n  -pS3cret\"]", "command: [sh, -c, \"mysql -uroot\n  -p[REDACTED:password]\"]"},
		{"command: [sh, -c, 'mysql -uroot\n  -pS3cret', x]", "command: [sh, -c, 'mysql -uroot\n  -p[REDACTED:password]', x]"},
		{"args: [\"--password\n  S3cret\"]", "args: [\"--password\n  [REDACTED:password]\"]"},
	})
}

// TestFlowListOnOneLine: a flow list on one line gives its command's
// password and a secret flag's value whatever the spacing around its
// commas and whichever item is quoted; ordinary lists are kept.
func TestFlowListOnOneLine(t *testing.T) {
	r := &Redactor{}
	wantRedacted(t, r, []struct{ in, want string }{
		{"command: [mysql,-pS3cret]", "command: [mysql,-p[REDACTED:password]]"},
		{"command: [mysql, -uroot,-pS3cret]", "command: [mysql, -uroot,-p[REDACTED:password]]"},
		{"command: [mysql,-uroot,-pS3cret,db]", "command: [mysql,-uroot,-p[REDACTED:password],db]"},
		{"command: [mysql, -uroot, -pS3cret]", "command: [mysql, -uroot, -p[REDACTED:password]]"},
		{"command: [mysql,-pS3'c,ret',db]", "command: [mysql,-p[REDACTED:password]',db]"},
		{"args: [--password, \"S3cret\"]", "args: [--password, \"[REDACTED:credential]\"]"},
		{"args: [--password, 'S3cret']", "args: [--password, '[REDACTED:credential]']"},
		{"args: [--token,\"S3cret d\", x]", "args: [--token,\"[REDACTED:credential]\", x]"},
		{"args: ['--password', \"S3cret\"]", "args: ['--password', \"[REDACTED:credential]\"]"},
		{"args: [ --password , S3cret ]", "args: [ --password , [REDACTED:credential] ]"},
		{"args: [ --password ,S3cret]", "args: [ --password ,[REDACTED:credential]]"},
		{"args: [ --password , \"S3cret\" ]", "args: [ --password , \"[REDACTED:credential]\" ]"},
	})
	wantKept(t, r, []string{
		"args: [x --password, y]",
		"args: [x --password, \"y\"]",
		"args: [--password, \"--verbose\"]",
		"tags: [a,b]",
		"ports: [ 80 , 443 ]",
		"x: [a, \"b\", 'c' , d]",
		"ports: [8080,-p3306]",
		"docker run -e A=b,c -p8080:80 mysql",
	})
}

// TestFlowListApostropheInItem: a quote inside an item of a one-line
// flow list is read both ways, as YAML reads it (a literal character: the
// comma after it ends the item) and as a shell quote holding its commas
// (-pa'b,c'), and what either reading finds is redacted once.
func TestFlowListApostropheInItem(t *testing.T) {
	r := &Redactor{}
	wantRedacted(t, r, []struct{ in, want string }{
		{"x: [it's,mysql,-pX]", "x: [it's,mysql,-p[REDACTED:password]]"},
		{"args: [don't, --password,X]", "args: [don't, --password,[REDACTED:credential]]"},
		{"command: [it's, mysql,-uroot,-pX]", "command: [it's, mysql,-uroot,-p[REDACTED:password]]"},
		{"command: [it's,mysql,-pS3cret,db]", "command: [it's,mysql,-p[REDACTED:password],db]"},
		{"command: [mysql,-pa'b,c']", "command: [mysql,-p[REDACTED:password]']"},
		{"command: [mysql,-pS3'c,ret',db]", "command: [mysql,-p[REDACTED:password]',db]"},
		{"command: [it's,mysql,-pa'b,c']", "command: [it's,mysql,-p[REDACTED:password]']"},
		{"command: [mysql,-pa'b,-pX]", "command: [mysql,-p[REDACTED:password],-p[REDACTED:password]]"},
	})
	wantKept(t, r, []string{
		"tags: [it's,fine]",
		"ports: [8080,443]",
		"x: [don't, panic, -p3306]",
		"msg: [it's, a, 'b,c', d]",
	})
}

// TestFlowListFlagAndValueInOneItem: a secret flag and its value as one
// item of a one-line flow list, a space between them ([--password X]),
// give the value whichever the item's quoting and place; a quoted item
// gives it up to its closing quote, commas included. Other flags, a
// flag alone and --password-file (read nowhere as a secret flag) are kept.
func TestFlowListFlagAndValueInOneItem(t *testing.T) {
	r := &Redactor{}
	wantRedacted(t, r, []struct{ in, want string }{
		{"args: [--password S3cret]", "args: [--password [REDACTED:credential]]"},
		{"args: [a,--password S3cret]", "args: [a,--password [REDACTED:credential]]"},
		{"args: [don't,--password S3cret]", "args: [don't,--password [REDACTED:credential]]"},
		{"args: [--token S3cret, b]", "args: [--token [REDACTED:credential], b]"},
		{"args: [ --api-key  S3cret ,b]", "args: [ --api-key  [REDACTED:credential] ,b]"},
		{"args: [--password\tS3cret]", "args: [--password\t[REDACTED:credential]]"},
		{"args: [--password S3cret,--verbose]", "args: [--password [REDACTED:credential],--verbose]"},
		{"args: [--password \"S3cret\"]", "args: [--password \"[REDACTED:credential]\"]"},
		{"args: [--password 'S3cret']", "args: [--password '[REDACTED:credential]']"},
		{"args: [\"--password S3cret\"]", "args: [\"--password [REDACTED:credential]\"]"},
		{"args: ['--password S3cret']", "args: ['--password [REDACTED:credential]']"},
		{"args: [a, \"--token S3cret\", b]", "args: [a, \"--token [REDACTED:credential]\", b]"},
		{"args: [\"--password S3,cr]et\"]", "args: [\"--password [REDACTED:credential]\"]"},
		{"args: ['--password S3,cret']", "args: ['--password [REDACTED:credential]']"},
		{`x = ["--password S3cret"]`, `x = ["--password [REDACTED:credential]"]`},
	})
	wantKept(t, r, []string{
		"args: [--password-file /run/secret]",
		"args: [\"--password-file /run/secret\"]",
		"args: [-p S3cret]",
		"args: [\"-p S3cret\"]",
		"flags: [--verbose S3cret]",
		"flags: [\"--verbose S3cret\"]",
		"args: [--password]",
		"args: [\"--password\"]",
		"args: [--password --verbose]",
		"args: [\"--password --verbose\"]",
		"args: [--password #x]",
	})
}

// wantRedacted checks that r redacts each case's in to its want, and
// that redacting the result again changes nothing.
func wantRedacted(t *testing.T, r *Redactor, cases []struct{ in, want string }) {
	t.Helper()
	for _, c := range cases {
		got := r.String(c.in)
		if got != c.want {
			t.Errorf("String(%q)\n got %q\nwant %q", c.in, got, c.want)
			continue
		}
		if again := r.String(got); again != got {
			t.Errorf("String(%q) = %q, redacted again", got, again)
		}
	}
}

// wantKept checks that r leaves each of ins as it is.
func wantKept(t *testing.T, r *Redactor, ins []string) {
	t.Helper()
	for _, in := range ins {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}
