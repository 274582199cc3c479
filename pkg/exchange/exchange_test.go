package exchange_test

import (
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/artifacts"
	"github.com/codali-dev/codali/pkg/bus"
	"github.com/codali-dev/codali/pkg/exchange"
	"github.com/codali-dev/codali/pkg/llm"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/nats-io/nats.go/jetstream"
)

func store(t *testing.T) *artifacts.Store {
	t.Helper()
	s, _ := storeJS(t)
	return s
}

// storeJS is store and the JetStream context it is opened on.
func storeJS(t *testing.T) (*artifacts.Store, jetstream.JetStream) {
	t.Helper()
	_, _, js := natstest.StartJS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	s, err := artifacts.Open(ctx, js)
	if err != nil {
		t.Fatal(err)
	}
	return s, js
}

// answers is a provider that answers with the last message reversed, or
// fails for a message "fail".
type answers struct{}

func (answers) Complete(_ context.Context, req llm.Request) (llm.Response, error) {
	last := req.Messages[len(req.Messages)-1].Content
	if last == "fail" {
		return llm.Response{}, errors.New("boom token=sk-abcdefghijklmnopqrstuvwxyz123456")
	}
	r := []rune(last)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return llm.Response{Content: string(r), Model: "m", Usage: llm.Usage{PromptTokens: 3, CompletionTokens: 2}}, nil
}

func req(step int, msgs ...string) llm.Request {
	r := llm.Request{Phase: "architect", RunID: "run-1", Attempt: 1, Step: step, Model: "m", Temperature: 0.2, Format: "json"}
	for i, m := range msgs {
		role := "user"
		if i == 0 {
			role = "system"
		}
		r.Messages = append(r.Messages, llm.Message{Role: role, Content: m})
	}
	return r
}

func redactKey(s string) string {
	return strings.ReplaceAll(s, "sk-abcdefghijklmnopqrstuvwxyz123456", "[REDACTED]")
}

func TestHashIsCanonical(t *testing.T) {
	a := exchange.Canonical(req(1, "sys", "hello"), nil)
	b := exchange.Canonical(req(2, "sys", "hello"), nil) // step is not part of the request
	if a.Hash() != b.Hash() || len(a.Hash()) != 64 {
		t.Fatalf("equal requests hash differently: %s %s", a.Hash(), b.Hash())
	}
	for name, r := range map[string]llm.Request{
		"model":       func() llm.Request { r := req(1, "sys", "hello"); r.Model = "n"; return r }(),
		"temperature": func() llm.Request { r := req(1, "sys", "hello"); r.Temperature = 0.3; return r }(),
		"format":      func() llm.Request { r := req(1, "sys", "hello"); r.Format = ""; return r }(),
		"message":     req(1, "sys", "hello!"),
	} {
		if exchange.Canonical(r, nil).Hash() == a.Hash() {
			t.Errorf("%s change did not change the hash", name)
		}
	}
}

