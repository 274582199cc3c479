package redact

import (
	"bytes"
	"strings"
	"testing"
)

// fastPathCases are JSON documents and whether they take the fast path.
var fastPathCases = []struct {
	doc  string
	fast bool
}{
	{`{"a":1,"b":[true,null,"x\ny\t\"q\" \\ z"],"c":{"d":1.50}}`, true},
	{` { "a" : [ 1 , 2 ] } `, true},
	{`{"out":"{\"password\": \"hunter2hunter2\"}"}`, false},
	{`{"db_pass_word":"x"}`, false},
	{`{"X-Api-Key":"abc"}`, false},
	{`{"note":"use sk-abcdefghijklmnopqrstuvwxyz"}`, false},
	{`{"u":"\u0041KIAABCDEFGHIJKLMNOP"}`, false},
	{`{"url":"https://u:p@host/x"}`, false},
	{`{"html":"<a href=\"x\">&</a>"}`, true},
}

// TestJSONFastPathGivesTheSameBytes: documents with and without anything
// secret give the same output through the fast path as through the
// token-by-token redaction, and the fast path is taken only when nothing
// can be secret.
func TestJSONFastPathGivesTheSameBytes(t *testing.T) {
	r, err := New(nil)
	if err != nil {
		t.Fatal(err)
	}
	custom, err := New([]string{`internal-[0-9a-f]{8}`})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range fastPathCases {
		raw := []byte(tc.doc)
		if got := !r.jsonMayNeedRedaction(raw); got != tc.fast {
			t.Errorf("%s: fast path %v, want %v", tc.doc, got, tc.fast)
		}
		got, err := r.JSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		want, err := r.jsonByTokens(raw)
		if err != nil {
			t.Fatalf("%s: %v", tc.doc, err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s:\nfast %s\nslow %s", tc.doc, got, want)
		}
	}
	// Patterns of the configuration have no hints: never the fast path.
	raw := []byte(`{"ref":"internal-0123abcd"}`)
	if !custom.jsonMayNeedRedaction(raw) {
		t.Error("fast path with a configured pattern")
	}
	if got, _ := custom.JSON(raw); !bytes.Contains(got, []byte("REDACTED")) {
		t.Errorf("configured pattern not applied: %s", got)
	}
	if _, err := r.JSON([]byte(`{"a":`)); err == nil {
		t.Error("invalid JSON accepted by the fast path")
	}
}

// TestJSONFastPathSeesEverySecretKey: a document whose only secret is a
// key (each name and suffix IsSecretKey accepts, in any case, with
// separators and a prefix) never takes the fast path, which would keep
// the value under it.
func TestJSONFastPathSeesEverySecretKey(t *testing.T) {
	names := []string{"password", "passwd", "pwd", "pass", "passphrase", "secret", "token", "api_key",
		"authorization", "Proxy-Authorization", "auth", "credential", "credentials", "cookie", "set-cookie",
		"private_key", "access_key", "secret_key", "secret_key_base", "bearer"}
	r := &Redactor{}
	for _, name := range names {
		for _, key := range []string{name, strings.ToUpper(name), "x_" + name, "My." + strings.ToUpper(name[:1]) + name[1:],
			strings.Join(strings.Split(name, ""), "-")} {
			if !IsSecretKey(key) {
				if key == name {
					t.Errorf("IsSecretKey(%q) = false", key)
				}
				continue
			}
			doc := []byte(`{"` + key + `":"hunter2"}`)
			if !r.jsonMayNeedRedaction(doc) {
				t.Errorf("%s takes the fast path", doc)
			}
			if got, err := r.JSON(doc); err != nil || strings.Contains(string(got), "hunter2") {
				t.Errorf("JSON(%s) = %s, %v", doc, got, err)
			}
		}
	}
}
