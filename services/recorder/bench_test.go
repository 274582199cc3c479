package recorder

import (
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/worker"
)

// BenchmarkHandlePerEvent measures the recorder's handler per pipeline
// event, as the runtime calls it (with the delivery's stream sequence), on
// an embedded server: fold, order check, history append, run summary.
func BenchmarkHandlePerEvent(b *testing.B) {
	c := newCluster(b, `{}`)
	h, _ := c.process(b)
	runs := 0
	b.ResetTimer()
	for done := 0; done < b.N; {
		b.StopTimer()
		run := fmt.Sprintf("bench%d", runs)
		runs++
		evs := runEvents(b, run)
		seqs := c.publishAll(b, evs)
		b.StartTimer()
		for i, e := range evs {
			if done == b.N {
				break
			}
			ctx := worker.ContextWithDelivery(b.Context(), worker.Delivery{StreamSeq: seqs[i], Deliveries: 1})
			if _, err := h(ctx, e); err != nil {
				b.Fatal(err)
			}
			done++
		}
	}
}
