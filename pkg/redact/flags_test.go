package redact

import (
	"strings"
	"testing"
)

// secretFlagSpellings are flags to hold the text rules to isSecretFlag,
// the JSON path's test: names ending in a secret word, names secret as a
// whole (auth, cookie, bearer, authorization), the word pass, and names
// that are no secret.
var secretFlagSpellings = []string{
	"--password", "-password", "--db-password", "--api-key", "--token", "--client-secret",
	"--auth", "-auth", "--AUTH", "--proxy-authorization", "--authorization", "--cookie", "--cookies",
	"--set-cookie", "--bearer", "--pass", "-pass", "--db-pass", "--dbPass",
	"--max-tokens", "--author", "--passage", "--bypass", "--authority", "--user", "--tokens",
}

// TestTextFlagsMatchJSONFlags: the text rules redact the value after
// exactly the flags whose value JSON redacts in an argv (isSecretFlag):
// --auth, --cookie, --bearer and --pass as much as --password, in a
// command line, a quoted list, one item per line and a YAML flow list.
func TestTextFlagsMatchJSONFlags(t *testing.T) {
	r := &Redactor{}
	for _, f := range secretFlagSpellings {
		want := isSecretFlag(f)
		for _, in := range []string{
			"tool " + f + " S3cretV",
			`["tool", "` + f + `", "S3cretV"]`,
			"[\n  \"tool\",\n  \"" + f + "\",\n  \"S3cretV\"\n]",
			"x: [tool, " + f + ", S3cretV]",
			`['` + f + `', 'S3cretV']`,
		} {
			got := r.String(in)
			if redacted := !strings.Contains(got, "S3cretV"); redacted != want {
				t.Errorf("String(%q) = %q: redacted %v, isSecretFlag(%q) = %v", in, got, redacted, f, want)
			}
		}
		out, err := r.JSON([]byte(`{"argv":["tool","` + f + `","S3cretV"]}`))
		if err != nil {
			t.Fatal(err)
		}
		if redacted := !strings.Contains(string(out), "S3cretV"); redacted != want {
			t.Errorf("JSON argv with %s = %s: redacted %v, want %v", f, out, redacted, want)
		}
	}
}

// TestSecretFlagValueStartingWithDash: a flag naming a secret takes a
// value, so the word after it is the secret even when it starts with one
// dash (--password -Xy9), in text and in JSON's argv; "-" (stdin) and a
// long option (--verbose) after it are kept.
func TestSecretFlagValueStartingWithDash(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		"psql --password -Xy9 db",
		"psql --password\t-Xy9",
		"tool --api-key -Xy9\r\n",
		`tool --token "-Xy9"`,
		`["psql", "--password", "-Xy9"]`,
		`['psql', '--password', '-Xy9']`,
		"[\n  \"--password\",\n  \"-Xy9\"\n]",
		"args: [psql, --password, -Xy9]",
		"command: [mysql]\nargs:\n- --password\n- -Xy9\n",
		`{"argv":["psql","--password","-Xy9"]}`,
		`{"cmd":"psql --password -Xy9"}`,
	} {
		if got := r.String(in); strings.Contains(got, "Xy9") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	for _, c := range []struct{ in, want string }{
		{`{"argv":["psql","--password","-Xy9"]}`, `{"argv":["psql","--password","[REDACTED:password]"]}`},
		{`{"argv":["tool","--token","-"]}`, `{"argv":["tool","--token","-"]}`},
		{`{"argv":["tool","--token","--verbose"]}`, `{"argv":["tool","--token","--verbose"]}`},
	} {
		checkJSONAndValue(t, r, c.in, c.want)
	}
	for _, in := range []string{"tool --password --verbose", "tool --token - < file", `["tool", "--token", "-"]`, "x: [tool, --token, --verbose]"} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}

// TestAdversarialVariants: forms found attacking the rules of this
// package's later items: \xHH escapes, complex keys behind a tag, an
// anchor or padding, a block list item continued on the next line, and
// a flag naming a secret as a whole with its value after "=".
func TestAdversarialVariants(t *testing.T) {
	r := &Redactor{}
	for _, in := range []string{
		`{\x22password\x22:\x22S3cret\x22}`,
		`{\u0022password\u0022:\u0022S3cret\u0022}`,
		"? !!str password\n: S3cret",
		"? &a password\n: S3cret",
		"?   password   \n:   S3cret",
		"- --password\n  S3cret",
		"args:\n  - --password\n    S3cret",
		"tool --auth=S3cret",
		"tool --cookie=S3cret",
		`["tool","--auth=S3cret"]`,
		`{"argv":["tool","--auth=S3cret"]}`,
	} {
		if got := r.String(in); strings.Contains(got, "S3cret") {
			t.Errorf("String(%q) = %q", in, got)
		}
	}
	for _, in := range []string{"author=Ann", "--authority=x", `C:\x80\xzz`} {
		if got := r.String(in); got != in {
			t.Errorf("String(%q) = %q, want it kept", in, got)
		}
	}
}
