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