func TestRecordThenReplay(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	rec := exchange.NewRecorder(answers{}, s, redactKey, nil)
	col := &exchange.Collector{}
	cctx := exchange.WithCollector(ctx, col)
	resp, err := rec.Complete(cctx, req(1, "sys", "hello sk-abcdefghijklmnopqrstuvwxyz123456"))
	if err != nil || !strings.HasPrefix(resp.Content, "654321") {
		t.Fatalf("recorder changed the answer: %q %v", resp.Content, err)
	}
	if _, err := rec.Complete(cctx, req(2, "sys", "fail")); err == nil {
		t.Fatal("the provider's error was lost")
	}
	refs := col.Refs()
	if len(refs) != 2 || refs[0].Failed || !refs[1].Failed || refs[0].Step != 1 {
		t.Fatalf("refs = %+v", refs)
	}
	recs, err := exchange.Load(ctx, s, refs)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		raw := r.Request.Messages[1].Content + r.Error
		if r.Response != nil {
			raw += r.Response.Content
		}
		if strings.Contains(raw, "sk-abc") {
			t.Fatalf("secret recorded: %+v", r)
		}
	}
	if recs[0].Response.Usage.PromptTokens != 3 || recs[0].RunID != "run-1" || recs[0].Started.IsZero() {
		t.Fatalf("record = %+v", recs[0])
	}

	rp := exchange.NewReplayer(recs, redactKey)
	got, err := rp.Complete(ctx, req(1, "sys", "hello sk-abcdefghijklmnopqrstuvwxyz123456"))
	if err != nil || got.Content != recs[0].Response.Content || got.Usage.CompletionTokens != 2 {
		t.Fatalf("replayed %+v %v", got, err)
	}
	if _, err := rp.Complete(ctx, req(2, "sys", "fail")); !errors.Is(err, llm.ErrRejected) || errors.Is(err, exchange.ErrDrift) {
		t.Fatalf("recorded failure replayed as %v", err)
	}
	_, err = rp.Complete(ctx, req(1, "sys", "hello world"))
	var d *exchange.DriftError
	if !errors.As(err, &d) || !errors.Is(err, exchange.ErrDrift) || !errors.Is(err, llm.ErrRejected) {
		t.Fatalf("drift err = %v", err)
	}
	if d.Field != "messages[1].content" || !strings.Contains(d.Got, "world") || d.Step != 1 {
		t.Fatalf("drift = %+v", d)
	}
	if _, err := rp.Complete(ctx, req(9, "sys", "other")); !errors.As(err, &d) || d.Field != "request" {
		t.Fatalf("drift at an unrecorded step = %v", err)
	}
	if rp.Served() != 1 || len(rp.Drifts()) != 2 {
		t.Fatalf("served %d drifts %d", rp.Served(), len(rp.Drifts()))
	}
}

func TestLoadRejectsBadRecords(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	rec := exchange.NewRecorder(answers{}, s, nil, nil)
	col := &exchange.Collector{}
	if _, err := rec.Complete(exchange.WithCollector(ctx, col), req(1, "sys", "x")); err != nil {
		t.Fatal(err)
	}
	refs := col.Refs()
	refs[0].Hash = "0000"
	if _, err := exchange.Load(ctx, s, refs); !errors.Is(err, exchange.ErrBadRecord) {
		t.Fatalf("err = %v", err)
	}
	ref, err := s.Put(ctx, exchange.Prefix, []byte("not json"))
	if err != nil {
		t.Fatal(err)
	}
	refs[0].Ref = ref
	if _, err := exchange.Load(ctx, s, refs); !errors.Is(err, exchange.ErrBadRecord) {
		t.Fatalf("err = %v", err)
	}
	refs[0].Ref.Name += "x"
	if _, err := exchange.Load(ctx, s, refs); !errors.Is(err, artifacts.ErrNotFound) {
		t.Fatalf("err = %v", err)
	}
}

// TestLoadOfARecordWhoseContentIsGone: a record whose object's chunks
// are gone (here purged; the bucket's TTL expires them alike) fails to
// load with the store's ErrLost, which IsLost tells as permanent.
func TestLoadOfARecordWhoseContentIsGone(t *testing.T) {
	ctx := context.Background()
	s, js := storeJS(t)
	rec := exchange.NewRecorder(answers{}, s, nil, nil)
	col := &exchange.Collector{}
	if _, err := rec.Complete(exchange.WithCollector(ctx, col), req(1, "sys", "x")); err != nil {
		t.Fatal(err)
	}
	natstest.PurgeArtifactChunks(t, ctx, js)
	lctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if _, err := exchange.Load(lctx, s, col.Refs()); !errors.Is(err, artifacts.ErrLost) || !artifacts.IsLost(err) {
		t.Fatalf("err = %v, want ErrLost", err)
	}
}

