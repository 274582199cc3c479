package recorder

import (
	"fmt"
	"testing"
)

// TestEvictedUnfoldedEventIsLookedUp: past maxOrderedRuns runs with
// events delivered and not folded (poison events pile up there), a run's
// list of unfolded events is forgotten while one of them is still being
// handled. A handler of the run already past its own lookup then notes
// where the run is folded up to; the run's next event, every earlier
// sequence delivered here, must still look its predecessors up: the
// forgotten event is not folded.
func TestEvictedUnfoldedEventIsLookedUp(t *testing.T) {
	o := newStreamOrder(nil, 0)
	// Run b's events 3, 4 and 5 are delivered; 3's handler holds the
	// run's lock (it has looked up), 4 and 5 wait for it.
	for seq := uint64(3); seq <= 5; seq++ {
		o.delivered("b", seq, true)
	}
	// Other runs' events are delivered and not folded until b is the one
	// forgotten.
	seq := uint64(6)
	for ; o.unfolded["b"] != nil; seq++ {
		if seq > 6+10*maxOrderedRuns {
			t.Fatal("run b is never forgotten")
		}
		o.delivered(fmt.Sprintf("r%d", seq), seq, true)
	}
	o.folded("b", 3, false)
	if !o.behind("b", 5) {
		t.Error("run b's event 5 does not look up: its event 4, delivered and not folded, would be recorded after it")
	}
	// Sequences delivered after the forgetting, with nothing of b in
	// between unfolded, need no lookup once b is folded up to them.
	var other string
	for r := range o.unfolded {
		other = r
		break
	}
	o.delivered("b", seq, true)
	o.delivered(other, seq+1, true)
	o.delivered("b", seq+2, true)
	o.folded("b", seq, false)
	if o.behind("b", seq+2) {
		t.Error("run b looks up with every sequence since its folded position delivered here, its own folded")
	}
}
