package rao

import (
	"bytes"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// snapshotsOfSizes returns states of growing and shrinking sizes, so a
// reused writer follows both a larger and a smaller input.
func snapshotsOfSizes() [][]byte {
	var out [][]byte
	for _, n := range []int{0, 1, 40, 3000, 70000, 5, 200000, 12} {
		out = append(out, []byte(fmt.Sprintf(`{"n":%d,"s":%q}`, n, strings.Repeat(fmt.Sprintf("x%dy", n%7), n/3))))
	}
	return out
}

// TestCompressorsWriteWhatANewWriterWrites: a lent (reset) writer gives
// the bytes a new writer gives, one after another and concurrently.
func TestCompressorsWriteWhatANewWriterWrites(t *testing.T) {
	var zs Compressors
	snaps := snapshotsOfSizes()
	for round := range 2 {
		for i, s := range snaps {
			if got, want := zs.compress(s), compressSnapshot(s); got != want {
				t.Fatalf("round %d, snapshot %d: the lent writer wrote other bytes", round, i)
			}
		}
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8*len(snaps))
	for g := range 8 {
		wg.Go(func() {
			for i := range snaps {
				s := snaps[(i+g)%len(snaps)]
				if zs.compress(s) != compressSnapshot(s) {
					errs <- fmt.Sprintf("goroutine %d: snapshot %d differs", g, (i+g)%len(snaps))
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := len(zs.idle); n > maxIdleCompressors {
		t.Errorf("%d idle writers kept, want at most %d", n, maxIdleCompressors)
	}
	var none *Compressors
	if got, want := none.compress(snaps[3]), compressSnapshot(snaps[3]); got != want {
		t.Error("a nil Compressors wrote other bytes than a new writer")
	}
}

// TestChainWithCompressorsSealsTheSameBytes: chains sharing Compressors
// seal every event, checkpoints included, as a chain without.
func TestChainWithCompressorsSealsTheSameBytes(t *testing.T) {
	zs := &Compressors{}
	plain := NewChain(Builder{RunID: "r1", CheckpointEvery: 2})
	lent := NewChain(Builder{RunID: "r1", CheckpointEvery: 2, Compressors: zs})
	other := NewChain(Builder{RunID: "r2", CheckpointEvery: 1, Compressors: zs})
	for i, s := range snapshotsOfSizes() {
		ts := time.Date(2026, 1, 1, 0, 0, i, 0, time.UTC)
		a, err := plain.NextSealed(s, KindRun, fmt.Sprintf("e%d", i), "", Meta{}, ts)
		if err != nil {
			t.Fatal(err)
		}
		b, err := lent.NextSealed(s, KindRun, fmt.Sprintf("e%d", i), "", Meta{}, ts)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Data(), b.Data()) || a.Hash() != b.Hash() {
			t.Fatalf("event %d (checkpoint %v) differs with lent compressors", i, a.Event().Checkpoint)
		}
		// Another run's checkpoints use the same writers in between.
		if _, err := other.NextSealed(s, KindRun, fmt.Sprintf("o%d", i), "", Meta{}, ts); err != nil {
			t.Fatal(err)
		}
	}
}
