package events_test

import (
	"errors"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
)

func TestKeyedEventsDecode(t *testing.T) {
	d := events.ApprovalDecidedData{Call: "a1-s2-c1", Decision: events.DecisionApprove, By: "alice"}
	e, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, "a1-s2-c1", "agent/x", time.Now(), d)
	if err != nil {
		t.Fatal(err)
	}
	if e.ID != "run1.approval_decided.1.a1-s2-c1" || events.KeyOf(e) != "a1-s2-c1" {
		t.Fatalf("id %q key %q", e.ID, events.KeyOf(e))
	}
	raw, err := e.Encode(0)
	if err != nil {
		t.Fatal(err)
	}
	subj := events.KindApprovalDecided.Subject("run1")
	if _, err := (events.Decoder{}).Decode(subj, raw); err != nil {
		t.Fatalf("keyed event does not decode: %v", err)
	}
	for name, id := range map[string]string{
		"no key":     "run1.approval_decided.1",
		"empty key":  "run1.approval_decided.1.",
		"bad key":    "run1.approval_decided.1.a b",
		"other run":  "run2.approval_decided.1.k",
		"wrong kind": "run1.plan.1.k",
	} {
		bad := e
		bad.ID = id
		raw, _ := bad.Encode(0)
		if _, err := (events.Decoder{}).Decode(subj, raw); !errors.Is(err, events.ErrSubjectMismatch) {
			t.Errorf("%s: %v, want ErrSubjectMismatch", name, err)
		}
	}
	if _, err := events.NewKeyed("run1", events.KindPlan, 1, "k", "x", time.Now(), d); err == nil {
		t.Error("a plan event got a key")
	}
	// A decision carries no request and still belongs to its run.
	if err := events.CheckBelongs(e, "digest-of-the-request"); err != nil {
		t.Errorf("a decision without a request does not belong: %v", err)
	}
}

func TestApprovalDecidedValidate(t *testing.T) {
	for name, tc := range map[string]struct {
		d  events.ApprovalDecidedData
		ok bool
	}{
		"approve":          {events.ApprovalDecidedData{Call: "c1", Decision: "approve", By: "a"}, true},
		"edit":             {events.ApprovalDecidedData{Call: "c1", Decision: "approve", By: "a", EditedArgs: []byte(`{}`)}, true},
		"reject with note": {events.ApprovalDecidedData{Call: "c1", Decision: "reject", By: "a", Note: "why"}, true},
		"reject no note":   {events.ApprovalDecidedData{Call: "c1", Decision: "reject", By: "a"}, false},
		"reject with edit": {events.ApprovalDecidedData{Call: "c1", Decision: "reject", By: "a", Note: "n", EditedArgs: []byte(`{}`)}, false},
		"no by":            {events.ApprovalDecidedData{Call: "c1", Decision: "approve"}, false},
		"bad decision":     {events.ApprovalDecidedData{Call: "c1", Decision: "maybe", By: "a"}, false},
		"bad call":         {events.ApprovalDecidedData{Call: "c 1", Decision: "approve", By: "a"}, false},
	} {
		if err := tc.d.Validate(); (err == nil) != tc.ok {
			t.Errorf("%s: Validate() = %v", name, err)
		}
	}
	v := events.VerdictData{Status: events.StatusCanceled, Integrity: events.IntegrityRed, Code: events.CodeCanceled}
	if err := v.Validate(); err != nil {
		t.Errorf("canceled verdict: %v", err)
	}
}

// TestDecodeDecisionDefaultsAt: a decision without `at` was made when it
// was published (the envelope's time); one with `at` keeps it; invalid
// data is refused as DecodeData refuses it.
func TestDecodeDecisionDefaultsAt(t *testing.T) {
	published := time.Date(2026, 11, 25, 10, 0, 0, 0, time.UTC)
	decided := time.Date(2026, 11, 25, 9, 59, 0, 0, time.UTC)
	for name, tc := range map[string]struct {
		at   time.Time
		want time.Time
	}{"without at": {time.Time{}, published}, "with at": {decided, decided}} {
		e, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, "a1-s2-c1", "agent/x", published,
			events.ApprovalDecidedData{Call: "a1-s2-c1", Decision: events.DecisionApprove, By: "alice", At: tc.at})
		if err != nil {
			t.Fatal(err)
		}
		d, err := events.DecodeDecision(e)
		if err != nil || !d.At.Equal(tc.want) {
			t.Errorf("%s: at %v, err %v; want %v", name, d.At, err, tc.want)
		}
	}
	e, err := events.NewKeyed("run1", events.KindApprovalDecided, 1, "a1-s2-c1", "agent/x", published,
		events.ApprovalDecidedData{Call: "a1-s2-c1", Decision: events.DecisionReject, By: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.DecodeDecision(e); !errors.Is(err, events.ErrInvalidPayload) {
		t.Errorf("a reject without a note: %v, want ErrInvalidPayload", err)
	}
	// Data naming another call than the event's key decides nothing.
	e, err = events.NewKeyed("run1", events.KindApprovalDecided, 1, "a1-s2-c1", "agent/x", published,
		events.ApprovalDecidedData{Call: "a1-s2-c2", Decision: events.DecisionApprove, By: "alice"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := events.DecodeDecision(e); !errors.Is(err, events.ErrInvalidPayload) {
		t.Errorf("a decision on another call than its key: %v, want ErrInvalidPayload", err)
	}
}
