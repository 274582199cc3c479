package audit_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/audit"
	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/natstest"
	"github.com/codali-dev/codali/pkg/rao"
)

func TestRunsPutGetList(t *testing.T) {
	srv := startServer(t)
	runs, err := audit.OpenRuns(testCtx(t), srv.js)
	if err != nil {
		t.Fatal(err)
	}
	at := func(s int) time.Time { return t0.Add(time.Duration(s) * time.Second) }
	put := []audit.Summary{
		{RunID: "a", Status: audit.StatusPassed, Updated: at(1), Created: at(0)},
		{RunID: "b", Status: audit.StatusRunning, Updated: at(3), Created: at(0)},
		{RunID: "c", Status: audit.StatusFailed, Updated: at(2), Created: at(0)},
		{RunID: "d", Status: audit.StatusRunning, Updated: at(3), Created: at(1)},                    // ties with b: higher run id first
		{RunID: "a", Status: audit.StatusPassed, Updated: at(5), Created: at(0), Integrity: "green"}, // a moves to the top
	}
	for _, s := range put {
		if err := runs.Put(testCtx(t), s); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		limit int
		want  []string
	}{
		{"all", 0, []string{"a", "d", "b", "c"}},
		{"negative limit is all", -1, []string{"a", "d", "b", "c"}},
		{"limit", 2, []string{"a", "d"}},
		{"limit above count", 10, []string{"a", "d", "b", "c"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := runs.List(testCtx(t), tc.limit)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, s := range got {
				ids = append(ids, s.RunID)
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("List(%d) = %v, want %v", tc.limit, ids, tc.want)
			}
		})
	}
	t.Run("get the latest summary", func(t *testing.T) {
		s, err := runs.Get(testCtx(t), "a")
		if err != nil {
			t.Fatal(err)
		}
		if !s.Updated.Equal(at(5)) || s.Integrity != "green" {
			t.Errorf("Get = %+v", s)
		}
	})
	t.Run("unknown run", func(t *testing.T) {
		if _, err := runs.Get(testCtx(t), "nope"); !errors.Is(err, audit.ErrUnknownRun) {
			t.Errorf("err = %v", err)
		}
	})
	t.Run("unreadable summary", func(t *testing.T) {
		kv, err := srv.js.KeyValue(testCtx(t), events.BucketRuns)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kv.Put(testCtx(t), "junk", []byte("{")); err != nil {
			t.Fatal(err)
		}
		if _, err := runs.Get(testCtx(t), "junk"); err == nil || errors.Is(err, audit.ErrUnknownRun) || !strings.Contains(err.Error(), "unreadable") {
			t.Errorf("err = %v", err)
		}
		got, err := runs.List(testCtx(t), 0)
		if err != nil || len(got) != 4 {
			t.Errorf("List with an unreadable entry: %d summaries, %v", len(got), err)
		}
	})
}

func TestRunsEmptyAndMissingBucket(t *testing.T) {
	srv := startServer(t)
	runs, err := audit.OpenRuns(testCtx(t), srv.js)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := runs.List(testCtx(t), 0); err != nil || len(got) != 0 {
		t.Errorf("empty bucket: %v %v", got, err)
	}
	_, _, bare := natstest.StartJS(t) // no buckets provisioned
	if _, err := audit.OpenRuns(testCtx(t), bare); err == nil || !strings.Contains(err.Error(), events.BucketRuns) {
		t.Errorf("OpenRuns without the bucket: %v", err)
	}
}

