package main

import (
	"context"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/nats-io/nats.go"
)

// TestOutputIDsTakenFirstDoNotStallTheRun: an agent watching requests
// stores messages (on the request subject, which agents may publish)
// under the plain event ids of every output the run will have, before the
// services publish them. The work stream de-duplicates by message id
// whatever the subject; with plain ids each output would be dropped as a
// duplicate and the run would stall. Services publish under keyed ids
// (pkg/msgid), so the run completes.
func TestOutputIDsTakenFirstDoNotStallTheRun(t *testing.T) {
	p := startUp(t, fastConfig(t))
	nc, js := p.js(t)
	taken := make(chan string, 1)
	sub, err := nc.Subscribe(events.KindRequested.FilterSubject(), func(m *nats.Msg) {
		run, _, _ := events.ParseSubject(m.Subject)
		if !strings.Contains(string(m.Data), "squatted run") {
			return // the squatter's own publications
		}
		for attempt := 1; attempt <= 2; attempt++ {
			for _, k := range []events.Kind{events.KindContext, events.KindPlan, events.KindBuilt, events.KindRetry, events.KindPassed, events.KindFailed} {
				squat := nats.NewMsg(m.Subject)
				squat.Data = []byte(`{"specversion": "1.0", "id": `)
				squat.Header.Set(events.HeaderMsgID, run+"."+string(k)+"."+strconv.Itoa(attempt))
				if ack, err := js.PublishMsg(context.Background(), squat); err != nil || ack.Duplicate {
					t.Errorf("squatter publish %s: %v %+v", k, err, ack)
				}
			}
		}
		select {
		case taken <- run:
		default:
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = sub.Unsubscribe() })

	code, out, errOut := p.run(t, "submit", "--repo", helloRepo(t), "--wait", "--json", "--timeout", "3m", "squatted run")
	var run string
	select {
	case run = <-taken:
	case <-time.After(time.Minute):
		t.Fatal("the squatter never saw the request")
	}
	if code != exitOK {
		t.Fatalf("submit exited %d: %s %s\n%s", code, out, errOut, p.log.String())
	}
	env, v := decodeTerminal(t, out)
	if env.RunID() != run || v.Status != events.StatusPassed {
		t.Fatalf("run %s ended %+v (squatted run %s)", env.RunID(), v, run)
	}
}
