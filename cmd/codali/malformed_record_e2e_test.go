package main

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/codali-dev/codali/pkg/codex"
	"github.com/codali-dev/codali/pkg/events"
)

// TestMalformedRequestRecord: a request the librarian rejects as
// malformed (its message or its data does not decode, or it is invalid)
// is recorded as what happened: a run that failed where it was rejected,
// whose RL4-CODEX payload names the failure and no verification that
// failed, no retry pattern and no replan: none of them ran.
func TestMalformedRequestRecord(t *testing.T) {
	p := startUp(t, fastConfig(t))
	_, js := p.js(t)
	count := terminals(t, js)
	envelope := func(run string, data string) []byte {
		return []byte(fmt.Sprintf(`{"specversion":"1.0","id":"%s.requested.1","source":"test","type":"dev.codali.run.requested","subject":"%s","attempt":1,"datacontenttype":"application/json","data":%s}`, run, run, data))
	}
	msgs := map[string][]byte{
		"badjson":   []byte(`{"specversion": "1.0", "id": `),
		"notobject": envelope("notobject", `"x"`),
		"norepo":    envelope("norepo", `{"request":"x"}`),
	}
	for run, msg := range msgs {
		if _, err := js.Publish(context.Background(), events.KindRequested.Subject(run), msg); err != nil {
			t.Fatal(err)
		}
	}
	eventually(t, "the malformed requests' terminal events", func() bool { return len(count()) == len(msgs) })
	for run := range msgs {
		var state struct {
			Status  string `json:"status"`
			Phase   string `json:"phase"`
			Codex   string `json:"codex"`
			Verdict struct {
				Reason string `json:"reason"`
			} `json:"verdict"`
		}
		eventually(t, "the record of "+run, func() bool {
			code, out, _ := p.run(t, "rao", "replay", run, "--json")
			if code != exitOK {
				return false
			}
			var v struct {
				State json.RawMessage `json:"state"`
			}
			return json.Unmarshal([]byte(out), &v) == nil && json.Unmarshal(v.State, &state) == nil && state.Status == "failed"
		})
		if state.Phase != events.ServiceLibrarian || state.Verdict.Reason == "" {
			t.Errorf("run %s recorded as %+v", run, state)
		}
		c, _, err := codex.Decode(state.Codex)
		if err != nil {
			t.Fatalf("run %s codex %q: %v", run, state.Codex, err)
		}
		for _, label := range []string{"verify-failure", "verify-retry", "replan-with-feedback"} {
			if strings.Contains(state.Codex, label) {
				t.Errorf("run %s: its codex says %s, but nothing was verified:\n%s", run, label, state.Codex)
			}
		}
		if !slices.Contains([]string(c.TemporalContext.Actions), "fail") {
			t.Errorf("run %s: codex actions %v, want fail", run, c.TemporalContext.Actions)
		}
	}
}
