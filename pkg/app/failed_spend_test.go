package app

import (
	"context"
	"encoding/json"
	"errors"
	"math"
	"testing"
	"time"

	"github.com/codali-dev/codali/pkg/events"
	"github.com/codali-dev/codali/pkg/worker"
)

// TestFailedEventCarriesThePhasesSpend: a phase that spent model tokens
// and then failed for good (a model that kept breaking its answer's
// format) ends the run with a failed event whose spend includes that
// phase, priced by its route, as its output event would have: the run's
// spend named only the phases that had handed on (its token count did
// include the failed phase's calls).
func TestFailedEventCarriesThePhasesSpend(t *testing.T) {
	_, js := provisioned(t)
	script := writeFile(t, "script.json", `{"responses": []}`)
	cfg := parseConfig(t, `{
	  "providers": {"local": {"type": "scripted", "script": "`+script+`",
	    "pricing": {"m": {"inputPerMTok": 2, "outputPerMTok": 10}}}},
	  "routing": {"librarian": {"provider": "local", "model": "m"}}
	}`)
	d, err := NewDeps(testCtx(t), cfg, js, discard(), func() time.Time { return t0 }, noEnv, nil)
	if err != nil {
		t.Fatal(err)
	}
	usage := []events.ModelUsage{{Phase: events.ServiceLibrarian, Provider: "local", Model: "m", Calls: 2, InputTokens: 1000, OutputTokens: 500}}
	comps := []Component{
		{Name: events.ServiceLibrarian, NewHandler: func(context.Context, *Deps) (worker.Handler, error) {
			return func(context.Context, events.Envelope) ([]events.Envelope, error) {
				return nil, worker.Permanent(events.WithUsage(errors.New("the model broke its answer's format twice"), usage))
			}, nil
		}},
	}
	st, err := js.Stream(testCtx(t), events.StreamWork)
	if err != nil {
		t.Fatal(err)
	}
	var v events.VerdictData
	runComponents(t, d, comps, func() {
		publish(t, js, requestedEvent(t, "spendfail"))
		eventually(t, "the failed event", func() bool {
			m, err := st.GetLastMsgForSubject(testCtx(t), events.KindFailed.Subject("spendfail"))
			if err != nil {
				return false
			}
			var env events.Envelope
			if err := json.Unmarshal(m.Data, &env); err != nil {
				t.Fatalf("failed event: %v", err)
			}
			if err := events.DecodeData(env, &v); err != nil {
				t.Fatalf("failed event's data: %v", err)
			}
			return true
		})
	})
	got := v.Run.Spend[events.ServiceLibrarian]
	wantCost := 1000*2/1e6 + 500*10/1e6
	if got.Tokens != 1500 || math.Abs(got.Cost-wantCost) > 1e-12 {
		t.Errorf("the failed event's spend for the librarian: %+v, want 1500 tokens and cost %g (spend %+v)", got, wantCost, v.Run.Spend)
	}
}
