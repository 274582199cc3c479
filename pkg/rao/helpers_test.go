package rao

import (
	"bytes"
	"testing"
)

// assertJSONEqual fails unless got and want are the same JSON value.
func assertJSONEqual(t testing.TB, got, want []byte) {
	t.Helper()
	g, err := CanonicalizeJSON(got)
	if err != nil {
		t.Fatalf("got is not JSON: %v (%s)", err, got)
	}
	w, err := CanonicalizeJSON(want)
	if err != nil {
		t.Fatalf("want is not JSON: %v (%s)", err, want)
	}
	if !bytes.Equal(g, w) {
		t.Fatalf("JSON differs:\n got: %s\nwant: %s", g, w)
	}
}
