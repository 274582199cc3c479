package pmstate

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

func TestGoldenExamplesAreBoundedAndDeduplicated(t *testing.T) {
	s, _ := newStore(t)
	ctx := testCtx(t)
	at := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	for i := 1; i <= 5; i++ {
		g := Golden{RunID: fmt.Sprintf("run-%d", i), Intent: "fix greet", Patch: strings.Repeat("x", 3*MaxGoldenPatchBytes), At: at}
		if err := s.AddGolden(ctx, "p", g, 3); err != nil {
			t.Fatal(err)
		}
	}
	// A redelivered pass replaces its example instead of adding one.
	if err := s.AddGolden(ctx, "p", Golden{RunID: "run-5", Intent: "fix greet again"}, 3); err != nil {
		t.Fatal(err)
	}
	l, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, g := range l.Golden {
		ids = append(ids, g.RunID)
	}
	if strings.Join(ids, ",") != "run-3,run-4,run-5" || l.Golden[2].Intent != "fix greet again" {
		t.Fatalf("golden %v: want the 3 newest, oldest evicted", ids)
	}
	if n := len(l.Golden[0].Patch); n > MaxGoldenPatchBytes+len("…") {
		t.Fatalf("patch of %d bytes: not bounded", n)
	}
	long := []string{strings.Repeat("d/", 2048), "short.go"}
	if err := s.AddGolden(ctx, "p", Golden{RunID: "run-6", Files: long}, 3); err != nil {
		t.Fatal(err)
	}
	if l, err = s.Learning(ctx, "p"); err != nil {
		t.Fatal(err)
	}
	if files := l.Golden[2].Files; len(files[0]) > maxLearnText+len("…") || files[1] != "short.go" || len(long[0]) != 4096 {
		t.Fatalf("file names %d bytes, %q: not bounded, or the caller's list changed", len(files[0]), files[1])
	}
	if other, _ := s.Learning(ctx, "q"); len(other.Golden) != 0 {
		t.Fatal("another project sees the examples")
	}
}

func TestDefaultGoldenBound(t *testing.T) {
	s, _ := newStore(t)
	ctx := testCtx(t)
	for i := range DefaultMaxGolden + 2 {
		if err := s.AddGolden(ctx, "p", Golden{RunID: fmt.Sprint(i), Intent: "x"}, 0); err != nil {
			t.Fatal(err)
		}
	}
	if l, _ := s.Learning(ctx, "p"); len(l.Golden) != DefaultMaxGolden || l.Golden[0].RunID != "2" {
		t.Fatalf("%d examples, first %s", len(l.Golden), l.Golden[0].RunID)
	}
}

func TestFailureSummaries(t *testing.T) {
	s, _ := newStore(t)
	ctx := testCtx(t)
	for _, f := range []Failure{{RunID: "a", Attempt: 1, Reason: "go test"}, {RunID: "a", Attempt: 1, Reason: "go test"}, {RunID: "a", Attempt: 2, Reason: "vet"}, {RunID: "b", Attempt: 1, Reason: "lint"}} {
		if err := s.AddFailure(ctx, "p", f, 2); err != nil {
			t.Fatal(err)
		}
	}
	l, _ := s.Learning(ctx, "p")
	if len(l.Failures) != 2 || l.Failures[0].Reason != "vet" || l.Failures[1].Reason != "lint" {
		t.Fatalf("failures %+v", l.Failures)
	}
	if err := s.AddFailure(ctx, "", Failure{}, 0); !errors.Is(err, ErrInvalidProject) {
		t.Fatalf("empty project: %v", err)
	}
}