func TestFirstDifference(t *testing.T) {
	base := exchange.Canonical(req(1, "sys", "abc"), nil)
	for _, tc := range []struct {
		name  string
		edit  func(*exchange.Request)
		field string
	}{
		{"equal", func(*exchange.Request) {}, ""},
		{"model", func(r *exchange.Request) { r.Model = "x" }, "model"},
		{"temperature", func(r *exchange.Request) { r.Temperature = 1 }, "temperature"},
		{"format", func(r *exchange.Request) { r.Format = "" }, "format"},
		{"max tokens", func(r *exchange.Request) { r.MaxTokens = 5 }, "max_tokens"},
		{"role", func(r *exchange.Request) { r.Messages[1].Role = "assistant" }, "messages[1].role"},
		{"content", func(r *exchange.Request) { r.Messages[0].Content = "sys2" }, "messages[0].content"},
		{"count", func(r *exchange.Request) { r.Messages = append(r.Messages, llm.Message{Role: "user"}) }, "messages"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := exchange.Canonical(req(1, "sys", "abc"), nil)
			tc.edit(&b)
			if f, _, _ := exchange.FirstDifference(base, b); f != tc.field {
				t.Fatalf("field = %q, want %q", f, tc.field)
			}
		})
	}
}

func TestRecorderFailsWhenTheRecordCannotBeStored(t *testing.T) {
	ctx := context.Background()
	s := unreachableStore(t)
	col := &exchange.Collector{}
	_, err := exchange.NewRecorder(answers{}, s, nil, nil).Complete(exchange.WithCollector(ctx, col), req(1, "sys", "x"))
	if !errors.Is(err, llm.ErrUnavailable) || len(col.Refs()) != 0 {
		t.Fatalf("err = %v, refs %d", err, len(col.Refs()))
	}
}

func TestHashIgnoresPrintedDurations(t *testing.T) {
	a := exchange.Canonical(req(1, "sys", "FAIL\texample/hello\t0.002s\n--- FAIL: TestX (0.00s) took 15ms"), nil)
	b := exchange.Canonical(req(1, "sys", "FAIL\texample/hello\t0.104s\n--- FAIL: TestX (1.20s) took 3ms"), nil)
	if a.Hash() != b.Hash() {
		t.Fatal("durations changed the hash")
	}
	for _, other := range []string{"FAIL\texample/hello\t0.002s\n--- FAIL: TestY (0.00s) took 15ms", "timeout 5s", "timeout 6s"} {
		if exchange.Canonical(req(1, "sys", other), nil).Hash() == a.Hash() {
			t.Fatalf("%q hashes like %q", other, a.Messages[1].Content)
		}
	}
	if exchange.Canonical(req(1, "sys", "timeout 5s"), nil).Hash() == exchange.Canonical(req(1, "sys", "timeout 6s"), nil).Hash() {
		t.Fatal("whole seconds were masked")
	}
}

// TestDeferredCollector: with a deferred collector the calls return before
// their records are stored; Wait gives the stored records' references in
// call order, the provider's failures included, and says when a record
// could not be stored, which the call itself then did not report.
func TestDeferredCollector(t *testing.T) {
	ctx := context.Background()
	s := store(t)
	rec := exchange.NewRecorder(answers{}, s, redactKey, nil)
	col := &exchange.Collector{Deferred: true}
	cctx := exchange.WithCollector(ctx, col)
	for step := 1; step <= 4; step++ {
		msg := "hello"
		if step == 3 {
			msg = "fail"
		}
		if _, err := rec.Complete(cctx, req(step, "sys", msg)); (err != nil) != (step == 3) {
			t.Fatalf("step %d: %v", step, err)
		}
	}
	refs, err := col.Wait()
	if err != nil || len(refs) != 4 {
		t.Fatalf("refs %+v, err %v", refs, err)
	}
	for i, r := range refs {
		if r.Step != i+1 || r.Failed != (i == 2) {
			t.Errorf("ref %d = %+v", i, r)
		}
	}
	if _, err := exchange.Load(ctx, s, refs); err != nil {
		t.Fatalf("records not stored: %v", err)
	}

	broken := unreachableStore(t)
	col = &exchange.Collector{Deferred: true}
	if _, err := exchange.NewRecorder(answers{}, broken, nil, nil).Complete(exchange.WithCollector(ctx, col), req(1, "sys", "x")); err != nil {
		t.Fatalf("a deferred call failed for its record: %v", err)
	}
	if refs, err := col.Wait(); !errors.Is(err, llm.ErrUnavailable) || len(refs) != 0 {
		t.Fatalf("refs %+v, err %v; want none and llm.ErrUnavailable", refs, err)
	}
}