func TestSummaryOf(t *testing.T) {
	req := &events.Requested{Request: "fix\nthe  bug " + strings.Repeat("z", 200), Repo: events.RepoRef{URL: "https://x/r.git", Ref: "main"}}
	history := []rao.Event{{TS: t0}, {TS: t0.Add(time.Second)}, {TS: t0.Add(3 * time.Second)}}
	cases := []struct {
		name    string
		st      audit.State
		history []rao.Event
		check   func(t *testing.T, s audit.Summary)
	}{
		{"new run", audit.NewState("r1"), nil, func(t *testing.T, s audit.Summary) {
			if s.RunID != "r1" || s.Status != audit.StatusRunning || s.Events != 0 || !s.Created.IsZero() || s.Request != "" {
				t.Errorf("%+v", s)
			}
		}},
		{"ended run", audit.State{RunID: "r2", Project: "p", Status: audit.StatusPassed, Phase: "critic", Attempt: 2, Request: req,
			Verdict: &audit.Verdict{Integrity: "amber", Reason: "ok\nfine"}}, history, func(t *testing.T, s audit.Summary) {
			if s.Project != "p" || s.Status != audit.StatusPassed || s.Phase != "critic" || s.Attempt != 2 || s.Events != 3 ||
				s.Integrity != "amber" || s.Reason != "ok fine" || s.Repo != "https://x/r.git@main" {
				t.Errorf("%+v", s)
			}
			if !s.Created.Equal(t0) || !s.Updated.Equal(t0.Add(3*time.Second)) {
				t.Errorf("created %v updated %v", s.Created, s.Updated)
			}
			if !strings.HasPrefix(s.Request, "fix the bug z") || len(s.Request) != 120+len("…") {
				t.Errorf("request %q not shortened to one line of 120", s.Request)
			}
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.check(t, audit.SummaryOf(tc.st, tc.history))
		})
	}
}

func TestCrossCheck(t *testing.T) {
	h := make([]rao.Event, 0, 3)
	b := rao.Builder{RunID: "x", CheckpointEvery: 2}
	var prev *rao.Event
	state := []byte("{}")
	for i := 1; i <= 3; i++ {
		next := []byte(fmt.Sprintf(`{"n":%d}`, i))
		ev, err := b.Next(prev, state, next, rao.KindRun, fmt.Sprintf("c%d", i), "s", rao.Meta{}, t0)
		if err != nil {
			t.Fatal(err)
		}
		h = append(h, ev)
		prev, state = &h[len(h)-1], next
	}
	sum := audit.SummaryOf(audit.NewState("x"), h)
	if got := audit.CrossCheck(sum, h); len(got) != 0 {
		t.Fatalf("intact history flagged: %v", got)
	}
	if got := audit.CrossCheck(sum, h[:2]); len(got) != 1 || !strings.Contains(got[0], "ends at event 2") {
		t.Fatalf("removed tail: %v", got)
	}
	forged := append(append([]rao.Event(nil), h[:2]...), h[2])
	forged[2].Summary = "rewritten"
	if got := audit.CrossCheck(sum, forged); len(got) != 1 || !strings.Contains(got[0], "modified") {
		t.Fatalf("rewritten head: %v", got)
	}
	if got := audit.CrossCheck(sum, h[1:]); len(got) != 1 || !strings.Contains(got[0], "starts at event 2") {
		t.Fatalf("removed prefix: %v", got)
	}
}

// TestRunsPutAfterAnotherWriter: a process writes a run's summary, another
// process writes a newer one; the first process's next, older summary
// must not replace it, and its next newer one must.
func TestRunsPutAfterAnotherWriter(t *testing.T) {
	srv := startServer(t)
	mine, err := audit.OpenRuns(testCtx(t), srv.js)
	if err != nil {
		t.Fatal(err)
	}
	other, err := audit.OpenRuns(testCtx(t), srv.js)
	if err != nil {
		t.Fatal(err)
	}
	put := func(r *audit.Runs, seq uint64, phase string) {
		t.Helper()
		if err := r.Put(testCtx(t), audit.Summary{RunID: "w", Status: audit.StatusRunning, LastSeq: seq, Phase: phase}); err != nil {
			t.Fatal(err)
		}
	}
	get := func() audit.Summary {
		t.Helper()
		s, err := mine.Get(testCtx(t), "w")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	put(mine, 1, "librarian")
	put(other, 3, "builder")
	put(mine, 2, "architect") // older than what the other wrote
	if s := get(); s.LastSeq != 3 || s.Phase != "builder" {
		t.Fatalf("an older summary replaced a newer one: %+v", s)
	}
	put(mine, 4, "critic")
	if s := get(); s.LastSeq != 4 || s.Phase != "critic" {
		t.Fatalf("the newest summary was not stored: %+v", s)
	}
}