func TestLearningCorrupt(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	key, _ := learnKey("p")
	if _, err := kv.Put(ctx, key, []byte("{")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Learning(ctx, "p"); !errors.Is(err, ErrCorruptState) {
		t.Fatalf("err %v", err)
	}
	if err := s.AddGolden(ctx, "p", Golden{RunID: "x"}, 0); !errors.Is(err, ErrCorruptState) {
		t.Fatalf("add on a corrupt record: %v", err)
	}
}

func TestRankGolden(t *testing.T) {
	examples := []Golden{
		{RunID: "1", Intent: "Add a --verbose flag to the CLI", Files: []string{"cmd/main.go"}},
		{RunID: "2", Intent: "Make Greet greet the world", Files: []string{"greet.go"}},
		{RunID: "3", Intent: "Fix the typo in the README"},
		{RunID: "4", Intent: "Make Greet handle empty names", Plan: "greet world", Files: []string{"greet.go"}},
	}
	got := RankGolden(examples, "Greet should greet the world when the name is empty", 2)
	if len(got) != 2 || got[0].RunID != "4" || got[1].RunID != "2" {
		t.Fatalf("ranked %+v", got)
	}
	if got := RankGolden(examples, "unrelated zebra", 3); len(got) != 0 {
		t.Fatalf("unrelated request ranked %+v", got)
	}
	if got := RankGolden(examples, "greet", 0); len(got) != 0 {
		t.Fatalf("n=0 gave %d", len(got))
	}
}

// TestLearningReadsAreCopies: a read record is the caller's own (a change
// to it reaches neither the store nor the next read, which comes from the
// decoding kept for the same bytes), and an update after reads sees the
// stored record.
func TestLearningReadsAreCopies(t *testing.T) {
	s, _ := newStore(t)
	ctx := testCtx(t)
	if err := s.AddGolden(ctx, "p", Golden{RunID: "r1", Intent: "add tests", Files: []string{"a.go"}}, 0); err != nil {
		t.Fatal(err)
	}
	first, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	first.Golden[0].Files[0] = "changed.go"
	first.Golden[0].Intent = "changed"
	first.Golden = append(first.Golden, Golden{RunID: "mine"})
	second, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(second.Golden) != 1 || second.Golden[0].Intent != "add tests" || second.Golden[0].Files[0] != "a.go" {
		t.Fatalf("a caller's change reached the next read: %+v", second.Golden)
	}
	if err := s.AddGolden(ctx, "p", Golden{RunID: "r2", Intent: "fix"}, 0); err != nil {
		t.Fatal(err)
	}
	third, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(third.Golden) != 2 || third.Golden[0].RunID != "r1" || third.Golden[0].Files[0] != "a.go" || third.Golden[1].RunID != "r2" {
		t.Fatalf("after an update: %+v", third.Golden)
	}
	if len(s.learned.m) != 1 {
		t.Errorf("%d decoded records kept, want 1", len(s.learned.m))
	}
}

// TestLearningReadsThroughTheReplicaKeyValue: with WithReplicaReads,
// Learning reads through that KeyValue while the updates read and write
// through New's; here the two are different buckets, so each read shows
// which one answered.
func TestLearningReadsThroughTheReplicaKeyValue(t *testing.T) {
	js, kv := newBucket(t)
	ctx := testCtx(t)
	other, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "pm-replica-test"})
	if err != nil {
		t.Fatal(err)
	}
	elsewhere, err := New(other)
	if err != nil {
		t.Fatal(err)
	}
	if err := elsewhere.AddFailure(ctx, "p", Failure{RunID: "r", Attempt: 1, Reason: "from the replica bucket"}, 0); err != nil {
		t.Fatal(err)
	}
	s, err := New(kv, WithReplicaReads(other))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AddFailure(ctx, "p", Failure{RunID: "r", Attempt: 1, Reason: "from the store's bucket"}, 0); err != nil {
		t.Fatal(err)
	}
	l, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Failures) != 1 || l.Failures[0].Reason != "from the replica bucket" {
		t.Fatalf("Learning read %+v, want the replica KeyValue's record", l.Failures)
	}
	// The update read New's bucket: it holds only the store's own failure.
	plain, err := New(kv)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := plain.Learning(ctx, "p"); err != nil || len(l.Failures) != 1 || l.Failures[0].Reason != "from the store's bucket" {
		t.Fatalf("the store's bucket holds %+v (%v)", l.Failures, err)
	}
}

// TestLearningKeptAfterWriteIsItsDecoding: the record an update keeps for
// the next read of the bytes it wrote is what decoding those bytes gives
// (times without monotonic reading and in the zone their offset names,
// nil and empty lists apart); a record with a string that is not UTF-8,
// which its JSON changes, is not kept, and a read decodes it.
func TestLearningKeptAfterWriteIsItsDecoding(t *testing.T) {
	s, kv := newStore(t)
	ctx := testCtx(t)
	key, err := learnKey("p")
	if err != nil {
		t.Fatal(err)
	}
	stored := func() ([]byte, Learning) {
		t.Helper()
		e, err := kv.Get(ctx, key)
		if err != nil {
			t.Fatal(err)
		}
		l, err := decodeLearning(e.Value())
		if err != nil {
			t.Fatal(err)
		}
		return e.Value(), l
	}
	zone := time.FixedZone("east", 5400)
	if err := s.AddGolden(ctx, "p", Golden{RunID: "r1", Intent: "<add> & \u2028tests", Files: []string{}, At: time.Now().In(zone)}, 0); err != nil {
		t.Fatal(err)
	}
	if err := s.AddFailure(ctx, "p", Failure{RunID: "r2", Attempt: 2, Reason: "ünïcödé", At: time.Now()}, 0); err != nil {
		t.Fatal(err)
	}
	raw, want := stored()
	kept, ok := s.learned.m[key]
	if !ok || kept.sum != sha256.Sum256(raw) {
		t.Fatal("the written record is not kept for the next read")
	}
	if !reflect.DeepEqual(kept.v, want) {
		t.Fatalf("kept %#v\ndecoded %#v", kept.v, want)
	}
	if err := s.AddGolden(ctx, "p", Golden{RunID: "r3", Intent: "bad \xff utf-8"}, 0); err != nil {
		t.Fatal(err)
	}
	raw, want = stored()
	if kept := s.learned.m[key]; kept.sum == sha256.Sum256(raw) {
		t.Fatal("a record whose JSON changes a string was kept")
	}
	got, err := s.Learning(ctx, "p")
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) || got.Golden[1].Intent != "bad \ufffd utf-8" {
		t.Fatalf("read %#v\nwant %#v", got, want)
	}
}
