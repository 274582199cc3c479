package artifacts_test

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/artifacts"
)

func TestPutGet(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	data := bytes.Repeat([]byte("diff line\n"), 100000)
	ref, err := s.Put(ctx, "run/1/diff", data)
	if !strings.HasSuffix(ref.Name, ref.SHA256) {
		t.Fatalf("name %q is not content-addressed", ref.Name)
	}
	// A second, different put under the same prefix leaves the first valid.
	other, err2 := s.Put(ctx, "run/1/diff", []byte("another diff"))
	if err2 != nil || other.Name == ref.Name {
		t.Fatalf("second put: %+v %v", other, err2)
	}
	again, err2 := s.Put(ctx, "run/1/diff", data)
	if err2 != nil || again != ref {
		t.Fatalf("identical put: %+v %v", again, err2)
	}
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(ctx, ref)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("get: %v", err)
	}
	bad := ref
	bad.SHA256 = "00"
	if _, err := s.Get(ctx, bad); !errors.Is(err, artifacts.ErrCorrupt) {
		t.Fatalf("err = %v", err)
	}
	missing := ref
	for _, name := range []string{"nope", ""} {
		missing.Name = name
		if _, err := s.Get(ctx, missing); !errors.Is(err, artifacts.ErrNotFound) {
			t.Fatalf("Get of %q: err = %v", name, err)
		}
	}
}

// TestPutNew: content stored without the look-up has the same reference
// as Put gives it and reads back intact; storing it again keeps it
// readable.
func TestPutNew(t *testing.T) {
	ctx := context.Background()
	s := openStore(t)
	data := []byte(`{"started":"2026-11-25T07:00:00.123456789Z"}`)
	ref, err := s.PutNew(ctx, "exchange", data)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if got, err := s.Get(ctx, ref); err != nil || !bytes.Equal(got, data) {
			t.Fatalf("get: %q %v", got, err)
		}
		same, err := s.Put(ctx, "exchange", data)
		if err != nil || same != ref {
			t.Fatalf("Put of the same content: %+v %v, want %+v", same, err, ref)
		}
		if _, err := s.PutNew(ctx, "exchange", data); err != nil {
			t.Fatal(err)
		}
	}
}

// openStore is an artifact store on a fresh embedded server.
func openStore(t *testing.T) *artifacts.Store {
	t.Helper()
	s, err := artifacts.Open(context.Background(), provisioned(t))
	if err != nil {
		t.Fatal(err)
	}
	return s
}
