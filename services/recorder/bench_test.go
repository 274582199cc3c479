package recorder

import (
	"fmt"
	"testing"

	"github.com/codali-dev/codali/pkg/worker"
)

// BenchmarkHandlePerEvent measures the recorder's handler per pipeline
// event, as the runtime calls it (with the delivery's stream sequence), on
// an embedded server: fold, order check, history append, run summary. It
// also reports the messages the recorder's connection sends per event
// (requests: each is a round trip to the server).
func BenchmarkHandlePerEvent(b *testing.B) {
	c := newCluster(b, `{}`)
	h, d := c.process(b)
	runs := 0
	sent := d.JS.Conn().Stats().OutMsgs
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
	b.StopTimer()
	b.ReportMetric(float64(d.JS.Conn().Stats().OutMsgs-sent)/float64(b.N), "msgs/event")
}