// TestDurationPrefilter: the cheap look for a duration's ending never
// misses a text the duration expression matches (so skipping the
// expression when it finds none changes no hash), over texts made of
// digits, units, separators and letters around them.
func TestDurationPrefilter(t *testing.T) {
	for _, s := range []string{"took 15ms", "0.002s", "3µs", "2us", "7ns", "1.5ms", "ok 0.10s\n", "5s", "s", "ms", "µs", "", "abc", "x9s"} {
		if exchange.DurationPattern().MatchString(s) && !exchange.MayHaveDuration(s) {
			t.Errorf("%q: the expression matches, the look found nothing", s)
		}
	}
	parts := []string{"0", "12", ".", "5", "s", "m", "u", "n", "µ", " ", "\n", "a", "_", "-", "é"}
	rng := rand.New(rand.NewPCG(1, 2))
	found := 0
	for range 200000 {
		var b strings.Builder
		for range 1 + rng.IntN(7) {
			b.WriteString(parts[rng.IntN(len(parts))])
		}
		s := b.String()
		match := exchange.DurationPattern().MatchString(s)
		if match && !exchange.MayHaveDuration(s) {
			t.Fatalf("%q: the expression matches, the look found nothing", s)
		}
		if match {
			found++
		}
	}
	if found == 0 {
		t.Fatal("no generated text had a duration")
	}
	for _, s := range []string{strings.Repeat("a long prompt without timings; ", 1000), "limits: 5s, 300s, 2 steps, v1.2 is out, 3ks"} {
		if exchange.MayHaveDuration(s) {
			t.Errorf("%.40q counted as a possible duration", s)
		}
	}
}

// TestDeferredFailedCallUnstoredRecord: a failed call whose record cannot
// be stored reports its own error, as without deferring, and Wait then
// reports nothing more (a handler that went on without the answer, such
// as the librarian falling back to heuristic queries, is not failed for
// it); its record is not referenced.
func TestDeferredFailedCallUnstoredRecord(t *testing.T) {
	ctx := context.Background()
	broken := unreachableStore(t)
	col := &exchange.Collector{Deferred: true}
	if _, err := exchange.NewRecorder(answers{}, broken, nil, nil).Complete(exchange.WithCollector(ctx, col), req(1, "sys", "fail")); err == nil {
		t.Fatal("the failed call returned no error")
	}
	if refs, err := col.Wait(); err != nil || len(refs) != 0 {
		t.Fatalf("refs %+v, err %v; want none and no error", refs, err)
	}
}

// unreachableStore is an artifact store whose connection is closed: every
// put fails.
func unreachableStore(t *testing.T) *artifacts.Store {
	t.Helper()
	_, nc, js := natstest.StartJS(t)
	if err := bus.Provision(context.Background(), js, bus.Topology{}, []string{}); err != nil {
		t.Fatal(err)
	}
	s, err := artifacts.Open(context.Background(), js)
	if err != nil {
		t.Fatal(err)
	}
	nc.Close()
	return s
}

// TestCollected: a handler reads the references collected so far under
// its context, once their records are stored; none without a collector;
// the error of a record that could not be stored.
func TestCollected(t *testing.T) {
	ctx := context.Background()
	if refs, err := exchange.Collected(ctx); err != nil || refs != nil {
		t.Fatalf("without a collector: %+v, %v", refs, err)
	}
	col := &exchange.Collector{Deferred: true}
	cctx := exchange.WithCollector(ctx, col)
	if _, err := exchange.NewRecorder(answers{}, store(t), nil, nil).Complete(cctx, req(1, "sys", "x")); err != nil {
		t.Fatal(err)
	}
	if refs, err := exchange.Collected(cctx); err != nil || len(refs) != 1 || refs[0].Step != 1 {
		t.Fatalf("collected %+v, %v", refs, err)
	}
	if _, err := exchange.NewRecorder(answers{}, unreachableStore(t), nil, nil).Complete(cctx, req(2, "sys", "x")); err != nil {
		t.Fatal(err)
	}
	if refs, err := exchange.Collected(cctx); !errors.Is(err, llm.ErrUnavailable) || len(refs) != 1 {
		t.Fatalf("collected %+v, %v; want the stored one and llm.ErrUnavailable", refs, err)
	}
}
