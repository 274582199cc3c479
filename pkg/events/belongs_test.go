package events_test

import (
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

func TestDigestIgnoresJSONFormatting(t *testing.T) {
	a := []byte(`{"specversion":"1.0","id":"r1.requested.1","source":"agent/py","type":"dev.codali.run.requested","subject":"r1","attempt":1,"time":"2026-11-22T10:00:00Z",
	  "data":{"repo":{"path":"/srv/x"},  "request":"do it","extra":1}}`)
	b := []byte(`{"specversion":"1.0","id":"r1.requested.1","source":"agent/go","type":"dev.codali.run.requested","subject":"r1","attempt":1,"time":"2026-11-22T10:00:00Z",
	  "data":{"request":"do it","repo":{"path":"/srv/x"}}}`)
	ea, err := events.Decoder{}.Decode("codali.run.r1.requested", a)
	if err != nil {
		t.Fatal(err)
	}
	eb, err := events.Decoder{}.Decode("codali.run.r1.requested", b)
	if err != nil {
		t.Fatal(err)
	}
	ra, _ := events.RequestOf(ea)
	rb, _ := events.RequestOf(eb)
	if ra.Digest() != rb.Digest() {
		t.Fatal("the same request formatted differently has different digests")
	}
	if (events.Requested{Request: "do it!", Repo: events.RepoRef{Path: "/srv/x"}}).Digest() == ra.Digest() {
		t.Fatal("different requests share a digest")
	}
}

func TestCheckBelongs(t *testing.T) {
	now := time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)
	own := events.Requested{Request: "fix it", Repo: events.RepoRef{Path: "/srv/own"}}
	evil := events.Requested{Request: "steal", Repo: events.RepoRef{URL: "https://evil.example/x.git"}}
	mk := func(kind events.Kind, attempt int, data any) events.Envelope {
		e, err := events.New("run1", kind, attempt, "test", now, data)
		if err != nil {
			t.Fatal(err)
		}
		return e
	}
	verdict := func(req events.Requested) events.VerdictData {
		return events.VerdictData{Run: events.Run{Request: req}, Status: events.StatusFailed, Integrity: events.IntegrityRed}
	}
	cases := []struct {
		name     string
		e        events.Envelope
		conflict bool
	}{
		{"own request", mk(events.KindRequested, 1, own), false},
		{"own request as attempt 2", mk(events.KindRequested, 2, own), true},
		{"another request", mk(events.KindRequested, 1, evil), true},
		{"own plan", mk(events.KindPlan, 1, events.PlanData{Run: events.Run{Request: own}}), false},
		{"plan of another request", mk(events.KindPlan, 2, events.PlanData{Run: events.Run{Request: evil}}), true},
		{"failed carrying no request", mk(events.KindFailed, 1, verdict(events.Requested{})), false},
		{"failed of another request", mk(events.KindFailed, 1, verdict(evil)), true},
	}
	unreadable := mk(events.KindRequested, 1, own)
	unreadable.Data = []byte(`"not an object"`)
	cases = append(cases, struct {
		name     string
		e        events.Envelope
		conflict bool
	}{"unreadable request", unreadable, true})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := events.CheckBelongs(tc.e, own.Digest())
			if got := errors.Is(err, events.ErrConflict); got != tc.conflict {
				t.Fatalf("conflict = %v (%v), want %v", got, err, tc.conflict)
			}
			// The same from one decoding of the data.
			run, req, ok := events.RunAndRequestOf(tc.e)
			wantReq, wantOK := events.RequestOf(tc.e)
			if ok != wantOK || req.Digest() != wantReq.Digest() || run.Request.Digest() != events.RunOf(tc.e).Request.Digest() {
				t.Fatalf("RunAndRequestOf = %+v %+v %v, want the request %+v %v and the run of RunOf", run, req, ok, wantReq, wantOK)
			}
			err2 := events.CheckRequestBelongs(tc.e, req, ok, own.Digest())
			if got := errors.Is(err2, events.ErrConflict); got != tc.conflict {
				t.Fatalf("CheckRequestBelongs: conflict = %v (%v), want %v", got, err2, tc.conflict)
			}
		})
	}
}

func TestRunRepoUsesThePinnedCommit(t *testing.T) {
	url := events.Run{Request: events.Requested{Repo: events.RepoRef{URL: "https://h/r.git", Ref: "main"}}, Commit: "0123456789012345678901234567890123456789"}
	if got := url.Repo(); got.Ref != url.Commit || got.URL != "https://h/r.git" {
		t.Fatalf("pinned repo %+v", got)
	}
	if url.Request.Repo.Ref != "main" {
		t.Fatal("Repo changed the request")
	}
	path := events.Run{Request: events.Requested{Repo: events.RepoRef{Path: "/srv/r"}}, Commit: "abc"}
	if got := path.Repo(); got.Ref != "" || got.Path != "/srv/r" {
		t.Fatalf("a path repository got a ref: %+v", got)
	}
}
