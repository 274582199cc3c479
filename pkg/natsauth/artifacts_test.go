package natsauth_test

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natsauth"
	"github.com/codali-dev/codali/pkg/natstest"
)

// TestArtifactWritersStoreArtifacts: every identity that stores artifacts
// writes them, small ones (artifacts.Store writes their chunk and meta
// itself) and larger ones (over one chunk: the library's put), new and again, with no
// permission violation, and the CLI reads them back.
func TestArtifactWritersStoreArtifacts(t *testing.T) {
	c := start(t)
	prov := c.as(t, natsauth.Provisioner)
	if err := bus.Provision(ctx(t, 30*time.Second), prov.js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	cli := c.as(t, natsauth.CLI)
	reader, err := artifacts.Open(ctx(t, 10*time.Second), cli.js)
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{events.ServiceLibrarian, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic} {
		id := c.as(t, name)
		s, err := artifacts.Open(ctx(t, 10*time.Second), id.js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, data := range [][]byte{[]byte(name + " small"), bytes.Repeat([]byte(name), 200<<10)} {
			for _, put := range []func() (events.ArtifactRef, error){
				func() (events.ArtifactRef, error) { return s.PutNew(ctx(t, 10*time.Second), name, data) },
				func() (events.ArtifactRef, error) { return s.Put(ctx(t, 10*time.Second), name, data) },
			} {
				ref, err := put()
				if err != nil {
					t.Fatalf("%s storing %d bytes: %v ", name, len(data), err)
				}
				if got, err := reader.Get(ctx(t, 10*time.Second), ref); err != nil || !bytes.Equal(got, data) {
					t.Fatalf("reading what %s stored: %d bytes, %v ", name, len(got), err)
				}
			}
		}
		id.mu.Lock()
		if len(id.errs) > 0 {
			t.Errorf("%s: %v", name, id.errs)
		}
		id.mu.Unlock()
	}
}

// TestArtifactReadersTellALostArtifact: every identity that reads
// artifacts tells one whose chunks are gone (a one-chunk object: the
// leader's message get; a larger one: the bucket's stream info filtered
// on its chunk subject) as lost, with no permission violation, instead of
// waiting out its read.
func TestArtifactReadersTellALostArtifact(t *testing.T) {
	c := start(t)
	prov := c.as(t, natsauth.Provisioner)
	if err := bus.Provision(ctx(t, 30*time.Second), prov.js, bus.Topology{Update: true}, nil); err != nil {
		t.Fatalf("provision: %v", err)
	}
	w, err := artifacts.Open(ctx(t, 10*time.Second), c.as(t, events.ServiceLibrarian).js)
	if err != nil {
		t.Fatal(err)
	}
	var refs []events.ArtifactRef
	for _, data := range [][]byte{[]byte("small"), bytes.Repeat([]byte("large"), 60<<10)} {
		ref, err := w.PutNew(ctx(t, 10*time.Second), "lost", data)
		if err != nil {
			t.Fatal(err)
		}
		refs = append(refs, ref)
	}
	natstest.PurgeArtifactChunks(t, ctx(t, 10*time.Second), c.as(t, natsauth.Admin).js)
	for _, name := range []string{natsauth.CLI, events.ServiceArchitect, events.ServiceBuilder, events.ServiceCritic} {
		id := c.as(t, name)
		s, err := artifacts.Open(ctx(t, 10*time.Second), id.js)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for _, ref := range refs {
			if _, err := s.Get(ctx(t, 10*time.Second), ref); !errors.Is(err, artifacts.ErrLost) {
				t.Errorf("%s reading %s (%d bytes) whose chunks are gone: %v, want ErrLost", name, ref.Name, ref.Size, err)
			}
		}
		id.mu.Lock()
		if len(id.errs) > 0 {
			t.Errorf("%s: %v", name, id.errs)
		}
		id.mu.Unlock()
	}
}
