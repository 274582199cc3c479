package builder_test

import (
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/apptest"
	"github.com/codali-dev/codali/pkg/events"
)

// TestHugeDecisionNoteKeepsTheBuiltEventBounded: a decision is published
// by any agent, with a note (and a name) as long as the event allows.
// The run goes on under the decision, and what it publishes next still
// fits in an event: the note is not copied whole into the built event.
func TestHugeDecisionNoteKeepsTheBuiltEventBounded(t *testing.T) {
	p := newParking(t, "hugenote", 1)
	call := p.parked(p.handle(p.plan, 1, 1)).Calls[0].ID
	limit := p.d.Config.Events.MaxEventBytes
	note := strings.Repeat("no ", limit/3-1000)
	dec, err := events.NewKeyed("hugenote", events.KindApprovalDecided, 1, call, "agent/evil", apptest.Now(),
		events.ApprovalDecidedData{Call: call, Decision: events.DecisionReject, By: "evil", At: apptest.Now(), Note: note})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := dec.Encode(limit); err != nil {
		t.Fatalf("the decision itself does not fit: %v", err)
	}
	outs, err := p.handle(dec, 2, 1)
	if err != nil || len(outs) != 1 {
		t.Fatalf("resume: %v (%d events)", err, len(outs))
	}
	if _, err := outs[0].Encode(limit); err != nil {
		t.Fatalf("the %s event after a decision with a %d-byte note: %v", outs[0].Type, len(note), err)
	}
}
